"""GPU benchmarks: the same Taichi programs on tistudio's WebGPU back end and on Taichi 1.7.4.

    python benchmarks/gpu/bench.py tistudio          # ti.init(arch=ti.gpu): wgpu over Vulkan
    python benchmarks/gpu/bench.py taichi vulkan     # Taichi's Vulkan back end
    python benchmarks/gpu/bench.py taichi cuda       # Taichi's CUDA back end
    python benchmarks/gpu/bench.py torch             # torch: the copy, matmul and P2G references
    BENCH_VEC4=0 python benchmarks/gpu/bench.py tistudio   # without vec4 loops (vectorize.py)
    BENCH_EAGER=0 python benchmarks/gpu/bench.py tistudio  # submit only when the host waits
    BENCH_CHECKS=1 ...      # with naga's runtime checks (bounds clamps, loop counters)
    BENCH_UNROLL=0 ...      # serial loops not unrolled, no small workgroups (unroll.py)
    BENCH_GRID_UNROLL=2 ... # two indices per step of a grid-stride loop
    BENCH_CONTRACT=0 ...    # products never fused into FMAs, even with fast_math
    BENCH_SPIN=0 ...        # ti.sync sleeps in the driver at once (no polling first)
    BENCH_ONLY=nbody|sparse|matmul|p2g|launch|stencil   # one group of cases

Each prints one JSON object per case. `batched_ms` is the time per launch of `REPS` launches
followed by one sync (what a loop of launches costs; the GPU's time for memory-bound kernels),
`sync_ms` the best time of one launch followed by a sync (of `reps`, at most 100: the launch
case's 1000 batched launches are followed by 100 single ones), and GB/s counts the bytes each
case must move at least (saxpy 12 B per element, sum 4 B, stencil 8 B per cell).
"""

import json
import os
import sys
import time

import numpy as np

REPS = 20
N = int(os.environ.get("BENCH_N", 100_000_000))
SIDE = int(os.environ.get("BENCH_SIDE", 8192))
BODIES = int(os.environ.get("BENCH_BODIES", 8192))
TILE = int(os.environ.get("BENCH_TILE", 128))  # bodies per shared tile
MATMUL = int(os.environ.get("BENCH_MATMUL", 4096))  # C = A @ B, MATMUL² f32
PARTICLES = int(os.environ.get("BENCH_PARTICLES", 1 << 22))  # P2G: particles
P2G_GRID = int(os.environ.get("BENCH_P2G_GRID", 512))  # P2G: grid side


def timed(fn, sync, reps=REPS):
    for _ in range(3):
        fn()
    sync()
    start = time.perf_counter()
    for _ in range(reps):
        fn()
    sync()
    batched = (time.perf_counter() - start) / reps
    best = float("inf")
    for _ in range(min(reps, 100)):  # the launch case: the best of 100, other cases of reps
        start = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - start)
    return batched * 1e3, best * 1e3


def report(framework, case, batched_ms, sync_ms, nbytes=0, check=True, **extra):
    row = {"framework": framework, "case": case, "batched_ms": round(batched_ms, 4)}
    row["sync_ms"] = round(sync_ms, 4)
    if nbytes:
        row["gbps"] = round(nbytes / batched_ms / 1e6, 1)
    row.update(check=bool(check), **extra)
    print(json.dumps(row), flush=True)


