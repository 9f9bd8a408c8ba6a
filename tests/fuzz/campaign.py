"""A long differential-fuzzing campaign: `python -m tests.fuzz.campaign --examples 5000`.

Generates random kernels (tests/fuzz/generator.py) and runs each on the CPU back end and on the
IR interpreter (early and final IR), and on the CPU's quick and optimised tiers compared bit for
bit (tests/fuzz/tiers.py; `--no-tiers` skips them); `--gpu` adds the WebGPU back end and
`--debug` debug mode (tests/fuzz/variants.py). It prints how many kernels it tried, how many
disagreed and how long it took. The CPU runs happen with `fast_math` off and on (Taichi's
default), or with one of them (`--fast-math off|on`): the contract gives the same results
either way; `--approx-math` runs them with libmvec's functions.

Kernels are integer-only or use floats at random; `--float-only` draws only kernels with float
types (their data includes NaN and infinities, which the GPU must treat as the CPU does),
`--int-only` only integer kernels, `--no-f16` leaves f16 out. Sources of disagreeing kernels go
to `--out` with the checks they failed, and the kernel under test to `running.py` there (for a
crash or a hang); `--shrink` instead stops at the first disagreement and lets hypothesis shrink
it to a minimal kernel; `--seed` repeats a campaign; `python -m tests.fuzz.replay run FILE`
runs a finding again. On a 2-core machine the default tries about
3 kernels a second (4 with `--no-tiers`), `--gpu --float-only` about 2.
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path

from tests.fuzz.generator import Program, drawing
from tests.fuzz.harness import run_program
from tests.fuzz.replay import program_line
from tests.fuzz.tiers import run_tiers
from tests.fuzz.variants import run_variants

FAST_MATH = {"off": (False,), "on": (True,), "both": (False, True)}
Check = Callable[[Program], None]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--int-only", action="store_true", help="integer kernels only")
    parser.add_argument("--float-only", action="store_true", help="kernels with float values")
    parser.add_argument("--no-f16", action="store_true", help="no f16 values")
    parser.add_argument("--fast-math", choices=FAST_MATH, default="both", help="CPU runs with")
    parser.add_argument("--approx-math", action="store_true", help="CPU runs with libmvec")
    parser.add_argument(
        "--tiers", action=argparse.BooleanOptionalAction, default=True, help="quick vs O3 tier"
    )
    parser.add_argument("--shrink", action="store_true", help="stop at and shrink the first")
    parser.add_argument("--out", type=Path, default=Path("fuzz-mismatches"))
    parser.add_argument("--gpu", action="store_true", help="also on the GPU (lavapipe) vs the CPU")
    parser.add_argument("--debug", action="store_true", help="also in debug mode vs release")
    parser.add_argument("--seed", type=int, help="hypothesis's seed, to repeat a campaign")
    options = parser.parse_args()
    warnings.simplefilter("ignore")
    tried, failures = [0], []
    floats = False if options.int_only else (options.float_only or None)

    @drawing(options.examples, floats, not options.no_f16, options.shrink, options.seed)
    def campaign(program: Program) -> None:
        tried[0] += 1
        failed = []
        for name, check in _checks(options):
            running.write_text(_annotated(program, f"[{name}] running\n"))  # if it hangs or crashes
            try:
                check(program)
            except Exception as e:  # noqa: BLE001 - every failure is a finding, kept and counted
                failed.append((name, e))
                if options.shrink:
                    raise
        if failed:
            failures.append((program, failed))

    options.out.mkdir(parents=True, exist_ok=True)
    running = options.out / "running.py"
    start = time.perf_counter()
    try:
        campaign()
        running.unlink(missing_ok=True)
    finally:
        _report(tried[0], failures, time.perf_counter() - start, options.out)


def _checks(options: argparse.Namespace) -> list[tuple[str, Check]]:
    """(name, check) for each comparison the options ask for, in order."""
    checks: list[tuple[str, Check]] = []
    approx = {"approx_math": True} if options.approx_math else {}
    for fast_math in FAST_MATH[options.fast_math]:
        name = ", ".join(f"{k}={v}" for k, v in {"fast_math": fast_math, **approx}.items())
        checks.append((name, partial(run_program, fast_math=fast_math, **approx)))
        if options.tiers:
            checks.append((f"tiers {name}", partial(run_tiers, fast_math=fast_math, **approx)))
    if options.gpu or options.debug:
        name = " and ".join(k for k in ("gpu", "debug") if getattr(options, k))
        checks.append((name, partial(run_variants, gpu=options.gpu, debug=options.debug)))
    return checks


def _annotated(program: Program, text: str) -> str:
    """The program's source after `text`, its scalar arguments and data seed as comments, and
    the whole program on one line that `python -m tests.fuzz.replay run` reads back."""
    text += f"scalar args {program.scalar_args}, data seed {program.data_seed}"
    comments = "".join(f"# {line}\n" for line in text.splitlines())
    return comments + program_line(program) + program.source


def _report(tried: int, failures: list, seconds: float, out: Path) -> None:
    by_check: Counter[str] = Counter()
    for k, (program, failed) in enumerate(failures):
        text = "".join(f"[{name}] {type(e).__name__}: {e}\n" for name, e in failed)
        (out / f"mismatch_{k}.py").write_text(_annotated(program, text))
        by_check.update(name for name, _ in failed)
    print(f"kernels tried: {tried}; mismatches or errors: {len(failures)}; {seconds:.0f} s")
    if failures:
        print("by check: " + "; ".join(f"{name}: {n}" for name, n in sorted(by_check.items())))
        print(f"their sources are in {out}/")


if __name__ == "__main__":
    main()
