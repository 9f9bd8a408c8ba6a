"""Runs every benchmark on tistudio, Taichi, Numba and NumPy and prints a markdown table.

    python benchmarks/run.py [--quick] [--only NAME[,NAME...]] [--frameworks LIST] [--json PATH]
                             [--rounds N]

Each measurement runs in its own process (``benchmarks/worker.py``), so no two thread pools
share a process. A framework that fails to import, or a case that fails or computes a wrong
result, becomes a cell saying so; the rest of the suite still runs.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make `benchmarks` importable
    sys.path.insert(0, str(ROOT))

from benchmarks import machine  # noqa: E402
from benchmarks.cases import BACKGROUND, CASES  # noqa: E402
from benchmarks.worker import FRAMEWORKS  # noqa: E402

WORKER_TIMEOUT_S = {"full": 300, "quick": 120}
COLUMN_TITLES = {
    "tistudio": "tistudio",
    "taichi": "Taichi",
    "numba": "Numba prange",
    "numpy": "NumPy",
}
# Seconds the whole suite may spend waiting for other processes to quiet down, per round; once
# spent, the remaining measurements start at once (and are flagged if the machine is busy). A
# cold case without that wait starts its kernel right after `ti.init`, before tistudio's
# warm-up thread is done: cold_compile took 43 ms so, against 15 after the wait.
WAIT_BUDGET_S = {"full": 90.0, "quick": 15.0}
CELL_WIDTH = 48  # longer error messages are cut in the table and given in full below it


def run_worker(
    case: str, framework: str, mode: str, patience: float | None, variant: str | None = None
) -> dict:
    """Runs one worker process and returns its report (or a report of how it failed)."""
    command = [
        sys.executable,
        "-m",
        "benchmarks.worker",
        "--case",
        case,
        "--framework",
        framework,
        "--mode",
        mode,
    ]
    if patience is not None:
        command += ["--patience", str(patience)]
    if variant:
        command += ["--variant", variant]
    failed = {"case": case, "framework": framework, "status": "ERROR"}
    try:
        done = subprocess.run(
            command, cwd=ROOT, capture_output=True, text=True, timeout=WORKER_TIMEOUT_S[mode]
        )
    except subprocess.TimeoutExpired:
        return failed | {"message": f"timed out after {WORKER_TIMEOUT_S[mode]} s"}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        return failed | {"message": f"worker exited with {done.returncode}: {tail[0]}"}
    return json.loads(lines[-1])


def measure(
    case: str, framework: str, mode: str, patience: float | None, variant: str | None = None
) -> dict:
    """One framework on one case; cold cases get one fresh process per repetition."""
    module = importlib.import_module(f"benchmarks.cases.{case}")
    if not module.COLD:
        return run_worker(case, framework, mode, patience, variant)
    reports = [
        run_worker(case, framework, mode, patience, variant) for _ in range(module.REPS[mode])
    ]
    return merge(reports)


def columns(case: str, frameworks: list[str]) -> list[tuple[str, str | None]]:
    """What to measure for `case`: (framework, None) per framework, then (tistudio, variant)
    per entry of the case's TISTUDIO_VARIANTS."""
    variants = getattr(importlib.import_module(f"benchmarks.cases.{case}"), "TISTUDIO_VARIANTS", {})
    extra = [("tistudio", v) for v in variants] if "tistudio" in frameworks else []
    return [(framework, None) for framework in frameworks] + extra


def variant_key(variant: str) -> str:
    """Where a case's results keep tistudio's report with a variant's `ti.init` options."""
    return f"tistudio ({variant})"


def merge(reports: list[dict]) -> dict:
    """One cell from several processes' reports of it: the median of their medians, the least
    sample, every sample, and the median of each compile stage. Memory bandwidth here changes
    for whole processes at a time (saxpy's samples in one process all 1.6-2.1 ms, in the next
    all 0.6-0.9), so a process that ran in a slow spell moves the median of medians less than
    its 30 samples move the median of all samples. A failed process makes the cell that
    failure."""
    bad = [r for r in reports if r["status"] != "OK"]
    if bad:
        return bad[0]
    if len(reports) == 1:
        return reports[0]
    samples = [s for r in reports for s in r["samples"]]
    merged = dict(reports[0])
    details = [r.get("details") or {} for r in reports]
    merged["details"] = {
        stage: statistics.median(d.get(stage, 0.0) for d in details) for stage in details[0]
    }
    merged.update(
        samples=samples,
        process_medians=[statistics.median(r["samples"]) for r in reports],
        min=min(samples),
        idle={
            "idle": all(r["idle"]["idle"] for r in reports),
            "waited_s": sum(r["idle"]["waited_s"] for r in reports),
        },
    )
    merged["median"] = statistics.median(merged["process_medians"])
    return merged


