"""Atomics: augmented assignments on global elements from many threads, ti.atomic_* functions
and the old values they return.

Many-thread cases use ints or integer-valued floats, so the result does not depend on the order
in which threads add (float addition of integers below 2**24 is exact in f32).
"""

import numpy as np


def case_many_threads_add_into_one(ti):
    """`+=` and `-=` from 100000 iterations into one i32, one i64 and one f32 element."""
    ti.init(arch=ti.cpu)
    n = 100_000
    total = ti.field(ti.i32, shape=())
    wide = ti.field(ti.i64, shape=())
    ftotal = ti.field(ti.f32, shape=())
    down = ti.field(ti.i32, shape=2)

    @ti.kernel
    def run():
        for i in range(n):
            total[None] += i % 1000
            wide[None] += ti.cast(i, ti.i64) * 100_000
            ftotal[None] += (i % 7) * 1.0
            down[i % 2] -= 3

    run()
    return {
        "total": total[None],
        "wide": wide[None],
        "ftotal": ftotal[None],
        "down": down.to_numpy(),
    }


def case_histogram(ti):
    """A histogram: every iteration increments the bucket of its value."""
    ti.init(arch=ti.cpu)
    n = 50_000
    buckets = 17
    data = ti.field(ti.i32, shape=n)
    hist = ti.field(ti.i32, shape=buckets)
    weights = ti.field(ti.f64, shape=buckets)
    i = np.arange(n, dtype=np.int64)
    data.from_numpy(((i * i + 7 * i) % 1003).astype(np.int32))

    @ti.kernel
    def run():
        for i in range(n):
            b = data[i] % buckets
            hist[b] += 1
            weights[b] += data[i] * 0.5

    run()
    return {"hist": hist.to_numpy(), "weights": weights.to_numpy()}


def case_atomic_max_min_many_threads(ti):
    """ti.atomic_max / ti.atomic_min from every iteration into one element, ints and floats."""
    ti.init(arch=ti.cpu)
    n = 20_000
    hi = ti.field(ti.i32, shape=())
    lo = ti.field(ti.i32, shape=())
    fhi = ti.field(ti.f32, shape=())
    flo = ti.field(ti.f64, shape=())
    hi[None] = -(2**31)
    lo[None] = 2**31 - 1
    fhi[None] = -1e30
    flo[None] = 1e30

    @ti.kernel
    def run():
        for i in range(n):
            v = (i * 7919) % 10007 - 5000
            ti.atomic_max(hi[None], v)
            ti.atomic_min(lo[None], v)
            ti.atomic_max(fhi[None], v * 0.25)
            ti.atomic_min(flo[None], v * 0.125)

    run()
    return {"hi": hi[None], "lo": lo[None], "fhi": fhi[None], "flo": flo[None]}


def case_bitwise_augassign_many_threads(ti):
    """`&=`, `|=` and `^=` on one global element from many threads are atomic."""
    ti.init(arch=ti.cpu)
    n = 4096
    ored = ti.field(ti.i32, shape=())
    anded = ti.field(ti.i32, shape=())
    xored = ti.field(ti.u32, shape=())
    wide = ti.field(ti.i64, shape=())
    anded[None] = -1

    @ti.kernel
    def run():
        for i in range(n):
            ored[None] |= 1 << (i % 31)
            anded[None] &= ~(1 << (i % 13))
            xored[None] ^= ti.cast(i * 40503, ti.u32) << 7
            wide[None] |= ti.cast(1, ti.i64) << (i % 64)

    run()
    return {"or": ored[None], "and": anded[None], "xor": xored[None], "wide": wide[None]}


def case_atomic_functions_return_old_value(ti):
    """ti.atomic_add/sub/min/max/and/or/xor return the value before the update (serial)."""
    ti.init(arch=ti.cpu)
    x = ti.field(ti.i32, shape=())
    f = ti.field(ti.f32, shape=())
    olds = ti.field(ti.i32, shape=8)
    fold = ti.field(ti.f32, shape=3)

    @ti.kernel
    def run():
        x[None] = 10
        olds[0] = ti.atomic_add(x[None], 5)  # 10 -> 15
        olds[1] = ti.atomic_sub(x[None], 20)  # 15 -> -5
        olds[2] = ti.atomic_max(x[None], 3)  # -5 -> 3
        olds[3] = ti.atomic_min(x[None], -7)  # 3 -> -7
        olds[4] = ti.atomic_or(x[None], 0x30)  # -7 -> -7 | 48
        olds[5] = ti.atomic_and(x[None], 0xFF)
        olds[6] = ti.atomic_xor(x[None], 0x0F)
        olds[7] = x[None]
        f[None] = 1.5
        fold[0] = ti.atomic_add(f[None], 2.25)
        fold[1] = ti.atomic_max(f[None], 10.0)
        fold[2] = ti.atomic_min(f[None], -0.5)

    run()
    return {"olds": olds.to_numpy(), "fold": fold.to_numpy(), "x": x[None], "f": f[None]}


def case_augassign_returns_in_serial_loop(ti):
    """In a serialized loop atomic_add's old values form an exclusive prefix sum."""
    ti.init(arch=ti.cpu)
    n = 64
    counter = ti.field(ti.i32, shape=())
    offsets = ti.field(ti.i32, shape=n)

    @ti.kernel
    def run():
        ti.loop_config(serialize=True)
        for i in range(n):
            offsets[i] = ti.atomic_add(counter[None], i % 5 + 1)

    run()
    return {"offsets": offsets.to_numpy(), "counter": counter[None]}


def case_augassign_on_own_elements(ti):
    """`*=`, `+=`, `-=`, `max`/`min` updates where each thread owns its element."""
    ti.init(arch=ti.cpu)
    n = 1000
    a = ti.field(ti.i32, shape=n)
    b = ti.field(ti.f32, shape=n)

    @ti.kernel
    def run():
        for i in range(n):
            a[i] = i % 11 - 5
            b[i] = i * 0.5
        for i in range(n):
            a[i] *= 3
            a[i] -= 1
            b[i] *= 0.5
            b[i] += 1.0
            ti.atomic_max(a[i], -4)
            ti.atomic_min(b[i], 100.0)

    run()
    return {"a": a.to_numpy(), "b": b.to_numpy()}


def case_atomic_add_on_local_in_loop(ti):
    """ti.atomic_add on a kernel-local accumulator inside a serial inner loop returns old values."""
    ti.init(arch=ti.cpu)
    n = 32
    out = ti.field(ti.i32, shape=(n, 2))

    @ti.kernel
    def run():
        for i in range(n):
            acc = 0
            last_old = 0
            for j in range(i):
                last_old = ti.atomic_add(acc, j)
            out[i, 0] = acc
            out[i, 1] = last_old

    run()
    return {"out": out.to_numpy()}
