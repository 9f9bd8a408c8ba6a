"""The same generated programs on the GPU (lavapipe) and in debug mode, against the CPU.

`run_variants` runs a program on the CPU in release mode (the reference; `harness.run_program`
checks the CPU against the interpreter), then on the WebGPU back end and on the CPU with
`debug=True`. The GPU must agree with the CPU: integers bit for bit, floats to 1e-5 relative
(WGSL may round math functions differently from libm). Float kernels can still differ where a
NaN is compared (`x // 0.0 != y`): Vulkan drivers need not keep NaN semantics, so CI runs the
GPU on integer kernels, and `--gpu` campaigns report such cases too. Debug mode must agree bit
for bit where no check fails. Generated indices are always taken modulo the extent, so the only
check that can fail is an integer division by zero; when it does, the interpreter running the
same debug IR on the same data must fail too, so a check never fires where the kernel was right.
"""

from __future__ import annotations

from typing import Any

import tistudio as ti
from tistudio.ir.interpreter import interpret
from tistudio.lang import impl

from .generator import Program
from .harness import Mismatch, Outcome, compare, load

DIVISION = "Integer division by zero"


def run_variants(program: Program, gpu: bool = True, debug: bool = True) -> None:
    """Raise `Mismatch` if the GPU or debug mode disagree with the CPU on `program`."""
    reference = _release(program, ti.cpu)
    ret = program.ret_type or ""
    if gpu:
        compare(reference, _release(program, ti.vulkan), False, "CPU vs GPU", ret)
    if debug:
        checked = _debug(program)
        if checked is not None:
            compare(reference, checked, True, "CPU vs CPU in debug mode", ret)


def _release(program: Program, arch: Any) -> Outcome:
    loaded = load(program, arch=arch, fast_math=False)
    return loaded.outcome(loaded.kern(*loaded.args))


def _debug(program: Program) -> Outcome | None:
    """The debug-mode outcome, or None after a division by zero the interpreter confirms."""
    loaded = load(program, arch=ti.cpu, fast_math=False, debug=True)
    state = impl.get_program()
    state.materialize()
    trees = [t.buffer.copy() for t in state.trees]
    arrays = [a.copy() for a in loaded.arrays]
    try:
        outcome = loaded.outcome(loaded.kern(*loaded.args))
    except ti.TaichiAssertionError as error:
        if DIVISION not in str(error):
            raise Mismatch(f"a debug check failed, not for a division: {error}") from None
        outcome = None
    final = loaded.kern.instances()[0].result.final_ir
    try:
        interpret(final, [v for _, v in program.scalar_args] + arrays, trees)
    except ti.TaichiAssertionError as error:
        if outcome is None and DIVISION in str(error):
            return None
        raise Mismatch(f"the interpreter failed a check that the CPU passed: {error}") from None
    if outcome is None:
        raise Mismatch("the CPU reported a division by zero that the interpreter did not see")
    return outcome
