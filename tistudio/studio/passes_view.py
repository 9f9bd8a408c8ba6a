"""The pass explorer: what every compiler pass did to each instantiation of a kernel.

For the selected instantiation the browser gets, per pass, its name, time, statement count,
docstring and the IR after it as a diff against the pass before (unchanged, added and removed
lines, each with the user's source line it came from), plus the kernel's Python source and the
final LLVM IR, assembly and WGSL. Diffs are computed here, in Python, so they can be tested
without a browser.
"""

from __future__ import annotations

import difflib
import inspect
import pathlib
import textwrap
import threading
from collections import Counter
from typing import Any

import anywidget
import traitlets

from tistudio.studio.cfg import cfg_of
from tistudio.studio.lineage_view import lineage_data, located_assembly
from tistudio.studio.markup import Markup, element
from tistudio.studio.taichi_ir import taichi_passes, view_data

STATIC = pathlib.Path(__file__).parent / "static"
MAX_CODE_CHARS = 400_000  # LLVM IR of a big kernel can run to megabytes; the rest is cut
NO_WGSL = "WebGPU back end not available: this kernel was compiled for the CPU."


def diff_lines(before: list[str], after: list[str], lines: tuple | list = ()) -> list[list]:
    """[op, text, source line] for every line of `after`, with the lines of `before` that are
    gone interleaved where they were: op is " " (kept), "+" (added) or "-" (removed)."""
    out: list[list] = []
    source = list(lines) + [None] * (len(after) - len(lines))
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag == "equal":
            out.extend([" ", after[j], source[j]] for j in range(b0, b1))
            continue
        out.extend(["-", before[i], None] for i in range(a0, a1))
        out.extend(["+", after[j], source[j]] for j in range(b0, b1))
    return out


def pass_keys(records: list[Any]) -> list[str]:
    """A key per record that names the same pass in every instantiation: its name, and which
    run of that name it is (a simplify sub-pass can run, and be recorded, more than once)."""
    seen: Counter[str] = Counter()
    keys = []
    for record in records:
        keys.append(f"{record.name}#{seen[record.name]}")
        seen[record.name] += 1
    return keys


def sparklines(record_lists: list[list[Any]], current: int) -> dict:
    """Per pass key, its time (ms) and statement count in each instantiation (None where that
    instantiation did not run it): what the pass list's sparklines draw."""
    count = len(record_lists)
    series: dict[str, dict[str, list]] = {}
    for i, records in enumerate(record_lists):
        for key, record in zip(pass_keys(records), records, strict=True):
            row = series.setdefault(key, {"ms": [None] * count, "stmts": [None] * count})
            row["ms"][i] = round(record.ms, 3)
            row["stmts"][i] = record.stmt_count
    return {"count": count, "current": current, "passes": series}


def pass_rows(records: list[Any]) -> list[dict]:
    """One row per pass record, each with its diff against the record before it."""
    rows = []
    previous: list[str] = []
    keys = pass_keys(records)
    for index, record in enumerate(records):
        text = record.ir_text.splitlines()
        diff = diff_lines(previous if index else text, text, getattr(record, "lines", ()))
        rows.append(
            {
                "name": record.name,
                "key": keys[index],
                "doc": record.doc,
                "ms": round(record.ms, 3),
                "stmts": record.stmt_count,
                "changed": bool(record.changed),
                "added": sum(1 for d in diff if d[0] == "+"),
                "removed": sum(1 for d in diff if d[0] == "-"),
                "diff": diff,
                "ids": list(getattr(record, "stmt_ids", ())),  # statement per line
            }
        )
        previous = text
    return rows


def kernel_source(kernel: Any) -> dict:
    """The kernel's Python source with the file line number of its first line."""
    try:
        lines, first = inspect.getsourcelines(kernel.fn)
    except (OSError, TypeError):
        return {"first": 0, "lines": []}
    text = textwrap.dedent("".join(lines))
    return {"first": max(first, 1), "lines": text.rstrip("\n").split("\n")}


def _cut(text: str | None) -> str | None:
    if text is None or len(text) <= MAX_CODE_CHARS:
        return text
    return text[:MAX_CODE_CHARS] + f"\n… ({len(text) - MAX_CODE_CHARS} more characters)"


