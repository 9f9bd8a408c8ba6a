# [gpu] Mismatch: CPU vs GPU: return value: nan != 0.0
# scalar args [('u8', 0), ('u32', 9585349), ('u16', 360)], data seed 1384
# program: {"source": "def make(ti):\n    f1 = ti.field(ti.f16, shape=(5,))\n    f2 = ti.field(ti.u64, shape=(5,))\n\n    @ti.kernel\n    def kern(a0: ti.u8, a1: ti.u32, a2: ti.u16) -> ti.f32:\n        pass\n        for i3 in range(3):\n            v4 = (ti.cast(ti.cast(100, ti.u32) / ti.cast(ti.cast(32, ti.u8), ti.u32), ti.u32) ** ti.cast(-2, ti.u32))\n            v5 = ti.cast(-0.001, ti.f16)\n        v6 = ti.cast((ti.select(((ti.cast((ti.cast(a2, ti.f64) < ti.cast(3.0, ti.f64)), ti.f64) == ti.raw_mod(ti.cast(f2[ti.cast((ti.cast(a2, ti.i32) ** ti.cast(7, ti.i32)), ti.i32) % 5], ti.f64), ti.cast(f2[ti.cast((ti.cast(a1, ti.i32) & ti.cast(7, ti.i32)), ti.i32) % 5], ti.f64))) or (ti.cast(a0, ti.i16) >= ti.cast(65535, ti.i16))), ti.cast(a0, ti.u64), ti.cast(a0, ti.u64)) >= (f2[ti.cast(ti.cast(ti.cast(f2[ti.cast(ti.select((ti.cast(a0, ti.i8) <= ti.cast(a2, ti.i8)), ti.cast(a1, ti.i32), ti.cast(-2147483648, ti.i32)), ti.i32) % 5], ti.i32) / ti.cast(a0, ti.i32), ti.i32), ti.i32) % 5] * (ti.cast(a1, ti.u64) << f2[ti.cast((ti.cast(f2[ti.cast(ti.cast(100, ti.i32), ti.i32) % 5], ti.i32) + ti.cast(a2, ti.i32)), ti.i32) % 5]))), ti.u64)\n        return ti.cast(ti.ceil((ti.cast(a0, ti.f32) - (ti.cast(f2[ti.cast(ti.cast(f2[ti.cast((ti.cast(32, ti.i32) + ti.cast(32, ti.i32)), ti.i32) % 5], ti.i32), ti.i32) % 5], ti.f32) + ti.cast(ti.math.nan, ti.f32)) * ti.min(ti.cast(v6, ti.f32), ti.cast(v6, ti.f32)))), ti.f32)\n\n    return kern, [f1, f2]\n", "arrays": [{"name": "f1", "dtype": "f16", "shape": [5], "is_ndarray": false, "vector": 0, "exact": false, "integral": false}, {"name": "f2", "dtype": "u64", "shape": [5], "is_ndarray": false, "vector": 0, "exact": true, "integral": false}], "scalar_args": [["u8", 0], ["u32", 9585349], ["u16", 360]], "ret_type": "f32", "float_kernel": true, "data_seed": 1384}
def make(ti):
    f1 = ti.field(ti.f16, shape=(5,))
    f2 = ti.field(ti.u64, shape=(5,))

    @ti.kernel
    def kern(a0: ti.u8, a1: ti.u32, a2: ti.u16) -> ti.f32:
        pass
        for i3 in range(3):
            v4 = (ti.cast(ti.cast(100, ti.u32) / ti.cast(ti.cast(32, ti.u8), ti.u32), ti.u32) ** ti.cast(-2, ti.u32))
            v5 = ti.cast(-0.001, ti.f16)
        v6 = ti.cast((ti.select(((ti.cast((ti.cast(a2, ti.f64) < ti.cast(3.0, ti.f64)), ti.f64) == ti.raw_mod(ti.cast(f2[ti.cast((ti.cast(a2, ti.i32) ** ti.cast(7, ti.i32)), ti.i32) % 5], ti.f64), ti.cast(f2[ti.cast((ti.cast(a1, ti.i32) & ti.cast(7, ti.i32)), ti.i32) % 5], ti.f64))) or (ti.cast(a0, ti.i16) >= ti.cast(65535, ti.i16))), ti.cast(a0, ti.u64), ti.cast(a0, ti.u64)) >= (f2[ti.cast(ti.cast(ti.cast(f2[ti.cast(ti.select((ti.cast(a0, ti.i8) <= ti.cast(a2, ti.i8)), ti.cast(a1, ti.i32), ti.cast(-2147483648, ti.i32)), ti.i32) % 5], ti.i32) / ti.cast(a0, ti.i32), ti.i32), ti.i32) % 5] * (ti.cast(a1, ti.u64) << f2[ti.cast((ti.cast(f2[ti.cast(ti.cast(100, ti.i32), ti.i32) % 5], ti.i32) + ti.cast(a2, ti.i32)), ti.i32) % 5]))), ti.u64)
        return ti.cast(ti.ceil((ti.cast(a0, ti.f32) - (ti.cast(f2[ti.cast(ti.cast(f2[ti.cast((ti.cast(32, ti.i32) + ti.cast(32, ti.i32)), ti.i32) % 5], ti.i32), ti.i32) % 5], ti.f32) + ti.cast(ti.math.nan, ti.f32)) * ti.min(ti.cast(v6, ti.f32), ti.cast(v6, ti.f32)))), ti.f32)

    return kern, [f1, f2]
