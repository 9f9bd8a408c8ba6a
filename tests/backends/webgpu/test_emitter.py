"""The WGSL emitter on parsed final IR: what it writes, and that naga and lavapipe accept it."""

from __future__ import annotations

import textwrap
from dataclasses import replace

import numpy as np
import pytest

import tistudio as ti
from tistudio.backends.errors import UnsupportedOnBackend
from tistudio.backends.webgpu.device import GpuDevice
from tistudio.backends.webgpu.resources import ArgsLayout, Caps
from tistudio.backends.webgpu.shader import build_shaders
from tistudio.ir import Param, SNode, finalize_layout, parse_ir, verify
from tistudio.ir.types import parse_type
from tistudio.lang import impl
from tistudio.passes.context import PassContext
from tistudio.passes.pipeline import BACKEND_PASSES

CAPS = Caps(
    features=frozenset({"shader-f64", "shader-int64", "shader-float32-atomic", "immediates"}),
    max_storage_buffers=32,
    vectorize=False,  # the scalar code; the vec4 loops have their tests in test_vectorize.py
)


def tree(*dtypes: str, n: int = 16) -> dict[int, SNode]:
    """SNode tree 0: root 0 -> dense 1 (n cells) -> one place per dtype (ids 2, 3, ...)."""
    root = SNode(0, "root")
    dense = root.dense((0,), (n,), 1)
    for k, dtype in enumerate(dtypes):
        dense.place(parse_type(dtype), 2 + k)
    finalize_layout(root)
    return {node.id: node for node in (root, dense, *dense.children)}


def shaders(body: str, caps: Caps = CAPS, params=(), snodes=None, windows=None, rets=()):
    text = "kernel {\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), "  ") + "\n}"
    kernel = parse_ir(text, snodes)
    kernel.params = list(params)
    kernel.ret_types = [parse_type(t) for t in rets]
    verify(kernel, after="(test input)")
    for module in BACKEND_PASSES["gpu"]:  # as the pipeline ends: vectorize, unroll
        module.run(kernel, PassContext())
    return build_shaders(kernel, caps, ArgsLayout.of(kernel), windows or {})


def accepted(device, wgsl: str) -> None:
    device.device.create_shader_module(code=wgsl)  # naga validates; raises on an error


FIELD = """
<i32> $1 = loop $0 index 0
<*gen> $2 = get root [tree 0]
<i32> $3 = const 0
<*gen> $4 = [S0root]::lookup($2, $3)
<*gen> $5 = get child [S1dense] $4
<*gen> $6 = [S1dense]::lookup($5, $1)
"""


def range_task(body: str, end: int = 16) -> str:
    inner = textwrap.indent(FIELD.strip("\n") + "\n" + textwrap.dedent(body).strip("\n"), "  ")
    return f"$0 = offloaded range_for(0, {end}) body {{\n{inner}\n}}"


def test_values_are_named_after_the_ir_and_the_grid_strides(device):
    (shader,) = shaders(
        range_task("""
            <*f32> $7 = get child [S2place<f32>] $6
            <f32> $8 = global load $7
            <f32> $9 = mul $8 $8
            $10 : global store [$7 <- $9]
        """),
        snodes=tree("f32"),
    )
    assert "let s9: f32 = (s8 * s8);" in shader.wgsl
    assert "k = k + groups.x * 64u" in shader.wgsl  # a small range: workgroups of 64
    assert "var<storage, read_write> tree0_f32: array<f32>;" in shader.wgsl
    assert shader.groups == 1 and not shader.serial
    accepted(device, shader.wgsl)


def test_a_large_range_is_capped_at_max_groups():
    caps = replace(CAPS, max_groups=100)
    (shader,) = shaders(range_task("", end=10_000_000), caps=caps, snodes=tree("f32"))
    assert shader.groups == 100


def test_narrow_integers_wrap_and_live_in_words(device):
    (shader,) = shaders(
        range_task("""
            <*i8> $7 = get child [S2place<i8>] $6
            <i8> $8 = global load $7
            <i8> $9 = add $8 $8
            $10 : global store [$7 <- $9]
        """),
        snodes=tree("i8"),
    )
    assert "((s8 + s8) << 24u) >> 24u" in shader.wgsl  # i8 addition wraps
    assert "atomicAnd(&tree0_au32" in shader.wgsl and "atomicOr(&tree0_au32" in shader.wgsl
    accepted(device, shader.wgsl)


def test_division_by_zero_is_guarded():
    (shader,) = shaders(
        """
        $0 = offloaded serial body {
          <i32> $1 = argload[0]
          <i32> $2 = div $1 $1
          <i32> $3 = mod $1 $1
          $4 : return $2
        }
        """,
        params=[Param("a", "scalar", parse_type("i32"))],
        rets=["i32"],
    )
    assert "ti_div_i32(args.a0, args.a0)" in shader.wgsl
    assert "ti_mod_i32(args.a0, args.a0)" in shader.wgsl
    assert "let bad = b == z || (a == (-2147483647i - 1i) && b == -1i);" in shader.wgsl
    assert "let m = ua / select(ub, 1u, bad);" in shader.wgsl
    assert "let m = ua % select(ub, 1u, bad);" in shader.wgsl
    assert "var<immediate> args: Args;" in shader.wgsl