def run_programs(ti, framework):
    x = ti.field(ti.f32, shape=N)
    y = ti.field(ti.f32, shape=N)
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def fill():
        for i in x:
            x[i] = i % 7
            y[i] = 1.0

    @ti.kernel
    def saxpy(a: ti.f32):
        for i in x:
            y[i] = a * x[i] + y[i]

    @ti.kernel
    def sum_x():
        for i in x:
            total[None] += x[i]

    start = time.perf_counter()
    fill()
    ti.sync()
    first = (time.perf_counter() - start) * 1e3
    batched, best = timed(lambda: saxpy(0.5), ti.sync)
    probe = y.to_numpy()[:14]
    runs = 3 + REPS + min(REPS, 100)  # the launches `timed` made
    expected = 1.0 + 0.5 * runs * (np.arange(14) % 7)
    report(
        framework,
        "saxpy 100M f32",
        batched,
        best,
        12 * N,
        np.allclose(probe, expected),
        first_call_ms=round(first, 1),
    )

    @ti.kernel
    def reset():
        total[None] = 0.0

    def one_sum():
        reset()
        sum_x()

    batched, best = timed(one_sum, ti.sync)
    exact = float(np.sum(np.arange(N, dtype=np.int64) % 7))
    got = total[None]
    report(
        framework,
        "sum 100M f32",
        batched,
        best,
        4 * N,
        abs(got / exact - 1) < 1e-3,
        result=got,
        exact=exact,
    )
    stencil(ti, framework)
    nbody(ti, framework)
    matmul(ti, framework)
    p2g(ti, framework)
    overhead(ti, framework)


def stencil(ti, framework):
    a = ti.field(ti.f32, shape=(SIDE, SIDE))
    b = ti.field(ti.f32, shape=(SIDE, SIDE))

    @ti.kernel
    def init():
        for i, j in a:
            a[i, j] = (i * 3 + j) % 11

    @ti.kernel
    def step():
        for i, j in ti.ndrange((1, SIDE - 1), (1, SIDE - 1)):
            b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])

    @ti.kernel
    def step_struct_for():
        for i, j in b:
            if 0 < i < SIDE - 1 and 0 < j < SIDE - 1:
                b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])

    init()
    batched, best = timed(step_struct_for, ti.sync)
    report(framework, f"stencil {SIDE}x{SIDE} f32 (struct-for)", batched, best, 8 * SIDE * SIDE)
    batched, best = timed(step, ti.sync)
    i, j = 5, 7
    near = ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1))
    want = 0.25 * sum((p * 3 + q) % 11 for p, q in near)
    report(
        framework,
        f"stencil {SIDE}x{SIDE} f32",
        batched,
        best,
        8 * SIDE * SIDE,
        abs(b[i, j] - want) < 1e-5,
    )
    stencil_two_trees(ti, framework, a, want)


def stencil_two_trees(ti, framework, a, want):
    """The struct-for stencil writing a field made after a launch, so in a second SNode tree:
    the input's buffer is then only read (WGSL: `var<storage, read>`), the output's written."""
    c = ti.field(ti.f32, shape=(SIDE, SIDE))

    @ti.kernel
    def step_two_trees():
        for i, j in c:
            if 0 < i < SIDE - 1 and 0 < j < SIDE - 1:
                c[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])

    batched, best = timed(step_two_trees, ti.sync)
    case = f"stencil {SIDE}x{SIDE} f32 (struct-for, output in a 2nd tree)"
    report(framework, case, batched, best, 8 * SIDE * SIDE, abs(c[5, 7] - want) < 1e-5)


