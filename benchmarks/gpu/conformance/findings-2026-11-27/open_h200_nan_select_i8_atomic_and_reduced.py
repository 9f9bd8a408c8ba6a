# [gpu] Mismatch: CPU vs GPU: ndarray n2: 6 of 7 elements differ (int8): [0] np.int8(4) != np.int8(0), [1] np.int8(-126) != np.int8(0), [2] np.int8(-124) != np.int8(0), [3] np.int8(-126) != np.int8(0)
# scalar args [('f64', 0.0)], data seed 3
# program: {"source": "def make(ti):\n    f1 = ti.Vector.field(2, dtype=ti.i64, shape=(8,))\n\n    @ti.kernel\n    def kern(a0: ti.f64, n2: ti.types.ndarray(dtype=ti.i8, ndim=1), n3: ti.types.ndarray(dtype=ti.i64, ndim=1)):\n        pass\n        v4 = ((-ti.cast(n3[ti.cast(ti.cast(ti.cast(ti.math.inf, ti.f64), ti.i32), ti.i32) % 4], ti.f16)) / ((-ti.cast(n3[ti.cast(ti.cast(ti.cast(ti.math.inf, ti.f64), ti.i32), ti.i32) % 4], ti.f16)) - (-ti.cast(n3[ti.cast(ti.cast(ti.cast(ti.math.inf, ti.f64), ti.i32), ti.i32) % 4], ti.f16))))\n        for i5 in range(8):\n            for j6 in range(4):\n                w7 = ti.Vector([ti.max(ti.cast(i5, ti.u32), ti.cast(-2147483648, ti.u32)), ti.cast((ti.cast(n3[i5 % 4], ti.u32) >= ti.cast(-2147483648, ti.u32)), ti.u32), ti.cast(n3[i5 % 4], ti.u32)], dt=ti.u32)\n                w7[2] = ti.cast(ti.cast(a0, ti.u32), ti.u32)\n                v8 = ti.cast(w7[2] - w7[0], ti.u32)\n            c9 = 0\n            while c9 < 3:\n                c9 += 1\n                ti.atomic_and(n2[i5 % 7], ti.select(((ti.cast(v4, ti.f32) * ti.cast(ti.math.inf, ti.f32)) != (ti.cast(v4, ti.f32) + ti.cast(v4, ti.f32))), (ti.cast(n3[ti.cast((~ti.cast(n3[ti.cast(ti.max(ti.cast(-32768, ti.i32), ti.cast(3, ti.i32)), ti.i32) % 4], ti.i32)), ti.i32) % 4], ti.i8) << ti.cast(a0, ti.i8)), ti.cast(0, ti.i8)))\n                v10 = ti.cast(0, ti.i32)\n                v11 = ti.cast(0, ti.i32)\n            v12 = ti.cast(1, ti.i32)\n            v13 = ti.cast(-1, ti.i8)\n        v4 = ti.cast(10000000000.0, ti.f16)\n\n    return kern, [f1]\n", "arrays": [{"name": "f1", "dtype": "i64", "shape": [8], "is_ndarray": false, "vector": 2, "exact": true, "integral": false}, {"name": "n2", "dtype": "i8", "shape": [7], "is_ndarray": true, "vector": 0, "exact": true, "integral": false}, {"name": "n3", "dtype": "i64", "shape": [4], "is_ndarray": true, "vector": 0, "exact": true, "integral": false}], "scalar_args": [["f64", 0.0]], "ret_type": null, "float_kernel": true, "data_seed": 3}
def make(ti):
    f1 = ti.Vector.field(2, dtype=ti.i64, shape=(8,))

    @ti.kernel
    def kern(a0: ti.f64, n2: ti.types.ndarray(dtype=ti.i8, ndim=1), n3: ti.types.ndarray(dtype=ti.i64, ndim=1)):
        pass
        v4 = ((-ti.cast(n3[ti.cast(ti.cast(ti.cast(ti.math.inf, ti.f64), ti.i32), ti.i32) % 4], ti.f16)) / ((-ti.cast(n3[ti.cast(ti.cast(ti.cast(ti.math.inf, ti.f64), ti.i32), ti.i32) % 4], ti.f16)) - (-ti.cast(n3[ti.cast(ti.cast(ti.cast(ti.math.inf, ti.f64), ti.i32), ti.i32) % 4], ti.f16))))
        for i5 in range(8):
            for j6 in range(4):
                w7 = ti.Vector([ti.max(ti.cast(i5, ti.u32), ti.cast(-2147483648, ti.u32)), ti.cast((ti.cast(n3[i5 % 4], ti.u32) >= ti.cast(-2147483648, ti.u32)), ti.u32), ti.cast(n3[i5 % 4], ti.u32)], dt=ti.u32)
                w7[2] = ti.cast(ti.cast(a0, ti.u32), ti.u32)
                v8 = ti.cast(w7[2] - w7[0], ti.u32)
            c9 = 0
            while c9 < 3:
                c9 += 1
                ti.atomic_and(n2[i5 % 7], ti.select(((ti.cast(v4, ti.f32) * ti.cast(ti.math.inf, ti.f32)) != (ti.cast(v4, ti.f32) + ti.cast(v4, ti.f32))), (ti.cast(n3[ti.cast((~ti.cast(n3[ti.cast(ti.max(ti.cast(-32768, ti.i32), ti.cast(3, ti.i32)), ti.i32) % 4], ti.i32)), ti.i32) % 4], ti.i8) << ti.cast(a0, ti.i8)), ti.cast(0, ti.i8)))
                v10 = ti.cast(0, ti.i32)
                v11 = ti.cast(0, ti.i32)
            v12 = ti.cast(1, ti.i32)
            v13 = ti.cast(-1, ti.i8)
        v4 = ti.cast(10000000000.0, ti.f16)

    return kern, [f1]
