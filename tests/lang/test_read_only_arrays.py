"""A read-only array (`flags.writeable` False) is refused for an ndarray parameter the kernel
writes, with the parameter and the kernel line that writes it, and accepted where the kernel
only reads it. Before, the CPU kernel wrote through it: a read-only file mapping crashed the
process (segmentation fault), and the GPU raised NumPy's error after running."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import numpy as np
import pytest

import tistudio as ti
from tests.processes import run_script
from tistudio.backends.llvm.spec import KernelSpec

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")


def _read_only(values: list[float]) -> np.ndarray:
    arr = np.array(values, dtype=np.float32)
    arr.setflags(write=False)
    return arr


def _kernels():
    @ti.kernel
    def double(a: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        for i in a:
            a[i] = a[i] * 2  # the write

    @ti.kernel
    def total(a: ti.types.ndarray(dtype=ti.f32, ndim=1)) -> ti.f32:
        s = 0.0
        for i in a:
            s += a[i]
        return s

    return double, total


@pytest.mark.parametrize("arch", ["cpu", "gpu"])
def test_a_kernel_that_writes_refuses_a_read_only_array(arch: str) -> None:
    ti.init(arch=getattr(ti, arch), fallback_to_cpu=False)
    double, total = _kernels()
    arr = _read_only([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"argument 'a' is a read-only array") as caught:
        double(arr)
    assert "a[i] = a[i] * 2  # the write" in str(caught.value)
    assert f"{Path(__file__).name}:" in str(caught.value)
    assert arr.tolist() == [1.0, 2.0, 3.0]
    assert total(arr) == 6.0  # reading it is fine
    writeable = np.array([1.0, 2.0], dtype=np.float32)
    double(writeable)
    assert writeable.tolist() == [2.0, 4.0]
    with pytest.raises(ValueError, match="read-only"):  # after a cached launch, again
        double(arr)


def test_atomic_and_vector_element_writes_count() -> None:
    ti.init(arch=ti.cpu)

    @ti.kernel
    def bump(a: ti.types.ndarray(dtype=ti.i32, ndim=1)):
        for i in range(4):
            ti.atomic_add(a[i % 2], 1)

    @ti.kernel
    def first(v: ti.types.ndarray(dtype=ti.math.vec2, ndim=1)):
        for i in v:
            v[i][0] = 1.0

    counts = np.zeros(2, dtype=np.int32)
    counts.setflags(write=False)
    with pytest.raises(ValueError, match="ti.atomic_add"):
        bump(counts)
    vectors = np.zeros((3, 2), dtype=np.float32)
    vectors.setflags(write=False)
    with pytest.raises(ValueError, match=r"v\[i\]\[0\] = 1.0"):
        first(vectors)


def test_a_read_only_file_mapping_is_an_error_not_a_crash(tmp_path: Path) -> None:
    done = run_script(
        tmp_path / "mapped.py",
        textwrap.dedent(
            """
            import mmap, sys
            import numpy as np
            import tistudio as ti
            ti.init(arch=ti.cpu)
            path = sys.argv[1]
            np.arange(64, dtype=np.float32).tofile(path)
            with open(path, "rb") as f:
                mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            a = np.frombuffer(mapped, dtype=np.float32)

            @ti.kernel
            def double(a: ti.types.ndarray(dtype=ti.f32, ndim=1)):
                for i in a:
                    a[i] = a[i] * 2

            try:
                double(a)
            except ValueError as e:
                print("refused:", e)
            """
        ),
        str(tmp_path / "data.bin"),
    )
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-800:]}"
    assert done.stdout.startswith("refused: argument 'a' is a read-only array")


def test_a_read_only_strided_dlpack_producer_is_refused() -> None:
    ti.init(arch=ti.cpu)
    double, total = _kernels()

    class Producer:  # neither NumPy nor torch: goes through np.from_dlpack
        def __init__(self, arr: np.ndarray) -> None:
            self.arr = arr

        def __dlpack__(self, **kwargs):
            return self.arr.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.arr.__dlpack_device__()

    base = _read_only([1.0, 2.0, 3.0, 4.0])
    assert total(Producer(base[::2])) == 4.0
    # a contiguous copy is made for the kernel; writes to it would have been lost silently
    with pytest.raises(ValueError, match="read-only"):
        double(Producer(base[::2]))


def test_the_spec_keeps_which_arrays_are_written() -> None:
    ti.init(arch=ti.cpu, offline_cache=False)
    double, total = _kernels()
    double(np.zeros(2, dtype=np.float32))
    total(np.zeros(2, dtype=np.float32))
    specs = {k: k.instances()[0].result.executable.spec for k in (double, total)}
    written = specs[double].written_arrays
    assert [arg for arg, _ in written] == [0] and "# the write" in written[0][1]
    assert specs[total].written_arrays == ()
    data = specs[double].to_json()
    assert KernelSpec.from_json(data) == specs[double]
    del data["written_arrays"]  # an AOT module written before: every array may be written
    assert [arg for arg, _ in KernelSpec.from_json(data).written_arrays] == [0]
    assert KernelSpec.from_json(specs[total].to_json()).written_arrays == ()
