"""`ti.aot.start_recording`: the YAML action log, read back with a real YAML parser."""

from __future__ import annotations

import numpy as np
import yaml

import tistudio as ti
from tests.aot import kernels


def test_recording_logs_compiles_arguments_and_launches(tmp_path):
    log = tmp_path / "record.yml"
    ti.aot.start_recording(str(log))
    kernels.build(ti.cpu)
    kernels.init(1.5)
    kernels.fill(np.zeros(3, np.float32), 2.0)
    kernels.bump(kernels.x, 7)
    assert kernels.total() == float(kernels.expected_x(1.5).sum() + 16 * 7)
    ti.aot.stop_recording()
    kernels.init(9.0)  # after stop_recording: not logged
    actions = yaml.safe_load(log.read_text())
    assert [a["action"] for a in actions][0] == "start_recording"
    assert actions[-1] == {"action": "stop_recording"}
    compiled = [a for a in actions if a["action"] == "compile_kernel"]
    assert [a["python_name"] for a in compiled] == ["init", "fill", "bump", "total"]
    assert all(a["arch"] == "cpu" and a["compile_ms"] > 0 for a in compiled)
    launches = [a for a in actions[1:-1] if a["action"] != "compile_kernel"]
    init_name, fill_name, bump_name, total_name = [a["kernel_name"] for a in compiled]
    assert launches == [
        {"action": "set_kernel_arg_float64", "kernel_name": init_name, "arg_id": 0, "val": 1.5},
        {"action": "launch_kernel", "kernel_name": init_name},
        {
            "action": "set_kernel_arg_ndarray",
            "kernel_name": fill_name,
            "arg_id": 0,
            "dtype": "float32",
            "shape": [3],
        },
        {"action": "set_kernel_arg_float64", "kernel_name": fill_name, "arg_id": 1, "val": 2.0},
        {"action": "launch_kernel", "kernel_name": fill_name},
        {"action": "set_kernel_arg_integer", "kernel_name": bump_name, "arg_id": 0, "val": 7},
        {"action": "launch_kernel", "kernel_name": bump_name},
        {"action": "launch_kernel", "kernel_name": total_name},
    ]


def test_yaml_scalars_round_trip_through_a_yaml_parser():
    from tistudio.aot.record import yaml_scalar

    values = ["plain", 'quo"te', "new\nline", "colon: x", "- dash", "", "ünï", 0, -3, 1.25]
    values += [float("inf"), float("-inf"), True, [1, "a", 2.5]]
    for value in values:
        assert yaml.safe_load(f"k: {yaml_scalar(value)}") == {"k": value}
    assert np.isnan(yaml.safe_load(f"k: {yaml_scalar(float('nan'))}")["k"])
