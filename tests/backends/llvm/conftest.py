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


@pytest.fixture(scope="session", params=["native_pool", "python_pool"])
def split_backend(request: pytest.FixtureRequest) -> Iterator[CpuBackend]:
    """A back end whose pool splits every loop of two or more iterations (grain 1); once with
    the native pool (Linux) and once with the pure-Python one."""
    cpu = CpuBackend(num_threads=4, grain=1, native=request.param == "native_pool")
    yield cpu
    cpu.close()
