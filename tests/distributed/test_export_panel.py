"""The export panel's two lines sweep the module it just wrote on a Dask client."""

from __future__ import annotations

import numpy as np

import tistudio as ti
import tistudio.aot
from tests.distributed import sim
from tistudio.studio.export import ExportPanel


def test_the_panels_two_lines_sweep_the_exported_module(client, tmp_path):
    ti.init(arch=ti.cpu, offline_cache=False)
    sim.x = ti.field(ti.f32, shape=sim.N)
    panel = ExportPanel({"simulate": sim.simulate, "energy": sim.energy}, {"x": sim.x})
    target = tmp_path / "panel.tcm"
    panel.export(["energy"], [], "cpu", str(tmp_path / "energy.tcm"))
    assert "'energy', params)  # params: [{}, ...]" in panel.dask_code
    panel.export(["simulate", "energy"], ["x"], "cpu", str(target))
    ti.reset()
    assert panel.status == "done", panel.message
    lines = panel.dask_code.splitlines()
    assert lines[0] == "from tistudio.distributed import sweep"
    assert lines[1].startswith(f"results = sweep(client, {str(target)!r}, 'simulate', params")
    assert lines[1].endswith('# params: [{"damping": ..., "steps": ...}, ...]')
    params = sim.params(4, steps=40)
    namespace = {"client": client, "params": params}
    exec(panel.dask_code, namespace)
    module = tistudio.aot.load(target)
    for p, got in zip(params, namespace["results"]):
        module.get_kernel("simulate")(**p)
        np.testing.assert_array_equal(got["x"], module.fields["x"].to_numpy())