@pytest.mark.parametrize(
    "op, dtype, needle",
    [
        ("add", "f32", "atomicAdd(&tree0_af32"),
        ("max", "f32", "atomicCompareExchangeWeak(&tree0_au32"),
        ("add", "i32", "atomicAdd(&tree0_ai32"),
        ("mul", "i32", "atomicCompareExchangeWeak(&tree0_au32"),
        ("add", "f64", "atomicCompareExchangeWeak(&tree0_au64"),
    ],
)
def test_atomics_are_native_or_compare_exchange(device, op, dtype, needle):
    caps = CAPS
    if dtype == "f64":
        caps = replace(CAPS, features=CAPS.features | {"shader-int64-atomic-all-ops"})
    (shader,) = shaders(
        range_task(f"""
            <*{dtype}> $7 = get child [S2place<{dtype}>] $6
            <{dtype}> $8 = const 1
            <{dtype}> $9 = atomic {op}($7, $8)
        """),
        caps=caps,
        snodes=tree(dtype),
    )
    assert needle in shader.wgsl
    accepted(device, shader.wgsl)


def test_float_atomics_without_the_feature_use_compare_exchange(device):
    caps = replace(CAPS, features=CAPS.features - {"shader-float32-atomic"})
    (shader,) = shaders(
        range_task("""
            <*f32> $7 = get child [S2place<f32>] $6
            <f32> $8 = const 1.0
            <f32> $9 = atomic add($7, $8)
        """),
        caps=caps,
        snodes=tree("f32"),
    )
    assert "af32" not in shader.wgsl and "atomicCompareExchangeWeak" in shader.wgsl
    accepted(device, shader.wgsl)


def test_float_atomics_by_compare_exchange_add_up_under_contention(device):
    """The compare-exchange loops run on a device opened without `shader-float32-atomic`:
    4096 invocations adding into cells chosen at run time (so that no pass turns them into a
    reduction), neighbouring invocations into the same cell, lose no addition."""
    without = GpuDevice.open(disable=frozenset({"shader-float32-atomic"}))
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    impl.get_program().use_gpu(without)
    n = 4096
    slot = ti.field(ti.i32, shape=n)
    cells = ti.field(ti.f32, shape=8)
    top = ti.field(ti.f32, shape=8)

    @ti.kernel
    def add():
        for i in range(n):
            ti.atomic_add(cells[slot[i]], 0.5)
            ti.atomic_max(top[slot[i]], ti.cast(i, ti.f32) * 0.25)

    slot.from_numpy((np.arange(n, dtype=np.int32) // 64) % 8)  # 64 neighbours share a cell
    add()
    add()
    np.testing.assert_array_equal(cells.to_numpy(), np.full(8, 512.0, np.float32))
    last = np.array([max(i for i in range(n) if i // 64 % 8 == c) for c in range(8)])
    np.testing.assert_array_equal(top.to_numpy(), last * np.float32(0.25))
    wgsl = add.compile_report().wgsl
    assert "af32" not in wgsl and "atomicCompareExchangeWeak" in wgsl
    ti.reset()


def test_a_windowed_buffer_branches_per_window(device):
    caps = replace(CAPS, window_bytes=256)
    (shader,) = shaders(
        range_task(
            """
            <*f32> $7 = get child [S2place<f32>] $6
            <f32> $8 = global load $7
            $9 : global store [$7 <- $8]
        """,
            end=200,
        ),
        caps=caps,
        snodes=tree("f32", n=200),
        windows={"tree0": 4},
    )
    assert "tree0_f32_w3" in shader.wgsl and "} else if (" in shader.wgsl
    assert len(shader.bindings) == 4
    accepted(device, shader.wgsl)


def test_f64_without_the_feature_names_the_type():
    caps = replace(CAPS, features=frozenset({"immediates"}))
    with pytest.raises(UnsupportedOnBackend, match="f64 needs the adapter feature shader-f64"):
        shaders(
            """
            $0 = offloaded serial body {
              <f64> $1 = const 1.5
              $2 : return $1
            }
            """,
            caps=caps,
            rets=["f64"],
        )


def test_return_from_a_parallel_task_is_refused():
    with pytest.raises(UnsupportedOnBackend, match="return from a parallel task"):
        shaders(
            """
            $0 = offloaded range_for(0, 4) body {
              <i32> $1 = const 1
              $2 : return $1
            }
            """,
            rets=["i32"],
        )


@pytest.mark.parametrize("fn", ["sin", "exp", "log", "tanh", "acos"])
def test_f64_math_uses_the_wgsl_library(device, fn):
    (shader,) = shaders(
        f"""
        $0 = offloaded serial body {{
          <f64> $1 = const 0.5
          <f64> $2 = {fn} $1
          $3 : return $2
        }}
        """,
        rets=["f64"],
    )
    assert "let c1: f64 = select(0.5lf, 0.0lf, ti_never);" in shader.wgsl  # see ieee.opaque
    assert f"ti_{fn}_f64(c1)" in shader.wgsl
    accepted(device, shader.wgsl)
