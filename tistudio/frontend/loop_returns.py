"""`return` inside a loop of a real function, as a flag and a chain of breaks.

A function body compiles in place, inside a one-trip `while` loop that a `return` leaves with
`break` (see `funcs.py`). A `return` nested in the function's own loops must leave them all:
it sets a flag variable before its `break`, and after every loop that holds a `return` the
rewritten body tests the flag and breaks out of the loop around it, up to the one-trip loop.
"""

from __future__ import annotations

import ast
import copy

FLAG = "__ti_returned__"  # the flag variable's name in the function's scope


def has_return_in_loop(body: list[ast.stmt]) -> bool:
    return any(_loop_returns(node) for stmt in body for node in ast.walk(stmt))


def with_loop_exits(body: list[ast.stmt]) -> list[ast.stmt]:
    """A copy of `body` with `if FLAG: break` after each loop that contains a `return`."""
    return _rewrite(copy.deepcopy(body))


def _loop_returns(node: ast.AST) -> bool:
    if not isinstance(node, (ast.For, ast.While)):
        return False
    return any(isinstance(sub, ast.Return) for sub in ast.walk(node))


def _rewrite(body: list[ast.stmt]) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for stmt in body:
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                setattr(stmt, field, _rewrite(inner))
        out.append(stmt)
        if _loop_returns(stmt):
            test = ast.Name(id=FLAG, ctx=ast.Load())
            exit_ = ast.If(test=test, body=[ast.Break()], orelse=[])
            for node in ast.walk(exit_):
                ast.copy_location(node, stmt)
            out.append(exit_)
    return out
