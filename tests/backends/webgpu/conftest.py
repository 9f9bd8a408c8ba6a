"""Fixtures of the WebGPU back-end tests: the process's device (Mesa lavapipe in CI)."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")


@pytest.fixture(scope="session")
def device():
    from tistudio.backends.webgpu.device import default_device

    return default_device()
