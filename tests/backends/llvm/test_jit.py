"""What the JIT exposes for the studio (LLVM IR before/after O3, assembly), and that the loops
it produces are vectorised."""

from __future__ import annotations

import re

import numpy as np

from tests.backends.llvm.helpers import SAXPY, compile_text, ndarray, scalar
from tistudio.ir.config import CompileConfig


def _saxpy(backend, **config):
    return compile_text(
        backend,
        SAXPY,
        params=[scalar("a", "f32"), ndarray("x", "f32", 1), ndarray("y", "f32", 1)],
        config=CompileConfig(**config),
    )


def test_llvm_ir_before_and_after_optimisation(tiered_backend):
    ex = _saxpy(tiered_backend)
    assert "define void @" in ex.llvm_ir and "task0_range_for" in ex.llvm_ir
    assert '%"s6" = fmul fast float' in ex.llvm_ir  # values named after the printed IR ($6)
    assert "noalias" in ex.llvm_ir
    assert "x float>" in ex.llvm_ir_optimized  # the loop was vectorised
    assert "x float>" not in ex.llvm_ir


def test_assembly_is_produced_on_first_access(backend):
    ex = _saxpy(backend)
    assert ex.compiled._assembly is None
    asm = ex.assembly
    assert "task0_range_for" in asm and ("ymm" in asm or "xmm" in asm or "zmm" in asm)
    assert ex.assembly is asm


def test_without_fast_math_floats_have_no_flags(backend):
    ex = _saxpy(backend, fast_math=False)
    assert "fmul float" in ex.llvm_ir and "fast" not in ex.llvm_ir
    x = np.arange(100000, dtype=np.float32)
    y = np.ones(100000, np.float32)
    ex.launch([3.0, x, y], [])
    np.testing.assert_array_equal(y, np.float32(3.0) * x + np.float32(1.0))  # no FMA: exact


def test_opt_level_zero_still_runs(backend):
    ex = _saxpy(backend, opt_level=0)
    assert "x float>" not in ex.llvm_ir_optimized
    x = np.arange(100000, dtype=np.float32)
    y = np.zeros(100000, np.float32)
    ex.launch([2.0, x, y], [])
    np.testing.assert_allclose(y, 2 * x)


def test_arguments_are_loaded_once_outside_the_loop(backend):
    ex = _saxpy(backend)
    entry = ex.llvm_ir.split("entry:")[1].split("start:")[0]
    assert entry.count("load") == 3  # a, x data, y data (1-d arrays need no extent)
    assert "ctx" in entry


SIN = """
$0 = offloaded range_for(0, 100000) body {
  <i32> $1 = loop $0 index 0
  <*f32> $2 = external_ptr arg 0, [$1]
  <f32> $3 = global load $2
  <f32> $4 = sin $3
  <f32> $5 = exp $3
  <f32> $6 = add $4 $5
  $7 : global store [$2 <- $6]
}
"""


def test_transcendentals_vectorise_through_libmvec_with_fast_math(tiered_backend):
    library = tiered_backend.jit.vector_library
    fast = compile_text(tiered_backend, SIN, params=[ndarray("x", "f32", 1)])
    exact = compile_text(
        tiered_backend, SIN, params=[ndarray("x", "f32", 1)], config=CompileConfig(fast_math=False)
    )
    if library is not None:  # glibc with libmvec: the vector variants are called
        assert re.search(rf"call .*@_ZGV{library.isa}N\d+v_sinf", fast.llvm_ir_optimized)
        assert re.search(rf"call .*@_ZGV{library.isa}N\d+v_expf", fast.llvm_ir_optimized)
    assert "_ZGV" not in exact.llvm_ir_optimized
    x = np.linspace(-3, 3, 100000, dtype=np.float32)
    want = np.sin(x.astype(np.float64)) + np.exp(x.astype(np.float64))
    for ex in (fast, exact):
        y = x.copy()
        ex.launch([y], [])
        np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-6)
