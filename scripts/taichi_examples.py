"""Run Taichi 1.7.4's own example programs, unchanged, against tistudio (or Taichi), headless.

The examples are read from a git snapshot of taichi-dev/taichi (`--git-dir`, tag v1.7.4) into a
temporary folder at run time and deleted afterwards: none of Taichi's code is kept here. Each
example runs in its own process with `import taichi` meaning `tistudio` (submodules included),
`TISTUDIO_GUI_MAX_FRAMES` bounding its GUI loop and a time limit; the report says, per example,
whether it ran to the end, how long it took and the last line of its error.

    python scripts/taichi_examples.py --git-dir /path/to/taichi.git --frames 5 \
        --only simulation/fractal.py,simulation/mpm88.py
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXAMPLES = "python/taichi/examples"

# run in the child: alias `taichi` (and `taichi.x.y`) to the implementation, then the example
BOOT = r"""
import importlib, importlib.abc, importlib.util, runpy, sys
impl = importlib.import_module(sys.argv[1])


def resolve(rest):
    name = f"{impl.__name__}.{rest}"
    if name in sys.modules:
        return sys.modules[name]
    try:
        return importlib.import_module(name)
    except ImportError:
        obj = impl
        for part in rest.split("."):
            obj = getattr(obj, part, None)
            if obj is None:
                return None
        return obj


class Loader(importlib.abc.Loader):
    def __init__(self, obj):
        self.obj = obj

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        sys.modules[module.__name__] = self.obj


class Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("taichi."):
            return None
        obj = resolve(fullname[len("taichi."):])
        return None if obj is None else importlib.util.spec_from_loader(fullname, Loader(obj))


if impl.__name__ != "taichi":
    sys.modules["taichi"] = impl
    sys.meta_path.insert(0, Finder())
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def extract(git_dir: str, ref: str, dest: Path) -> Path:
    """The examples folder of `ref`, written under `dest`."""
    archive = subprocess.run(
        ["git", "--git-dir", git_dir, "archive", ref, EXAMPLES],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest / EXAMPLES


def run_one(path: Path, impl: str, frames: int, timeout: float, env: dict[str, str]) -> dict:
    env = {**env, "TISTUDIO_GUI_MAX_FRAMES": str(frames), "MPLBACKEND": "Agg"}
    start = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "-c", BOOT, impl, str(path)],
            cwd=path.parent,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        status = "ok" if done.returncode == 0 else f"rc={done.returncode}"
        tail = (done.stderr.strip().splitlines() or [""])[-1]
    except subprocess.TimeoutExpired:
        status, tail = "timeout", ""
    return {"status": status, "seconds": round(time.monotonic() - start, 1), "error": tail}


def main() -> None:
    import os

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--git-dir", required=True)
    parser.add_argument("--ref", default="v1.7.4")
    parser.add_argument("--impl", default="tistudio")
    parser.add_argument("--only", default="", help="comma-separated paths under examples/")
    parser.add_argument("--frames", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=180)
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = extract(args.git_dir, args.ref, Path(tmp))
        wanted = [s for s in args.only.split(",") if s]
        paths = [root / w for w in wanted] or sorted(root.rglob("*.py"))
        results = {}
        for path in paths:
            name = str(path.relative_to(root))
            results[name] = run_one(path, args.impl, args.frames, args.timeout, dict(os.environ))
            r = results[name]
            print(f"{r['status']:>8} {r['seconds']:6.1f} s  {name}  {r['error'][:150]}", flush=True)
    ok = sum(r["status"] == "ok" for r in results.values())
    print(f"{ok} of {len(results)} examples ran to the end")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
