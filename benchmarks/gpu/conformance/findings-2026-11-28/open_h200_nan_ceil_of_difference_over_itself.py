# [gpu] Mismatch: CPU vs GPU: return value: nan != 1.0
# scalar args [('u16', 447), ('u32', 4294967295)], data seed 48910931
# program: {"source": "def make(ti):\n    f1 = ti.field(ti.f16, shape=(5,))\n    f2 = ti.field(ti.f64, shape=(2,))\n    f3 = ti.field(ti.i64, shape=(8,))\n\n    @ti.kernel\n    def kern(a0: ti.u16, a1: ti.u32) -> ti.f64:\n        pass\n        f2[ti.cast(ti.cast(f3[ti.cast(ti.cast(32, ti.i32), ti.i32) % 8], ti.i32), ti.i32) % 2] = a0\n        s5 = ti.cast(0, ti.f64)\n        acc6 = ti.math.vec3(0)\n        for i4 in range(11):\n            v7 = ((ti.select((ti.cast(-2147483648, ti.u8) < ti.cast(127, ti.u8)), ti.cast(32, ti.i8), ti.cast(12345, ti.i8)) ^ ti.abs(ti.cast(-2147483648, ti.i8))) | (ti.max(ti.cast(a0, ti.i8), ti.cast(a1, ti.i8)) << ti.cast(32, ti.i8)))\n        v8 = acc6.sum()\n        s10 = ti.cast(0, ti.i16)\n        for i9 in range(10):\n            v11 = f3[i9 % 8]\n        return ti.cast(ti.ceil((((ti.cast(f3[ti.cast((ti.cast(v8, ti.i32) << ti.cast(f3[ti.cast(ti.cast((not (ti.cast(v8, ti.f16) != ti.cast(a1, ti.f16))), ti.i32), ti.i32) % 8], ti.i32)), ti.i32) % 8], ti.f64) / ti.cast(7.75, ti.f64)) - (ti.cast(f3[ti.cast((ti.cast(v8, ti.i32) << ti.cast(f3[ti.cast(ti.cast((not (ti.cast(v8, ti.f16) != ti.cast(a1, ti.f16))), ti.i32), ti.i32) % 8], ti.i32)), ti.i32) % 8], ti.f64) / ti.cast(7.75, ti.f64))) / ((ti.cast(f3[ti.cast((ti.cast(v8, ti.i32) << ti.cast(f3[ti.cast(ti.cast((not (ti.cast(v8, ti.f16) != ti.cast(a1, ti.f16))), ti.i32), ti.i32) % 8], ti.i32)), ti.i32) % 8], ti.f64) / ti.cast(7.75, ti.f64)) - (ti.cast(f3[ti.cast((ti.cast(v8, ti.i32) << ti.cast(f3[ti.cast(ti.cast((not (ti.cast(v8, ti.f16) != ti.cast(a1, ti.f16))), ti.i32), ti.i32) % 8], ti.i32)), ti.i32) % 8], ti.f64) / ti.cast(7.75, ti.f64))))), ti.f64)\n\n    return kern, [f1, f2, f3]\n", "arrays": [{"name": "f1", "dtype": "f16", "shape": [5], "is_ndarray": false, "vector": 0, "exact": false, "integral": false}, {"name": "f2", "dtype": "f64", "shape": [2], "is_ndarray": false, "vector": 0, "exact": false, "integral": false}, {"name": "f3", "dtype": "i64", "shape": [8], "is_ndarray": false, "vector": 0, "exact": true, "integral": false}], "scalar_args": [["u16", 447], ["u32", 4294967295]], "ret_type": "f64", "float_kernel": true, "data_seed": 48910931}
def make(ti):
    f1 = ti.field(ti.f16, shape=(5,))
    f2 = ti.field(ti.f64, shape=(2,))
    f3 = ti.field(ti.i64, shape=(8,))

    @ti.kernel
    def kern(a0: ti.u16, a1: ti.u32) -> ti.f64:
        pass
        f2[ti.cast(ti.cast(f3[ti.cast(ti.cast(32, ti.i32), ti.i32) % 8], ti.i32), ti.i32) % 2] = a0
        s5 = ti.cast(0, ti.f64)
        acc6 = ti.math.vec3(0)
        for i4 in range(11):
            v7 = ((ti.select((ti.cast(-2147483648, ti.u8) < ti.cast(127, ti.u8)), ti.cast(32, ti.i8), ti.cast(12345, ti.i8)) ^ ti.abs(ti.cast(-2147483648, ti.i8))) | (ti.max(ti.cast(a0, ti.i8), ti.cast(a1, ti.i8)) << ti.cast(32, ti.i8)))
        v8 = acc6.sum()
        s10 = ti.cast(0, ti.i16)
        for i9 in range(10):
            v11 = f3[i9 % 8]
        return ti.cast(ti.ceil((((ti.cast(f3[ti.cast((ti.cast(v8, ti.i32) << ti.cast(f3[ti.cast(ti.cast((not (ti.cast(v8, ti.f16) != ti.cast(a1, ti.f16))), ti.i32), ti.i32) % 8], ti.i32)), ti.i32) % 8], ti.f64) / ti.cast(7.75, ti.f64)) - (ti.cast(f3[ti.cast((ti.cast(v8, ti.i32) << ti.cast(f3[ti.cast(ti.cast((not (ti.cast(v8, ti.f16) != ti.cast(a1, ti.f16))), ti.i32), ti.i32) % 8], ti.i32)), ti.i32) % 8], ti.f64) / ti.cast(7.75, ti.f64))) / ((ti.cast(f3[ti.cast((ti.cast(v8, ti.i32) << ti.cast(f3[ti.cast(ti.cast((not (ti.cast(v8, ti.f16) != ti.cast(a1, ti.f16))), ti.i32), ti.i32) % 8], ti.i32)), ti.i32) % 8], ti.f64) / ti.cast(7.75, ti.f64)) - (ti.cast(f3[ti.cast((ti.cast(v8, ti.i32) << ti.cast(f3[ti.cast(ti.cast((not (ti.cast(v8, ti.f16) != ti.cast(a1, ti.f16))), ti.i32), ti.i32) % 8], ti.i32)), ti.i32) % 8], ti.f64) / ti.cast(7.75, ti.f64))))), ti.f64)

    return kern, [f1, f2, f3]
