"""Taichi's GUIs: `ti.GUI` (2-D drawing) and `ti.ui` (GGUI: windows, canvases, 3-D scenes).

Both draw into NumPy images and hand finished frames to a `sink.FrameSink`: the studio's live
widget in a notebook, nothing (headless) elsewhere.
"""