def format_number(value: float) -> str:
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def cell(report: dict) -> str:
    if report["status"] == "OK":
        busy = "" if report["idle"]["idle"] else " *"
        return f"{format_number(report['median'])} ({format_number(report['min'])}){busy}"
    if report["status"] == "N/A":
        return "n/a"
    text = f"{report['status']}: {report.get('message', '')}".replace("|", "\\|")
    return text if len(text) <= CELL_WIDTH else text[: CELL_WIDTH - 1] + "…"


def speedup(ours: dict, theirs: dict) -> str:
    if ours["status"] != "OK" or theirs["status"] != "OK":
        return "—"
    return f"{theirs['median'] / ours['median']:.2f}×"


def table(results: dict[str, dict[str, dict]], mode: str, frameworks: list[str]) -> str:
    head = ["benchmark", "size", "unit"] + [COLUMN_TITLES[f] for f in frameworks]
    others = [f for f in frameworks if f != "tistudio"] if "tistudio" in frameworks else []
    head += [f"tistudio vs {COLUMN_TITLES[f].split()[0]}" for f in others]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for case, by_framework in results.items():
        module = importlib.import_module(f"benchmarks.cases.{case}")
        size = module.SIZE_LABEL.format(n=module.SIZES[mode])
        for label, cells in case_rows(case, by_framework):
            row = [label, size, module.UNIT] + [cell(cells[f]) for f in frameworks]
            row += [speedup(cells["tistudio"], cells[f]) for f in others]
            rows.append("| " + " | ".join(row) + " |")
    if others:
        rows.append(geomean_row(results, frameworks, others))
    return "\n".join(rows)


def case_rows(case: str, by_framework: dict[str, dict]) -> list[tuple[str, dict[str, dict]]]:
    """The table's rows of `case`: its own, then one per tistudio variant that was measured,
    whose tistudio cell is the variant's and whose other cells are the case's."""
    module = importlib.import_module(f"benchmarks.cases.{case}")
    rows = [(case, by_framework)]
    for variant in getattr(module, "TISTUDIO_VARIANTS", {}):
        if variant_key(variant) in by_framework:
            cells = {**by_framework, "tistudio": by_framework[variant_key(variant)]}
            rows.append((f"{case} ({variant})", cells))
    return rows


def is_throughput(case: str) -> bool:
    """Throughput cases go into the geometric mean; compile and launch latency cases do not."""
    module = importlib.import_module(f"benchmarks.cases.{case}")
    return getattr(module, "THROUGHPUT", not module.COLD)


def geomean_row(results: dict[str, dict[str, dict]], frameworks: list[str], others: list[str]):
    """Geometric mean of each speedup column over the throughput cases where both cells are OK."""
    cases = [case for case in results if is_throughput(case)]
    row = [f"**geomean** ({len(cases)} throughput cases)", "", ""] + [""] * len(frameworks)
    for framework in others:
        ratios = [
            results[c][framework]["median"] / results[c]["tistudio"]["median"]
            for c in cases
            if results[c]["tistudio"]["status"] == "OK" and results[c][framework]["status"] == "OK"
        ]
        if not ratios:
            row.append("—")
            continue
        mean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        counted = "" if len(ratios) == len(cases) else f" (of {len(ratios)})"
        row.append(f"**{mean:.2f}×**{counted}")
    return "| " + " | ".join(row) + " |"


def first_call_table(results: dict[str, dict[str, dict]], frameworks: list[str]) -> str:
    """First call of each kernel (compile + one run), ms: tells compile cost per benchmark."""
    head = ["benchmark"] + [COLUMN_TITLES[f] for f in frameworks]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for case, by_framework in results.items():
        for label, cells in case_rows(case, by_framework):
            values = [cells[f].get("first_call_ms") for f in frameworks]
            if all(v is None for v in values):
                continue
            row = [label] + ["—" if v is None else format_number(v) for v in values]
            rows.append("| " + " | ".join(row) + " |")
    return "\n".join(rows)


def breakdown_table(results: dict[str, dict[str, dict]]) -> str:
    """tistudio's compile stages in the cold cases (median over the fresh processes), ms; the
    total is that of the first call (the background optimiser's time is not in it)."""
    cases = [c for c, by in results.items() if by.get("tistudio", {}).get("details")]
    if not cases:
        return ""
    stages: list[str] = []
    for case in cases:
        stages += [s for s in results[case]["tistudio"]["details"] if s not in stages]
    rows = ["| stage | " + " | ".join(cases) + " |", "|" + "---|" * (len(cases) + 1)]
    for stage in stages + ["total"]:
        values = []
        for case in cases:
            details = results[case]["tistudio"]["details"]
            first_call = {k: v for k, v in details.items() if k != BACKGROUND}
            value = sum(first_call.values()) if stage == "total" else details.get(stage)
            values.append("—" if value is None else f"{value:.1f}")
        rows.append(f"| {stage} | " + " | ".join(values) + " |")
    return "\n".join(rows)


