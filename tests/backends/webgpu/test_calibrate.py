"""The grid a GPU's device chooses for itself when it opens (`backends/webgpu/calibrate.py`):
four times the workgroups the card holds at once, counted by a shader, as a power of two.

lavapipe (CI's GPU) is a CPU adapter and keeps 64 without counting, but the counting shader
runs on it here, and the choice is tested on given counts (an H200 holds 1056).
"""

from __future__ import annotations

import logging

from tistudio.backends.webgpu import calibrate


def test_four_waves_of_what_the_card_holds_as_a_power_of_two():
    assert calibrate.grid_for(1056) == 4096  # an H100 or H200: 132 SMs x 8 workgroups of 256
    assert calibrate.grid_for(240) == 512  # a smaller card: 960 -> 512
    assert calibrate.grid_for(1) == 64  # never fewer than 64
    assert calibrate.grid_for(100_000) == 32768  # never more than WebGPU's 65535


def test_the_count_finishes_and_sees_at_least_one_group(device):
    resident = calibrate.resident_groups(device, groups=48, spin=200)
    assert 1 <= resident <= 48


def test_the_count_sees_groups_that_overlap(device):
    """With a long loop, lavapipe's threads (one per core; CI has two) run workgroups side by
    side: a count stuck at 1 would mean the atomics do not count what runs at once."""
    assert calibrate.resident_groups(device, groups=16, spin=20000) >= 2


def test_the_environment_fixes_the_grid_and_cpu_adapters_keep_64(device, monkeypatch):
    monkeypatch.setenv(calibrate.ENV, "2048")
    assert calibrate.chosen_groups(device, is_cpu=False) == 2048
    monkeypatch.delenv(calibrate.ENV)
    assert calibrate.chosen_groups(device, is_cpu=True) == 64


def test_a_failed_count_falls_back_with_a_warning(device, monkeypatch, caplog):
    monkeypatch.delenv(calibrate.ENV, raising=False)

    def broken(gpu):
        raise RuntimeError("no count here")

    monkeypatch.setattr(calibrate, "resident_groups", broken)
    with caplog.at_level(logging.WARNING, logger="tistudio"):
        assert calibrate.chosen_groups(device, is_cpu=False) == calibrate.FALLBACK
    assert "no count here" in caplog.text


def test_a_measured_choice_on_this_adapter(device, monkeypatch):
    monkeypatch.delenv(calibrate.ENV, raising=False)
    monkeypatch.setattr(calibrate, "PROBE_GROUPS", 32)
    monkeypatch.setattr(calibrate, "SPIN", 500)
    counted = []
    count = calibrate.resident_groups
    monkeypatch.setattr(
        calibrate, "resident_groups", lambda gpu: counted.append(count(gpu)) or counted[-1]
    )
    chosen = calibrate.chosen_groups(device, is_cpu=False)
    assert len(counted) == 1 and 1 <= counted[0] <= 32
    assert chosen == calibrate.grid_for(counted[0])
