"""One CPU back end for the whole test session (its JIT engine is shared, as in a Program)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tistudio.backends.llvm import CpuBackend


@pytest.fixture(scope="session")
def backend() -> Iterator[CpuBackend]:
    cpu = CpuBackend(num_threads=4)
    yield cpu
    cpu.close()


@pytest.fixture(scope="session")
def split_backend() -> Iterator[CpuBackend]:
    """A back end whose pool splits every loop of two or more iterations (grain 1)."""
    cpu = CpuBackend(num_threads=4, grain=1)
    yield cpu
    cpu.close()
