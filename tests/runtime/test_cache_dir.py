"""The offline cache's default folder follows each platform's convention (runtime/cache_dir.py),
and what `ti.init` and the environment say comes first."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import tistudio as ti
from tistudio.runtime.cache_dir import default_path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("XDG_CACHE_HOME", "LOCALAPPDATA", "TISTUDIO_OFFLINE_CACHE_FILE_PATH"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_linux_keeps_taichis_dot_cache_and_honours_xdg(home, monkeypatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    assert default_path() == home / ".cache" / "tistudio"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "xdg"))
    assert default_path() == home / "xdg" / "tistudio"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # invalid by the XDG spec: ignored
    assert default_path() == home / ".cache" / "tistudio"


def test_macos_uses_library_caches(home, monkeypatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "xdg"))  # not macOS's convention
    assert default_path() == home / "Library" / "Caches" / "tistudio"


def test_windows_uses_local_app_data(home, monkeypatch) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    assert default_path() == home / "AppData" / "Local" / "tistudio" / "Cache"
    monkeypatch.setenv("LOCALAPPDATA", str(home / "Local"))
    assert default_path() == home / "Local" / "tistudio" / "Cache"


def test_ti_init_uses_the_argument_then_the_environment_then_the_default(home, monkeypatch) -> None:
    monkeypatch.setenv("TISTUDIO_OFFLINE_CACHE", "1")
    ti.init(arch=ti.cpu)
    assert ti.lang.impl.get_program().offline_cache.path == default_path()
    monkeypatch.setenv("TISTUDIO_OFFLINE_CACHE_FILE_PATH", str(home / "from_env"))
    ti.init(arch=ti.cpu)
    assert ti.lang.impl.get_program().offline_cache.path == home / "from_env"
    ti.init(arch=ti.cpu, offline_cache_file_path=str(home / "from_arg"))
    assert ti.lang.impl.get_program().offline_cache.path == home / "from_arg"
    ti.reset()
