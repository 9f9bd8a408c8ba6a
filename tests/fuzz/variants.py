"""The same generated programs on the GPU (lavapipe) and in debug mode, against the CPU.

`run_variants` runs a program on the CPU in release mode (the reference; `harness.run_program`
checks the CPU against the interpreter), then on the WebGPU back end and on the CPU with
`debug=True`, all without fast_math. The GPU must agree with the CPU: integers bit for bit, NaN
with NaN (the WebGPU back end keeps IEEE semantics for NaN and infinities without fast_math:
see tistudio/backends/webgpu/ieee.py), and other floats as `gpu_tolerance` says. Debug mode
must agree bit for bit where no check fails. Generated indices are always taken modulo the
extent, so the only check that can fail is an integer division by zero; when it does, the
interpreter running the same debug IR on the same data must fail too, so a check never fires
where the kernel was right.
"""

from __future__ import annotations

from typing import Any

import tistudio as ti
from tistudio.ir.interpreter import interpret
from tistudio.lang import impl

from .generator import TRANSCENDENTAL, Program
from .harness import TOLERANCE, Mismatch, Outcome, compare, load

DIVISION = "Integer division by zero"

# WGSL's accuracy for f32 (the spec's "Floating Point Accuracy"): + - * exact, / 2.5 ULP, but
# exp 3 + 2|x| ULP (43 ULP for the generator's |x| <= 20), pow that of exp2(y log2 x) (over
# 500 ULP for its |y log2 x| <= 192), log 3 ULP or 2^-21 absolute, sin and cos 2^-11 absolute
# (on [-pi, pi] only), tanh that of sinh / cosh. Kernels that call these compare f32 to 2^-13
# relative (1000 ULP) and 2^-11 absolute, f64 too when they also compute in f32 (a value may
# be widened after the math); the GPU's f64 functions are ours (f64math.py: 1e-13).
GPU_MATH_F32 = (2.0**-13, 2.0**-11)


def run_variants(program: Program, gpu: bool = True, debug: bool = True) -> None:
    """Raise `Mismatch` if the GPU or debug mode disagree with the CPU on `program`."""
    reference = _release(program, ti.cpu)
    ret = program.ret_type or ""
    if gpu:
        gpu = _release(program, ti.vulkan)
        compare(reference, gpu, False, "CPU vs GPU", ret, gpu_tolerance(program))
    if debug:
        checked = _debug(program)
        if checked is not None:
            compare(reference, checked, True, "CPU vs CPU in debug mode", ret)


def gpu_tolerance(program: Program) -> dict[str, tuple[float, float]]:
    """Kernels of + - * / and sqrt: the harness's tolerance (lavapipe rounds them as the CPU
    does, and WGSL allows 2.5 ULP for division on other adapters); kernels with math functions:
    what WGSL allows them (`GPU_MATH_F32`; f16 values, never arguments of math functions but
    maybe casts of their f32 results, to the harness's 4 ULP or `GPU_MATH_F32`'s absolute)."""
    if not any(fn in program.source for fn in TRANSCENDENTAL + ("**",)):
        return TOLERANCE
    f64 = GPU_MATH_F32 if "ti.f32" in program.source else TOLERANCE["f64"]
    return {"f32": GPU_MATH_F32, "f64": f64, "f16": (TOLERANCE["f16"][0], GPU_MATH_F32[1])}


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
