"""Several hundred seeded random mutations of real kernels' object code, each loaded in a
subprocess, so that a crash inside LLVM shows as a failing test.

The mutations edit the bytes LLVM's linker reads (ELF header, section table, symbols, names,
relocations and the code fields relocations patch): bit flips, bursts of random bytes, numbers
set to edge values, truncations and appended bytes. A mutation may be refused by the checks
(`object_check.py`), refused by LLVM with a Python error, or load. Where binutils' `readelf`
still reads the same program out of it (same sections and contents, symbols, relocations), the
loaded kernel must also give the original's results. A mutation that changes the program
(another addend, another symbol) is someone else's well-formed code: it must load without
harm, but is not called, since no check can tell what code was meant to do.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import struct
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.backends.llvm.objects import RELA, SECTION, Elf, compile_objects

ROOT = Path(__file__).resolve().parents[3]


MUTATIONS = 360  # per kernel
SEED = 34

# Loads the mutations named on stdin, one fresh engine each, and calls the kernel where told to;
# prints a line when it starts one and a line with the outcome, so that the test knows which
# mutation a crash happened in.
RUNNER = r"""
import json, sys
from pathlib import Path

import numpy as np

from tistudio.backends.llvm import CpuBackend
from tistudio.backends.llvm.executable import CpuExecutable
from tistudio.backends.llvm.jit import JitEngine
from tistudio.backends.llvm.object_check import ObjectFileError
from tistudio.backends.llvm.spec import KernelSpec
from tistudio.ir.config import CompileConfig

folder = Path(sys.argv[1])
specs = json.loads((folder / "specs.json").read_text())
specs = {name: KernelSpec.from_json(spec) for name, spec in specs.items()}
pool = CpuBackend(num_threads=2).pool
x = np.linspace(-2, 2, 1000, dtype=np.float32)


def load(name, obj):
    return JitEngine().load_object(obj, list(specs[name].functions))


def call(name, compiled):
    ex = CpuExecutable(specs[name], CompileConfig(cpu_max_num_threads=2), compiled, pool)
    if name == "cos":
        return ex.launch([0.7], [])[0].hex()
    y = np.zeros_like(x)
    ex.launch([1.5, x, y], [])
    return y.tobytes().hex()


want = {name: call(name, load(name, (folder / f"{name}.o").read_bytes())) for name in specs}
print(json.dumps(["want", want]), flush=True)
for index, name, should_call in json.loads(sys.stdin.read()):
    print(json.dumps(["start", index]), flush=True)
    try:
        compiled = load(name, (folder / f"{index}.o").read_bytes())
    except ObjectFileError:
        outcome = "refused"
    except Exception as e:
        outcome = f"llvm error: {type(e).__name__}"
    else:
        outcome = "loaded"
        if should_call:
            outcome = "right" if call(name, compiled) == want[name] else "wrong"
    print(json.dumps(["done", index, outcome]), flush=True)
