"""What the JIT exposes for the studio (LLVM IR before/after O3, assembly), and that the loops
it produces are vectorised."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

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
    assert '%"s6" = fmul float' in ex.llvm_ir  # values named after the printed IR ($6)
    assert "noalias" in ex.llvm_ir
    assert "x float>" in ex.llvm_ir_optimized  # the loop was vectorised
    assert "x float>" not in ex.llvm_ir


def test_assembly_is_produced_on_first_access(backend):
    ex = _saxpy(backend)
    assert ex.compiled._assembly is None
    asm = ex.assembly
    assert "task0_range_for" in asm and ("ymm" in asm or "xmm" in asm or "zmm" in asm)
    assert ex.assembly is asm


@pytest.mark.parametrize("fast_math", [True, False])
def test_float_arithmetic_has_no_fast_math_flags(tiered_backend, fast_math):
    """The floating-point contract: no `contract` (an FMA in the optimised tier only), no
    `nnan`/`ninf`, in either mode; the optimised code gives the unfused, rounded results."""
    ex = _saxpy(tiered_backend, fast_math=fast_math)
    assert "fmul float" in ex.llvm_ir and "fadd float" in ex.llvm_ir
    assert not re.search(r"\b(fast|contract|nnan|ninf|arcp|afn|nsz)\b", ex.llvm_ir)
    rng = np.random.default_rng(3)
    x = rng.standard_normal(100000).astype(np.float32)
    y = rng.standard_normal(100000).astype(np.float32)
    want = np.float32(0.3) * x + y  # rounded twice, as NumPy and Taichi compute it
    ex.launch([0.3, x, y], [])
    np.testing.assert_array_equal(y, want)


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


def test_transcendentals_vectorise_through_libmvec_with_approx_math(tiered_backend):
    """libmvec only when asked for (`approx_math`); the default (fast_math, Taichi's) calls
    glibc's scalar functions, whose results Taichi's CPU code gives."""
    library = tiered_backend.jit.vector_library
    fast = compile_text(
        tiered_backend, SIN, params=[ndarray("x", "f32", 1)], config=CompileConfig(approx_math=True)
    )
    exact = compile_text(tiered_backend, SIN, params=[ndarray("x", "f32", 1)])
    if library is not None:  # glibc with libmvec: the loop calls the vector variants
        loop = re.search(r"define void @\S+_task0_range_for.*?\n}", fast.llvm_ir_optimized, re.S)
        assert re.search(rf"call .*@_ZGV{library.isa}N\d+v_sinf", loop.group(0))
        assert re.search(rf"call .*@_ZGV{library.isa}N\d+v_expf", loop.group(0))
    assert "_ZGV" not in exact.llvm_ir_optimized
    x = np.linspace(-3, 3, 100000, dtype=np.float32)
    want = np.sin(x.astype(np.float64)) + np.exp(x.astype(np.float64))
    for ex in (fast, exact):
        y = x.copy()
        ex.launch([y], [])
        np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-6)


# Loads kernels after fencing the pages past the first kernel's code and reserving 8 GiB below
# them, so that the next code block lands >2 GiB from the constants' block still in use: with
# LLVM's SectionMemoryManager, sections of one object came from separate blocks and a
# RIP-relative load of a constant failed RuntimeDyld's assertion, aborting the process (seen
# once in ~2 full test runs, at random points).
FAR_BLOCKS = r"""
import ctypes
from tistudio.backends.llvm.jit import JitEngine

jit = JitEngine()

def module(name, repeats):
    lines = [f"define float @{name}(float %x) {{", "entry:"]
    value = "%x"
    for i in range(repeats):  # constants of a float multiply and add: a constant pool
        lines.append(f"  %a{i} = fmul float {value}, 0x3FF3333340000000")
        lines.append(f"  %b{i} = fadd float %a{i}, 0x400921FB60000000")
        value = f"%b{i}"
    return "\n".join(lines + [f"  ret float {value}", "}"])

libc = ctypes.CDLL(None)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                      ctypes.c_long]
ANON_NORESERVE, FIXED_NOREPLACE, PAGE = 0x2 | 0x20 | 0x4000, 0x100000, 4096

def reserve(size, at=None):
    flags = ANON_NORESERVE | (FIXED_NOREPLACE if at else 0)
    return libc.mmap(at, size, 0, flags, -1, 0)  # PROT_NONE: address space, no memory

first = jit.compile_quick(module("f0", 1), ["f0"], suffix="").addresses[0]
for k in range(-4096, 16384):  # 16 MiB below the first code block, 64 MiB above
    if k:
        reserve(PAGE, (first & ~(PAGE - 1)) + k * PAGE)
reserve(8 << 30)
far = 0
for i in range(1, 600):
    if far >= 20:
        break
    compiled = jit.compile_quick(module(f"f{i}", 200), [f"f{i}"], suffix="")
    address = compiled.addresses[0]
    far += abs(address - first) > 1 << 31
    fn = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float)(address)
    want = 1.0
    for _ in range(200):
        want = want * 1.2000000476837158 + 3.1415927410125732  # the constants, as f32
    assert abs(fn(1.0) - want) <= 1e-4 * want, (fn(1.0), want)  # f32 rounding differs
print("far", far)
"""


def test_code_and_its_constants_stay_within_reach_however_far_memory_drifts():
    done = subprocess.run(
        [sys.executable, "-c", FAR_BLOCKS],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).parents[3],
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout.split()[-1]) > 0  # some code really was loaded >2 GiB away
