"""Compile options, frozen: they travel inside `PassContext` and key the kernel caches."""

from __future__ import annotations

from dataclasses import dataclass

from tistudio.ir.types import PrimitiveType, f32, i32


@dataclass(frozen=True)
class CompileConfig:
    """What `ti.init` chose. Read by passes and back ends; never mutated after `ti.init`."""

    arch: str = "cpu"  # "cpu" | "gpu"
    debug: bool = False
    default_fp: PrimitiveType = f32
    default_ip: PrimitiveType = i32
    cpu_max_num_threads: int = 2
    print_ir: bool = False
    record_passes: bool = False
    verify_passes: bool = False
    make_thread_local: bool = True
    advanced_optimization: bool = True
    fast_math: bool = True  # GPU: drivers may treat NaN/Inf as WGSL allows (CPU: no effect)
    approx_math: bool = False  # CPU: transcendentals through libmvec (see vecmath.py)
    opt_level: int = 3
    ad_stack_size: int = 0  # autodiff stack entries where loop bounds are not constants (0: 32)
    # CPU: "tiered" (quick code first, O3 from a background thread), "optimised" (O3 before the
    # first launch) or "quick" (the first tier only); ti.init(tiering=) or TISTUDIO_TIERED
    tiering: str = "tiered"
    random_seed: int = 0  # ti.init(random_seed=...): the seed of ti.random (ir/random.py)
