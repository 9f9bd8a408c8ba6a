"""Names that reach C are identifiers (C header injection), and a module holds no path of the
machine that built it: the same source gives the same bytes wherever it lives."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tistudio as ti
import tistudio.aot
from tests.aot import kernels
from tistudio.aot.archive import write_tcm
from tistudio.aot.cheader import c_header
from tistudio.aot.format import AotModuleError

HOSTILE = 'x */\n#include "/etc/passwd"\n/* '


@pytest.fixture(scope="module")
def good_files() -> dict[str, bytes]:
    module, *_ = kernels.build(ti.cpu)
    files = module.files()
    ti.reset()
    return files


def test_hostile_names_are_refused_when_building():
    ti.init(arch=ti.cpu, offline_cache=False)
    module = ti.aot.Module(ti.cpu)
    field = ti.field(ti.f32, shape=4)
    with pytest.raises(ValueError, match="a field's name must be an identifier"):
        module.add_field(HOSTILE, field)
    with pytest.raises(ValueError, match="is not an identifier"):
        module.add_kernel(kernels.fill, name=HOSTILE)
    module.add_field("ok_name", field)
    ti.reset()


def _lines(header: str) -> list[str]:
    return [line.strip() for line in header.splitlines()]


def test_the_header_never_writes_a_name_unchecked(good_files):
    meta = json.loads(good_files["metadata.json"])
    header = c_header(meta)
    assert '#include "/etc/passwd"' not in _lines(header)
    kernel = next(k for k in meta["kernels"] if k["name"] == "fill")
    kernel["name"] = "fill|" + HOSTILE  # in a comment, it would end it and include a file
    assert '#include "/etc/passwd"' not in _lines(c_header(meta))
    edits = [
        (("fields", 0, "field_name"), HOSTILE, "field name"),
        (("kernels", 0, "args", 0, "name"), HOSTILE, "argument name"),
        (("kernels", 0, "cpu", "spec", "functions", 0), f"f(void);\n{HOSTILE}", "symbol"),
        (("kernels", 0, "cpu", "spec", "layout", "num_slots"), "4]; int y[1", "num_slots"),
        (("trees", 0, "size"), "1\n#include <x>", "a tree size"),
    ]
    for path, value, what in edits:
        edited = json.loads(good_files["metadata.json"])
        node = edited
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        with pytest.raises(AotModuleError, match=what):
            c_header(edited)


def test_hostile_names_are_refused_when_loading(good_files, tmp_path):
    for path, message in [
        (("fields", 0, "field_name"), "field name .* is not an identifier"),
        (("kernels", 0, "name"), "kernel name .* is not an identifier"),
        (("kernels", 0, "cpu", "spec", "functions", 0), "must list identifiers"),
    ]:
        meta = json.loads(good_files["metadata.json"])
        node = meta
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = HOSTILE
        write_tcm({**good_files, "metadata.json": json.dumps(meta).encode()}, tmp_path / "m.tcm")
        with pytest.raises(AotModuleError, match=message):
            tistudio.aot.load(tmp_path / "m.tcm")


BUILD = """
import sys
sys.path.insert(0, sys.argv[1])
import tistudio as ti
import aot_source
for arch in (ti.cpu, ti.vulkan):
    module, *_ = aot_source.build(arch)
    module.archive(f"{sys.argv[2]}-{arch.name}.tcm")
"""


def test_the_same_source_gives_the_same_module_anywhere(tmp_path):
    source = Path(kernels.__file__)
    outputs = []
    for place in ("first/deeper", "second"):
        folder = tmp_path / place
        folder.mkdir(parents=True)
        shutil.copy(source, folder / "aot_source.py")
        out = tmp_path / place.replace("/", "_")
        root = Path(__file__).resolve().parents[2]
        command = [sys.executable, "-c", BUILD, str(folder), str(out)]
        subprocess.run(command, cwd=root, check=True, capture_output=True, timeout=300)
        outputs.append((folder, out))
    for arch in ("cpu", "vulkan"):
        first, second = (Path(f"{out}-{arch}.tcm").read_bytes() for _, out in outputs)
        assert first == second, arch
        for folder, _ in outputs:
            assert str(folder).encode() not in first
            assert str(tmp_path).encode() not in first
    assert b"aot_source.py:" in first  # the locations keep the file's name


def test_the_header_is_made_only_for_code_the_metadata_is_bound_to(good_files, tmp_path):
    from tistudio.aot.__main__ import write_header

    write_tcm(good_files, tmp_path / "m.tcm")
    write_header(str(tmp_path / "m.tcm"), tmp_path / "m.h")
    assert "tistudio_fill(" in (tmp_path / "m.h").read_text()
    meta = json.loads(good_files["metadata.json"])
    meta["kernels"][0]["gtmp_size"] += 64  # the header would size its buffer from this
    write_tcm({**good_files, "metadata.json": json.dumps(meta).encode()}, tmp_path / "e.tcm")
    with pytest.raises(AotModuleError, match="is not the one .* was built with"):
        write_header(str(tmp_path / "e.tcm"), tmp_path / "e.h")
