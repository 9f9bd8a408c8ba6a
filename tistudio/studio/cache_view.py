"""The cache view: one row per kernel and template signature, updated live (throttled), each
saying why it compiled (`lang/recompile_why.py`)."""

from __future__ import annotations

import pathlib
from typing import Any

import anywidget
import traitlets

from tistudio.lang.recompile_why import headline
from tistudio.studio.markup import Markup, element

STATIC = pathlib.Path(__file__).parent / "static"
SHOWN_STARTUP_MS = 0.5  # a compile that waited this long for the back end's start says so


def cache_rows(kernels: list[Any]) -> list[dict]:
    """Rows of the cache table for these kernels and their autodiff twins (`f.grad`)."""
    from tistudio.ad.kernels import twins_of

    rows = []
    for kernel in [k for primal in kernels for k in (primal, *twins_of(primal))]:
        for info in kernel.cache_info():
            rows.append(
                {
                    "kernel": kernel.__name__,
                    "instance": info["kernel"],
                    "signature": info["signature"] or "(no arguments)",
                    "arch": info["arch"],
                    "compile_ms": round(info["compile_ms"], 2),
                    "startup_ms": round(info["startup_ms"], 2),
                    "hits": info["hits"],
                    "misses": info["misses"],
                    "last_use": info["last_use"],
                    "why": info["why"],
                    "why_short": headline(info["why"]),
                }
            )
    return rows


class CacheView(anywidget.AnyWidget):
    """The table of compiled instantiations with compile time, hits, misses, last use and why
    each compiled (its `why` sentence, shortened in the cell, whole in its tooltip)."""

    _esm = STATIC / "cache_view.js"
    _css = STATIC / "studio.css"

    rows = traitlets.List(traitlets.Dict(), []).tag(sync=True)
    kernel_names = traitlets.List(traitlets.Unicode(), []).tag(sync=True)
    updates = traitlets.Int(0).tag(sync=True)

    def __init__(self, kernels: list[Any], **kwargs: Any) -> None:
        super().__init__(kernel_names=[k.__name__ for k in kernels], **kwargs)
        self.kernels = list(kernels)
        self.refresh()

    def refresh(self) -> None:
        with self.hold_sync():
            self.rows = cache_rows(self.kernels)
            self.updates += 1

    def static_html(self) -> Markup:
        titles = ("kernel", "signature", "arch", "compile ms", "hits", "misses", "why compiled")
        keys = ("kernel", "signature", "arch", "compile_ms", "hits", "misses", "why")
        head = element("tr", *(element("th", title) for title in titles))
        rows = (element("tr", *(element("td", _cell(r, k)) for k in keys)) for r in self.rows)
        return element("table", head, *rows)


def _cell(row: dict, key: str) -> Any:
    """A row's value as the static table shows it: the compile time with the back end's
    start-up it waited for, if any (the first kernel of a cell run straight after ti.init)."""
    if key == "compile_ms" and row["startup_ms"] >= SHOWN_STARTUP_MS:
        return f"{row['compile_ms']} (+{row['startup_ms']:.0f} start-up)"
    return row[key]
