"""List and dict comprehensions in kernels, unrolled at compile time as Taichi 1.7.4 does.

`[x[i] * 2 for i in range(3)]` in a kernel is not a loop in the compiled code: the transformer
runs the comprehension itself while compiling, over a compile-time iterable (a `range`, a
`ti.ndrange` with constant bounds, a vector's elements, a Python list), and builds a Python list
whose elements may be run-time values. That list then feeds `ti.Vector([...])` or
`ti.Matrix([[...] for ...])`. The loop variables are bound to the elements as they are (no
variables are declared) and live only inside the comprehension; an `if` clause must be decided
at compile time. Set comprehensions and generator expressions stay unsupported, as in Taichi.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from tistudio.frontend.errors import TaichiSyntaxError
from tistudio.frontend.operators import is_runtime
from tistudio.frontend.values import ExprVector


def list_comprehension(t: Any, node: ast.ListComp) -> list[Any]:
    """The list `[elt for ... in ... if ...]` computes, element expressions compiled in turn."""
    result: list[Any] = []
    _generate(t, node, 0, lambda: result.append(t.visit_expr(node.elt)))
    return result


def dict_comprehension(t: Any, node: ast.DictComp) -> dict[Any, Any]:
    """The dict `{key: value for ...}` computes; keys must be compile-time (hashable) values."""
    result: dict[Any, Any] = {}

    def add() -> None:
        key = t.visit_expr(node.key)
        if is_runtime(key):
            raise TaichiSyntaxError(
                "a dict comprehension's keys must be compile-time values, but this key is "
                "computed at run time",
                t.loc(node.key),
            )
        result[key] = t.visit_expr(node.value)

    _generate(t, node, 0, add)
    return result


def _generate(t: Any, node: ast.ListComp | ast.DictComp, k: int, emit: Callable[[], None]) -> None:
    """Run generator `k` (and the ones after it) of the comprehension, calling `emit` for each
    combination of elements that passes every `if` clause."""
    if k == len(node.generators):
        emit()
        return
    generator = node.generators[k]
    loc = t.loc(generator.iter)
    if generator.is_async:
        raise TaichiSyntaxError("async comprehensions are not supported in kernels", loc)
    items = t.static_items(t.visit_expr(generator.iter), loc, comprehension=True)
    for item in items:
        t.scope.push()
        try:
            t.bind_static_target(generator.target, item, loc)
            if all(_condition(t, test) for test in generator.ifs):
                _generate(t, node, k + 1, emit)
        finally:
            t.scope.pop()


def _condition(t: Any, test: ast.expr) -> bool:
    value = t.visit_expr(test)
    if is_runtime(value) or isinstance(value, ExprVector):
        raise TaichiSyntaxError(
            "a comprehension is unrolled at compile time, so its 'if' must be a compile-time "
            "condition, but this one is computed at run time; keep the element and select with "
            "ti.select(...) instead",
            t.loc(test),
        )
    return bool(value)
