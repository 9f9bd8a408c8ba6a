# [gpu] Mismatch: CPU vs GPU: return value: 32 != 0
# scalar args [], data seed 980477350
# program: {"source": "def make(ti):\n    f2 = ti.Vector.field(3, dtype=ti.i64, shape=(4, 2))\n\n    @ti.kernel\n    def kern(n1: ti.types.ndarray(dtype=ti.f32, ndim=1)) -> ti.i32:\n        pass\n        v3 = ti.cast((ti.abs(ti.cast((ti.cast(1, ti.u8) == ti.cast(1, ti.u8)), ti.u16)) >= ti.cast(0, ti.u16)), ti.u64)\n        v3 ^= ti.select((ti.cast(ti.cast(v3, ti.i32), ti.u64) == ti.cast((ti.cast(v3, ti.i16) >= ti.cast(12345, ti.i16)), ti.u64)), (ti.cast(2147483647, ti.u64) // ti.cast(2147483647, ti.u64)), ti.select((ti.cast(v3, ti.u8) < ti.cast(v3, ti.u8)), v3, ti.cast(n1[ti.cast((ti.cast(7, ti.i32) & ti.cast(31, ti.i32)), ti.i32) % 4], ti.u64)))\n        return ((ti.cast(n1[ti.cast((ti.cast(v3, ti.i32) % ti.cast(v3, ti.i32)), ti.i32) % 4], ti.i32) << ti.cast(v3, ti.i32)) + (ti.cast(n1[ti.cast((ti.cast(v3, ti.i32) % ti.cast(v3, ti.i32)), ti.i32) % 4], ti.i32) << ti.cast(v3, ti.i32)))\n\n    return kern, [f2]\n", "arrays": [{"name": "n1", "dtype": "f32", "shape": [4], "is_ndarray": true, "vector": 0, "exact": true, "integral": false}, {"name": "f2", "dtype": "i64", "shape": [4, 2], "is_ndarray": false, "vector": 3, "exact": true, "integral": false}], "scalar_args": [], "ret_type": "i32", "float_kernel": true, "data_seed": 980477350}
def make(ti):
    f2 = ti.Vector.field(3, dtype=ti.i64, shape=(4, 2))

    @ti.kernel
    def kern(n1: ti.types.ndarray(dtype=ti.f32, ndim=1)) -> ti.i32:
        pass
        v3 = ti.cast((ti.abs(ti.cast((ti.cast(1, ti.u8) == ti.cast(1, ti.u8)), ti.u16)) >= ti.cast(0, ti.u16)), ti.u64)
        v3 ^= ti.select((ti.cast(ti.cast(v3, ti.i32), ti.u64) == ti.cast((ti.cast(v3, ti.i16) >= ti.cast(12345, ti.i16)), ti.u64)), (ti.cast(2147483647, ti.u64) // ti.cast(2147483647, ti.u64)), ti.select((ti.cast(v3, ti.u8) < ti.cast(v3, ti.u8)), v3, ti.cast(n1[ti.cast((ti.cast(7, ti.i32) & ti.cast(31, ti.i32)), ti.i32) % 4], ti.u64)))
        return ((ti.cast(n1[ti.cast((ti.cast(v3, ti.i32) % ti.cast(v3, ti.i32)), ti.i32) % 4], ti.i32) << ti.cast(v3, ti.i32)) + (ti.cast(n1[ti.cast((ti.cast(v3, ti.i32) % ti.cast(v3, ti.i32)), ti.i32) % 4], ti.i32) << ti.cast(v3, ti.i32)))

    return kern, [f2]
