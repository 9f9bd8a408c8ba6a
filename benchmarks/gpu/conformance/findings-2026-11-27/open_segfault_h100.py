# [gpu] running
# scalar args [('f64', 10000000000.0), ('i32', 0), ('u64', 486501313958)], data seed 666
# program: {"source": "def make(ti):\n\n    @ti.kernel\n    def kern(a0: ti.f64, a1: ti.i32, a2: ti.u64):\n        pass\n        for i1 in range(1):\n            w2 = ti.Vector([ti.cast(-7, ti.i8), ti.cast((ti.cast(0.1, ti.f32) <= ti.cast(0.1, ti.f32)), ti.i8), ti.cast((ti.cast(-7, ti.u64) == ti.cast(-7, ti.u64)), ti.i8)], dt=ti.i8)\n            w2 = w2 * ti.Vector([ti.cast(a1, ti.i8), ti.select((ti.cast(0.5, ti.f16) >= ti.cast(i1, ti.f16)), ti.cast(7, ti.i8), ti.cast(i1, ti.i8)), ti.cast((ti.cast(3.0, ti.f32) <= ti.cast(ti.math.nan, ti.f32)), ti.i8)], dt=ti.i8)\n            w2[1] = ti.cast((ti.cast(2147483647, ti.u64) != ti.cast(i1, ti.u64)), ti.i8)\n            v3 = ti.cast(w2[1] - w2[0], ti.i8)\n            c4 = 0\n            while c4 < 4:\n                c4 += 1\n                w5 = ti.Vector([ti.raw_mod(ti.cast(ti.math.nan, ti.f64), ti.cast(-0.001, ti.f64)), ti.cast(a2, ti.f64)], dt=ti.f64)\n                w5 = w5 + ti.Vector([ti.cast(-0.001, ti.f64), (ti.cast(a2, ti.f64) - ti.cast(a2, ti.f64))], dt=ti.f64)\n                w5 = w5 - ti.Vector([ti.cast(i1, ti.f64), (ti.cast(v3, ti.f64) // ti.cast(1e+30, ti.f64))], dt=ti.f64)\n                w5[1] = ti.cast((ti.cast(-1, ti.u64) == a2), ti.f64)\n                v6 = ti.cast(w5[1] - w5[0], ti.f64)\n                c7 = 0\n                while c7 < 3:\n                    c7 += 1\n                    if (ti.select((ti.cast(1, ti.u32) < ti.cast(-32768, ti.u32)), ti.cast(c4, ti.u64), ti.cast(v6, ti.u64)) > ti.min(ti.cast(a0, ti.u64), ti.cast(127, ti.u64))):\n                        break\n                    v8 = ti.cast(12345, ti.u16)\n                    v9 = ti.cast(ti.abs((ti.cast(2, ti.u32) + ti.cast(-1, ti.u32))), ti.i16)\n            w10 = ti.Vector([ti.cast((ti.cast(a1, ti.i16) == ti.cast(i1, ti.i16)), ti.f32), ti.select((ti.cast(-1.5, ti.f32) > ti.cast(0.5, ti.f32)), ti.cast(-1.5, ti.f32), ti.cast(0.1, ti.f32))], dt=ti.f32)\n            w10 = w10 + ti.Vector([(ti.cast(a0, ti.f32) * ti.cast(-1.5, ti.f32)), (ti.cast(v3, ti.f32) // ti.cast(0.5, ti.f32))], dt=ti.f32)\n            w10 = w10 + ti.Vector([((ti.cast(a0, ti.f32) - ti.cast(a0, ti.f32)) / (ti.cast(a0, ti.f32) - ti.cast(a0, ti.f32))), ti.cast(0.1, ti.f32)], dt=ti.f32)\n            w10[1] = ti.cast(ti.cast(i1, ti.u64), ti.f32)\n            v11 = ti.cast(w10[1] - w10[0], ti.f32)\n            a2 //= (ti.min(ti.cast(a1, ti.u64), ti.cast(63, ti.u64)) & ti.cast(2, ti.u64))\n        c12 = 0\n        while c12 < 4:\n            c12 += 1\n            v13 = ti.abs((ti.cast(-32768, ti.u32) | ti.cast(a1, ti.u32)))\n\n    return kern, []\n", "arrays": [], "scalar_args": [["f64", 10000000000.0], ["i32", 0], ["u64", 486501313958]], "ret_type": null, "float_kernel": true, "data_seed": 666}
def make(ti):

    @ti.kernel
    def kern(a0: ti.f64, a1: ti.i32, a2: ti.u64):
        pass
        for i1 in range(1):
            w2 = ti.Vector([ti.cast(-7, ti.i8), ti.cast((ti.cast(0.1, ti.f32) <= ti.cast(0.1, ti.f32)), ti.i8), ti.cast((ti.cast(-7, ti.u64) == ti.cast(-7, ti.u64)), ti.i8)], dt=ti.i8)
            w2 = w2 * ti.Vector([ti.cast(a1, ti.i8), ti.select((ti.cast(0.5, ti.f16) >= ti.cast(i1, ti.f16)), ti.cast(7, ti.i8), ti.cast(i1, ti.i8)), ti.cast((ti.cast(3.0, ti.f32) <= ti.cast(ti.math.nan, ti.f32)), ti.i8)], dt=ti.i8)
            w2[1] = ti.cast((ti.cast(2147483647, ti.u64) != ti.cast(i1, ti.u64)), ti.i8)
            v3 = ti.cast(w2[1] - w2[0], ti.i8)
            c4 = 0
            while c4 < 4:
                c4 += 1
                w5 = ti.Vector([ti.raw_mod(ti.cast(ti.math.nan, ti.f64), ti.cast(-0.001, ti.f64)), ti.cast(a2, ti.f64)], dt=ti.f64)
                w5 = w5 + ti.Vector([ti.cast(-0.001, ti.f64), (ti.cast(a2, ti.f64) - ti.cast(a2, ti.f64))], dt=ti.f64)
                w5 = w5 - ti.Vector([ti.cast(i1, ti.f64), (ti.cast(v3, ti.f64) // ti.cast(1e+30, ti.f64))], dt=ti.f64)
                w5[1] = ti.cast((ti.cast(-1, ti.u64) == a2), ti.f64)
                v6 = ti.cast(w5[1] - w5[0], ti.f64)
                c7 = 0
                while c7 < 3:
                    c7 += 1
                    if (ti.select((ti.cast(1, ti.u32) < ti.cast(-32768, ti.u32)), ti.cast(c4, ti.u64), ti.cast(v6, ti.u64)) > ti.min(ti.cast(a0, ti.u64), ti.cast(127, ti.u64))):
                        break
                    v8 = ti.cast(12345, ti.u16)
                    v9 = ti.cast(ti.abs((ti.cast(2, ti.u32) + ti.cast(-1, ti.u32))), ti.i16)
            w10 = ti.Vector([ti.cast((ti.cast(a1, ti.i16) == ti.cast(i1, ti.i16)), ti.f32), ti.select((ti.cast(-1.5, ti.f32) > ti.cast(0.5, ti.f32)), ti.cast(-1.5, ti.f32), ti.cast(0.1, ti.f32))], dt=ti.f32)
            w10 = w10 + ti.Vector([(ti.cast(a0, ti.f32) * ti.cast(-1.5, ti.f32)), (ti.cast(v3, ti.f32) // ti.cast(0.5, ti.f32))], dt=ti.f32)
            w10 = w10 + ti.Vector([((ti.cast(a0, ti.f32) - ti.cast(a0, ti.f32)) / (ti.cast(a0, ti.f32) - ti.cast(a0, ti.f32))), ti.cast(0.1, ti.f32)], dt=ti.f32)
            w10[1] = ti.cast(ti.cast(i1, ti.u64), ti.f32)
            v11 = ti.cast(w10[1] - w10[0], ti.f32)
            a2 //= (ti.min(ti.cast(a1, ti.u64), ti.cast(63, ti.u64)) & ti.cast(2, ti.u64))
        c12 = 0
        while c12 < 4:
            c12 += 1
            v13 = ti.abs((ti.cast(-32768, ti.u32) | ti.cast(a1, ti.u32)))

    return kern, []
