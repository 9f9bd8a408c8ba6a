# [gpu] Mismatch: CPU vs GPU: field 1: 2 of 6 elements differ (int64): [0, 0] np.int64(100) != np.int64(0), [1, 0] np.int64(4233464326268295749) != np.int64(4233464326268295713)
# scalar args [('f16', 1.0), ('i32', 0), ('f32', 0.0)], data seed 0
# program: {"source": "def make(ti):\n    f1 = ti.field(ti.f64, shape=(1,))\n    f2 = ti.field(ti.i64, shape=(2, 3))\n\n    @ti.kernel\n    def kern(a0: ti.f16, a1: ti.i32, a2: ti.f32) -> ti.u16:\n        pass\n        if (ti.cast(a0, ti.i16) >= (~ti.cast(ti.cast(a1, ti.f32), ti.i16))):\n            v3 = ti.select((ti.cast(a2, ti.u64) <= ti.cast(a2, ti.u64)), ti.cast(100, ti.i64), ti.cast(-32768, ti.i64))\n            ti.atomic_xor(f2[ti.cast(ti.select((not (ti.cast(32, ti.u64) == ti.cast(7, ti.u64))), ti.cast(f2[ti.cast((~ti.cast(100, ti.i32)), ti.i32) % 2, ti.cast((a1 | ti.cast(2, ti.i32)), ti.i32) % 3], ti.i32), ti.cast(f2[ti.cast(ti.cast(128, ti.i32), ti.i32) % 2, ti.cast((ti.cast(63, ti.i32) // ti.cast(v3, ti.i32)), ti.i32) % 3], ti.i32)), ti.i32) % 2, ti.cast((a1 << ti.cast(128, ti.i32)), ti.i32) % 3], ti.select((ti.cast(a1, ti.u64) > ti.cast(a0, ti.u64)), (f2[ti.cast(ti.cast(a2, ti.i32), ti.i32) % 2, ti.cast((ti.cast(100, ti.i32) ^ ti.cast(100, ti.i32)), ti.i32) % 3] % v3), (ti.cast(100, ti.i64) | ti.cast(a2, ti.i64))))\n        acc5 = ti.math.ivec2(0)\n        for i4 in range(4):\n            if ((ti.cast(f2[i4 % 2, i4 % 3], ti.f16) + ti.cast(f2[i4 % 2, i4 % 3], ti.f16)) >= ti.cast(ti.ceil(ti.cast(i4, ti.f16)), ti.f16)):\n                acc5 += ti.Vector([a1, ti.cast(ti.cast(f2[ti.cast(ti.abs(ti.cast(a0, ti.i32)), ti.i32) % 2, ti.cast((ti.cast(f2[i4 % 2, ti.cast(ti.cast(a2, ti.i32), ti.i32) % 3], ti.i32) + ti.cast(1, ti.i32)), ti.i32) % 3], ti.i8), ti.i32)], dt=ti.i32)\n                c6 = 0\n                while c6 < 3:\n                    c6 += 1\n                    ti.atomic_max(f1[i4 % 1], ti.cast(ti.cast((ti.cast(ti.cast(a0, ti.i32), ti.i32) - ti.cast(f2[i4 % 2, ti.cast(ti.cast((ti.cast(-ti.math.inf, ti.f64) < ti.cast(a1, ti.f64)), ti.i32), ti.i32) % 3], ti.i32)), ti.i8), ti.f64))\n                c7 = 0\n                while c7 < 2:\n                    c7 += 1\n                    ti.atomic_max(f1[i4 % 1], ti.cast(ti.cast(ti.cast(0, ti.i32), ti.i8), ti.f64))\n                    v8 = ti.cast(0, ti.u8)\n            else:\n                v9 = (ti.cast(2147483647, ti.i8) + ti.cast(0, ti.i8))\n            v10 = ti.cast(0, ti.i8)\n            v11 = ti.cast(1, ti.i8)\n            ti.atomic_max(f1[i4 % 1], ti.cast(ti.cast(ti.cast(0, ti.i32), ti.i8), ti.f64))\n        v12 = acc5.sum()\n        return ti.cast(f2[ti.cast(ti.cast(31, ti.i32), ti.i32) % 2, ti.cast(ti.cast(a0, ti.i32), ti.i32) % 3], ti.u16)\n\n    return kern, [f1, f2]\n", "arrays": [{"name": "f1", "dtype": "f64", "shape": [1], "is_ndarray": false, "vector": 0, "exact": false, "integral": false}, {"name": "f2", "dtype": "i64", "shape": [2, 3], "is_ndarray": false, "vector": 0, "exact": true, "integral": false}], "scalar_args": [["f16", 1.0], ["i32", 0], ["f32", 0.0]], "ret_type": "u16", "float_kernel": true, "data_seed": 0}
def make(ti):
    f1 = ti.field(ti.f64, shape=(1,))
    f2 = ti.field(ti.i64, shape=(2, 3))

    @ti.kernel
    def kern(a0: ti.f16, a1: ti.i32, a2: ti.f32) -> ti.u16:
        pass
        if (ti.cast(a0, ti.i16) >= (~ti.cast(ti.cast(a1, ti.f32), ti.i16))):
            v3 = ti.select((ti.cast(a2, ti.u64) <= ti.cast(a2, ti.u64)), ti.cast(100, ti.i64), ti.cast(-32768, ti.i64))
            ti.atomic_xor(f2[ti.cast(ti.select((not (ti.cast(32, ti.u64) == ti.cast(7, ti.u64))), ti.cast(f2[ti.cast((~ti.cast(100, ti.i32)), ti.i32) % 2, ti.cast((a1 | ti.cast(2, ti.i32)), ti.i32) % 3], ti.i32), ti.cast(f2[ti.cast(ti.cast(128, ti.i32), ti.i32) % 2, ti.cast((ti.cast(63, ti.i32) // ti.cast(v3, ti.i32)), ti.i32) % 3], ti.i32)), ti.i32) % 2, ti.cast((a1 << ti.cast(128, ti.i32)), ti.i32) % 3], ti.select((ti.cast(a1, ti.u64) > ti.cast(a0, ti.u64)), (f2[ti.cast(ti.cast(a2, ti.i32), ti.i32) % 2, ti.cast((ti.cast(100, ti.i32) ^ ti.cast(100, ti.i32)), ti.i32) % 3] % v3), (ti.cast(100, ti.i64) | ti.cast(a2, ti.i64))))
        acc5 = ti.math.ivec2(0)
        for i4 in range(4):
            if ((ti.cast(f2[i4 % 2, i4 % 3], ti.f16) + ti.cast(f2[i4 % 2, i4 % 3], ti.f16)) >= ti.cast(ti.ceil(ti.cast(i4, ti.f16)), ti.f16)):
                acc5 += ti.Vector([a1, ti.cast(ti.cast(f2[ti.cast(ti.abs(ti.cast(a0, ti.i32)), ti.i32) % 2, ti.cast((ti.cast(f2[i4 % 2, ti.cast(ti.cast(a2, ti.i32), ti.i32) % 3], ti.i32) + ti.cast(1, ti.i32)), ti.i32) % 3], ti.i8), ti.i32)], dt=ti.i32)
                c6 = 0
                while c6 < 3:
                    c6 += 1
                    ti.atomic_max(f1[i4 % 1], ti.cast(ti.cast((ti.cast(ti.cast(a0, ti.i32), ti.i32) - ti.cast(f2[i4 % 2, ti.cast(ti.cast((ti.cast(-ti.math.inf, ti.f64) < ti.cast(a1, ti.f64)), ti.i32), ti.i32) % 3], ti.i32)), ti.i8), ti.f64))
                c7 = 0
                while c7 < 2:
                    c7 += 1
                    ti.atomic_max(f1[i4 % 1], ti.cast(ti.cast(ti.cast(0, ti.i32), ti.i8), ti.f64))
                    v8 = ti.cast(0, ti.u8)
            else:
                v9 = (ti.cast(2147483647, ti.i8) + ti.cast(0, ti.i8))
            v10 = ti.cast(0, ti.i8)
            v11 = ti.cast(1, ti.i8)
            ti.atomic_max(f1[i4 % 1], ti.cast(ti.cast(ti.cast(0, ti.i32), ti.i8), ti.f64))
        v12 = acc5.sum()
        return ti.cast(f2[ti.cast(ti.cast(31, ti.i32), ti.i32) % 2, ti.cast(ti.cast(a0, ti.i32), ti.i32) % 3], ti.u16)

    return kern, [f1, f2]
