"""A corpus of broken modules: each must fail to load with a clear `AotModuleError`.

Every case starts from one good CPU (or GPU) module and breaks one thing: the zip itself
(truncated, corrupted, not a zip), its members (missing, escaping the folder), the version,
the metadata (bad JSON, unknown format, numbers that would make the loader read or write
outside a buffer, names of files outside the module), the artifacts (changed bytes), or the
target. Nothing may crash, and nothing may load.
"""

from __future__ import annotations

import hashlib
import json
import re
import zipfile
from collections.abc import Callable

import pytest

import tistudio as ti
import tistudio.aot
from tests.aot import kernels
from tistudio.aot.archive import write_tcm
from tistudio.aot.format import AotModuleError


@pytest.fixture(scope="module")
def good_files(tmp_path_factory) -> dict[str, dict[str, bytes]]:
    """The files of a good module, per arch."""
    out = {}
    for arch in (ti.cpu, ti.vulkan):
        module, *_ = kernels.build(arch)
        out[arch.name] = module.files()
    ti.reset()
    return out


def _meta(change: Callable[[dict], None]) -> Callable[[dict[str, bytes]], None]:
    def mutate(files: dict[str, bytes]) -> None:
        meta = json.loads(files["metadata.json"])
        change(meta)
        files["metadata.json"] = json.dumps(meta).encode()

    return mutate


def _kernel(meta: dict, name: str) -> dict:
    return next(k for k in meta["kernels"] if k["name"] == name)


def _set(path: str, value: object) -> Callable[[dict], None]:
    """Set `kernel:<name>.<key>.<key>` or `field:<index>.<key>...` in the metadata."""

    def change(meta: dict) -> None:
        head, *keys = path.split(".")
        kind, name = head.split(":")
        node = _kernel(meta, name) if kind == "kernel" else meta["fields"][int(name)]
        for key in keys[:-1]:
            node = node[int(key)] if isinstance(node, list) else node[key]
        node[keys[-1]] = value

    return change


def _drop(name: str) -> Callable[[dict[str, bytes]], None]:
    return lambda files: files.pop(name)


def _replace(name: str, data: bytes) -> Callable[[dict[str, bytes]], None]:
    return lambda files: files.__setitem__(name, data)


def _graph(kernel: str) -> bytes:
    dispatch = {"kernel_name": kernel, "symbolic_args": []}
    return json.dumps([{"key": "g", "value": {"dispatches": [dispatch]}}]).encode()


def _rehashed(name: str, data: bytes) -> Callable[[dict[str, bytes]], None]:
    """Replace an artifact and its hash, keeping the binding marker the old one carried
    (`aot/binding.py`): the change passes the checksum and the binding check."""

    def mutate(files: dict[str, bytes]) -> None:
        found = re.search(rb"tistudio-aot-binding:[0-9a-f]{64}:[0-9a-f]{64}", files[name])
        assert found is not None
        mark = found.group()
        new = b"// " + mark + b"\n" + data if name.endswith(".wgsl") else data + mark
        files[name] = new
        _meta(lambda m: m["artifacts"].update({name: hashlib.sha256(new).hexdigest()}))(files)

    return mutate


