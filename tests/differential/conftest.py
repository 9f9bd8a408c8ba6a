"""Fixtures of the differential suite: the Taichi oracle, imported once per session."""

from __future__ import annotations

from types import ModuleType

import pytest


@pytest.fixture(scope="session")
def taichi() -> ModuleType:
    """Real Taichi 1.7.4, imported lazily so collecting the suite does not start it."""
    import taichi

    return taichi