def _code_of(executable: Any, assembly: bool = True) -> dict:
    def attr(name: str) -> str | None:
        try:
            return getattr(executable, name, None)
        except Exception as e:  # noqa: BLE001 - show why, in the tab, instead of failing
            return f"({name} unavailable: {e})"

    return {
        "llvm": _cut(attr("llvm_ir_optimized")) or "(no LLVM IR: not a CPU kernel)",
        "asm": (_cut(attr("assembly")) if assembly else None) or "(no assembly: not a CPU kernel)",
        "wgsl": _cut(attr("wgsl")),
    }


def _code_and_lineage(result: Any) -> dict:
    """The final code, and the lineage linking it, the IR and the source (lineage_view.py).
    The assembly is the one made again with its source lines where that works, else the
    kernel's own (loaded from the offline cache, it has no IR to make it from)."""
    records = list(result.records)
    try:
        located = located_assembly(getattr(result.executable, "compiled", None), records)
    except Exception:  # noqa: BLE001 - the tab shows the plain assembly instead
        located = None
    code = _code_of(result.executable, assembly=located is None)
    lineage = lineage_data(records, code)
    if located is not None:
        code["asm"], lineage["links"]["asm"] = _cut(located[0]), located[1]
    return {**code, "lineage": lineage}


def instance_data(kernel: Any, entry: Any) -> dict:
    """Everything the explorer shows for one cache entry (one template instantiation)."""
    result = entry.result
    return {
        "label": f"{kernel.__name__}({entry.signature_text})",
        "arch": entry.arch,
        "compile_ms": round(entry.compile_ms, 2),
        "passes": pass_rows(list(result.records)),
        "source": kernel_source(kernel),
        **_code_and_lineage(result),
    }


def report_data(kernel: Any, report: Any) -> dict:
    """The same, from a `Kernel.compile_report(*args)`."""
    return {
        "label": f"{kernel.__name__}({report.signature_text})",
        "arch": "cpu",
        "compile_ms": round(report.result.passes_ms + report.result.backend_ms, 2),
        "passes": pass_rows(list(report.passes)),
        "source": kernel_source(kernel),
        **_code_and_lineage(report.result),
    }


def explorer_esm() -> str:
    """The explorer's ES module: the CFG drawing (cfg_view.js) followed by pass_explorer.js,
    which calls it (an anywidget module is one file; a saved page can embed the same text)."""
    parts = ("cfg_view.js", "pass_explorer.js")
    return "\n".join((STATIC / name).read_text(encoding="utf-8") for name in parts)


def _records(entry: Any) -> list[Any]:
    """The pass records of a cache entry or of a compile report."""
    return list(entry.passes) if hasattr(entry, "passes") else list(entry.result.records)