"""


def _regions(elf: Elf) -> list[tuple[int, int]]:
    """The bytes LLVM's linker reads as structure: header, section table, symbols, names,
    relocations, and the fields in the code that relocations patch."""
    regions = [(0, 64), (elf.shoff, elf.shoff + elf.shnum * SECTION.size)]
    for name in (".symtab", ".strtab", ".rela.ltext"):
        section = elf.section(elf.index(name))
        regions.append((section[4], section[4] + section[5]))
    code = elf.field(elf.index(".ltext"), "offset")
    rela = elf.section(elf.index(".rela.ltext"))
    for k in range(rela[5] // RELA.size):
        at = code + elf.relocation(k)[1][0]
        regions.append((at, at + 8))
    return regions


def _fields(elf: Elf) -> list[tuple[int, str]]:
    """(file offset, struct format) of every number in the header, section table, symbols and
    relocations."""
    header = [(0x10, "H"), (0x12, "H"), (0x14, "I"), (0x18, "Q"), (0x20, "Q"), (0x28, "Q")]
    header += [(0x30, "I"), (0x34, "H"), (0x36, "H"), (0x38, "H"), (0x3A, "H"), (0x3C, "H")]
    fields = header + [(0x3E, "H"), (4, "B"), (5, "B"), (6, "B"), (7, "B")]
    for k in range(elf.shnum):
        at = elf.shoff + k * SECTION.size
        fields += _struct_fields(at, "IIQQQQIIQQ")
    for _, at in elf.symbols():
        fields += _struct_fields(at, "IBBHQQ")
    rela = elf.section(elf.index(".rela.ltext"))
    for k in range(rela[5] // RELA.size):
        fields += _struct_fields(rela[4] + k * RELA.size, "QIIq")  # offset, type, symbol, addend
    return fields


def _struct_fields(at: int, formats: str) -> list[tuple[int, str]]:
    found = []
    for fmt in formats:
        found.append((at, fmt))
        at += struct.calcsize(fmt)
    return found


def _edited(rng: random.Random, data: bytearray, at: int, fmt: str, shnum: int) -> None:
    bits = 8 * struct.calcsize(fmt)
    old = struct.unpack_from("<" + fmt.upper(), data, at)[0]
    new = rng.choice(
        [
            old + 1,
            old - 1,
            old ^ (1 << rng.randrange(bits)),
            0,
            1,
            (1 << bits) - 1,
            1 << (bits - 1),
            rng.randrange(shnum + 3),
            rng.randrange(2 * len(data)),
            old * 2,
            old + rng.choice([4, 8, 16, 24, 64]),
            1 << rng.randrange(bits),
        ]
    )
    struct.pack_into("<" + fmt.upper(), data, at, new % (1 << bits))


def _mutations(obj: bytes, rng: random.Random, count: int) -> list[bytes]:
    elf = Elf(obj)
    regions, fields = _regions(elf), _fields(elf)
    made = []
    for _ in range(count):
        data = bytearray(obj)
        kind = rng.choice(["flip", "flip", "field", "field", "field", "burst", "cut", "append"])
        start, end = rng.choice(regions)
        if kind == "flip":
            data[rng.randrange(start, end)] ^= 1 << rng.randrange(8)
        elif kind == "field":
            at, fmt = rng.choice(fields)
            _edited(rng, data, at, fmt, elf.shnum)
        elif kind == "burst":
            at = rng.randrange(start, end)
            data[at : at + rng.randint(1, 8)] = rng.randbytes(rng.randint(1, 8))
        elif kind == "cut":
            del data[rng.randrange(len(data)) :]
        else:
            data += rng.randbytes(rng.randint(1, 64))
        made.append(bytes(data))
    return made


def _meaning(path: Path) -> tuple | None:
    """What binutils reads out of an object: sections (but where they lie in the file), the
    bytes of the loaded ones, symbols and relocations; None if it has complaints."""
    try:
        done = subprocess.run(
            ["readelf", "-W", "-S", "-s", "-r", str(path)], capture_output=True, timeout=20
        )
    except subprocess.TimeoutExpired:
        return None
    if done.returncode or done.stderr:
        return None
    data = path.read_bytes()
    lines, contents = [], []
    for line in done.stdout.decode(errors="replace").splitlines():
        line = re.sub(r"(starting )?at offset 0x[0-9a-f]+", "", line)
        section = re.match(r"\s*\[\s*(\d+)\]\s+(.*)", line)
        if section and section.group(1) != "0":
            name, kind, addr, off, size, *rest = section.group(2).split()
            lines.append((name, kind, addr, size, *rest))
            flags = rest[1] if len(rest) == 5 else ""
            if "A" in flags and kind != "NOBITS":
                start = int(off, 16)
                contents.append(data[start : start + int(size, 16)])
        else:
            lines.append(line)
    return tuple(lines), tuple(contents)


def _run_batch(folder: Path, todo: list) -> dict[int, str]:
    """Run `todo` in subprocesses; after a crash, go on with the mutations after it."""
    outcomes: dict[int, str] = {}
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    while todo:
        done = subprocess.run(
            [sys.executable, "-c", RUNNER, str(folder)],
            input=json.dumps(todo),
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
        started = None
        for line in done.stdout.splitlines():
            kind, *rest = json.loads(line)
            if kind == "start":
                started = rest[0]
            elif kind == "done":
                outcomes[rest[0]] = rest[1]
                started = None
        if done.returncode == 0:
            break
        assert started is not None, f"the runner failed before any mutation:\n{done.stderr}"
        outcomes[started] = f"crashed (exit {done.returncode}): {done.stderr[-300:]}"
        todo = [case for case in todo if case[0] not in outcomes]
    return outcomes


@pytest.mark.skipif(shutil.which("readelf") is None, reason="needs binutils' readelf")
def test_random_mutations_are_refused_or_load_and_run_correctly(tmp_path):
    kernels = compile_objects()
    rng = random.Random(SEED)
    (tmp_path / "specs.json").write_text(json.dumps({n: s for n, (s, _) in kernels.items()}))
    todo = []
    for name, (_, obj) in kernels.items():
        (tmp_path / f"{name}.o").write_bytes(obj)
        original = _meaning(tmp_path / f"{name}.o")
        assert original is not None
        for data in _mutations(obj, rng, MUTATIONS):
            path = tmp_path / f"{len(todo)}.o"
            path.write_bytes(data)
            todo.append((len(todo), name, _meaning(path) == original))
    with ThreadPoolExecutor(2) as workers:
        batches = workers.map(_run_batch, [tmp_path] * 2, [todo[0::2], todo[1::2]])
        outcomes = {k: v for batch in batches for k, v in batch.items()}
    assert len(outcomes) == len(todo)
    bad = {k: v for k, v in outcomes.items() if v in ("wrong",) or v.startswith("crashed")}
    assert not bad, f"{len(bad)} of {len(todo)} mutations: {sorted(bad.items())[:8]}"
    kinds = sorted(set(outcomes.values()))
    counts = {kind: list(outcomes.values()).count(kind) for kind in kinds}
    assert counts.get("right", 0) >= 10, counts  # the calling branch is exercised
    assert counts.get("refused", 0) >= len(todo) // 2, counts