def nbody_kernels(ti, bodies: int, tile: int):
    """The n-body fields and kernels (also `nbody_probe.py`'s): (init, forces, forces_tiled,
    vx), positions px, py, pz and velocities vx, vy, vz in one tree, in that order."""
    px, py, pz = (ti.field(ti.f32, shape=bodies) for _ in range(3))
    vx, vy, vz = (ti.field(ti.f32, shape=bodies) for _ in range(3))

    @ti.kernel
    def init():
        for i in px:
            px[i] = ti.sin(i * 0.1) * 10
            py[i] = ti.cos(i * 0.37) * 10
            pz[i] = (i % 17) * 0.5

    @ti.kernel
    def forces():
        for i in px:
            ax, ay, az = 0.0, 0.0, 0.0
            for j in range(bodies):
                dx, dy, dz = px[j] - px[i], py[j] - py[i], pz[j] - pz[i]
                r2 = dx * dx + dy * dy + dz * dz + 0.01
                inv = 1.0 / (r2 * ti.sqrt(r2))
                ax += dx * inv
                ay += dy * inv
                az += dz * inv
            vx[i] += ax * 1e-3
            vy[i] += ay * 1e-3
            vz[i] += az * 1e-3

    @ti.kernel
    def forces_tiled():
        # the classic CUDA n-body: each workgroup stages `tile` bodies at a time in workgroup
        # memory (Taichi's manual form, ti.simt.block), every invocation reads them from there
        ti.loop_config(block_dim=tile)
        for i in range(bodies):
            pad = ti.simt.block.SharedArray((3, tile), ti.f32)
            t = i % tile  # the invocation's index in its workgroup (Taichi CUDA has no thread_idx)
            xi, yi, zi = px[i], py[i], pz[i]
            ax, ay, az = 0.0, 0.0, 0.0
            for k in range(bodies // tile):
                pad[0, t] = px[k * tile + t]
                pad[1, t] = py[k * tile + t]
                pad[2, t] = pz[k * tile + t]
                ti.simt.block.sync()
                for j in range(tile):
                    dx, dy, dz = pad[0, j] - xi, pad[1, j] - yi, pad[2, j] - zi
                    r2 = dx * dx + dy * dy + dz * dz + 0.01
                    inv = 1.0 / (r2 * ti.sqrt(r2))
                    ax += dx * inv
                    ay += dy * inv
                    az += dz * inv
                ti.simt.block.sync()
            vx[i] += ax * 1e-3
            vy[i] += ay * 1e-3
            vz[i] += az * 1e-3

    return init, forces, forces_tiled, vx


def nbody(ti, framework):
    tile = TILE
    init, forces, forces_tiled, vx = nbody_kernels(ti, BODIES, tile)
    init()
    plain_sum = None
    for name, kernel in (
        (f"n-body {BODIES}", forces),
        (f"n-body {BODIES} (shared tiles of {tile})", forces_tiled),
    ):
        vx.fill(0)
        batched, best = timed(kernel, ti.sync, reps=5)
        interactions = BODIES * BODIES / (batched * 1e-3)
        got = vx.to_numpy()
        vx_sum = float(np.abs(got).sum())
        plain_sum = plain_sum or vx_sum  # the tiled kernel must give the plain one's forces
        report(
            framework,
            name,
            batched,
            best,
            0,
            np.isfinite(got).all() and abs(vx_sum / plain_sum - 1) < 1e-3,
            ginteractions_per_s=round(interactions / 1e9, 2),
            vx_sum=vx_sum,
        )


def matmul_operands(n: int) -> tuple[np.ndarray, np.ndarray]:
    """A and B of small integers, so every f32 sum of products is exact (at most 8 n)."""
    i = np.arange(n)
    return ((i[:, None] + i[None, :]) % 3).astype(np.float32), (
        (2 * i[:, None] + i[None, :]) % 5
    ).astype(np.float32)


def matmul_check(c_rows: np.ndarray, a: np.ndarray, b: np.ndarray, rows) -> bool:
    want = a[rows].astype(np.int64) @ b.astype(np.int64)
    return bool(np.array_equal(c_rows.astype(np.int64), want))


def matmul_kernel(ti, n: int):
    """(mm, c, a_np, b_np): C = A @ B through plain Taichi loops, A and B filled (also
    `matmul_probe.py`'s); A, B, C in one tree, in that order."""
    a = ti.field(ti.f32, shape=(n, n))
    b = ti.field(ti.f32, shape=(n, n))
    c = ti.field(ti.f32, shape=(n, n))
    a_np, b_np = matmul_operands(n)
    a.from_numpy(a_np)
    b.from_numpy(b_np)

    @ti.kernel
    def mm():
        for i, j in c:
            acc = 0.0
            for k in range(n):
                acc += a[i, k] * b[k, j]
            c[i, j] = acc

    return mm, c, a_np, b_np


def matmul(ti, framework):
    """C = A @ B through plain Taichi loops: one invocation per element of C, a serial loop
    over k (no shared tiles, no tensor cores); 2 n³ flops."""
    n = MATMUL
    mm, c, a_np, b_np = matmul_kernel(ti, n)
    batched, best = timed(mm, ti.sync, reps=5)
    rows = [0, 1, n // 2, n - 1]
    got = c.to_numpy()[rows]
    report(
        framework,
        f"matmul {n}x{n} f32 (plain loops)",
        batched,
        best,
        0,
        matmul_check(got, a_np, b_np, rows),
        gflops=round(2 * n**3 / (batched * 1e-3) / 1e9, 1),
    )


def p2g_particles() -> tuple[np.ndarray, np.ndarray]:
    """PARTICLES positions in [0.1, 0.9)² in random order and their velocities (seed 31)."""
    rng = np.random.default_rng(31)
    x = rng.uniform(0.1, 0.9, size=(PARTICLES, 2)).astype(np.float32)
    v = rng.uniform(-1, 1, size=(PARTICLES, 2)).astype(np.float32)
    return x, v


def p2g(ti, framework):
    """Particle to grid as in MPM (Taichi's mpm88): each particle adds its mass and momentum to
    the 3×3 cells around it with quadratic B-spline weights, 27 float atomic adds per particle
    into a P2G_GRID² grid; a reset launch clears the grid first."""
    n, inv_dx = P2G_GRID, float(P2G_GRID)
    x = ti.Vector.field(2, ti.f32, shape=PARTICLES)
    v = ti.Vector.field(2, ti.f32, shape=PARTICLES)
    grid_v = ti.Vector.field(2, ti.f32, shape=(n, n))
    grid_m = ti.field(ti.f32, shape=(n, n))
    x_np, v_np = p2g_particles()
    x.from_numpy(x_np)
    v.from_numpy(v_np)

    @ti.kernel
    def clear():
        for i, j in grid_m:
            grid_v[i, j] = ti.Vector([0.0, 0.0])
            grid_m[i, j] = 0.0

    @ti.kernel
    def scatter():
        for p in x:
            xp = x[p] * inv_dx
            base = ti.cast(xp - 0.5, ti.i32)
            fx = xp - ti.cast(base, ti.f32)
            w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1.0) ** 2, 0.5 * (fx - 0.5) ** 2]
            for i, j in ti.static(ti.ndrange(3, 3)):
                weight = w[i][0] * w[j][1]
                cell = base + ti.Vector([i, j])
                grid_v[cell] += weight * v[p]
                grid_m[cell] += weight

    def step():
        clear()
        scatter()

    batched, best = timed(step, ti.sync, reps=10)
    mass = float(grid_m.to_numpy().astype(np.float64).sum())
    momentum = grid_v.to_numpy().astype(np.float64).sum(axis=(0, 1))
    want = v_np.astype(np.float64).sum(axis=0)
    report(
        framework,
        f"P2G {PARTICLES} particles, {n}² grid (clear + scatter, float atomics)",
        batched,
        best,
        0,
        abs(mass / PARTICLES - 1) < 1e-4 and np.allclose(momentum, want, rtol=1e-3, atol=1.0),
        mparticles_per_s=round(PARTICLES / (batched * 1e-3) / 1e6, 1),
        mass=mass,
    )


