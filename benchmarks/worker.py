"""Measures one case on one framework, in a process of its own, and prints one JSON object.

Run as ``python -m benchmarks.worker --case saxpy --framework taichi --mode full`` from the
repository root (``benchmarks/run.py`` does this). One framework per process keeps thread pools
apart: Numba's OpenMP workers spin after each parallel region and, sharing two cores, slowed
Taichi's pool by 3x in the same process. Anything the frameworks print (Taichi's banner, a
compiler's log) is sent to stderr, so stdout carries nothing but the JSON.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import statistics
import sys
import time
import traceback

from benchmarks.cases import CASES, Impl, compare
from benchmarks.timing import POLICY, Policy, sample_quietly, time_once_quietly

FRAMEWORKS = ("tistudio", "taichi", "numba", "numpy")
UNIT_SCALE = {"ms": 1e3, "us": 1e6}
WARMUP = 3  # calls after the first, before timing


class WrongResult(Exception):
    """The framework computed something other than the NumPy reference."""


class NoEquivalent(Exception):
    """The case has no version for this framework (NumPy compiles nothing, for example)."""


def framework_version(framework: str, module) -> str:
    version = getattr(module, "__version__", "unknown")
    if isinstance(version, tuple):  # taichi.__version__ is (1, 7, 4)
        version = ".".join(str(part) for part in version)
    return str(version)


def build(case, framework: str, inputs: dict, variant: str | None) -> tuple[Impl, str]:
    """Imports the framework and builds the case's implementation; returns it and the version.
    A `variant` (tistudio only) names the case's extra `ti.init` options (TISTUDIO_VARIANTS)."""
    if framework in ("taichi", "tistudio"):
        ti = importlib.import_module(framework)
        options = case.TISTUDIO_VARIANTS[variant] if variant else {}
        # No offline cache: a kernel compiled by an earlier run must not make a cold start warm.
        ti.init(arch=ti.cpu, offline_cache=False, **options)
        return case.taichi_impl(ti, inputs), framework_version(framework, ti)
    if case.numpy_impl is None and framework == "numpy":
        raise NoEquivalent("no NumPy equivalent")
    module = importlib.import_module(framework)
    impl_of = {"numba": case.numba_impl, "numpy": case.numpy_impl}[framework]
    return impl_of(inputs), framework_version(framework, module)


def check(case, impl: Impl, inputs: dict) -> None:
    checker = getattr(case, "check", compare)
    problem = checker(impl.result(), case.expected(inputs))
    if problem:
        raise WrongResult(problem)


def measure_cold(case, impl: Impl, inputs: dict, mode: str, policy: Policy, framework: str) -> dict:
    seconds, quiet = time_once_quietly(impl.step, policy)
    check(case, impl, inputs)
    report = {"samples": [seconds * UNIT_SCALE[case.UNIT]], "idle": quiet}
    if impl.details is not None:
        report["details"] = impl.details()
    return report


def measure_warm(case, impl: Impl, inputs: dict, mode: str, policy: Policy, framework: str) -> dict:
    start = time.perf_counter()
    impl.step()  # includes compilation
    first = time.perf_counter() - start
    check(case, impl, inputs)
    for _ in range(WARMUP):
        impl.step()
    if framework == "tistudio":  # timed on optimised code, without the optimiser on a core
        importlib.import_module("tistudio.lang.impl").get_program().wait_for_optimised()
    samples, quiet = sample_quietly(impl.step, case.REPS[mode], policy)
    scale = UNIT_SCALE[case.UNIT] / impl.calls_per_step
    return {"samples": [s * scale for s in samples], "first_call_ms": first * 1e3, "idle": quiet}


def run(
    case_name: str, framework: str, mode: str, policy: Policy, variant: str | None = None
) -> dict:
    case = importlib.import_module(f"benchmarks.cases.{case_name}")
    report = {"case": case_name, "framework": framework, "unit": case.UNIT}
    if variant:
        report["variant"] = variant
    try:
        inputs = case.make_inputs(case.SIZES[mode])
        impl, report["version"] = build(case, framework, inputs, variant)
        measure = measure_cold if case.COLD else measure_warm
        report.update(measure(case, impl, inputs, mode, policy, framework))
    except WrongResult as wrong:
        report.update(status="WRONG", message=str(wrong))
        return report
    except NoEquivalent as missing:
        report.update(status="N/A", message=str(missing))
        return report
    except Exception as error:  # any failure becomes a cell in the table
        report.update(
            status="ERROR",
            message=f"{type(error).__name__}: {error}",
            traceback=traceback.format_exc(),
        )
        return report
    samples = report["samples"]
    report.update(status="OK", median=statistics.median(samples), min=min(samples))
    return report


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", required=True, choices=CASES)
    parser.add_argument("--framework", required=True, choices=FRAMEWORKS)
    parser.add_argument("--mode", default="full", choices=("full", "quick"))
    parser.add_argument(
        "--patience", type=float, help="seconds to wait for a quiet machine (default: per mode)"
    )
    parser.add_argument("--variant", help="tistudio with a case's TISTUDIO_VARIANTS entry")
    args = parser.parse_args(argv)
    if args.variant and args.framework != "tistudio":
        parser.error("--variant is for --framework tistudio")
    # Keep the real stdout for the JSON and point file descriptor 1 at stderr, so prints from C
    # code (Taichi's "[Taichi] Starting on arch=x64") cannot corrupt it.
    sys.stdout.flush()
    json_out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    policy = POLICY[args.mode]
    if args.patience is not None:
        policy = dataclasses.replace(policy, patience_s=args.patience)
    report = run(args.case, args.framework, args.mode, policy, args.variant)
    sys.stdout.flush()
    json_out.write(json.dumps(report) + "\n")
    json_out.flush()


if __name__ == "__main__":
    main()
