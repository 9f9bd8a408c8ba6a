"""The studio panel under a `%%ti_kernel` cell: header with compile progress, pass explorer,
cache view, field views and the export button, kept up to date by compiler events.

The panel subscribes to the event bus while it is open and listens only to its own kernels.
Everything the core reports arrives through `tistudio.events`; the panel never reaches into
the compiler.
"""

from __future__ import annotations

import pathlib
import threading
from typing import Any

import anywidget
import ipywidgets
import traitlets

from tistudio.events import bus
from tistudio.lang.field import is_usable
from tistudio.studio.cache_view import SHOWN_STARTUP_MS, CacheView
from tistudio.studio.export import Exporter, ExportPanel
from tistudio.studio.field_view import FieldView, snode_ids
from tistudio.studio.markup import Markup, element
from tistudio.studio.passes_view import PassExplorer
from tistudio.studio.throttle import Throttle

STATIC = pathlib.Path(__file__).parent / "static"
SHOW_ITEMS = ("passes", "cache", "fields", "source", "export")
DEFAULT_SHOW = ("passes", "cache", "source", "export")
PROGRESS_AFTER_S = 0.5  # compiles shorter than this show no progress indicator
CACHE_REFRESH_S = 0.25
EXPLORE_AFTER_S = 0.05  # after the cell, a new instantiation reaches the explorer this late


class StudioHeader(anywidget.AnyWidget):
    """Title line of a panel: the cell's kernels, the arch, notes, and compile progress."""

    _esm = STATIC / "header.js"
    _css = STATIC / "studio.css"

    kernels = traitlets.List(traitlets.Unicode(), []).tag(sync=True)
    arch = traitlets.Unicode("cpu").tag(sync=True)
    notes = traitlets.List(traitlets.Unicode(), []).tag(sync=True)
    busy = traitlets.Bool(False).tag(sync=True)
    progress = traitlets.Unicode("").tag(sync=True)
    passes_done = traitlets.Int(0).tag(sync=True)


class CompileProgress:
    """Shows "compiling <kernel>: <pass>" in the header once a compile has run for longer
    than `after` seconds; a timer does it, so a single slow pass shows up too."""

    def __init__(self, header: StudioHeader, after: float = PROGRESS_AFTER_S) -> None:
        self.header, self.after = header, after
        self.text, self.count = "", 0
        self._timer: threading.Timer | None = None
        self._generation = 0

    def pass_ran(self, kernel_name: str, pass_name: str) -> None:
        if pass_name == "initial IR":
            self.started()
        self.count += 1
        self.text = f"compiling {kernel_name}: {pass_name}"
        if self.header.busy:
            with self.header.hold_sync():
                self.header.progress, self.header.passes_done = self.text, self.count
        elif self._timer is None:
            self.started()

    def started(self) -> None:
        self.finished()
        generation = self._generation
        self._timer = threading.Timer(self.after, self._show, args=(generation,))
        self._timer.daemon = True
        self._timer.start()

    def _show(self, generation: int) -> None:
        if generation == self._generation:
            with self.header.hold_sync():
                self.header.busy = True
                self.header.progress, self.header.passes_done = self.text, self.count

    def finished(self) -> None:
        self._generation += 1
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.count = 0
        if self.header.busy:
            with self.header.hold_sync():
                self.header.busy, self.header.progress = False, ""


class Later:
    """Runs `fn` once, on a timer thread `delay` seconds after the first call since it last
    ran, or at once on `flush` (which also waits for a run under way): work that a compile's
    caller need not wait for."""

    def __init__(self, fn: Any, delay: float) -> None:
        self.fn, self.delay = fn, delay
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()
        self._running = threading.Lock()

    def __call__(self) -> None:
        with self._lock:
            if self._timer is None:
                self._timer = threading.Timer(self.delay, self.flush)
                self._timer.daemon = True
                self._timer.start()

    def flush(self) -> None:
        with self._running:
            with self._lock:
                timer, self._timer = self._timer, None
            if timer is not None:
                timer.cancel()
                self.fn()

    def cancel(self) -> None:
        with self._lock:
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()


