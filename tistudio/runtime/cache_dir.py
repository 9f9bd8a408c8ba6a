"""Where the offline cache lives when nobody says: each operating system's place for caches.

Jupyter (through `platformdirs`) and most tools keep caches where the platform expects them, so
that backups skip them and the system may clear them: `~/Library/Caches` on macOS,
`%LOCALAPPDATA%\\<app>\\Cache` on Windows, and the XDG folder elsewhere, `$XDG_CACHE_HOME` or
`~/.cache`, which is where Taichi keeps its own cache on Linux. Fifteen lines here rather than a
dependency. `ti.init(offline_cache_file_path=...)` and `TISTUDIO_OFFLINE_CACHE_FILE_PATH` come
first (`lang/impl.py`); this is the folder when neither is given.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP = "tistudio"


def default_path() -> Path:
    """The offline cache's folder by the platform's convention (read when `ti.init` runs)."""
    home = Path(os.path.expanduser("~"))
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / APP
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA") or str(home / "AppData" / "Local")
        return Path(local) / APP / "Cache"
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    if not os.path.isabs(base):  # the XDG spec: a relative value is invalid, so ignored
        base = str(home / ".cache")
    return Path(base) / APP