def problems(results: dict[str, dict[str, dict]]) -> str:
    """Full text of every error or wrong result, each distinct message once."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for case, by_framework in results.items():
        for framework, report in by_framework.items():
            if report["status"] in ("ERROR", "WRONG"):
                key = (framework, f"{report['status']}: {report.get('message', '')}")
                grouped.setdefault(key, []).append(case)
    return "\n".join(
        f"- {framework} ({', '.join(cases)}): {message}"
        for (framework, message), cases in grouped.items()
    )


def header(mode: str, rounds: int = 1) -> str:
    info = machine.describe()
    versions = ", ".join(f"{name} {version}" for name, version in info["versions"].items())
    cells = "median (min) over the repetitions after warm-up"
    if rounds > 1:
        cells = (
            f"median of {rounds} processes' medians (min of all their samples), the frameworks "
            "measured in turns"
        )
    return (
        f"Machine: {info['cpu']}, {info['cores']} cores ({info['usable_cores']} usable), "
        f"{info['os']}, Python {info['python']}\n"
        f"Versions: {versions}\n"
        f"Mode: {mode}. Cells: {cells}; "
        f"'tistudio vs X' = X median / tistudio median (above 1: tistudio is faster)."
    )


def report(
    results: dict[str, dict[str, dict]],
    mode: str,
    frameworks: list[str],
    seconds: float,
    rounds: int = 1,
) -> str:
    parts = [header(mode, rounds), "", table(results, mode, frameworks)]
    if any(
        not r["idle"]["idle"] for rs in results.values() for r in rs.values() if r["status"] == "OK"
    ):
        parts.append(
            "\n\\* other processes used more than 15% of the CPUs before or during this"
            " measurement."
        )
    parts += ["", "First call (compile + one run), ms:", "", first_call_table(results, frameworks)]
    stages = breakdown_table(results)
    if stages:
        parts += ["", "tistudio compile stages in the cold cases (median), ms:", "", stages]
    errors = problems(results)
    if errors:
        parts += ["", "Errors and wrong results:", "", errors]
    parts += ["", f"Suite took {seconds:.0f} s."]
    return "\n".join(parts)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few repetitions")
    parser.add_argument("--only", help="comma-separated benchmark names: " + ", ".join(CASES))
    parser.add_argument(
        "--frameworks",
        default=",".join(FRAMEWORKS),
        help="comma-separated subset of: " + ", ".join(FRAMEWORKS),
    )
    parser.add_argument("--json", type=Path, help="also write every raw report here")
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="measure every cell this many times, the frameworks in turns; a cell is then "
        "the median of its processes' medians",
    )
    args = parser.parse_args(argv)
    args.cases = args.only.split(",") if args.only else list(CASES)
    args.framework_list = args.frameworks.split(",")
    for name in args.cases:
        if name not in CASES:
            parser.error(f"unknown benchmark {name!r}; choose from {', '.join(CASES)}")
    for name in args.framework_list:
        if name not in FRAMEWORKS:
            parser.error(f"unknown framework {name!r}; choose from {', '.join(FRAMEWORKS)}")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    mode = "quick" if args.quick else "full"
    start = time.perf_counter()
    results: dict[str, dict[str, dict]] = {}
    waited = 0.0
    for case in args.cases:
        runs: dict[tuple[str, str | None], list[dict]] = {
            column: [] for column in columns(case, args.framework_list)
        }
        for _ in range(args.rounds):  # the frameworks in turns, so that a slow spell hits all
            for framework, variant in runs:
                patience = None if waited < WAIT_BUDGET_S[mode] * args.rounds else 0.0
                result = measure(case, framework, mode, patience, variant)
                runs[framework, variant].append(result)
                waited += result.get("idle", {}).get("waited_s", 0.0)
                name = variant_key(variant) if variant else framework
                print(f"{case:16} {name:9} {cell(result)}", file=sys.stderr, flush=True)
        results[case] = {
            variant_key(variant) if variant else framework: merge(reports)
            for (framework, variant), reports in runs.items()
        }
    seconds = time.perf_counter() - start
    print(report(results, mode, args.framework_list, seconds, args.rounds))
    if args.json:
        args.json.write_text(
            json.dumps({"mode": mode, "machine": machine.describe(), "results": results}, indent=1)
        )


if __name__ == "__main__":
    main()
