# [gpu] Mismatch: CPU vs GPU: ndarray n2: 1 of 7 elements differ (int8): [2] np.int8(2) != np.int8(1)
# scalar args [('f64', 0.1)], data seed 89
# program: {"source": "def make(ti):\n    f1 = ti.Vector.field(2, dtype=ti.i64, shape=(8,))\n\n    @ti.kernel\n    def kern(a0: ti.f64, n2: ti.types.ndarray(dtype=ti.i8, ndim=1), n3: ti.types.ndarray(dtype=ti.i64, ndim=1)):\n        pass\n        v4 = ((-ti.cast(n3[ti.cast(ti.cast(ti.cast(-2.25, ti.f64), ti.i32), ti.i32) % 4], ti.f16)) / ((-ti.cast(n3[ti.cast(ti.cast(ti.cast(-2.25, ti.f64), ti.i32), ti.i32) % 4], ti.f16)) - (-ti.cast(n3[ti.cast(ti.cast(ti.cast(-2.25, ti.f64), ti.i32), ti.i32) % 4], ti.f16))))\n        for i5 in range(8):\n            for j6 in range(4):\n                w7 = ti.Vector([ti.max(ti.cast(i5, ti.u32), ti.cast(-2147483648, ti.u32)), ti.cast((ti.cast(n3[i5 % 4], ti.u32) >= ti.cast(-2147483648, ti.u32)), ti.u32), ti.cast(n3[i5 % 4], ti.u32)], dt=ti.u32)\n                w7[2] = ti.cast(ti.cast(a0, ti.u32), ti.u32)\n                v8 = ti.cast(w7[2] - w7[0], ti.u32)\n            c9 = 0\n            while c9 < 3:\n                c9 += 1\n                ti.atomic_and(n2[ti.cast(ti.select((ti.cast(2147483647, ti.i32) > ti.cast(2147483647, ti.i32)), ti.cast(v4, ti.i32), ti.cast(100, ti.i32)), ti.i32) % 7], ti.select(((ti.cast(v4, ti.f32) * ti.cast(ti.math.inf, ti.f32)) != (ti.cast(v4, ti.f32) + ti.cast(v4, ti.f32))), (ti.cast(n3[ti.cast((~ti.cast(n3[ti.cast(ti.cast(ti.cast(-32768, ti.i32) / ti.cast(3, ti.i32), ti.i32), ti.i32) % 4], ti.i32)), ti.i32) % 4], ti.i8) << ti.cast(a0, ti.i8)), (ti.cast(-32768, ti.i8) ** ti.cast(0, ti.i8))))\n                v10 = (((~ti.cast(n3[ti.cast(c9, ti.i32) % 4], ti.i32)) * ((~ti.cast(n3[ti.cast(c9, ti.i32) % 4], ti.i32)) - (~ti.cast(n3[ti.cast(c9, ti.i32) % 4], ti.i32)))) ** ti.cast(7, ti.i32))\n                ti.atomic_min(f1[i5 % 8][0], ti.cast(1, ti.i64))\n            w11 = ti.Vector([n3[i5 % 4], ti.cast(v4, ti.i64)], dt=ti.i64)\n            w11[0] = ti.cast(0, ti.i64)\n            v12 = ti.cast(w11.sum(), ti.i64)\n            v13 = ti.select((((ti.cast(1.0, ti.f32) * ti.cast(-1.5, ti.f32)) < (ti.cast(1.0, ti.f32) * ti.cast(-1.5, ti.f32))) and (ti.cast(0, ti.i8) >= ti.cast(0, ti.i8))), (-ti.cast(0, ti.i32)), ti.cast(v4, ti.i32))\n        s15 = ti.cast(0, ti.i8)\n        acc16 = ti.math.vec2(0)\n        for i14 in range(2):\n            v17 = ti.cast(0, ti.u16)\n            s15 += ti.cast(2, ti.i8)\n            v18 = ti.cast(f1[ti.cast(ti.cast(-7, ti.i32), ti.i32) % 8][0], ti.i8)\n        v19 = acc16.sum()\n\n    return kern, [f1]\n", "arrays": [{"name": "f1", "dtype": "i64", "shape": [8], "is_ndarray": false, "vector": 2, "exact": true, "integral": false}, {"name": "n2", "dtype": "i8", "shape": [7], "is_ndarray": true, "vector": 0, "exact": true, "integral": false}, {"name": "n3", "dtype": "i64", "shape": [4], "is_ndarray": true, "vector": 0, "exact": true, "integral": false}], "scalar_args": [["f64", 0.1]], "ret_type": null, "float_kernel": true, "data_seed": 89}
def make(ti):
    f1 = ti.Vector.field(2, dtype=ti.i64, shape=(8,))

    @ti.kernel
    def kern(a0: ti.f64, n2: ti.types.ndarray(dtype=ti.i8, ndim=1), n3: ti.types.ndarray(dtype=ti.i64, ndim=1)):
        pass
        v4 = ((-ti.cast(n3[ti.cast(ti.cast(ti.cast(-2.25, ti.f64), ti.i32), ti.i32) % 4], ti.f16)) / ((-ti.cast(n3[ti.cast(ti.cast(ti.cast(-2.25, ti.f64), ti.i32), ti.i32) % 4], ti.f16)) - (-ti.cast(n3[ti.cast(ti.cast(ti.cast(-2.25, ti.f64), ti.i32), ti.i32) % 4], ti.f16))))
        for i5 in range(8):
            for j6 in range(4):
                w7 = ti.Vector([ti.max(ti.cast(i5, ti.u32), ti.cast(-2147483648, ti.u32)), ti.cast((ti.cast(n3[i5 % 4], ti.u32) >= ti.cast(-2147483648, ti.u32)), ti.u32), ti.cast(n3[i5 % 4], ti.u32)], dt=ti.u32)
                w7[2] = ti.cast(ti.cast(a0, ti.u32), ti.u32)
                v8 = ti.cast(w7[2] - w7[0], ti.u32)
            c9 = 0
            while c9 < 3:
                c9 += 1
                ti.atomic_and(n2[ti.cast(ti.select((ti.cast(2147483647, ti.i32) > ti.cast(2147483647, ti.i32)), ti.cast(v4, ti.i32), ti.cast(100, ti.i32)), ti.i32) % 7], ti.select(((ti.cast(v4, ti.f32) * ti.cast(ti.math.inf, ti.f32)) != (ti.cast(v4, ti.f32) + ti.cast(v4, ti.f32))), (ti.cast(n3[ti.cast((~ti.cast(n3[ti.cast(ti.cast(ti.cast(-32768, ti.i32) / ti.cast(3, ti.i32), ti.i32), ti.i32) % 4], ti.i32)), ti.i32) % 4], ti.i8) << ti.cast(a0, ti.i8)), (ti.cast(-32768, ti.i8) ** ti.cast(0, ti.i8))))
                v10 = (((~ti.cast(n3[ti.cast(c9, ti.i32) % 4], ti.i32)) * ((~ti.cast(n3[ti.cast(c9, ti.i32) % 4], ti.i32)) - (~ti.cast(n3[ti.cast(c9, ti.i32) % 4], ti.i32)))) ** ti.cast(7, ti.i32))
                ti.atomic_min(f1[i5 % 8][0], ti.cast(1, ti.i64))
            w11 = ti.Vector([n3[i5 % 4], ti.cast(v4, ti.i64)], dt=ti.i64)
            w11[0] = ti.cast(0, ti.i64)
            v12 = ti.cast(w11.sum(), ti.i64)
            v13 = ti.select((((ti.cast(1.0, ti.f32) * ti.cast(-1.5, ti.f32)) < (ti.cast(1.0, ti.f32) * ti.cast(-1.5, ti.f32))) and (ti.cast(0, ti.i8) >= ti.cast(0, ti.i8))), (-ti.cast(0, ti.i32)), ti.cast(v4, ti.i32))
        s15 = ti.cast(0, ti.i8)
        acc16 = ti.math.vec2(0)
        for i14 in range(2):
            v17 = ti.cast(0, ti.u16)
            s15 += ti.cast(2, ti.i8)
            v18 = ti.cast(f1[ti.cast(ti.cast(-7, ti.i32), ti.i32) % 8][0], ti.i8)
        v19 = acc16.sum()

    return kern, [f1]
