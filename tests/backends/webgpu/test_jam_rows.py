"""Rows of a 2-D loop per invocation around its inner loop (`passes/jam_rows.py`,
`backends/webgpu/jam_rows.py`): the pass marks a plain matmul, the WGSL loads each `b[k, j]`
once for all rows, the results are NumPy's and bit for bit those of the unjammed shader, the
kernels it must leave alone still compute right, and the schedule prints and parses back."""

from __future__ import annotations

import contextlib
import re
import textwrap
from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import pytest

import tistudio as ti
from tests.passes.golden import check_pass
from tistudio.ir import SNode, finalize_layout, parse_ir, print_ir
from tistudio.ir.types import parse_type
from tistudio.lang import impl
from tistudio.passes import jam_rows

N = 256  # 256 inner iterations per invocation: far below lavapipe's loop limit


@contextlib.contextmanager
def gpu_program(jam: bool = True, fast_math: bool = True) -> Iterator[None]:
    """A GPU program with jammed rows printed (or not); after it, the default and ti.reset."""
    ti.init(arch=ti.gpu, fallback_to_cpu=False, offline_cache=False, fast_math=fast_math)
    device = impl.get_program().gpu.device
    device.caps = replace(device.caps, jam=jam)
    try:
        yield
    finally:
        device.caps = replace(device.caps, jam=True)
        ti.reset()


def matmul(a_np: np.ndarray, b_np: np.ndarray) -> tuple[np.ndarray, object]:
    """C = A @ B through plain Taichi loops (benchmarks/gpu/bench.py's `matmul`), and the
    kernel's compile report."""
    rows, n = a_np.shape
    a = ti.field(ti.f32, shape=(rows, n))
    b = ti.field(ti.f32, shape=(n, b_np.shape[1]))
    c = ti.field(ti.f32, shape=(rows, b_np.shape[1]))
    a.from_numpy(a_np)
    b.from_numpy(b_np)

    @ti.kernel
    def mm():
        for i, j in c:
            acc = 0.0
            for k in range(n):
                acc += a[i, k] * b[k, j]
            c[i, j] = acc

    mm()
    return c.to_numpy(), mm.compile_report()


