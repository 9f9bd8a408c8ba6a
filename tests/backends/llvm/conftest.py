"""One CPU back end for the whole test session (its JIT engine is shared, as in a Program)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tistudio.backends.llvm import CpuBackend


@pytest.fixture(scope="session", params=["tiered", "quick"])
def backend(request: pytest.FixtureRequest) -> Iterator[CpuBackend]:
    """Every back-end test runs twice: as kernels normally compile (quick code first, optimised
    code from the background optimiser after it), and on the quick tier alone, so that the code
    a kernel's first launches run is tested as thoroughly as the optimised code."""
    cpu = CpuBackend(num_threads=4, tiering=request.param)
    yield cpu
    cpu.close()


@pytest.fixture(scope="session")
def tiered_backend() -> Iterator[CpuBackend]:
    """A back end that compiles as kernels normally do, for tests of what O3 makes of code."""
    cpu = CpuBackend(num_threads=4, tiering="tiered")
    yield cpu
    cpu.close()


@pytest.fixture(scope="session", params=["native_pool", "python_pool"])
def split_backend(request: pytest.FixtureRequest) -> Iterator[CpuBackend]:
    """A back end whose pool splits every loop of two or more iterations (grain 1); once with
    the native pool (Linux) and once with the pure-Python one."""
    cpu = CpuBackend(num_threads=4, grain=1, native=request.param == "native_pool")
    yield cpu
    cpu.close()
