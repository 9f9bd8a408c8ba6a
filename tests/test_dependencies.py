"""The installed dependencies are the ones pyproject.toml declares, and the private parts of
llvmlite and wgpu that tistudio reaches into are there.

`backends/llvm/unlocked.py` and `tiering.py` use llvmlite's lock (`ffi.lib._lock`) and its
unlocked ctypes functions (`_cfn`); `backends/webgpu/device.py` uses wgpu-native's blocking
poll (`GPUDevice._poll_wait`) and its cffi layer (`_api`). None of these is public, so
pyproject.toml bounds both packages to the minor series they were written against, and this
test says which name went missing when an environment has another version.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

tomllib = pytest.importorskip("tomllib")  # Python 3.11+; CI runs 3.11

ROOT = Path(__file__).resolve().parents[1]
# dependencies whose private internals tistudio uses: they need an upper bound
PRIVATE_USE = {"llvmlite", "wgpu"}


def _declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [Requirement(text) for text in project["dependencies"]]


def test_installed_versions_are_inside_the_declared_ranges() -> None:
    outside = []
    for requirement in _declared():
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        installed = Version(importlib.metadata.version(requirement.name))
        if not requirement.specifier.contains(installed, prereleases=True):
            outside.append(f"{requirement.name} {installed} is not {requirement.specifier}")
    assert not outside, "installed outside pyproject.toml's ranges: " + "; ".join(outside)


def test_dependencies_used_through_private_names_have_an_upper_bound() -> None:
    bounded = {
        r.name: any(s.operator in ("<", "<=", "==", "~=") for s in r.specifier)
        for r in _declared()
        if r.name in PRIVATE_USE
    }
    assert bounded == dict.fromkeys(PRIVATE_USE, True), bounded


def test_the_private_llvmlite_internals_exist() -> None:
    from llvmlite.binding import ffi

    lock = getattr(ffi.lib, "_lock", None)
    assert lock is not None and hasattr(lock, "__enter__") and hasattr(lock, "__exit__"), (
        f"llvmlite {importlib.metadata.version('llvmlite')} has no ffi.lib._lock "
        "(used by backends/llvm/tiering.py around a fork)"
    )
    for name in ("LLVMPY_RunNewModulePassManager", "LLVMPY_TargetMachineEmitToMemory"):
        wrapper = getattr(ffi.lib, name)
        assert callable(getattr(wrapper, "_cfn", None)), (
            f"llvmlite {importlib.metadata.version('llvmlite')}: ffi.lib.{name} has no _cfn "
            "(backends/llvm/unlocked.py calls it without llvmlite's lock)"
        )


def test_the_private_wgpu_internals_exist() -> None:
    from wgpu.backends.wgpu_native import GPUDevice, _api

    version = importlib.metadata.version("wgpu")
    assert callable(getattr(GPUDevice, "_poll_wait", None)), (
        f"wgpu {version} has no GPUDevice._poll_wait (backends/webgpu/device.py waits with it)"
    )
    used = ("new_struct_p", "to_c_string_view", "ffi", "lib", "GPUShaderModule")
    missing = [name for name in used if not hasattr(_api, name)]
    if not hasattr(_api.libf, "wgpuDeviceCreateShaderModuleTrusted"):
        missing.append("libf.wgpuDeviceCreateShaderModuleTrusted")
    assert not missing, f"wgpu {version}: wgpu_native._api lacks {missing} (device.py)"