def fields_in(namespace: dict[str, Any]) -> dict[str, Any]:
    """The placed fields among a namespace's names (anything with `to_numpy` and an SNode)."""
    found = {}
    for name, value in list(namespace.items()):
        if name.startswith("_") or not hasattr(value, "to_numpy") or isinstance(value, type):
            continue
        try:
            value.snode  # noqa: B018 - raises for a field that has no memory yet
        except Exception:  # noqa: BLE001
            continue
        if hasattr(value, "_ti_leaves") and not is_usable(value):
            continue  # kept from before a ti.init() (its SNode ids are another program's), or
            # discarded when its memory could not be allocated
        found[name] = value
    return found


class Panel(ipywidgets.VBox):
    """Everything the studio shows for the kernels of one cell."""

    def __init__(
        self,
        namespace: dict[str, Any],
        *,
        show: tuple[str, ...] = DEFAULT_SHOW,
        arch: str = "cpu",
        export_path: str | None = None,
        exporter: Exporter | None = None,
    ) -> None:
        self.namespace, self.show = namespace, tuple(show)
        self.kernels: list[Any] = []
        self.header = StudioHeader(arch=arch)
        self.explorer = PassExplorer(show_source="source" in show) if "passes" in show else None
        self.cache = CacheView([]) if "cache" in show else None
        self.fields_box = ipywidgets.VBox() if "fields" in show else None
        self.field_views: dict[int, FieldView] = {}
        self.export_path = export_path
        self._exporter = exporter
        self.export: ExportPanel | None = None
        self.display_handle: Any = None
        self.progress = CompileProgress(self.header)
        self._cache_throttle = Throttle(self._refresh_cache, CACHE_REFRESH_S)
        # the explorer renders an instantiation (its pass texts print then: passes/deferred.py)
        # when the cell ends, or shortly after a compile in a later cell: never on the call
        self._in_cell = True
        self._explore = Later(self._explore_pending, EXPLORE_AFTER_S)
        parts = [self.header, self.explorer, self.cache, self.fields_box]
        super().__init__(children=[p for p in parts if p is not None])
        self.add_class("tistudio-panel")
        self._subscriptions = [
            bus.subscribe("compiled", self._on_compiled),
            bus.subscribe("launched", self._on_launched),
            bus.subscribe("pass_done", self._on_pass_done),  # names only: texts print on demand
        ]

    # --- kernels -----------------------------------------------------------------------------

    def add_kernel(self, kernel: Any) -> None:
        if any(k is kernel for k in self.kernels):
            return
        self.kernels.append(kernel)
        self.header.kernels = [k.__name__ for k in self.kernels]
        if self.cache is not None:
            self.cache.kernels = self.kernels
            self.cache.kernel_names = self.header.kernels
        for entry in kernel.instances():  # compiled before the panel knew it
            self._add_instance(kernel, entry)

    def _mine(self, kernel: Any) -> bool:
        """The cell's kernels and their autodiff twins (`f.grad`, whose `primal` is `f`)."""
        primal = getattr(kernel, "primal", None)
        return any(k is kernel or k is primal for k in self.kernels)

    # --- events ------------------------------------------------------------------------------

    def _on_compiled(self, event: Any) -> None:
        kernel = event.data["kernel"]
        if self._mine(kernel):
            self.progress.finished()
            self._add_instance(kernel, event.data["entry"])

    def _add_instance(self, kernel: Any, entry: Any) -> None:
        if self.explorer is not None:
            self.explorer.add(kernel, entry, render=False)
            if not self._in_cell:
                self._explore()
        self._cache_throttle()
        if self.fields_box is not None:
            self._add_field_views(entry.result.written_snodes)

    def _on_launched(self, event: Any) -> None:
        if self._mine(event.data["kernel"]):
            self._cache_throttle()

    def _on_pass_done(self, event: Any) -> None:
        name = event.data["kernel_name"]
        if any(name.startswith(k.__name__ + "_") for k in self.kernels):
            self.progress.pass_ran(name, event.data["name"])

    def _explore_pending(self) -> None:
        if self.explorer is not None:  # a panel may show no explorer (`--show fields`)
            self.explorer.render()

    def _refresh_cache(self) -> None:
        if self.cache is not None:
            self.cache.refresh()

    def _add_field_views(self, snodes: list[Any]) -> None:
        wanted = {s.id for s in snodes} - set(self.field_views)
        if not wanted:
            return
        for name, field in fields_in(self.namespace).items():
            ids = snode_ids(field)
            if ids & wanted and not ids & set(self.field_views):
                self.field_views[min(ids)] = FieldView(field, title=name)
        assert self.fields_box is not None
        self.fields_box.children = tuple(self.field_views.values())

    # --- the end of the cell -----------------------------------------------------------------

    def finish(self) -> None:
        """The cell is done: show the final counts and frames, add the export button."""
        self.progress.finished()
        self._in_cell = False
        self._explore()
        self._explore.flush()
        self._cache_throttle.flush()
        for view in self.field_views.values():
            view.flush()
        if "export" in self.show or self.export_path:
            self._add_export()

    def _add_export(self) -> None:
        if self.export is None:
            self.export = ExportPanel(
                {k.__name__: k for k in self.kernels},
                fields_in(self.namespace),
                path=self.export_path or "module.tcm",
                arch=self.header.arch,
                exporter=self._exporter,
            )
            self.children = (*self.children, self.export)
        if self.export_path and self.export.available:
            export = self.export
            written = {
                s.id for k in self.kernels for e in k.instances() for s in e.result.written_snodes
            }
            fields = [n for n, f in export.fields.items() if snode_ids(f) & written]
            export.start_export(export.kernel_names, fields, self.header.arch, self.export_path)

    def close(self) -> None:
        for unsubscribe in self._subscriptions:
            unsubscribe()
        self._subscriptions = []
        self.progress.finished()
        self._cache_throttle.cancel()
        self._explore.cancel()
        for child in self.children:
            child.close()
        super().close()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle["text/html"] = self.static_html()
            bundle["text/plain"] = self.static_text()
        return bundle

    def static_text(self) -> str:
        """The panel in a few lines of text: what a viewer without HTML shows (and a terminal)."""
        names = ", ".join(self.header.kernels) or "no kernels"
        lines = [f"tistudio — {names} on {self.header.arch}"]
        if self.explorer is not None and self.explorer.data.get("passes"):
            data = self.explorer.data
            lines.append(f"passes of {data.get('label', '?')}: {len(data['passes'])}")
        for r in self.cache.rows if self.cache is not None else []:
            lines.append(
                f"cache: {r['kernel']}({r['signature']}) on {r['arch']}: compiled in "
                f"{r['compile_ms']} ms{_startup(r)}, {r['hits']} hits, {r['misses']} misses"
            )
        lines += [view.static_text() for view in self.field_views.values()]
        return "\n".join(lines)

    def static_html(self) -> Markup:
        """The panel as plain HTML, for viewers without the widgets' JavaScript (nbviewer)."""
        names = ", ".join(self.header.kernels) or "no kernels"
        parts = [element("b", "tistudio"), f" — {names} on {self.header.arch}"]
        for child in self.children:
            if hasattr(child, "static_html"):
                parts.append(child.static_html())
        for view in self.field_views.values():
            parts.append(view.static_html())
        return element("div", *parts, class_="tistudio-static")


def _startup(row: dict) -> str:
    """The back end's start-up a compile waited for, as the plain-text summary says it."""
    startup = row["startup_ms"]
    return f" (after {startup:.0f} ms of back-end start-up)" if startup >= SHOWN_STARTUP_MS else ""
