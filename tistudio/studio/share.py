"""`save_html`: kernels as one self-contained page that anyone can open from disk.

The page carries, for each kernel, every instantiation's passes, diffs, lineage, control-flow
graphs and final code, shown by the pass explorer's own ES module (`passes_view.explorer_esm`,
not a copy) through a static model with anywidget's `get`/`set`/`on` interface
(`static/share.js`), which answers what the widget's Python side would: a new instantiation's
data, the selected pass's CFG. For a program on the GPU (WebGPU), it also carries an AOT module
of the kernels and the AOT browser runner's loader (`tistudio/aot/static/runner.html`), so the
reader's browser can run them. Inline scripts and styles only: no server, no CDN.
"""

from __future__ import annotations

import base64
import html
import inspect
import json
import pathlib
import tempfile
from typing import Any

from tistudio.studio.cfg import cfg_of
from tistudio.studio.passes_view import NO_WGSL, explorer_esm, instance_data, sparklines

STATIC = pathlib.Path(__file__).parent / "static"
RUNNER = pathlib.Path(__file__).parents[1] / "aot" / "static" / "runner.html"
PAGE_MARK = "  // --- the page ---"  # where the runner's loader ends and its own page begins
CPU_ONLY = (
    "These kernels were compiled for the CPU, so the page has no browser runner: "
    "compile them under ti.init(arch=ti.gpu) to get a WebGPU module the reader's browser runs."
)


def kernel_model(kernel: Any) -> dict:
    """What the explorer shows for every instantiation of `kernel` (and of its autodiff
    twins): the widget's `data` for each, its sparklines, and each pass's CFG."""
    entries = [(k, e) for k in (kernel, *kernel.twins()) for e in k.instances()]
    if not entries:
        raise ValueError(f"save_html: kernel {kernel.__name__!r} has not been compiled: call it")
    data, cfgs = [], []
    for owner, entry in entries:
        data.append(instance_data(owner, entry))
        records = list(entry.result.records)
        cfgs.append([cfg_of(r.ir_text, getattr(r, "lines", ())) for r in records])
    sparks = []
    for i, (owner, _) in enumerate(entries):
        same = [j for j, (k, _) in enumerate(entries) if k is owner]
        lists = [list(entries[j][1].result.records) for j in same]
        sparks.append(sparklines(lists, same.index(i)))
    labels = [f"{k.__name__}({e.signature_text})" for k, e in entries]
    return {"name": kernel.__name__, "instances": labels, "data": data, "sparks": sparks,
            "cfgs": cfgs}  # fmt: skip


def runner_loader() -> str:
    """The AOT browser runner's script up to its own page: `window.tistudio.load` & co."""
    text = RUNNER.read_text(encoding="utf-8")
    start = text.index("<script>") + len("<script>")
    return text[start : text.index(PAGE_MARK)] + "})();\n"


def _instance_templates(entry: Any, fields: dict[str, Any]) -> dict | None:
    """The template arguments of one instantiation as fields of `fields` (by the names its
    signature shows), or None when one is not such a field."""
    args = {}
    for fact in entry.facts:
        if fact.kind == "field" and fact.label in fields:
            args[fact.param] = fields[fact.label]
        elif fact.kind not in ("runtime", "ndarray"):
            return None
    return args


def gpu_module(kernels: list[Any], fields: dict[str, Any]) -> tuple[bytes | None, list[dict]]:
    """An AOT module (`.tcm` bytes) of every instantiation whose template arguments are fields
    of `fields`, built for the current program (None when it is not on the GPU), and a note per
    instantiation: its name in the module, or why it is not there."""
    from tistudio.lang import impl

    if impl.current_config().arch != "gpu":
        return None, []
    import tistudio.aot as aot

    names = {id(f): n for n, f in fields.items()}
    planned, notes = [], []
    for kernel in kernels:
        for entry in kernel.instances():
            label = f"{kernel.__name__}({entry.signature_text})"
            templates = _instance_templates(entry, fields)
            if templates is None:
                notes.append({"label": label, "error": "a template argument is not a field"})
                continue
            key = "".join(f"{p}={names[id(v)]}," for p, v in templates.items())
            name = f"{kernel.__name__}|{key}" if key else kernel.__name__
            planned.append((kernel, templates, name))
            notes.append({"label": label, "kernel": name})
    module = aot.Module()
    used = {id(v) for _, templates, _ in planned for v in templates.values()}
    for name, field in fields.items():
        if id(field) in used:
            module.add_field(name, field)
    for kernel, templates, name in planned:
        module.add_kernel(kernel, templates, name=name)
    with tempfile.TemporaryDirectory() as folder:
        path = pathlib.Path(folder) / "page.tcm"
        module.archive(str(path))
        return path.read_bytes(), notes


def _caller_fields(depth: int = 2) -> dict[str, Any]:
    """The fields among the globals of the code that called `save_html` (a notebook's)."""
    from tistudio.studio.panel import fields_in

    frame = inspect.currentframe()
    for _ in range(depth):
        frame = frame.f_back if frame is not None else None
    return fields_in(dict(frame.f_globals)) if frame is not None else {}


def page_html(
    kernels: list[Any], fields: dict[str, Any] | None = None, title: str = "tistudio kernels"
) -> str:
    """The whole page as text (see `save_html`)."""
    fields = _caller_fields() if fields is None else fields
    module, notes = gpu_module(kernels, fields)
    payload = {
        "title": title,
        "kernels": [kernel_model(k) for k in kernels],
        "no_wgsl": NO_WGSL,
        "explorer_esm": explorer_esm(),
        "module": base64.b64encode(module).decode("ascii") if module is not None else None,
        "runs": notes,
        "cpu_only": CPU_ONLY if module is None else "",
    }
    data = json.dumps(payload, separators=(",", ":")).replace("</", "<\\/")
    page = (STATIC / "share.html").read_text(encoding="utf-8")
    parts = {
        "TITLE": html.escape(title),
        "STUDIO_CSS": (STATIC / "studio.css").read_text(encoding="utf-8"),
        "DATA": data,
        "RUNNER": runner_loader(),
        "SHARE_JS": (STATIC / "share.js").read_text(encoding="utf-8"),
    }
    for key, text in parts.items():
        closing = "</script" in text.lower() or "</style" in text.lower()
        if key != "DATA" and closing:
            raise ValueError(f"{key} would close its element early")
        page = page.replace(f"@@{key}@@", text)
    return page


def save_html(
    path: str | pathlib.Path,
    kernels: list[Any],
    *,
    fields: dict[str, Any] | None = None,
    title: str = "tistudio kernels",
) -> pathlib.Path:
    """Write one self-contained HTML page showing `kernels` (each compiled at least once):
    the pass explorer for every instantiation (all passes, diffs, lineage, CFGs, final code)
    and, when the program runs on the GPU, a WebGPU module of the instantiations whose
    template arguments are fields of `fields` (name -> field; by default the fields among the
    caller's globals) with the AOT runner that runs them in the reader's browser. The page
    needs no server: it opens from the file system."""
    fields = _caller_fields() if fields is None else fields
    target = pathlib.Path(path)
    target.write_text(page_html(list(kernels), fields, title), encoding="utf-8")
    return target
