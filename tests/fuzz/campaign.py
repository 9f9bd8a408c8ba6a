"""A long differential-fuzzing campaign: `python -m tests.fuzz.campaign --examples 5000`.

Generates random kernels (tests/fuzz/generator.py), runs each on the CPU back end and on the IR
interpreter (early and final IR), with `--gpu` also on the WebGPU back end and with `--debug` in
debug mode (tests/fuzz/variants.py), and prints how many kernels it tried, how many disagreed and
how long it took. Kernels are integer-only or use floats at random; `--float-only` draws only
kernels with float types (their data includes NaN and infinities, which the GPU must treat as
the CPU does), `--int-only` only integer kernels. Sources of disagreeing kernels go to `--out`;
`--shrink` instead stops at the first disagreement and lets hypothesis shrink it to a minimal
kernel. On a 2-core machine, `--gpu --float-only` tries about 2 kernels a second.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings

from tests.fuzz.generator import Program, programs
from tests.fuzz.harness import run_program
from tests.fuzz.variants import run_variants


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--int-only", action="store_true", help="integer kernels, fast_math on")
    parser.add_argument("--float-only", action="store_true", help="kernels with float values")
    parser.add_argument("--shrink", action="store_true", help="stop at and shrink the first")
    parser.add_argument("--out", type=Path, default=Path("fuzz-mismatches"))
    parser.add_argument("--gpu", action="store_true", help="also on the GPU (lavapipe) vs the CPU")
    parser.add_argument("--debug", action="store_true", help="also in debug mode vs release")
    options = parser.parse_args()
    warnings.simplefilter("ignore")
    tried, failures = [0], []
    phases = [Phase.generate, Phase.shrink] if options.shrink else [Phase.generate]

    @settings(
        max_examples=options.examples,
        deadline=None,
        database=None,
        phases=phases,
        suppress_health_check=list(HealthCheck),
    )
    @given(programs(floats=False if options.int_only else (options.float_only or None)))
    def campaign(program: Program) -> None:
        tried[0] += 1
        try:
            run_program(program, fast_math=options.int_only)
            if options.gpu or options.debug:
                run_variants(program, gpu=options.gpu, debug=options.debug)
        except Exception as e:  # noqa: BLE001 - every failure is a finding, kept and counted
            failures.append((program, e))
            if options.shrink:
                raise

    start = time.perf_counter()
    try:
        campaign()
    finally:
        _report(tried[0], failures, time.perf_counter() - start, options.out)


def _report(tried: int, failures: list, seconds: float, out: Path) -> None:
    for k, (program, error) in enumerate(failures):
        out.mkdir(parents=True, exist_ok=True)
        text = f"{type(error).__name__}: {error}\nscalar args {program.scalar_args}, data seed "
        header = "".join(f"# {line}\n" for line in f"{text}{program.data_seed}".splitlines())
        (out / f"mismatch_{k}.py").write_text(header + program.source)
    print(f"kernels tried: {tried}; mismatches or errors: {len(failures)}; {seconds:.0f} s")
    if failures:
        print(f"their sources are in {out}/")


if __name__ == "__main__":
    main()
