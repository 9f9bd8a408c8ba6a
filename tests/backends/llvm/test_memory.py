"""Memory: SNode trees, ndarray parameters of several shapes and dtypes, global temporaries,
and range bounds read from global temporaries."""

from __future__ import annotations

import numpy as np
import pytest

from tests.backends.llvm.helpers import Tree, compile_text, ndarray, np_dtype, scalar


def test_saxpy_on_interleaved_fields_of_one_tree(backend):
    tree = Tree(1000, "f32", "f32", "i32")
    x_lines, x = tree.ptr_text(0, "$1", 100)
    y_lines, y = tree.ptr_text(1, "$1", 110)
    c_lines, c = tree.ptr_text(2, "$1", 120)
    ex = compile_text(
        backend,
        f"""
        $0 = offloaded range_for(0, 1000) body {{
          <i32> $1 = loop $0 index 0
          {x_lines}{y_lines}{c_lines}
          <f32> $2 = global load {x}
          <f32> $3 = argload[0]
          <f32> $4 = mul $3 $2
          <f32> $5 = global load {y}
          <f32> $6 = add $4 $5
          $7 : global store [{y} <- $6]
          $8 : global store [{c} <- $1]
        }}
        """,
        params=[scalar("a", "f32")],
        snodes=tree.snodes,
    )
    rng = np.random.default_rng(0)
    tree.field(0)[:] = rng.standard_normal(1000).astype(np.float32)
    tree.field(1)[:] = rng.standard_normal(1000).astype(np.float32)
    want = np.float32(2.5) * tree.field(0) + tree.field(1)
    ex.launch([2.5], tree.roots)
    np.testing.assert_allclose(tree.field(1), want, rtol=1e-6, atol=1e-6)  # fast math: FMA
    np.testing.assert_array_equal(tree.field(2), np.arange(1000))


def test_two_trees_get_their_own_roots(backend):
    a, b = Tree(8, "i32"), Tree(8, "i32")
    # tree 1 is `b`; rename its SNodes so both trees can live in one kernel
    b.root.id, b.dense.id, b.places[0].id = 10, 11, 12
    b.root.tree_id = b.dense.tree_id = b.places[0].tree_id = 1
    ex = compile_text(
        backend,
        """
        $0 = offloaded range_for(0, 8) body {
          <i32> $1 = loop $0 index 0
          <*gen> $2 = get root [tree 0]
          <*gen> $3 = [S1dense]::lookup($2, $1)
          <*i32> $4 = get child [S2place<i32>] $3
          <*gen> $5 = get root [tree 1]
          <*gen> $6 = [S11dense]::lookup($5, $1)
          <*i32> $7 = get child [S12place<i32>] $6
          <i32> $8 = global load $4
          <i32> $9 = const 10
          <i32> $10 = mul $8 $9
          $11 : global store [$7 <- $10]
        }
        """,
        snodes={**a.snodes, 10: b.root, 11: b.dense, 12: b.places[0]},
    )
    a.field(0)[:] = np.arange(8)
    ex.launch([], [a.memory.ctypes.data, b.memory.ctypes.data])
    np.testing.assert_array_equal(b.field(0), 10 * np.arange(8))


@pytest.mark.parametrize("dtype", ["f64", "i16", "u8", "u1", "f32", "i64"])
@pytest.mark.parametrize("shape", [(5,), (4, 7), (3, 2, 5)])
def test_ndarray_parameters_row_major(backend, dtype, shape):
    """out[i, j, k] = a[i, j, k] + (flat index), written through row-major addresses."""
    ndim = len(shape)
    loops, indices, close = [], [], []
    for axis in range(ndim):
        loops.append(
            f"<i32> ${10 + axis} = external_tensor_shape_along_axis {axis}, arg 0\n"
            f"${20 + axis} : for in range($1, ${10 + axis}) reversed=false serialize=false {{\n"
            f"<i32> ${30 + axis} = loop ${20 + axis} index 0\n"
        )
        indices.append(f"${30 + axis}")
        close.append("}")
    idx = ", ".join(indices)
    ex = compile_text(
        backend,
        f"""
        $0 = offloaded serial body {{
          <i32> $1 = const 0
          <*i32> $2 = alloca
          {"".join(loops)}
          <*{dtype}> $40 = external_ptr arg 0, [{idx}]
          <*{dtype}> $41 = external_ptr arg 1, [{idx}]
          <{dtype}> $42 = global load $40
          <i32> $43 = local load [$2]
          <{dtype}> $44 = cast_value $43
          <{dtype}> $45 = bit_xor $42 $44
          <i32> $46 = const 1
          <i32> $47 = add $43 $46
          $48 : local store [$2 <- $47]
          $49 : global store [$41 <- $45]
          {chr(10).join(close)}
        }}
        """.replace("bit_xor", "bit_xor" if dtype[0] in "iu" else "add"),
        params=[ndarray("a", dtype, ndim), ndarray("out", dtype, ndim)],
    )
    size = int(np.prod(shape))
    a = (np.arange(size) * 3 % 7).reshape(shape).astype(np_dtype(dtype))
    out = np.zeros(shape, np_dtype(dtype))
    ex.launch([a, out], [])
    flat = np.arange(size).reshape(shape).astype(np_dtype(dtype))
    want = a ^ flat if dtype[0] in "iu" else a + flat
    np.testing.assert_array_equal(out, want)


