"""Benchmark cases: one module per case, each the same computation written for every framework.

A case module exposes:

- ``UNIT`` (``"ms"`` or ``"us"``), ``DESCRIPTION`` (one line), ``SIZES`` and ``REPS`` (each a
  dict with ``"full"`` and ``"quick"`` entries), ``SIZE_LABEL`` (a format string of ``n``, the
  size, for the table) and ``COLD`` (True when every repetition must happen in a fresh process
  and only the first call is timed, as for compile time);
- ``make_inputs(size) -> dict[str, np.ndarray]``: deterministic inputs (fixed seed), so every
  framework's process builds the same data;
- ``expected(inputs) -> dict[str, np.ndarray]``: the NumPy reference after ONE ``step()``;
- ``taichi_impl(ti, inputs)``: used for Taichi AND tistudio, ``ti`` being either module, so both
  compile identical source; ``numba_impl(inputs)``; ``numpy_impl(inputs)`` (or ``None`` when NumPy
  has no equivalent). Each returns an :class:`Impl`.
- optionally ``check(got, want) -> str | None`` when plain ``allclose`` is the wrong test;
- optionally ``THROUGHPUT`` (default ``not COLD``): False for latency cases (compile time, launch
  overhead), which the table's geometric-mean row leaves out;
- optionally ``TISTUDIO_VARIANTS``: ``{name: ti.init options}``. tistudio is measured once more
  per entry, initialised with those options, and the table gives it a row ``case (name)`` beside
  the case's row, with the other frameworks' cells of the case (measured once). The geometric
  mean counts the case's own row only.

Framework modules (numba, taichi, tistudio) are imported inside the ``*_impl`` functions, never at
the top of a case module, so a worker process loads only the framework it measures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

CASES = (
    "saxpy",
    "sum_reduction",
    "stencil",
    "stencil_debug",
    "mandelbrot",
    "nbody",
    "matvec",
    "histogram",
    "prefix_scan",
    "game_of_life",
    "p2g",
    "transcendental",
    "sparse_pointer",
    "sparse_bitmasked",
    "cold_compile",
    "compile_next",
    "studio_first_compile",
    "launch_overhead",
    "launch_overhead_ndarray",
)


@dataclass(frozen=True)
class Impl:
    """One framework's version of a case.

    ``step`` runs one timed iteration and returns only when the work is done (Taichi-like
    frameworks call ``ti.sync()``). ``result`` copies the outputs to NumPy for the check.
    ``calls_per_step`` divides the time of a step, for cases that time a batch of tiny calls.
    """

    step: Callable[[], None]
    result: Callable[[], dict[str, np.ndarray]]
    calls_per_step: int = 1
    details: Callable[[], dict[str, float]] | None = None  # cold cases: compile stages, ms


BACKGROUND = "O3 in background (not in the first call)"


def compile_stages(ti, kernel) -> dict[str, float]:
    """tistudio's compile time of `kernel`'s first instantiation per stage, ms: frontend, each
    pass or simplify group, LLVM IR emission, LLVM optimise, machine code, loading, and the
    rest (offline-cache lookup, waiting for the back end's warm-up). With tiered compilation
    the LLVM stages are the quick tier's, and the last entry is the optimised tier's time on
    the background thread, which the first call does not wait for. Empty for Taichi."""
    if getattr(ti, "__name__", "") != "tistudio":
        return {}
    entry = kernel.instances()[0]
    stages = {"frontend": entry.result.frontend_ms}
    stages.update({k: v for k, v in entry.result.stage_ms.items() if not k.endswith("rounds")})
    stages["other"] = entry.compile_ms - sum(stages.values())
    optimised = getattr(entry.result.executable, "optimised", None)
    if optimised is not None:  # tiered: the O3 compile ran on the optimiser's thread, after
        stages[BACKGROUND] = sum(optimised.wait().stage_ms.values())
    return stages


def compare(
    got: dict[str, np.ndarray],
    want: dict[str, np.ndarray],
    rtol: float = 1e-5,
    atol: float = 1e-6,
    max_bad_fraction: float = 0.0,
) -> str | None:
    """Returns why ``got`` differs from ``want``, or None when they agree.

    Integers must match exactly unless ``max_bad_fraction`` allows a share of elements to differ
    (chaotic iterations like Mandelbrot flip a few boundary pixels when a compiler fuses a
    multiply-add, which Taichi does under its default ``fast_math=True``).
    """
    for name, ref in want.items():
        if name not in got:
            return f"output {name!r} missing"
        arr = np.asarray(got[name])
        if arr.shape != ref.shape:
            return f"{name}: shape {arr.shape}, expected {ref.shape}"
        if np.issubdtype(ref.dtype, np.integer):
            bad = arr != ref
        else:
            bad = ~np.isclose(arr, ref, rtol=rtol, atol=atol)
        fraction = np.count_nonzero(bad) / max(bad.size, 1)
        if fraction > max_bad_fraction:
            first = np.argwhere(bad)[0] if bad.ndim else ()
            index = tuple(int(i) for i in first)
            return (
                f"{name}: {np.count_nonzero(bad)} of {bad.size} elements differ; "
                f"at {index}: got {arr[index]}, expected {ref[index]}"
            )
    return None
