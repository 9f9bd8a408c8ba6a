"""The export button: kernels and fields into an AOT module (`.tcm`), off the main thread.

Messages from the browser reach Python only while no cell is running, and an export can take a
while, so the button's request starts a worker thread and the widget reports progress, the
archive's file list, its size and a download link. Every failure ends up as a message in the
widget, never as a traceback. The builder is `tistudio.aot.Module` (docs/aot-format.md); in a
build where it cannot be imported the widget says so and the button stays disabled.
"""

from __future__ import annotations

import importlib
import json
import pathlib
import threading
import zipfile
from collections.abc import Callable
from typing import Any

import anywidget
import traitlets

from tistudio.studio.markup import Markup, element

STATIC = pathlib.Path(__file__).parent / "static"
MAX_DOWNLOAD_BYTES = 32 * 1024 * 1024  # bigger archives get no in-page download link
UNAVAILABLE = "AOT export is not available yet: tistudio.aot has no Module (issue #7)."

Exporter = Callable[[list[Any], dict[str, Any], str, pathlib.Path], Any]


class ExportUnavailable(RuntimeError):
    """The AOT API this export needs does not exist in this build."""


def aot_module_class() -> Any:
    """`tistudio.aot.Module`, or ExportUnavailable when the AOT package has none yet."""
    try:
        aot = importlib.import_module("tistudio.aot")
    except ImportError:
        raise ExportUnavailable(UNAVAILABLE) from None
    module = getattr(aot, "Module", None)
    if module is None:
        raise ExportUnavailable(UNAVAILABLE)
    return module


def aot_available() -> bool:
    try:
        aot_module_class()
    except ExportUnavailable:
        return False
    return True


def aot_export(kernels: list[Any], fields: dict[str, Any], arch: str, path: pathlib.Path) -> Any:
    """Taichi's AOT recipe: a Module for the arch, fields then kernels, saved as a `.tcm`."""
    module = aot_module_class()(arch=arch)
    for name, field in fields.items():
        module.add_field(name, field)
    for kernel in kernels:
        module.add_kernel(kernel)
    module.archive(str(path))
    return path


def archive_listing(path: pathlib.Path) -> list[dict]:
    """Name and size of each file in a `.tcm` (a zip archive); a plain file lists itself."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            return [{"name": i.filename, "size": i.file_size} for i in z.infolist()]
    return [{"name": path.name, "size": path.stat().st_size}]


def dask_lines(path: pathlib.Path, kernel: str, fields: list[str]) -> str:
    """The two lines that sweep `kernel` of the archive at `path` on a Dask `client` in the
    notebook (`tistudio.distributed`; `params` is a list of dicts of the kernel's arguments),
    or "" when the file is not a module."""
    try:
        with zipfile.ZipFile(path) as z:
            entries = json.loads(z.read("metadata.json"))["kernels"]
        entry = next(k for k in entries if k["name"] == kernel)
    except (zipfile.BadZipFile, KeyError, TypeError, ValueError, StopIteration):
        return ""  # another exporter's file: no lines to offer
    example = "{" + ", ".join(f'"{a["name"]}": ...' for a in entry["args"]) + "}"
    outputs = f", outputs={fields!r}" if fields else ""
    return (
        "from tistudio.distributed import sweep\n"
        f"results = sweep(client, {str(path)!r}, {kernel!r}, params{outputs})"
        f"  # params: [{example}, ...]"
    )


class ExportPanel(anywidget.AnyWidget):
    """Choose kernels, fields and arch; the button writes the `.tcm` in a worker thread."""

    _esm = STATIC / "export_panel.js"
    _css = STATIC / "studio.css"

    kernel_names = traitlets.List(traitlets.Unicode(), []).tag(sync=True)
    field_names = traitlets.List(traitlets.Unicode(), []).tag(sync=True)
    arches = traitlets.List(traitlets.Unicode(), ["cpu", "gpu"]).tag(sync=True)
    arch = traitlets.Unicode("cpu").tag(sync=True)
    path = traitlets.Unicode("module.tcm").tag(sync=True)
    available = traitlets.Bool(False).tag(sync=True)
    status = traitlets.Unicode("idle").tag(sync=True)  # idle | running | done | error
    message = traitlets.Unicode("").tag(sync=True)
    files = traitlets.List(traitlets.Dict(), []).tag(sync=True)
    size = traitlets.Int(0).tag(sync=True)
    archive = traitlets.Bytes(b"").tag(sync=True)  # the file, for the download link
    dask_code = traitlets.Unicode("").tag(sync=True)  # sweep it on a Dask cluster (dask_lines)

    def __init__(
        self,
        kernels: dict[str, Any],
        fields: dict[str, Any] | None = None,
        *,
        path: str = "module.tcm",
        arch: str = "cpu",
        exporter: Exporter | None = None,
    ) -> None:
        fields = fields or {}
        available = exporter is not None or aot_available()
        super().__init__(
            kernel_names=list(kernels),
            field_names=list(fields),
            path=path,
            arch=arch,
            available=available,
            message="" if available else UNAVAILABLE,
        )
        self.kernels, self.fields = dict(kernels), dict(fields)
        self.exporter = exporter or aot_export
        self.worker: threading.Thread | None = None
        self.on_msg(self._on_message)

    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "export":
            self.start_export(
                content.get("kernels", self.kernel_names),
                content.get("fields", []),
                content.get("arch", self.arch),
                content.get("path", self.path),
            )

    def start_export(self, kernels: list[str], fields: list[str], arch: str, path: str) -> None:
        """Export in a worker thread; `self.worker.join()` waits for it."""
        with self.hold_sync():
            self.status, self.message = "running", f"exporting to {path} …"
            self.files, self.size, self.archive, self.dask_code = [], 0, b"", ""
        self.worker = threading.Thread(
            target=self.export, args=(kernels, fields, arch, path), daemon=True
        )
        self.worker.start()

    def export(self, kernels: list[str], fields: list[str], arch: str, path: str) -> None:
        """Export now, on this thread, and report the outcome in the widget."""
        try:
            target = self._export(kernels, fields, arch, path)
        except Exception as e:  # noqa: BLE001 - every failure becomes a message in the widget
            text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            with self.hold_sync():
                self.status, self.message = "error", text
            return
        data = target.read_bytes()
        with self.hold_sync():
            self.files = archive_listing(target)
            self.size = len(data)
            self.archive = data if len(data) <= MAX_DOWNLOAD_BYTES else b""
            self.dask_code = dask_lines(target, kernels[0], fields)
            self.status, self.message = "done", str(target)

    def _export(self, kernels: list[str], fields: list[str], arch: str, path: str) -> pathlib.Path:
        if not kernels:
            raise ValueError("choose at least one kernel to export")
        if not path.endswith(".tcm"):
            raise ValueError(f"the file name must end in .tcm, got {path!r}")
        unknown = [n for n in kernels if n not in self.kernels] + [
            n for n in fields if n not in self.fields
        ]
        if unknown:
            raise ValueError(f"unknown kernel or field: {', '.join(unknown)}")
        target = pathlib.Path(path).expanduser().resolve()
        target.parent.mkdir(parents=True, exist_ok=True)
        self.exporter(
            [self.kernels[n] for n in kernels], {n: self.fields[n] for n in fields}, arch, target
        )
        if not target.exists():
            raise RuntimeError(f"the exporter wrote no file at {target}")
        return target

    def static_html(self) -> Markup:
        return element("div", f"export: {self.status} {self.message}")