def sparse(ti, framework, kind):
    """A SIDE² f32 grid of 16×16 blocks under `ti.root.<kind>`, 3 % of the blocks active (NumPy,
    seed 28): per step deactivate all, activate the blocks by writing every cell, one struct-for
    over the active cells with a count (benchmarks/cases/sparse_grid.py on the CPU)."""
    side, b = SIDE, 16
    nb = side // b
    chosen = np.random.default_rng(28).choice(nb * nb, size=max(1, int(nb * nb * 0.03)))
    chosen = np.unique(chosen)
    blocks_np = np.stack([chosen // nb, chosen % nb], axis=1).astype(np.int32)
    x = ti.field(ti.f32)
    count = ti.field(ti.i32, shape=())
    block = getattr(ti.root, kind)(ti.ij, nb)
    block.dense(ti.ij, b).place(x)
    blocks = ti.ndarray(ti.i32, shape=blocks_np.shape)
    blocks.from_numpy(blocks_np)

    @ti.kernel
    def activate(blocks: ti.types.ndarray()):
        for k, u, v in ti.ndrange(blocks.shape[0], b, b):
            i, j = blocks[k, 0] * b + u, blocks[k, 1] * b + v
            x[i, j] = ti.f32((i * 3 + j) % 17)

    @ti.kernel
    def update():
        for i, j in x:
            x[i, j] = 0.5 * x[i, j] + 1.0
            count[None] += 1

    def step():
        block.deactivate_all()
        count[None] = 0
        activate(blocks)
        update()

    batched, best = timed(step, ti.sync, reps=10)
    cells = len(blocks_np) * b * b
    report(
        framework,
        f"sparse {kind} {side}² 3 % of 16² blocks (deactivate_all + activate + struct-for)",
        batched,
        best,
        8 * cells,
        count[None] == cells,
    )


def overhead(ti, framework):
    small = ti.field(ti.i32, shape=1024)

    @ti.kernel
    def bump():
        for i in small:
            small[i] += 1

    batched, best = timed(bump, ti.sync, reps=1000)
    report(framework, "launch overhead (1024 elements)", batched, best)


def torch_references():
    """The device copy (the bandwidth every memory-bound case is a share of), and the matmul
    and P2G cases as torch computes them (cuBLAS SGEMM without TF32; `index_put_` with
    accumulation)."""
    try:
        import torch

        torch_copy(torch)
        torch_matmul(torch)
        torch_p2g(torch)
    except Exception as e:  # noqa: BLE001 - the benchmark reports what it could not measure
        print(json.dumps({"framework": "torch", "error": repr(e)}))


def torch_copy(torch):
    a = torch.empty(N, dtype=torch.float32, device="cuda")
    b = torch.empty_like(a)
    batched, best = timed(lambda: b.copy_(a), torch.cuda.synchronize)
    report("torch", "copy 400 MB d2d", batched, best, 8 * N)
    a.fill_(1.0)
    total = torch.empty((), device="cuda")
    batched, best = timed(lambda: torch.sum(a, dim=0, out=total), torch.cuda.synchronize)
    report("torch", "sum 100M f32", batched, best, 4 * N, float(total) == N)


def torch_matmul(torch):
    torch.backends.cuda.matmul.allow_tf32 = False
    n = MATMUL
    a_np, b_np = matmul_operands(n)
    a, b = torch.from_numpy(a_np).cuda(), torch.from_numpy(b_np).cuda()
    c = torch.empty_like(a)
    batched, best = timed(lambda: torch.mm(a, b, out=c), torch.cuda.synchronize, reps=5)
    rows = [0, 1, n // 2, n - 1]
    check = matmul_check(c[rows].cpu().numpy(), a_np, b_np, rows)
    gflops = round(2 * n**3 / (batched * 1e-3) / 1e9, 1)
    report("torch", f"matmul {n}x{n} f32 (cuBLAS, no TF32)", batched, best, 0, check, gflops=gflops)


def torch_p2g(torch):
    n = P2G_GRID
    x_np, v_np = p2g_particles()
    x, v = torch.from_numpy(x_np).cuda(), torch.from_numpy(v_np).cuda()
    grid_m = torch.zeros(n * n, device="cuda")
    grid_v = torch.zeros(n * n, 2, device="cuda")
    offsets = torch.tensor([(i, j) for i in range(3) for j in range(3)], device="cuda")

    def step():
        grid_m.zero_()
        grid_v.zero_()
        xp = x * n
        base = (xp - 0.5).to(torch.int32)
        fx = xp - base
        w = torch.stack([0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2])
        weight = w[offsets[:, 0], :, 0] * w[offsets[:, 1], :, 1]  # 9 × particles
        cell = base[None] + offsets[:, None, :]
        flat = (cell[..., 0] * n + cell[..., 1]).reshape(-1)
        grid_m.index_put_((flat,), weight.reshape(-1), accumulate=True)
        grid_v.index_put_((flat,), (weight[..., None] * v[None]).reshape(-1, 2), accumulate=True)

    batched, best = timed(step, torch.cuda.synchronize, reps=10)
    mass = float(grid_m.double().sum())
    report(
        "torch",
        f"P2G {PARTICLES} particles, {n}² grid (index_put_ with accumulation)",
        batched,
        best,
        0,
        abs(mass / PARTICLES - 1) < 1e-4,
        mparticles_per_s=round(PARTICLES / (batched * 1e-3) / 1e6, 1),
        mass=mass,
    )


def tistudio_options(device) -> str:
    """Switch off optimisations for before/after columns, from the environment; the suffix
    they add to the framework's name."""
    from dataclasses import replace

    suffix = ""
    if len(sys.argv) > 2:  # tuning: workgroups of a grid-stride loop
        device.caps = replace(device.caps, max_groups=int(sys.argv[2]))
        suffix += f" groups={sys.argv[2]}"
    if os.environ.get("BENCH_EAGER") == "0":  # no submit at once after large dispatches
        device.eager_groups = 1 << 31
        suffix += " lazy"
    if os.environ.get("BENCH_VEC4") == "0":  # scalar loops only: before/after of vec4
        device.caps = replace(device.caps, vectorize=False)
        suffix += " scalar"
    if os.environ.get("BENCH_CHECKS") == "1":  # naga's runtime checks, as before
        device.runtime_checks = True
        suffix += " checks"
    if os.environ.get("BENCH_UNROLL") == "0":  # serial loops not unrolled, 256 per group
        device.caps = replace(device.caps, unroll=False, small_group=device.caps.workgroup_size)
        suffix += " no-unroll"
    if os.environ.get("BENCH_GRID_UNROLL"):  # indices per step of a grid-stride loop
        device.caps = replace(device.caps, grid_unroll=int(os.environ["BENCH_GRID_UNROLL"]))
        suffix += f" grid-unroll={os.environ['BENCH_GRID_UNROLL']}"
    if os.environ.get("BENCH_CONTRACT") == "0":  # products never fused (as before fast_math did)
        device.caps = replace(device.caps, contract=False)
        suffix += " no-contract"
    if os.environ.get("BENCH_SPIN") == "0":  # sync blocks in the driver at once
        device.spin_s = 0.0
        suffix += " no-spin"
    return suffix


def main():
    which = sys.argv[1]
    if which in ("torch", "copy"):
        torch_references()
        return
    if which == "tistudio":
        import tistudio as ti

        ti.init(arch=ti.gpu, fallback_to_cpu=False)
        framework = f"tistudio ({ti.lang.impl.current_adapter()})"
        device = ti.lang.impl.get_program().gpu.device
        grid = {"framework": framework, "case": "grid measured at ti.init (calibrate.py)"}
        print(json.dumps(grid | {"max_groups": device.caps.max_groups}), flush=True)
        framework += tistudio_options(device)
    else:
        import taichi as ti

        ti.init(arch=getattr(ti, sys.argv[2]), device_memory_GB=8)
        framework = f"taichi {sys.argv[2]}"
    only = os.environ.get("BENCH_ONLY")
    if only == "sparse":  # the sparse cases alone (issue #28)
        for kind in ("pointer", "bitmasked"):
            sparse(ti, framework, kind)
        return
    if only:  # one group of cases (issue #31)
        cases = {"nbody": nbody, "matmul": matmul, "p2g": p2g, "launch": overhead}
        cases["stencil"] = stencil
        cases[only](ti, framework)
        return
    run_programs(ti, framework)


if __name__ == "__main__":
    main()
