"""`check_pass`: IR text in, pass, IR text out, verified at both ends (STYLE.md section 4), and
the same meaning before and after the pass where the interpreter can run the IR
(`tests/passes/semantics.py`)."""

from __future__ import annotations

import textwrap
import zlib
from contextvars import ContextVar
from types import ModuleType

from tests.passes.semantics import REORDER_REDUCTIONS, Verdict, check_meaning, complete_snodes
from tistudio.ir import SNode, parse_ir, print_ir, verify
from tistudio.ir.config import CompileConfig
from tistudio.passes.context import PassContext

# where `check_pass` records its verdicts while a test runs (set by tests/passes/conftest.py)
VERDICTS: ContextVar[list[tuple[str, Verdict]]] = ContextVar("check_pass_verdicts")


def _kernel_text(body: str) -> str:
    body = textwrap.dedent(body).strip("\n")
    if body.lstrip().startswith("kernel {"):
        return body
    return "kernel {\n" + textwrap.indent(body, "  ") + "\n}"


def check_pass(
    pass_module: ModuleType,
    before: str,
    after: str,
    snodes: dict[int, SNode] | None = None,
    config: CompileConfig | None = None,
    typed: bool = True,
) -> Verdict:
    """Parse `before`, verify, run the pass, verify, and compare the print with `after`.

    Also checks that the pass reports `changed` exactly when the text changed, that a second
    run changes nothing (passes reach their own fixed point), and that the IR before and after
    the pass compute the same on generated inputs; the `Verdict` says on how many input sets,
    or why the IR could not run."""
    text = _kernel_text(before)
    snodes = complete_snodes(parse_ir(text, snodes), snodes)
    kernel = parse_ir(text, snodes)
    verify(kernel, after="(input)", typed=typed)
    original = print_ir(kernel)
    ctx = PassContext(config or CompileConfig())
    changed = pass_module.run(kernel, ctx)
    verify(kernel, after=pass_module.__name__, typed=typed)
    got = print_ir(kernel)
    want = print_ir(parse_ir(_kernel_text(after), snodes))
    assert got == want, f"\n--- got ---\n{got}\n--- want ---\n{want}"
    assert bool(changed) == (got != original), (
        f"changed={changed} but text changed={got != original}"
    )
    again = pass_module.run(kernel, ctx)
    assert not again and print_ir(kernel) == got, "a second run of the pass changed the IR again"
    seed = zlib.crc32(original.encode())
    exact = pass_module.__name__ in REORDER_REDUCTIONS
    try:
        verdict = check_meaning(parse_ir(text, snodes), kernel, snodes, seed, exact)
    except AssertionError as e:
        where = f"--- before ---\n{original}\n--- after ---\n{got}"
        raise AssertionError(f"{pass_module.__name__}: {e}\n{where}") from None
    record = VERDICTS.get(None)
    if record is not None:
        record.append((pass_module.__name__, verdict))
    return verdict
