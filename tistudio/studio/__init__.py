"""The Jupyter studio: `%%ti_kernel`, the pass explorer, the cache view, field views and the
export button. The only part of tistudio that imports IPython, ipywidgets or matplotlib;
`import tistudio` never imports it (`%load_ext tistudio` does).
"""

from __future__ import annotations

from tistudio.lang.nan_explain import explain_nan, record_writes
from tistudio.studio.cache_view import CacheView
from tistudio.studio.export import ExportPanel, aot_available
from tistudio.studio.field_view import COLORMAPS, FieldView, view
from tistudio.studio.magic import StudioMagics, load_ipython_extension
from tistudio.studio.panel import Panel
from tistudio.studio.passes_view import PassExplorer
from tistudio.studio.share import save_html

__all__ = [
    "COLORMAPS",
    "CacheView",
    "ExportPanel",
    "FieldView",
    "PassExplorer",
    "Panel",
    "StudioMagics",
    "aot_available",
    "explain_nan",
    "load_ipython_extension",
    "record_writes",
    "save_html",
    "view",
]
