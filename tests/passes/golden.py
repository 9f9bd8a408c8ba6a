"""`check_pass`: IR text in, pass, IR text out, verified at both ends (STYLE.md section 4)."""

from __future__ import annotations

import textwrap
from types import ModuleType

from tistudio.ir import SNode, parse_ir, print_ir, verify
from tistudio.ir.config import CompileConfig
from tistudio.passes.context import PassContext


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
) -> None:
    """Parse `before`, verify, run the pass, verify, and compare the print with `after`.

    Also checks that the pass reports `changed` exactly when the text changed, and that a second
    run changes nothing (passes reach their own fixed point).
    """
    kernel = parse_ir(_kernel_text(before), snodes)
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
