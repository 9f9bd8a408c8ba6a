"""The grid a GPU's device measures for itself when it opens (`backends/webgpu/calibrate.py`).

On a discrete GPU `GpuDevice.open()` times a vec4 copy at several numbers of workgroups and
keeps the fewest within 3 % of the fastest. lavapipe (CI's GPU) is a CPU adapter and is not
measured, but the copy and its timing run on it here, and the choice is tested on given times.
"""

from __future__ import annotations

import logging

import numpy as np

from tistudio.backends.webgpu import calibrate


def test_the_fewest_workgroups_within_the_slack_of_the_fastest():
    times = {1024: 1.02, 2048: 1.0, 4096: 1.01, 8192: 2.0}
    assert calibrate.best_groups(times) == 1024  # 2 % slower than the best: close enough
    times[1024] = 1.04
    assert calibrate.best_groups(times) == 2048
    assert calibrate.best_groups({4096: 1.0, 8192: 0.5, 16384: 0.51}) == 8192


def test_the_copy_copies_at_every_grid(device):
    """The timed shader really moves the data (a shader that did nothing would look fast)."""
    usage = device.wgpu.BufferUsage
    size = 1 << 20
    src, dst = (
        device.device.create_buffer(
            size=size, usage=usage.STORAGE | usage.COPY_SRC | usage.COPY_DST
        )
        for _ in range(2)
    )
    pipeline, group = calibrate.copy_pipeline(device, src, dst)
    data = np.arange(size // 4, dtype=np.float32)
    for groups in (1, 3, 1024):  # fewer workgroups than vec4s: the grid-stride loop
        device.queue.write_buffer(src, 0, (data + groups).tobytes())
        assert calibrate.copies(device, pipeline, group, groups, 2) > 0
        got = np.frombuffer(device.queue.read_buffer(dst, 0, size), np.float32)
        np.testing.assert_array_equal(got, data + groups)


def test_copy_times_has_a_time_for_every_candidate(device):
    times = calibrate.copy_times(device, nbytes=1 << 20)
    assert set(times) == set(calibrate.CANDIDATES)
    assert all(0 < t < 1 for t in times.values()), times


def test_the_environment_fixes_the_grid_and_cpu_adapters_keep_64(device, monkeypatch):
    monkeypatch.setenv(calibrate.ENV, "2048")
    assert calibrate.chosen_groups(device, is_cpu=False) == 2048
    monkeypatch.delenv(calibrate.ENV)
    assert calibrate.chosen_groups(device, is_cpu=True) == 64


def test_a_failed_measurement_falls_back_with_a_warning(device, monkeypatch, caplog):
    monkeypatch.delenv(calibrate.ENV, raising=False)

    def broken(gpu, nbytes=0):
        raise RuntimeError("no timing here")

    monkeypatch.setattr(calibrate, "copy_times", broken)
    with caplog.at_level(logging.WARNING, logger="tistudio"):
        assert calibrate.chosen_groups(device, is_cpu=False) == calibrate.FALLBACK
    assert "no timing here" in caplog.text


def test_a_measured_choice_is_one_of_the_candidates(device, monkeypatch):
    monkeypatch.delenv(calibrate.ENV, raising=False)
    monkeypatch.setattr(calibrate, "COPY_BYTES", 1 << 20)
    assert calibrate.chosen_groups(device, is_cpu=False) in calibrate.CANDIDATES
