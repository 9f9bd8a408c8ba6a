"""The CPU back end's two tiers on the same generated program, compared bit for bit.

The CPU runs a light kernel's first launches on quick code and later ones on O3 code
(tistudio/backends/llvm/tiering.py); the contract (docs/compiler-contract.md) makes the switch
invisible: every float's bits, NaN payloads aside, with `fast_math` on or off, transcendental
functions included. `run_tiers` checks that by running `program` three times:

- on the quick tier alone (`ti.init(tiering="quick")`);
- tiered (`ti.init(tiering="tiered")`, whatever `TISTUDIO_TIERED` says), once (its first call, on
  quick code unless the optimiser was faster), then again on the same inputs after
  `wait_for_optimised` (on O3 code).
"""

from __future__ import annotations

from typing import Any

import tistudio as ti
from tistudio.lang import impl

from .generator import Program
from .harness import Loaded, Outcome, compare_bits, load


def run_tiers(program: Program, fast_math: bool = True, **init: Any) -> None:
    """Raise `Mismatch` unless the quick and the optimised tier give the same bits. `init`: more
    `ti.init` options (`approx_math=True`: libmvec in both tiers)."""
    quick = _quick(program, fast_math=fast_math, **init)
    first, optimised = _tiered(program, fast_math=fast_math, **init)
    ret = program.ret_type or ""
    label = ", ".join(f"{k}={v}" for k, v in {"fast_math": fast_math, **init}.items())
    compare_bits(quick, optimised, f"quick tier vs optimised tier ({label})", ret)
    compare_bits(quick, first, f"quick tier vs the first call of a tiered kernel ({label})", ret)


def _quick(program: Program, **init: Any) -> Outcome:
    loaded = load(program, arch=ti.cpu, tiering="quick", **init)
    outcome = loaded.outcome(loaded.kern(*loaded.args))
    stages = _executable(loaded).stage_ms
    assert "llvm_quick_optimise" in stages, f"not the quick tier: {sorted(stages)}"
    return outcome


def _tiered(program: Program, **init: Any) -> tuple[Outcome, Outcome]:
    """The first call's outcome, and that of a call on the same inputs on the optimised tier."""
    loaded = load(program, arch=ti.cpu, tiering="tiered", **init)
    state = impl.get_program()
    fields = [f.to_numpy() for f in loaded.fields]
    arrays = [a.copy() for a in loaded.arrays]
    first = loaded.outcome(loaded.kern(*loaded.args))
    state.wait_for_optimised()
    optimised = _executable(loaded).optimised
    assert optimised is None or optimised.ready  # None: compiled at O3 before its first launch
    for f, data in zip(loaded.fields, fields):
        f.from_numpy(data)
    for a, data in zip(loaded.arrays, arrays):
        a[...] = data
    return first, loaded.outcome(loaded.kern(*loaded.args))


def _executable(loaded: Loaded) -> Any:
    return loaded.kern.instances()[0].result.executable