# (case, arch, how to break the files, what the error says)
FILE_CASES = [
    ("no metadata", "cpu", _drop("metadata.json"), "lacks metadata.json"),
    ("no version", "cpu", _drop("__version__"), "lacks __version__"),
    ("newer version", "cpu", _replace("__version__", b"tistudio-aot 2\n"), "format version 2"),
    ("no version line", "cpu", _replace("__version__", b"1.7.4\n"), "does not name"),
    ("metadata not json", "cpu", _replace("metadata.json", b'{"kernels": ['), "not valid JSON"),
    ("metadata not utf-8", "cpu", _replace("metadata.json", b"\xff\xfe"), "not valid JSON"),
    ("graphs not a list", "cpu", _replace("graphs.json", b"{}"), "must be a list"),
    ("metadata version", "cpu", _meta(lambda m: m.update(format_version=99)), "version 99"),
    ("wrong format", "cpu", _meta(lambda m: m.update(format="taichi")), "'format' must be"),
    ("unknown arch", "cpu", _meta(lambda m: m.update(arch="metal")), "'arch' must be"),
    ("object escapes", "cpu", _meta(_set("kernel:fill.cpu.object", "../../x.o")), "escapes"),
    (
        "artifact escapes",
        "cpu",
        _meta(lambda m: m["artifacts"].update({"/etc/passwd": "0"})),
        "escapes",
    ),
    ("wgsl escapes", "vulkan", _meta(_set("kernel:fill.tasks.0.wgsl", "..")), "escapes"),
    ("object changed", "cpu", _replace("fill.o", b"\x7fELF" + b"\0" * 64), "is corrupted"),
    ("object missing", "cpu", _drop("init.o"), "lacks 'init.o'"),
    ("wgsl changed", "vulkan", _replace("fill_0_t00.wgsl", b"fn main() {}"), "is corrupted"),
    ("field past tree", "cpu", _meta(_set("field:0.components.0.offset", 10**6)), "past the end"),
    ("negative stride", "cpu", _meta(_set("field:0.components.0.strides", [-4, 4])), "strides"),
    ("field dtype", "cpu", _meta(_set("field:0.dtype", "f128")), "unknown dtype"),
    ("field tree", "cpu", _meta(_set("field:1.tree", 7)), "unknown tree 7"),
    ("kernel tree", "cpu", _meta(_set("kernel:init.trees", [0, 3])), "uses tree 3"),
    ("arg dtype", "cpu", _meta(_set("kernel:fill.args.0.dtype", "float")), "unknown arg dtype"),
    ("arg ptype", "cpu", _meta(_set("kernel:fill.args.0.ptype", 5)), "bad arg ptype"),
    ("no cpu part", "cpu", _meta(lambda m: _kernel(m, "fill").pop("cpu")), "no cpu artifacts"),
    (
        "bind tree",
        "vulkan",
        _meta(_set("kernel:init.tasks.0.buffer_binds.0.buffer.root_id", 9)),
        "unknown tree",
    ),
    (
        "bind type",
        "vulkan",
        _meta(_set("kernel:init.tasks.0.buffer_binds.0.buffer.type", "tex")),
        "unknown buffer type",
    ),
    (
        "duplicate kernel",
        "cpu",
        _meta(lambda m: m["kernels"].append(m["kernels"][0])),
        "appears twice",
    ),
    (
        "graph kernel",
        "cpu",
        _replace("graphs.json", _graph("nope")),
        "unknown kernel",
    ),
    (
        "graph arity",
        "cpu",
        _replace("graphs.json", _graph("fill")),
        "wrong number of arguments",
    ),
    (
        "other triple",
        "cpu",
        _meta(lambda m: m["target"].update(triple="riscv64-unknown-linux")),
        "built for 'riscv64",
    ),
    ("missing feature", "cpu", _meta(lambda m: m["target"].update(features="+avx9000")), "avx9000"),
    (
        "gpu feature",
        "vulkan",
        _meta(lambda m: m["required_caps"].append("shader-f128")),
        "shader-f128",
    ),
]


@pytest.mark.parametrize("case", FILE_CASES, ids=[c[0] for c in FILE_CASES])
def test_broken_module_is_refused(case, good_files, tmp_path):
    _, arch, mutate, message = case
    files = dict(good_files[arch])
    mutate(files)
    path = tmp_path / "bad.tcm"
    write_tcm(files, path)
    with pytest.raises(AotModuleError, match=message):
        tistudio.aot.load(path)
    folder = tmp_path / "bad"
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    with pytest.raises(AotModuleError, match=message):
        tistudio.aot.load(folder)


def _write_raw_zip(path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)


