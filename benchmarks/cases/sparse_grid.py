"""The computation shared by the two sparse cases (`sparse_pointer`, `sparse_bitmasked`).

A 2-D grid of n×n f32 cells in blocks of 16×16, of which a fixed pseudo-random 3 % are active.
One step: deactivate every block, activate the chosen blocks again by writing each of their
cells, then one struct-for over the active cells (``x = 0.5 * x + 1``) that also counts them.
The chosen blocks come from NumPy with a fixed seed and reach the kernels as an index ndarray.

Taichi and tistudio run the sparse layout itself, the two cases differing only in its top node
(``ti.root.pointer`` or ``ti.root.bitmasked`` over the blocks, each with ``dense`` 16×16 cells).
Numba and NumPy have no sparse data structures: they keep the grid dense and the activity as a
list (Numba: ``prange`` over the active blocks) or a boolean mask over the blocks (NumPy).
Not itself a case: not in ``CASES``.
"""

# No "from __future__ import annotations": Taichi reads kernel annotations as objects.

from collections.abc import Callable

import numpy as np

from benchmarks.cases import Impl

UNIT = "ms"
SIZES = {"full": 4096, "quick": 1024}
REPS = {"full": 30, "quick": 10}
SIZE_LABEL = "{n}×{n} f32, 3 % of 16² blocks"  # formatted with n = SIZES[mode]
COLD = False

B = 16  # cells per block side
ACTIVE = 0.03  # share of the blocks that are active


def make_inputs(size: int) -> dict[str, np.ndarray]:
    """The active blocks: (k, 2) int32 block coordinates, sorted row-major, no repeats."""
    nb = size // B
    rng = np.random.default_rng(28)
    chosen = np.sort(rng.choice(nb * nb, size=round(ACTIVE * nb * nb), replace=False))
    blocks = np.stack([chosen // nb, chosen % nb], axis=1).astype(np.int32)
    return {"blocks": blocks, "n": np.array(size, dtype=np.int32)}


def cell_value(i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """What activation writes into cell (i, j): small integers, exact in f32 (so every framework
    agrees to the bit)."""
    return ((i * 3 + j) % 17).astype(np.float32)


def expected(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    n, blocks = int(inputs["n"]), inputs["blocks"]
    x = np.zeros((n, n), dtype=np.float32)
    d = np.arange(B)
    for bi, bj in blocks:
        i, j = np.meshgrid(bi * B + d, bj * B + d, indexing="ij")
        x[i, j] = np.float32(0.5) * cell_value(i, j) + np.float32(1.0)
    return {"x": x, "count": np.array([len(blocks) * B * B], dtype=np.int32)}


def taichi_impl(ti, inputs: dict[str, np.ndarray], sparse_node: Callable) -> Impl:
    """`sparse_node(ti, nb)` makes the top node over the nb×nb blocks, e.g. ``ti.root.pointer``."""
    n, blocks = int(inputs["n"]), inputs["blocks"]
    x = ti.field(dtype=ti.f32)
    block = sparse_node(ti, n // B)
    block.dense(ti.ij, B).place(x)
    count = ti.field(dtype=ti.i32, shape=())

    @ti.kernel
    def activate(x: ti.template(), blocks: ti.types.ndarray()):
        for b, di, dj in ti.ndrange(blocks.shape[0], B, B):
            i = blocks[b, 0] * B + di
            j = blocks[b, 1] * B + dj
            x[i, j] = ti.cast((i * 3 + j) % 17, ti.f32)

    @ti.kernel
    def update(x: ti.template(), count: ti.template()):
        count[None] = 0
        for i, j in x:
            x[i, j] = 0.5 * x[i, j] + 1.0
            count[None] += 1

    def step() -> None:
        block.deactivate_all()
        activate(x, blocks)
        update(x, count)
        ti.sync()

    return Impl(step, lambda: {"x": x.to_numpy(), "count": np.array([count[None]], np.int32)})


def numba_impl(inputs: dict[str, np.ndarray]) -> Impl:
    from numba import njit, prange

    n, blocks = int(inputs["n"]), inputs["blocks"]
    x = np.zeros((n, n), dtype=np.float32)
    count = np.zeros(1, dtype=np.int32)

    # One parallel loop over the active blocks; per block the three phases of the sparse step.
    @njit(parallel=True)
    def step(x, blocks, count):
        total = 0
        for b in prange(blocks.shape[0]):
            i0, j0 = blocks[b, 0] * B, blocks[b, 1] * B
            x[i0 : i0 + B, j0 : j0 + B] = 0  # "deactivate": a freed block reads as zeros
            for i in range(i0, i0 + B):  # activate by writing
                for j in range(j0, j0 + B):
                    x[i, j] = np.float32((i * 3 + j) % 17)
            for i in range(i0, i0 + B):  # the struct-for's body over the block, counting
                for j in range(j0, j0 + B):
                    x[i, j] = np.float32(0.5) * x[i, j] + np.float32(1.0)
                    total += 1
        count[0] = total

    return Impl(lambda: step(x, blocks, count), lambda: {"x": x, "count": count})


def numpy_impl(inputs: dict[str, np.ndarray]) -> Impl:
    n, blocks = int(inputs["n"]), inputs["blocks"]
    nb = n // B
    x = np.zeros((n, n), dtype=np.float32)
    tiles = x.reshape(nb, B, nb, B).swapaxes(1, 2)  # a view: tiles[bi, bj] is block (bi, bj)
    mask = np.zeros((nb, nb), dtype=bool)
    count = np.zeros(1, dtype=np.int32)
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij", sparse=True)
    chosen = np.zeros_like(mask)
    chosen[blocks[:, 0], blocks[:, 1]] = True
    # The values activation writes, in the mask's (row-major) order of the chosen blocks; made
    # once, outside the timed step (Taichi and Numba compute them as they write).
    values = cell_value(i, j).reshape(nb, B, nb, B).swapaxes(1, 2)[chosen]

    def step() -> None:
        tiles[mask] = 0  # deactivate: freed blocks read as zeros
        mask[:] = False
        mask[blocks[:, 0], blocks[:, 1]] = True
        tiles[mask] = values  # activate by writing
        tiles[mask] = np.float32(0.5) * tiles[mask] + np.float32(1.0)
        count[0] = np.count_nonzero(mask) * B * B

    return Impl(step, lambda: {"x": x, "count": count})
