"""Taichi's GUIs: `ti.GUI` (2-D drawing) and `ti.ui` (GGUI: windows, canvases, 3-D scenes).

Both draw into NumPy images and hand finished frames to a `sink.FrameSink`: the studio's live
widget in a notebook, nothing (headless) elsewhere. GGUI renders with wgpu offscreen
(`ui/ggui/`), so `ti.ui.Window` works whatever the arch of `ti.init`.

This module is the `ti.ui` namespace. The GGUI classes are loaded on first use (importing the
namespace, or `tistudio.ui.sink`, loads neither wgpu nor the renderer); the key names and event
kinds are plain strings, Taichi's.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

# key names (Taichi's, shared with ti.GUI) and event kinds of `window.get_event`
from tistudio.ui.events import (  # noqa: F401  (the names Taichi's ti.ui exports)
    ALT,
    BACKSPACE,
    CTRL,
    DOWN,
    ESCAPE,
    LEFT,
    LMB,
    MMB,
    RETURN,
    RIGHT,
    RMB,
    SHIFT,
    SPACE,
    TAB,
    UP,
)

CAPSLOCK = "CapsLock"  # ti.GUI spells it "Caps_Lock", as Taichi does
PRESS = "Press"
RELEASE = "Release"

_LAZY = {
    "Window": "tistudio.ui.ggui.window",
    "Canvas": "tistudio.ui.ggui.canvas",
    "Scene": "tistudio.ui.ggui.scene",
    "SceneV2": "tistudio.ui.ggui.scene",
    "Camera": "tistudio.ui.ggui.camera",
    "ProjectionMode": "tistudio.ui.ggui.camera",
    "Gui": "tistudio.ui.ggui.imgui",
    "GGUINotAvailableException": "tistudio.ui.ggui.renderer",
    "check_ggui_availability": "tistudio.ui.ggui.renderer",
    "GUI": "tistudio.ui.gui",
}


def make_camera() -> Any:
    """A new `Camera` (Taichi's deprecated spelling of `ti.ui.Camera()`)."""
    warnings.warn(
        "ti.ui.make_camera() is deprecated, use ti.ui.Camera()", DeprecationWarning, stacklevel=2
    )
    from tistudio.ui.ggui.camera import Camera

    return Camera()


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'tistudio.ui' has no attribute {name!r}")
