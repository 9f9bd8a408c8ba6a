"""Building modules: files, metadata, names, determinism, and mistakes in the builder's use."""

from __future__ import annotations

import hashlib
import json
import zipfile

import numpy as np
import pytest

import tistudio as ti
from tests.aot import kernels


def test_cpu_module_files_and_metadata(tmp_path):
    module, *_ = kernels.build(ti.cpu)
    module.save(tmp_path / "m")
    names = sorted(p.name for p in (tmp_path / "m").iterdir())
    assert names == [
        "__content__",
        "__version__",
        "bump_f_v_.ll",
        "bump_f_v_.o",
        "bump_f_x_.ll",
        "bump_f_x_.o",
        "fill.ll",
        "fill.o",
        "graphs.json",
        "init.ll",
        "init.o",
        "metadata.json",
        "total.ll",
        "total.o",
    ]
    content = (tmp_path / "m" / "__content__").read_text().splitlines()
    assert content == ["kernel:init", "kernel:total", "kernel:fill", "cgraph:g"]
    assert "tistudio-aot 1" in (tmp_path / "m" / "__version__").read_text()
    meta = json.loads((tmp_path / "m" / "metadata.json").read_text())
    assert meta["arch"] == "cpu" and meta["format_version"] == 1
    x, v = meta["fields"]
    assert (x["field_name"], x["dtype"], x["shape"], x["element_shape"]) == ("x", "f32", [4, 4], [])
    assert (v["field_name"], v["shape"], v["element_shape"], v["is_scalar"]) == (
        "v",
        [8],
        [3],
        False,
    )
    assert len(v["components"]) == 3
    by_name = {k["name"]: k for k in meta["kernels"]}
    assert set(by_name) == {"bump|f=v,", "bump|f=x,", "fill", "init", "total"}
    fill = by_name["fill"]
    assert fill["args"] == [
        {"name": "arr", "ptype": 1, "dtype": "f32", "ndim": 1},
        {"name": "val", "ptype": 0, "dtype": "f32", "ndim": 0},
    ]
    assert by_name["total"]["rets"] == [{"dtype": "f32"}]
    assert [t["task_type"] for t in by_name["total"]["tasks"]] == ["serial", "range_for", "serial"]
    assert by_name["init"]["tasks"][0]["range_for_attribs"] == {
        "begin": 0,
        "end": 16,
        "const_begin": True,
        "const_end": True,
    }
    ll = (tmp_path / "m" / "fill.ll").read_text()
    assert fill["cpu"]["spec"]["functions"][0] in ll and "define" in ll
    assert (tmp_path / "m" / "fill.o").read_bytes()[:4] == b"\x7fELF"
    for name, digest in meta["artifacts"].items():
        assert hashlib.sha256((tmp_path / "m" / name).read_bytes()).hexdigest() == digest
    graphs = json.loads((tmp_path / "m" / "graphs.json").read_text())
    assert graphs == [
        {
            "key": "g",
            "value": {
                "dispatches": [
                    {
                        "kernel_name": "fill",
                        "symbolic_args": [
                            {
                                "name": "arr",
                                "tag": 2,
                                "dtype": "f32",
                                "ndim": 1,
                                "element_shape": [],
                            },
                            {"name": "val", "tag": 0, "dtype": "f32"},
                        ],
                    },
                    {
                        "kernel_name": "bump|f=x,",
                        "symbolic_args": [{"value": 3, "tag": 0, "dtype": "i32"}],
                    },
                ]
            },
        }
    ]


def test_archive_is_a_deterministic_flat_zip(tmp_path):
    module, *_ = kernels.build(ti.cpu)
    module.archive(str(tmp_path / "a.tcm"))
    module.save(tmp_path / "folder")  # saving in between changes nothing (Taichi's CPU bug)
    module.archive(str(tmp_path / "b.tcm"))
    first, second = (tmp_path / "a.tcm").read_bytes(), (tmp_path / "b.tcm").read_bytes()
    assert first == second
    with zipfile.ZipFile(tmp_path / "a.tcm") as z:
        infos = z.infolist()
        assert [i.filename for i in infos] == sorted(i.filename for i in infos)
        assert {i.date_time for i in infos} == {(2000, 12, 1, 0, 0, 0)}
        assert {i.compress_type for i in infos} == {zipfile.ZIP_STORED}
        assert all("/" not in i.filename for i in infos)
        assert z.read("metadata.json") == (tmp_path / "folder" / "metadata.json").read_bytes()
    # a fresh program building the same module writes the same bytes
    again, *_ = kernels.build(ti.cpu)
    again.archive(str(tmp_path / "c.tcm"))
    assert (tmp_path / "c.tcm").read_bytes() == first