def test_zero_dimensional_ndarray(backend):
    ex = compile_text(
        backend,
        """
        $0 = offloaded serial body {
          <*f64> $1 = external_ptr arg 0, []
          <f64> $2 = global load $1
          <f64> $3 = const 2.0
          <f64> $4 = mul $2 $3
          $5 : global store [$1 <- $4]
        }
        """,
        params=[ndarray("a", "f64", 0)],
    )
    a = np.array(1.25)
    ex.launch([a], [])
    assert a[()] == 2.5


def test_changing_arrays_and_shapes_between_launches(backend):
    """The cached data address must follow a new array, and the extent a reshaped one."""
    ex = compile_text(
        backend,
        """
        $0 = offloaded serial body {
          <i32> $1 = external_tensor_shape_along_axis 1, arg 0
          <i32> $2 = const 1
          <i32> $3 = const 0
          <*i32> $4 = external_ptr arg 0, [$2, $3]
          <i32> $5 = global load $4
          $6 : return $1, $5
        }
        """,
        params=[ndarray("a", "i32", 2)],
        ret_types=["i32", "i32"],
    )
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    assert ex.launch([a], []) == (4, 4)
    assert ex.launch([a], []) == (4, 4)
    a.shape = (4, 3)  # same object, new shape
    assert ex.launch([a], []) == (3, 3)
    b = np.arange(100, 112, dtype=np.int32).reshape(2, 6)
    assert ex.launch([b], []) == (6, 106)
    del a, b
    c = np.arange(200, 212, dtype=np.int32).reshape(6, 2)
    assert ex.launch([c], []) == (2, 202)


def test_global_temporaries_carry_values_between_tasks(backend):
    ex = compile_text(
        backend,
        """
        $0 = offloaded serial body {
          <*f32> $1 = global tmp var (offset = 8 B)
          <f32> $2 = argload[0]
          <f32> $3 = const 3.0
          <f32> $4 = mul $2 $3
          $5 : global store [$1 <- $4]
        }
        $6 = offloaded serial body {
          <*f32> $7 = global tmp var (offset = 8 B)
          <f32> $8 = global load $7
          $9 : return $8
        }
        """,
        params=[scalar("x", "f32")],
        ret_types=["f32"],
        gtmp_size=12,
    )
    assert ex.launch([1.5], []) == (4.5,)
    assert ex.launch([-2.0], []) == (-6.0,)


DYNAMIC_RANGE = """
$0 = offloaded serial body {
  <*i32> $1 = global tmp var (offset = 0 B)
  <i32> $2 = argload[0]
  $3 : global store [$1 <- $2]
  <*i32> $4 = global tmp var (offset = 4 B)
  <i32> $5 = argload[1]
  $6 : global store [$4 <- $5]
}
$7 = offloaded range_for(tmp(offset=0B), tmp(offset=4B)) body {
  <i32> $8 = loop $7 index 0
  <*i32> $9 = external_ptr arg 2, [$8]
  <i32> $10 = const 1
  <i32> $11 = add $8 $10
  $12 : global store [$9 <- $11]
}
"""


@pytest.mark.parametrize("begin,end", [(0, 10), (3, 3), (5, 2), (17, 50000), (0, 100000)])
def test_range_bounds_from_global_temporaries(backend, begin, end):
    _check_dynamic_range(backend, begin, end)


@pytest.mark.parametrize("begin,end", [(0, 10), (5, 2), (17, 50000)])
def test_range_bounds_from_global_temporaries_in_small_chunks(split_backend, begin, end):
    _check_dynamic_range(split_backend, begin, end)


def _check_dynamic_range(backend, begin: int, end: int) -> None:
    ex = compile_text(
        backend,
        DYNAMIC_RANGE,
        params=[scalar("begin", "i32"), scalar("end", "i32"), ndarray("out", "i32", 1)],
        gtmp_size=8,
    )
    out = np.zeros(100000, np.int32)
    ex.launch([begin, end, out], [])
    want = np.zeros(100000, np.int32)
    want[begin:end] = np.arange(begin, max(begin, end)) + 1
    np.testing.assert_array_equal(out, want)
