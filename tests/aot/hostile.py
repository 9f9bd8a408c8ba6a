"""Helpers of the hostile-module tests: edit a module's files, run modules in a child process.

`run_cases` writes each case's files as a `.tcm` and loads and runs them all in one child
process (`hostile_child.py`); a child that crashes or hangs fails the test and names the case
it was running. `json_paths`/`set_path` edit any number, string, list or object inside
`metadata.json` or `graphs.json`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tistudio.aot.archive import write_tcm

ROOT = Path(__file__).resolve().parents[2]


def run_cases(
    cases: list[tuple[str, dict[str, bytes] | bytes]], folder: Path, timeout: float = 120
) -> dict[str, dict]:
    """{case name: outcome} of loading and running each case's files, or the bytes of its
    `.tcm` (see `hostile_child`)."""
    listed = []
    for index, (name, files) in enumerate(cases):
        path = folder / f"case{index}.tcm"
        if isinstance(files, bytes):
            path.write_bytes(files)
        else:
            write_tcm(files, path)
        listed.append([name, str(path)])
    cases_file = folder / "cases.json"
    cases_file.write_text(json.dumps(listed))
    return run_paths(cases_file, timeout)


def run_paths(cases_file: Path, timeout: float = 120) -> dict[str, dict]:
    """Outcomes of the `[name, path]` cases listed in `cases_file`."""
    command = [sys.executable, "-m", "tests.aot.hostile_child", str(cases_file)]
    try:
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        stdout, stderr, code = done.stdout, done.stderr, done.returncode
    except subprocess.TimeoutExpired as e:
        stdout, stderr, code = _text(e.stdout), _text(e.stderr), "timeout"
    lines = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    outcomes = {line["case"]: line for line in lines if "case" in line}
    started = [line["start"] for line in lines if "start" in line]
    if code != 0:
        last = started[-1] if started else None
        raise AssertionError(f"the child ended with {code} in case {last!r}:\n{stderr[-3000:]}")
    return outcomes


def _text(data: bytes | str | None) -> str:
    if isinstance(data, bytes):
        return data.decode("utf-8", "replace")
    return data or ""


def json_paths(data: Any, prefix: tuple = ()) -> list[tuple]:
    """The path (keys and indices) of every value inside `data`, containers included."""
    paths = [prefix]
    if isinstance(data, dict):
        for key in sorted(data):
            paths += json_paths(data[key], prefix + (key,))
    elif isinstance(data, list):
        for index, item in enumerate(data):
            paths += json_paths(item, prefix + (index,))
    return paths


def get_path(data: Any, path: tuple) -> Any:
    for key in path:
        data = data[key]
    return data


def set_path(data: Any, path: tuple, value: Any) -> Any:
    """`data` with the value at `path` replaced (the top level when `path` is empty)."""
    if not path:
        return value
    get_path(data, path[:-1])[path[-1]] = value
    return data


def edit_json(files: dict[str, bytes], name: str, path: tuple, value: Any) -> dict[str, bytes]:
    """A copy of `files` whose JSON file `name` has `value` at `path`."""
    data = set_path(json.loads(files[name]), path, value)
    return {**files, name: json.dumps(data).encode()}