def test_archive_name_must_end_with_tcm(tmp_path):
    module, *_ = kernels.build(ti.cpu)
    with pytest.raises(ValueError, match=r"must end with \.tcm"):
        module.archive(str(tmp_path / "module.zip"))
    assert not (tmp_path / "module.zip").exists()


def test_gfx_runtime_reads_folder_and_archive_alike(tmp_path):
    module, *_ = kernels.build(ti.cpu)
    module.save(tmp_path / "m")
    module.archive(str(tmp_path / "m.tcm"))
    from_dir = ti.aot.GfxRuntime140.from_module(str(tmp_path / "m"))
    from_tcm = ti.aot.GfxRuntime140.from_module(str(tmp_path / "m.tcm"))
    assert from_dir.to_metadata_json() == from_tcm.to_metadata_json()
    assert from_dir.to_graphs_json() == from_tcm.to_graphs_json()
    assert sorted(from_tcm.kernel_names) == ["bump|f=v,", "bump|f=x,", "fill", "init", "total"]
    assert from_tcm.graph_names == ["g"]
    rebuilt = ti.aot.GfxRuntime140(from_tcm.to_metadata_json(), from_tcm.to_graphs_json())
    assert rebuilt.to_metadata_json()["fields"][0]["field_name"] == "x"


def test_add_kernel_names_and_template_args(tmp_path):
    module, x, v, _ = kernels.build(ti.cpu)
    module.add_kernel(kernels.bump, template_args={"f": v}, name="bump_v")
    module.add_kernel(kernels.fill, name="fill64", template_args={"arr": np.zeros(3, np.float32)})
    module.save(tmp_path / "m")
    meta = json.loads((tmp_path / "m" / "metadata.json").read_text())
    entries = {k["name"]: k for k in meta["kernels"]}
    assert entries["bump_v"]["template_args"] == {"f": "v"}
    assert entries["fill64"]["template_args"] == {"arr": "ndarray[float32, 1d]"}
    assert entries["fill64"]["args"] == entries["fill"]["args"]
    assert "kernel:bump_v" in (tmp_path / "m" / "__content__").read_text()


def test_builder_mistakes_are_clear_errors():
    module, x, v, _ = kernels.build(ti.cpu)
    with pytest.raises(ValueError, match="template parameter 'f' needs a value"):
        module.add_kernel(kernels.bump)
    with pytest.raises(ValueError, match="has no parameter 'g'"):
        module.add_kernel(kernels.bump, template_args={"f": x, "g": 1}, name="b2")
    with pytest.raises(ValueError, match="already has a kernel named 'init'"):
        module.add_kernel(kernels.init)
    with pytest.raises(TypeError, match="expected a @ti.kernel"):
        module.add_kernel(lambda: None)
    with pytest.raises(TypeError, match="takes a ti.field"):
        module.add_field("n", np.zeros(3))
    with pytest.raises(ValueError, match="already has a field named 'x'"):
        module.add_field("x", x)
    stray = ti.field(ti.i32, shape=2)
    with pytest.raises(ValueError, match="must be added with add_field"):
        with module.add_kernel_template(kernels.bump) as kt:
            kt.instantiate(f=stray)


def test_module_for_another_arch_warns_and_uses_the_current_one():
    ti.init(arch=ti.cpu, offline_cache=False)
    with pytest.warns(UserWarning, match="built for cpu"):
        module = ti.aot.Module(ti.vulkan)
    assert module.arch == "cpu"


def test_saving_after_the_program_ended_is_a_clear_error(tmp_path):
    module, *_ = kernels.build(ti.cpu)
    ti.reset()
    with pytest.raises(RuntimeError, match="the program this module was built in has ended"):
        module.save(tmp_path / "m")