def integers(shape: tuple[int, int], seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(-4, 5, shape).astype(np.float32)


def test_a_matmul_takes_eight_rows_per_invocation_and_loads_b_once_for_them(device):
    a_np, b_np = integers((N, N), 1), integers((N, N), 2)
    with gpu_program():
        got, report = matmul(a_np, b_np)
    assert np.array_equal(got, a_np @ b_np)  # integers: exact in any order
    record = next(x for x in report.passes if x.name == "jam_rows")
    assert record.changed and f" jam(8, stride {N}) body {{" in report.passes[-1].ir_text
    assert "unroll(" not in report.passes[-1].ir_text  # the jammed inner loop stays as it is
    wgsl = report.wgsl
    assert f"k < {N * N // 8}u;" in wgsl  # a grid-stride loop over an eighth of the indices
    inner = wgsl[wgsl.index("for (var s", wgsl.index("fn main")) :]
    inner = inner[: inner.index("\n        }\n")]  # the inner loop's body
    loads = re.findall(r"let (s\d+\w*): f32 = tree0_f32\[", inner)
    shared = [name for name in loads if "_r" not in name]
    assert len(shared) == 1 and len(loads) == 9, inner  # b[k, j] once, a[i + r, k] per row
    assert sorted(name[-3:] for name in loads if "_r" in name) == [f"_r{r}" for r in range(8)]


@pytest.mark.parametrize("rows", [N, 4 * 3, 2 * 3])
def test_jammed_floats_are_bit_for_bit_the_unjammed_shaders(device, rows):
    """Each output's sum runs in the same order either way. Without fast_math, so that no
    driver may fuse products into additions differently in the two shaders."""
    rng = np.random.default_rng(rows)
    a_np = rng.standard_normal((rows, N)).astype(np.float32)
    b_np = rng.standard_normal((N, 64)).astype(np.float32)
    results, irs = [], []
    for jam in (True, False):
        with gpu_program(jam=jam, fast_math=False):
            got, report = matmul(a_np, b_np)
        results.append(got)
        irs.append(report.passes[-1].ir_text)
        assert ("jam(" in report.wgsl) is False  # the schedule is IR, not WGSL
        assert ("_r1" in report.wgsl) is jam
    assert np.array_equal(results[0].view(np.uint32), results[1].view(np.uint32))
    factor = 8 if rows % 8 == 0 else 4 if rows % 4 == 0 else 2  # most rows that divide
    assert f" jam({factor}, stride 64) " in irs[0]
    assert np.allclose(results[0], a_np.astype(np.float64) @ b_np, rtol=1e-4, atol=1e-3)


def _fields(shape: tuple[int, int], inner: int) -> tuple:
    """Fields a (rows x inner), b (inner x cols), b's values again, c (rows x cols), y (rows),
    a and b filled with integers; and their NumPy values."""
    a_np, b_np = integers((shape[0], inner), 3), integers((inner, shape[1]), 4)
    a, b, same = (ti.field(ti.f32, shape=x.shape) for x in (a_np, b_np, b_np))
    for field, values in ((a, a_np), (b, b_np), (same, b_np)):
        field.from_numpy(values)
    c, y = ti.field(ti.f32, shape=shape), ti.field(ti.f32, shape=shape[0])
    return a, b, same, c, y, a_np, b_np


def _store_in_loop():
    """Writes b inside the loop that reads it (the values it holds)."""
    a, b, same, c, _, a_np, b_np = _fields((64, 64), 64)

    @ti.kernel
    def mm():
        for i, j in c:
            acc = 0.0
            for k in range(64):
                acc += a[i, k] * b[k, j]
                b[i, j] = same[i, j]
            c[i, j] = acc

    return mm, c, a_np @ b_np


def _store_after():
    """Writes b after the loop that reads it (the values it holds)."""
    a, b, same, c, _, a_np, b_np = _fields((64, 64), 64)

    @ti.kernel
    def mm():
        for i, j in c:
            acc = 0.0
            for k in range(64):
                acc += a[i, k] * b[k, j]
            c[i, j] = acc
            b[i, j] = same[i, j]

    return mm, c, a_np @ b_np


def _plain(shape: tuple[int, int], inner: int):
    a, b, _, c, _, a_np, b_np = _fields(shape, inner)

    @ti.kernel
    def mm():
        for i, j in c:
            acc = 0.0
            for k in range(inner):
                acc += a[i, k] * b[k, j]
            c[i, j] = acc

    return mm, c, a_np @ b_np


def _row_sums():
    """A 1-D range: no row and column."""
    a, _, _, _, y, a_np, _ = _fields((64, 64), 64)

    @ti.kernel
    def sums():
        for i in range(64):
            acc = 0.0
            for k in range(64):
                acc += a[i, k]
            y[i] = acc

    return sums, y, a_np.sum(axis=1)


LEFT_ALONE = {
    "store in loop": _store_in_loop,
    "store after": _store_after,
    "odd rows": lambda: _plain((63, 64), 64),
    "row sums": _row_sums,
    "short loop": lambda: _plain((64, 64), 63),
}


@pytest.mark.parametrize("kind", LEFT_ALONE)
def test_kernels_it_must_leave_alone_keep_their_loop_and_results(device, kind):
    with gpu_program():
        kernel, out, want = LEFT_ALONE[kind]()
        kernel()
        got = out.to_numpy()
        report = kernel.compile_report()
    assert np.array_equal(got, want)
    assert "jam(" not in report.passes[-1].ir_text
    assert not next(x for x in report.passes if x.name == "jam_rows").changed


def test_the_same_kernels_with_a_plain_body_are_jammed(device):
    """The controls of the cases above: 64 rows, 64 inner trips, a 2-D loop."""
    with gpu_program():
        kernel, out, want = _plain((64, 64), 64)
        kernel()
        assert np.array_equal(out.to_numpy(), want)
        assert " jam(8, stride 64) " in kernel.compile_report().passes[-1].ir_text


def _sums(printing: bool):
    """`c[i, j] = (j + 1) * sum(a[i, :])` over a 2 x 4 field, printing each sum or not."""
    a = ti.field(ti.i32, shape=(2, 64))
    c = ti.field(ti.i32, shape=(2, 4))
    a.from_numpy(np.arange(128, dtype=np.int32).reshape(2, 64))

    @ti.kernel
    def sums():
        for i, j in c:
            acc = 0
            for k in range(64):
                acc += a[i, k] * (j + 1)
            if ti.static(printing):
                print("sum", acc)
            c[i, j] = acc

    return sums, c


def test_a_print_keeps_the_loop_and_the_same_kernel_without_it_is_jammed(device, capfd):
    """The print's order is observable; without it the small kernel is jammed (2 rows)."""
    want = np.arange(128).reshape(2, 64).sum(axis=1)[:, None] * np.arange(1, 5)[None, :]
    for printing in (True, False):
        with gpu_program():
            kernel, c = _sums(printing)
            kernel()
            ti.sync()
            assert np.array_equal(c.to_numpy(), want)
            ir = kernel.compile_report().passes[-1].ir_text
        assert ("jam(2, stride 4)" in ir) is not printing
    printed = capfd.readouterr().out
    assert sorted(re.findall(r"sum (\d+)", printed)) == sorted(str(x) for x in want.flat)


def _matmul_ir(schedule: str = "") -> str:
    """The final IR of a 16 x 16 matmul with 64 inner trips (as the GPU pipeline makes it)."""
    return textwrap.dedent(f"""\
        $0 = offloaded range_for(0, 256){schedule} body {{
          <i32> $1 = loop $0 index 0
          <i32> $2 = const 4
          <i32> $3 = bit_sar $1 $2
          <i32> $4 = const 15
          <i32> $5 = bit_and $1 $4
          <*f32> $6 = alloca
          <f32> $7 = const 0.0
          $8 : local store [$6 <- $7]
          <i32> $9 = const 0
          <i32> $10 = const 64
          <*gen> $11 = get root [tree 0]
          <*gen> $12 = [S0root]::lookup($11, $9)
          <*gen> $13 = get child [S1dense] $12
          <i32> $14 = const 6
          <i32> $15 = bit_shl $3 $14
          <*gen> $16 = [S1dense]::lookup($13, $15)
          <*gen> $17 = get child [S3dense] $12
          $18 : for in range($9, $10) reversed=false serialize=false {{
            <i32> $19 = loop $18 index 0
            <*gen> $20 = [S1dense]::lookup($16, $19)
            <*f32> $21 = get child [S2place<f32>] $20
            <f32> $22 = global load $21
            <i32> $23 = bit_shl $19 $2
            <*gen> $24 = [S3dense]::lookup($17, $23)
            <*gen> $25 = [S3dense]::lookup($24, $5)
            <*f32> $26 = get child [S4place<f32>] $25
            <f32> $27 = global load $26
            <f32> $28 = mul $22 $27
            <f32> $29 = local load [$6]
            <f32> $30 = add $29 $28
            $31 : local store [$6 <- $30]
          }}
          <f32> $32 = local load [$6]
          <*gen> $33 = get child [S5dense] $12
          <i32> $34 = bit_shl $3 $2
          <*gen> $35 = [S5dense]::lookup($33, $34)
          <*gen> $36 = [S5dense]::lookup($35, $5)
          <*f32> $37 = get child [S6place<f32>] $36
          $38 : global store [$37 <- $32]
        }}
        """)


def _matmul_tree() -> dict[int, SNode]:
    """Tree 0: a (16 x 64), b (64 x 16), c (16 x 16), each a dense of one f32 place."""
    root = SNode(0, "root")
    nodes = [root]
    for k, shape in enumerate(((16, 64), (64, 16), (16, 16))):
        dense = root.dense((0, 1), shape, 1 + 2 * k)
        dense.place(parse_type("f32"), 2 + 2 * k)
        nodes += [dense, *dense.children]
    finalize_layout(root)
    return {node.id: node for node in nodes}


def test_the_pass_marks_the_matmul_ir_with_eight_rows_one_row_apart():
    check_pass(jam_rows, _matmul_ir(), _matmul_ir(" jam(8, stride 16)"), snodes=_matmul_tree())


def test_the_pass_leaves_a_short_inner_loop_alone():
    short = _matmul_ir().replace("const 64\n", "const 63\n", 1)
    check_pass(jam_rows, short, short, snodes=_matmul_tree())


@pytest.mark.parametrize("schedule", [" jam(8, stride 4096)", " jam(4)", " jam(2, stride 16)"])
def test_the_schedule_prints_and_parses_back(schedule):
    text = _matmul_ir(schedule)
    kernel = parse_ir(textwrap.indent(text, "  ").join(("kernel {\n", "}\n")), _matmul_tree())
    task = kernel.body.stmts[0]
    assert task.schedule.jam == int(schedule[5])
    assert task.schedule.jam_stride == (int(schedule.split()[-1][:-1]) if "stride" in text else 0)
    assert print_ir(kernel) == print_ir(parse_ir(print_ir(kernel), _matmul_tree()))
    assert schedule + " body {" in print_ir(kernel)
