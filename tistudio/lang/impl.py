"""The current program behind the global `ti.*` API.

Taichi's API is global by design (`ti.init()` then `ti.field(...)` anywhere), so exactly one
object here holds the current `Program`; everything else receives it from `get_program()`.
`ti.init()` reads environment variables once, here.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from tistudio.arch import resolve
from tistudio.ir.config import CompileConfig
from tistudio.lang.runtime_view import RuntimeView
from tistudio.lang.types import to_dtype
from tistudio.runtime import warm_up
from tistudio.runtime.offline_cache import DEFAULT_MAX_BYTES, OfflineCache, default_path
from tistudio.runtime.program import Program


class _Runtime:
    """Holds the current program; created on demand with default settings, like Taichi."""

    def __init__(self) -> None:
        self.program: Program | None = None

    def get(self) -> Program:
        if self.program is None:
            init()
        assert self.program is not None
        return self.program


# what the back end's warm-up thread imports for `lang`: `ti.max` & co., which the first kernel
# using one would import otherwise (`runtime/warm_up.py`)
_PRELOAD = ("tistudio.lang.ops",)

current = _Runtime()  # `current.program`: None before the first `ti.init()`


def get_program() -> Program:
    return current.get()


def current_config() -> CompileConfig:
    return get_program().config


def current_cfg() -> CompileConfig:
    """Taichi's name for the active configuration (`ti.lang.impl.current_cfg()`)."""
    return current_config()


def get_runtime() -> RuntimeView:
    """Taichi's `impl.get_runtime()`, as far as its tests use it (`lang/runtime_view.py`)."""
    return RuntimeView(get_program())


_TIERS = ("tiered", "optimised", "quick")


def _tiering(chosen: str | None) -> str:
    """`ti.init(tiering=...)`, else `TISTUDIO_TIERED` (0: "optimised", quick: "quick")."""
    if chosen is None:
        value = os.environ.get("TISTUDIO_TIERED", "1")
        return {"0": "optimised", "quick": "quick"}.get(value, "tiered")
    if chosen not in _TIERS:
        raise ValueError(f"tiering={chosen!r}: use one of {', '.join(map(repr, _TIERS))}")
    return chosen


def init(
    arch: Any = None,
    debug: bool = False,
    print_ir: bool = False,
    default_fp: Any = None,
    default_ip: Any = None,
    cpu_max_num_threads: int | None = None,
    offline_cache: bool | None = None,
    offline_cache_file_path: str | None = None,
    **kwargs: Any,
) -> None:
    """Start a fresh program (`ti.init`). Fields and kernels compiled before are dropped.

    The offline (disk) cache of compiled kernels is on unless `offline_cache=False` or the
    environment says `TISTUDIO_OFFLINE_CACHE=0`; it lives in `offline_cache_file_path`, else
    `$TISTUDIO_OFFLINE_CACHE_FILE_PATH`, else `~/.cache/tistudio`, and is kept under
    `offline_cache_max_size` bytes (default 100 MiB) by least-recently-used cleaning.

    `tiering` (CPU): "tiered" (the default: quick code first, optimised code from a background
    thread), "optimised" or "quick"; without it `TISTUDIO_TIERED` decides (0: optimised)."""
    reset()
    # Taichi's `enable_fallback`; `fallback_to_cpu` is tistudio's older name for it
    fallback = bool(kwargs.pop("enable_fallback", kwargs.pop("fallback_to_cpu", True)))
    resolved = resolve(arch, fallback)
    device = None
    if resolved == "gpu":
        # imported for the GPU only: the WebGPU back end's modules cost ~9 ms to import
        from tistudio.runtime.gpu_device import open_gpu

        device = open_gpu(fallback)
        resolved = "gpu" if device is not None else "cpu"
    threads = cpu_max_num_threads or len(os.sched_getaffinity(0))
    config = CompileConfig(
        arch=resolved,
        debug=bool(debug),
        print_ir=bool(print_ir),
        cpu_max_num_threads=max(1, int(threads)),
        verify_passes=os.environ.get("TISTUDIO_VERIFY_IR", "") not in ("", "0"),
        record_passes=bool(kwargs.pop("record_passes", False)),
        fast_math=bool(kwargs.pop("fast_math", True)),
        approx_math=bool(kwargs.pop("approx_math", False)),
        ad_stack_size=int(kwargs.pop("ad_stack_size", 0)),
        tiering=_tiering(kwargs.pop("tiering", None)),
        random_seed=int(kwargs.pop("random_seed", 0)),
    )
    program = Program(config)
    program.offline_cache = _offline_cache(offline_cache, offline_cache_file_path, kwargs)
    if device is not None:  # device_memory_GB: the most a tree with pointer pools takes
        program.use_gpu(device, kwargs.pop("device_memory_GB", None))
    else:
        warm_up.start(program.offline_cache, config.cpu_max_num_threads, _PRELOAD)
    current.program = program
    # default_fp/ip go through to_dtype, which needs a current program to exist
    if default_fp is not None or default_ip is not None:
        program.config = replace(
            config,
            default_fp=to_dtype(default_fp) if default_fp is not None else config.default_fp,
            default_ip=to_dtype(default_ip) if default_ip is not None else config.default_ip,
        )


def current_adapter() -> str:
    """The WebGPU adapter the current program runs on (`"Vulkan: llvmpipe ..."`), or "cpu"."""
    gpu = get_program().gpu
    return gpu.device.description if gpu is not None else "cpu"


def _offline_cache(enabled: bool | None, path: str | None, kwargs: dict) -> Any:
    max_bytes = int(kwargs.pop("offline_cache_max_size", DEFAULT_MAX_BYTES))
    factor = float(kwargs.pop("offline_cache_cleaning_factor", 0.25))
    if enabled is None:
        flag = os.environ.get("TISTUDIO_OFFLINE_CACHE", "1").strip().lower()
        enabled = flag not in ("0", "false", "off", "no")
    if not enabled:
        return None
    path = path or os.environ.get("TISTUDIO_OFFLINE_CACHE_FILE_PATH") or default_path()
    return OfflineCache(path, max_bytes, factor)


def reset() -> None:
    """Drop the current program (`ti.reset`): its fields and compiled kernels are gone."""
    if current.program is not None:
        current.program.close()
    current.program = None
