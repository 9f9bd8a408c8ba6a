# open_segfault_h100.py reduced by statement deletion on the H100 (2026-11-28); still kills the process there, and so does its WGSL (task 1) compiled alone: NVIDIA driver 580.159.04, in pipeline creation
# program: {"source": "def make(ti):\n\n    @ti.kernel\n    def kern(a0: ti.f64, a1: ti.i32, a2: ti.u64):\n        for i1 in range(1):\n            c4 = 0\n            while c4 < 4:\n                c4 += 1\n                w5 = ti.Vector([ti.raw_mod(ti.cast(ti.math.nan, ti.f64), ti.cast(-0.001, ti.f64)), ti.cast(a2, ti.f64)], dt=ti.f64)\n                v6 = ti.cast(w5[1] - w5[0], ti.f64)\n                c7 = 0\n                while c7 < 3:\n                    c7 += 1\n                    if (ti.select((ti.cast(1, ti.u32) < ti.cast(-32768, ti.u32)), ti.cast(c4, ti.u64), ti.cast(v6, ti.u64)) > ti.min(ti.cast(a0, ti.u64), ti.cast(127, ti.u64))):\n                        break\n            a2 //= (ti.min(ti.cast(a1, ti.u64), ti.cast(63, ti.u64)) & ti.cast(2, ti.u64))\n\n    return kern, []\n", "arrays": [], "scalar_args": [["f64", 10000000000.0], ["i32", 0], ["u64", 486501313958]], "ret_type": null, "float_kernel": true, "data_seed": 666}
def make(ti):

    @ti.kernel
    def kern(a0: ti.f64, a1: ti.i32, a2: ti.u64):
        for i1 in range(1):
            c4 = 0
            while c4 < 4:
                c4 += 1
                w5 = ti.Vector([ti.raw_mod(ti.cast(ti.math.nan, ti.f64), ti.cast(-0.001, ti.f64)), ti.cast(a2, ti.f64)], dt=ti.f64)
                v6 = ti.cast(w5[1] - w5[0], ti.f64)
                c7 = 0
                while c7 < 3:
                    c7 += 1
                    if (ti.select((ti.cast(1, ti.u32) < ti.cast(-32768, ti.u32)), ti.cast(c4, ti.u64), ti.cast(v6, ti.u64)) > ti.min(ti.cast(a0, ti.u64), ti.cast(127, ti.u64))):
                        break
            a2 //= (ti.min(ti.cast(a1, ti.u64), ti.cast(63, ti.u64)) & ti.cast(2, ti.u64))

    return kern, []
