"""What the bound on autodiff stack pushes costs (#10): `python -m benchmarks.adstack_clamp [gpu]`.

Release mode keeps a push onto a full stack inside the stack (CPU: a `select`, WGSL: a `min`;
see backends/*/adstack.py). This times the adjoint of a kernel that pushes 30 values per
element on a stack of 32 (a run-time trip count, so the stack size is `ad_stack_size`), over
2**20 elements (`ADSTACK_N` to change), compiled once as shipped and once with the bound taken
out (the push emitters swapped for the duration of that compile). Launches of the two
alternate, so drift hits both; prints the median of each and their ratio, and checks that both
give the same gradients.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import warnings
from contextlib import contextmanager

import numpy as np

N, STEPS, REPEAT = int(os.environ.get("ADSTACK_N", 1 << 20)), 30, 25


@contextmanager
def _unbounded_pushes():
    """Compile pushes that index the stack with its count, unchecked (the old C way)."""
    from llvmlite import ir

    from tistudio.backends.llvm import adstack as cpu
    from tistudio.backends.llvm.lltypes import I32, constant
    from tistudio.backends.webgpu import adstack as gpu
    from tistudio.backends.webgpu import wgsl

    def cpu_push(self, stmt) -> None:  # noqa: ANN001
        b, stack = self.builder, self.values[stmt.stack]
        index = b.load(stack.count, typ=I32)
        self.store(self.values[stmt.value], self._slot(stack, stack.primal, index), stack.dtype)
        self.store(constant(stack.dtype, 0), self._slot(stack, stack.adjoint, index), stack.dtype)
        b.store(b.add(index, ir.Constant(I32, 1)), stack.count)

    def gpu_push(self, stmt) -> None:  # noqa: ANN001
        name = self.locals[stmt.stack]
        self.line(f"{name}_p[{name}_c] = {self.value(stmt.value)};")
        self.line(f"{name}_a[{name}_c] = {wgsl.zero(stmt.stack.ret_type)};")
        self.line(f"{name}_c = {name}_c + 1;")

    saved = cpu.AdStackEmitter.emit_AdStackPush, gpu.AdStackEmitter.emit_AdStackPush
    cpu.AdStackEmitter.emit_AdStackPush, gpu.AdStackEmitter.emit_AdStackPush = cpu_push, gpu_push
    try:
        yield
    finally:
        cpu.AdStackEmitter.emit_AdStackPush, gpu.AdStackEmitter.emit_AdStackPush = saved


def main(arch_name: str) -> None:
    import tistudio as ti

    os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
    warnings.simplefilter("ignore")  # the stack-size warning, expected here
    ti.init(arch=getattr(ti, arch_name), ad_stack_size=32, offline_cache=False)
    x = ti.field(ti.f32, shape=N, needs_grad=True)
    y = ti.field(ti.f32, shape=N, needs_grad=True)

    def make():  # noqa: ANN202
        @ti.kernel
        def sines(n: ti.i32):
            for i in x:
                v = x[i]
                for _ in range(n):
                    v = ti.sin(v) * 0.99 + 0.01
                y[i] = v

        return sines

    bounded, unbounded = make(), make()
    x.from_numpy(np.linspace(0, 1, N, dtype=np.float32))
    grads = []
    for kernel, unchecked in ((bounded, False), (unbounded, True)):
        with _unbounded_pushes() if unchecked else _nothing():
            kernel(STEPS)
            x.grad.fill(0.0)
            y.grad.fill(1.0)
            kernel.grad(STEPS)  # compiles the adjoint
        ti.sync()
        grads.append(x.grad.to_numpy())
    assert np.array_equal(grads[0], grads[1]), "the bound changed a gradient in bounds"
    times: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(REPEAT):
        for kernel, unchecked in ((bounded, False), (unbounded, True)):
            start = time.perf_counter()
            kernel.grad(STEPS)
            ti.sync()
            times[unchecked].append((time.perf_counter() - start) * 1e3)
    with_bound, without = statistics.median(times[False]), statistics.median(times[True])
    print(
        f"{arch_name}: adjoint of {N} x {STEPS} pushes: bounded {with_bound:.2f} ms, "
        f"unbounded {without:.2f} ms (medians of {REPEAT}), ratio {with_bound / without:.3f}"
    )


@contextmanager
def _nothing():
    yield


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "cpu")
