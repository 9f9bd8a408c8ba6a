"""Modules edited by hand or damaged: loading one gives an `AotModuleError` or correct results.

The issue's three metadata edits that corrupted memory (a tree shrunk, an ndarray parameter
declared i8, `written_arrays: []`) come first, then a fuzz corpus: every member of a real CPU
and GPU module truncated and bit-flipped, and values all over `metadata.json` and
`graphs.json` replaced by negative, huge, oversized or wrongly typed ones (fixed seed). Each
module is loaded and, where it loads, every kernel, field and graph is run and checked, in a
child process so that a crash fails the test (`hostile.py`).
"""

from __future__ import annotations

import io
import json
import random

import pytest

import tistudio as ti
from tests.aot import kernels
from tests.aot.hostile import edit_json, get_path, json_paths, run_cases
from tistudio.aot.archive import write_tcm

SEED = 34
HOSTILE_VALUES = [-1, 0, 7, 10**12, 2**64, -(2**63), 1.5, "x", "", None, True, [], {}, "a" * 5000]


@pytest.fixture(scope="module")
def good_files() -> dict[str, dict[str, bytes]]:
    out = {}
    for arch in (ti.cpu, ti.vulkan):
        module, *_ = kernels.build(arch)
        out[arch.name] = module.files()
    ti.reset()
    return out


def _kernel_path(meta: dict, name: str, *keys: object) -> tuple:
    index = next(k for k, entry in enumerate(meta["kernels"]) if entry["name"] == name)
    return ("kernels", index, *keys)


def test_the_issues_metadata_edits_are_refused(good_files, tmp_path):
    files = good_files["cpu"]
    meta = json.loads(files["metadata.json"])
    shrunk = {**files, "metadata.json": json.dumps({**meta, "fields": []}).encode()}
    shrunk = edit_json(shrunk, "metadata.json", ("trees", 0, "size"), 64)
    arr = _kernel_path(meta, "fill", "args", 0, "dtype")
    spec = _kernel_path(meta, "fill", "cpu", "spec", "params", 0, 2)
    as_i8 = edit_json(edit_json(files, "metadata.json", arr, "i8"), "metadata.json", spec, "i8")
    writes = _kernel_path(meta, "fill", "cpu", "spec", "written_arrays")
    cases = [
        ("tree shrunk", shrunk),
        ("ndarray as i8", as_i8),
        ("no written arrays", edit_json(files, "metadata.json", writes, [])),
        ("unedited", files),
    ]
    outcomes = run_cases(cases, tmp_path)
    assert outcomes["unedited"]["outcome"] == "ok"
    for name in ("tree shrunk", "ndarray as i8", "no written arrays"):
        assert outcomes[name]["outcome"] == "refused", (name, outcomes[name])
        assert "was built with another metadata.json" in outcomes[name]["message"] or (
            "is not the one" in outcomes[name]["message"]
        )


def _member_cases(files: dict[str, bytes], rng: random.Random) -> list:
    """Every member truncated (to nothing, to half) and with bits flipped (not rehashed)."""
    cases = []
    for name in sorted(files):
        data = files[name]
        cases.append((f"{name}: empty", {**files, name: b""}))
        cases.append((f"{name}: half", {**files, name: data[: len(data) // 2]}))
        for flip in range(2):
            flipped = bytearray(data)
            if flipped:
                position = rng.randrange(len(flipped))
                flipped[position] ^= 1 << rng.randrange(8)
            cases.append((f"{name}: flip {flip}", {**files, name: bytes(flipped)}))
    return cases


def _json_cases(files: dict[str, bytes], name: str, count: int, rng: random.Random) -> list:
    """`count` values inside the JSON file `name` replaced by hostile ones."""
    data = json.loads(files[name])
    paths = json_paths(data)
    cases = []
    for path in rng.sample(paths, min(count, len(paths))):
        old = get_path(data, path)
        value = rng.choice([v for v in HOSTILE_VALUES if v != old or type(v) is not type(old)])
        if isinstance(old, int) and not isinstance(old, bool) and rng.random() < 0.5:
            value = old + rng.choice([-1, 1, 8, -(2**31), 2**31])  # a plausible number
        label = f"{name} {list(path)} = {str(value)[:20]}"
        cases.append((label, edit_json(files, name, path, value)))
    return cases


def _archive_cases(files: dict[str, bytes], count: int, rng: random.Random) -> list:
    """The `.tcm` itself cut short and with bytes changed anywhere (zip records included)."""
    buffer = io.BytesIO()
    write_tcm(files, buffer)
    data = buffer.getvalue()
    cases = []
    for k in range(count):
        cut = rng.randrange(len(data))
        cases.append((f"tcm cut at {cut}", data[:cut]))
        changed = bytearray(data)
        for _ in range(4):
            changed[rng.randrange(len(data))] = rng.randrange(256)
        cases.append((f"tcm changed {k}", bytes(changed)))
    return cases


@pytest.mark.parametrize("arch, metadata_edits", [("cpu", 200), ("vulkan", 100)])
def test_fuzzed_modules_are_refused_or_run_correctly(good_files, tmp_path, arch, metadata_edits):
    rng = random.Random(f"{SEED}-{arch}")
    files = good_files[arch]
    cases: list = [("unedited", files)]
    cases += _member_cases(files, rng)
    cases += _json_cases(files, "metadata.json", metadata_edits, rng)
    cases += _json_cases(files, "graphs.json", 15, rng)
    cases += _archive_cases(files, 20, rng)
    outcomes = run_cases(cases, tmp_path, timeout=300)
    assert outcomes["unedited"]["outcome"] == "ok"
    bad = {n: o for n, o in outcomes.items() if o["outcome"] not in ("refused", "ok")}
    assert not bad, bad
    refusals = {n: o["message"] for n, o in outcomes.items() if o["outcome"] == "refused"}
    unclear = {n: m for n, m in refusals.items() if ".tcm" not in m}
    assert not unclear, unclear  # every error names the module
    assert len(outcomes) == len(cases)
    assert len(refusals) > len(cases) // 2  # most edits matter