class PassExplorer(anywidget.AnyWidget):
    """Pass list (time and statement count as bars and sparklines), IR after the selected
    pass, its diff, its control-flow graph, the pass docstring, the Python source, and tabs for
    LLVM IR, assembly and WGSL, and Taichi 1.7.4's own IR after its pass of the same name
    (run on demand); unchanged passes can be hidden, passes and IR searched."""

    _esm = explorer_esm()
    _css = STATIC / "studio.css"

    instances = traitlets.List(traitlets.Unicode(), []).tag(sync=True)  # labels
    instance = traitlets.Int(0).tag(sync=True)  # index into `instances`
    data = traitlets.Dict({}).tag(sync=True)  # instance_data() of the selected one
    pass_index = traitlets.Int(-1).tag(sync=True)  # -1: the last pass
    tab = traitlets.Unicode("ir").tag(sync=True)  # ir | diff | cfg | llvm | asm | wgsl | taichi
    hide_unchanged = traitlets.Bool(False).tag(sync=True)
    search = traitlets.Unicode("").tag(sync=True)  # filters the pass list, marks IR text
    cfg = traitlets.Dict({}).tag(sync=True)  # {"instance", "pass", "graph"}: while tab == cfg
    sparks = traitlets.Dict({}).tag(sync=True)  # sparklines() over this kernel's instantiations
    show_source = traitlets.Bool(True).tag(sync=True)
    no_wgsl = traitlets.Unicode(NO_WGSL).tag(sync=True)
    # Taichi 1.7.4's own passes of the selected instantiation (studio/taichi_ir.py), run when
    # the Taichi IR tab asks: {"instance", "state": running | done, "passes", "match", "error"}
    taichi = traitlets.Dict({}).tag(sync=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._entries: list[tuple[Any, Any]] = []
        self._taichi: dict[int, dict] = {}  # per instantiation, once run
        self.on_msg(self._on_msg)

    def add(self, kernel: Any, entry: Any, render: bool = True) -> None:
        """A new instantiation; the first one is selected and shown at once, or with `render`
        False when `render()` is called (the panel does after the cell: the pass texts are
        printed then, `passes/deferred.py`)."""
        self._entries.append((kernel, entry))
        self.instances = [*self.instances, f"{kernel.__name__}({entry.signature_text})"]
        if len(self._entries) == 1 and render:
            self._show(0)
        elif self.data and self._entries[self.instance][0] is kernel:
            self._update_sparks()

    def render(self) -> None:
        """Show the selected instantiation if it is not shown yet."""
        if self._entries and not self.data:
            self._show(self.instance)

    def show_report(self, kernel: Any, report: Any) -> None:
        """Show a compile report (no cache entry needed)."""
        with self.hold_sync():
            self.instances = [*self.instances, f"{kernel.__name__}({report.signature_text})"]
            self._entries.append((kernel, report))
            self.instance = len(self._entries) - 1
            self.data = report_data(kernel, report)
            self.pass_index = -1
            self._update_sparks()
            self._update_cfg()

    @traitlets.observe("instance")
    def _instance_changed(self, change: dict) -> None:
        if 0 <= change["new"] < len(self._entries):
            self._show(change["new"])

    def _show(self, index: int) -> None:
        kernel, entry = self._entries[index]
        is_report = hasattr(entry, "passes")
        data = report_data(kernel, entry) if is_report else instance_data(kernel, entry)
        with self.hold_sync():
            self.instance = index
            self.data = data
            self.pass_index = -1
            self.taichi = self._taichi.get(index, {})
            self._update_sparks()
            self._update_cfg()

    def _on_msg(self, widget: Any, content: dict, buffers: list) -> None:
        if content.get("kind") == "run_taichi" and content.get("instance") == self.instance:
            self.run_taichi(self.instance)

    def run_taichi(self, index: int) -> threading.Thread | None:
        """Run Taichi on instantiation `index` in a thread (it takes seconds); the tab shows
        "running…" until `taichi` holds its passes. Cached: run once per instantiation."""
        if index in self._taichi:
            return None  # done, or running
        kernel, entry = self._entries[index]
        names = [record.name for record in _records(entry)]
        self._taichi[index] = self.taichi = {"instance": index, "state": "running"}

        def work() -> None:
            try:
                found = view_data(taichi_passes(kernel, entry), names)
            except Exception as e:  # noqa: BLE001 - the tab says why, instead of "running…"
                found = {"error": f"the Taichi run failed: {type(e).__name__}: {e}"}
            self._taichi[index] = {"instance": index, "state": "done", **found}
            if self.instance == index:
                self.taichi = self._taichi[index]

        thread = threading.Thread(target=work, name="tistudio-taichi-ir", daemon=True)
        thread.start()
        return thread

    def _update_sparks(self) -> None:
        kernel = self._entries[self.instance][0]
        same = [i for i, (k, _) in enumerate(self._entries) if k is kernel]
        lists = [_records(self._entries[i][1]) for i in same]
        self.sparks = sparklines(lists, same.index(self.instance))

    @traitlets.observe("tab", "pass_index")
    def _view_changed(self, change: dict) -> None:
        self._update_cfg()

    def _update_cfg(self) -> None:
        """The CFG of the selected pass, built only while the CFG tab shows (and once)."""
        if self.tab != "cfg" or not 0 <= self.instance < len(self._entries):
            return
        records = _records(self._entries[self.instance][1])
        if not records:
            return
        index = self.pass_index if 0 <= self.pass_index < len(records) else len(records) - 1
        if self.cfg.get("instance") == self.instance and self.cfg.get("pass") == index:
            return
        record = records[index]
        graph = cfg_of(record.ir_text, getattr(record, "lines", ()))
        self.cfg = {"instance": self.instance, "pass": index, "graph": graph}

    def static_html(self) -> Markup:
        head = element("tr", *(element("th", h) for h in ("pass", "time", "statements")))
        rows = (
            element(
                "tr",
                element("td", p["name"]),
                element("td", f"{p['ms']:.2f} ms"),
                element("td", p["stmts"]),
            )
            for p in self.data.get("passes", [])
        )
        label = self.data.get("label", "no instantiation yet")
        return element(
            "details", element("summary", f"passes of {label}"), element("table", head, *rows)
        )
