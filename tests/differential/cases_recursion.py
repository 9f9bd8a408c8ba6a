"""`ti.real_func`s that call themselves: IR functions and calls (CPU; the GPU refuses them).

Each case sets `gpu_refusal`: the error class name and message the GPU run must raise at
compile time, since WGSL forbids recursion."""

import numpy as np

GPU_REFUSAL = ("TaichiCompilationError", "which calls itself.*run on ti.cpu")


def case_recursive_halving_sum_of_two_fields(ti):
    """A template field parameter (one function per field), halves summed recursively."""
    ti.init(arch=ti.cpu)
    a = ti.field(ti.i32, shape=37)
    b = ti.field(ti.f64, shape=37)
    a.from_numpy(np.arange(37, dtype=np.int32) * 3 - 20)
    b.from_numpy(np.linspace(-1.0, 2.0, 37))
    out = ti.field(ti.f64, shape=2)

    @ti.real_func
    def halves(f: ti.template(), lo: ti.i32, hi: ti.i32) -> ti.f64:
        if lo == hi:
            return f[lo]
        mid = (lo + hi) // 2
        return halves(f, lo, mid) + halves(f, mid + 1, hi)

    @ti.kernel
    def run():
        out[0] = halves(a, 0, 36)
        out[1] = halves(b, 0, 36)

    run()
    return {"out": out.to_numpy()}


case_recursive_halving_sum_of_two_fields.gpu_refusal = GPU_REFUSAL


def case_mutual_recursion_in_a_parallel_loop(ti):
    """Collatz steps by two functions that call each other, in every iteration of a loop."""
    ti.init(arch=ti.cpu)
    steps = ti.field(ti.i32, shape=300)

    @ti.real_func
    def odd_step(n: ti.i64, k: ti.i32) -> ti.i32:
        return collatz(3 * n + 1, k + 1)

    @ti.real_func
    def collatz(n: ti.i64, k: ti.i32) -> ti.i32:
        if n == 1:
            return k
        if n % 2 == 1:
            return odd_step(n, k)
        return collatz(n // 2, k + 1)

    @ti.kernel
    def run():
        for i in steps:
            steps[i] = collatz(i + 1, 0)

    run()
    return {"steps": steps.to_numpy()}


case_mutual_recursion_in_a_parallel_loop.gpu_refusal = GPU_REFUSAL
