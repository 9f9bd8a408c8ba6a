"""Run a fuzz campaign's findings again, on any machine: `python -m tests.fuzz.replay FILE...`.

A campaign writes each disagreeing kernel with a `# program: {...}` line (campaign.py), which
holds everything the harness needs (arrays, scalar arguments, data seed); `replay` loads such
files, runs the GPU comparison (`variants.run_variants`, without debug mode) and says, per file,
whether the GPU still disagrees, with `--wgsl DIR` writing each kernel's shaders there.

Findings from before that line existed are regenerated: a campaign's programs are a function of
its options and seed (`regenerate --seed S --examples N [--int-only|--float-only] FILE...`
draws them again and writes those whose source matches one of the files, with the line).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import traceback
import warnings
from pathlib import Path

from tests.fuzz.generator import Array, Program, drawing

MARK = "# program: "


def program_line(program: Program) -> str:
    """The `# program:` line that `load_file` reads back."""
    return MARK + json.dumps(dataclasses.asdict(program)) + "\n"


def load_file(path: Path) -> Program:
    """The program a finding's file holds (see `program_line`)."""
    for line in path.read_text().splitlines():
        if line.startswith(MARK):
            data = json.loads(line[len(MARK) :])
            data["arrays"] = [Array(**{**a, "shape": tuple(a["shape"])}) for a in data["arrays"]]
            data["scalar_args"] = [tuple(x) for x in data["scalar_args"]]
            return Program(**data)
    raise ValueError(f"{path} has no '{MARK.strip()}' line: regenerate it (see --help)")


def _source_of(path: Path) -> str:
    """A finding's kernel source: the file without its comment lines."""
    lines = path.read_text().splitlines(keepends=True)
    return "".join(line for line in lines if not line.startswith("#"))


def regenerate(options: argparse.Namespace) -> None:
    wanted = {_source_of(p): p for p in options.files}
    floats = False if options.int_only else (options.float_only or None)
    options.out.mkdir(parents=True, exist_ok=True)
    found: set[str] = set()

    @drawing(options.examples, floats, not options.no_f16, seed=options.seed)
    def draw(program: Program) -> None:
        path = wanted.get(program.source)
        if path is not None and program.source not in found:
            found.add(program.source)
            target = options.out / f"{path.parent.name}-{path.name}"
            target.write_text(program_line(program) + path.read_text())

    draw()
    print(f"regenerated {len(found)} of {len(wanted)} findings into {options.out}/")


def replay(options: argparse.Namespace) -> int:
    import tistudio as ti
    from tests.fuzz.harness import load
    from tests.fuzz.variants import run_variants

    failed = 0
    for path in options.files:
        program = load_file(path)
        try:
            run_variants(program, gpu=True, debug=False)
            verdict = "agrees"
        except Exception as e:  # noqa: BLE001 - every disagreement is reported, then counted
            verdict = f"DISAGREES: {type(e).__name__}: {str(e).splitlines()[0][:300]}"
            failed += 1
            if options.traceback:
                traceback.print_exc()
        print(f"{path}: {verdict}", flush=True)
        if options.wgsl is not None:
            loaded = load(program, arch=ti.vulkan)
            try:
                text = loaded.kern.compile_report(*loaded.args).wgsl
            except Exception as e:  # noqa: BLE001 - the verdict above is the finding
                text = f"// no report: {e}"
            options.wgsl.mkdir(parents=True, exist_ok=True)
            (options.wgsl / f"{path.stem}.wgsl").write_text(text)
    print(f"replayed {len(options.files)}; disagreeing {failed}")
    return 1 if failed else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    again = sub.add_parser("regenerate", help="draw a campaign's programs again")
    again.add_argument("--seed", type=int, required=True)
    again.add_argument("--examples", type=int, required=True)
    again.add_argument("--int-only", action="store_true")
    again.add_argument("--float-only", action="store_true")
    again.add_argument("--no-f16", action="store_true")
    again.add_argument("--out", type=Path, default=Path("fuzz-replay"))
    again.add_argument("files", nargs="+", type=Path)
    run = sub.add_parser("run", help="run findings on the GPU against the CPU")
    run.add_argument("--wgsl", type=Path, help="write each kernel's shaders here")
    run.add_argument("--traceback", action="store_true")
    run.add_argument("files", nargs="+", type=Path)
    options = parser.parse_args()
    warnings.simplefilter("ignore")
    if options.command == "regenerate":
        regenerate(options)
    elif options.command == "run":
        sys.exit(replay(options))
    else:
        parser.print_help()


if __name__ == "__main__":
    main()