def test_broken_archives_are_refused(good_files, tmp_path):
    good = tmp_path / "good.tcm"
    write_tcm(good_files["cpu"], good)
    data = good.read_bytes()
    cases = {
        "truncated.tcm": (data[: len(data) // 2], "not a valid .tcm|truncated"),
        "empty.tcm": (b"", "not a valid .tcm"),
        "text.tcm": (b"hello, world\n" * 10, "not a valid .tcm"),
    }
    # flip bytes inside a stored member: the zip's CRC check catches it
    member = data.index(b"\x7fELF")
    cases["crc.tcm"] = (data[:member] + b"\x00\x00\x00\x00" + data[member + 4 :], "corrupted")
    for name, (content, message) in cases.items():
        (tmp_path / name).write_bytes(content)
        with pytest.raises(AotModuleError, match=message):
            tistudio.aot.load(tmp_path / name)
    escaping = tmp_path / "escape.tcm"
    _write_raw_zip(escaping, {**good_files["cpu"], "../evil.o": b"x"})
    with pytest.raises(AotModuleError, match="escapes the module folder"):
        tistudio.aot.load(escaping)
    nested = tmp_path / "nested.tcm"
    _write_raw_zip(nested, {f"m/{k}": v for k, v in good_files["cpu"].items()})
    with pytest.raises(AotModuleError, match="escapes the module folder"):
        tistudio.aot.load(nested)
    twice = tmp_path / "twice.tcm"
    with pytest.warns(UserWarning, match="Duplicate name"):
        _write_raw_zip(twice, good_files["cpu"])
        with zipfile.ZipFile(twice, "a") as z:
            z.writestr("fill.o", b"other")
    with pytest.raises(AotModuleError, match="holds 'fill.o' twice"):
        tistudio.aot.load(twice)
    (tmp_path / "module.zip").write_bytes(data)
    with pytest.raises(AotModuleError, match="not a .tcm archive"):
        tistudio.aot.load(tmp_path / "module.zip")
    with pytest.raises(AotModuleError, match="no AOT module at"):
        tistudio.aot.load(tmp_path / "missing.tcm")
    with pytest.raises(AotModuleError, match="format version 2"):
        files = {**good_files["cpu"], "__version__": b"tistudio-aot 2\n"}
        write_tcm(files, tmp_path / "v2.tcm")
        ti.aot.GfxRuntime140.from_module(str(tmp_path / "v2.tcm"))


def test_spec_that_disagrees_with_metadata_is_refused(good_files, tmp_path):
    files = dict(good_files["cpu"])
    _meta(_set("kernel:fill.cpu.spec.layout.num_slots", 2))(files)
    write_tcm(files, tmp_path / "m.tcm")
    m = tistudio.aot.load(tmp_path / "m.tcm")  # the kernel's code loads on first use
    with pytest.raises(AotModuleError, match="cpu.spec disagrees with its metadata"):
        m.get_kernel("fill")
    m.get_kernel("init")(1.0)  # the other kernels still run
    assert m.fields["x"].to_numpy()[1, 0] == 1.0


def test_artifacts_that_pass_the_checksum_but_do_not_compile(good_files, tmp_path):
    files = dict(good_files["vulkan"])
    _rehashed("fill_0_t00.wgsl", b"fn main( {")(files)
    write_tcm(files, tmp_path / "gpu.tcm")
    m = tistudio.aot.load(tmp_path / "gpu.tcm")
    with pytest.raises(AotModuleError, match="fill_0_t00.wgsl does not compile"):
        m.get_kernel("fill")
    real = good_files["cpu"]["fill.o"]
    other_machine = real[:18] + (40).to_bytes(2, "little") + real[20:]  # 40: ARM
    broken = {
        b"not an object file": "no ELF header",
        real[:256]: "section table lies outside the file",
        other_machine: "machine 40",
    }
    for data, message in broken.items():
        files = dict(good_files["cpu"])
        _rehashed("fill.o", data)(files)
        write_tcm(files, tmp_path / "cpu.tcm")
        m = tistudio.aot.load(tmp_path / "cpu.tcm")
        with pytest.raises(AotModuleError, match=f"fill.o is not object code.*{message}"):
            m.get_kernel("fill")
