"""The pass explorer's tools (issue #30): sparklines across instantiations, the CFG of the
selected pass built only while the CFG tab shows, and the bundled ES module."""

from __future__ import annotations

import tistudio as ti
from tistudio.studio.cfg import outline
from tistudio.studio.passes_view import PassExplorer, explorer_esm, pass_keys, pass_rows


def _kernel():
    x = ti.field(ti.f32, shape=16)

    @ti.kernel
    def fill(t: ti.template(), n: ti.i32):
        for i in x:
            v = 0.0
            for j in range(n):
                if j % t == 0:
                    v += 1.0
            x[i] = v

    return fill


def test_pass_keys_tell_repeated_passes_apart():
    class Record:
        def __init__(self, name):
            self.name = name

    records = [Record(n) for n in ("initial IR", "cse (simplify I)", "die", "cse (simplify I)")]
    assert pass_keys(records) == [
        "initial IR#0",
        "cse (simplify I)#0",
        "die#0",
        "cse (simplify I)#1",
    ]


def test_sparklines_follow_the_kernels_instantiations():
    ti.init(arch=ti.cpu, record_passes=True)
    fill = _kernel()
    fill(2, 4)
    explorer = PassExplorer()
    explorer.add(fill, fill.instances()[0])
    first = explorer.sparks
    assert first["count"] == 1 and first["current"] == 0
    fill(3, 4)  # a second instantiation: the shown kernel's sparklines grow a point
    explorer.add(fill, fill.instances()[1])
    sparks = explorer.sparks
    assert sparks["count"] == 2 and sparks["current"] == 0
    records = fill.instances()[1].result.records
    for key, record in zip(pass_keys(records), records, strict=True):
        assert sparks["passes"][key]["stmts"][1] == record.stmt_count
        assert sparks["passes"][key]["ms"][1] == round(record.ms, 3)
    rows = explorer.data["passes"]
    assert all(row["key"] in sparks["passes"] for row in rows)
    explorer.instance = 1
    assert explorer.sparks["current"] == 1


def test_another_kernels_instantiations_are_not_in_the_sparklines():
    ti.init(arch=ti.cpu, record_passes=True)
    fill, other = _kernel(), _kernel()
    fill(2, 4)
    other(2, 4)
    explorer = PassExplorer()
    explorer.add(fill, fill.instances()[0])
    explorer.add(other, other.instances()[0])
    assert explorer.sparks["count"] == 1
    explorer.instance = 1
    assert explorer.sparks["count"] == 1 and explorer.sparks["current"] == 0


def test_cfg_is_built_only_while_the_cfg_tab_shows():
    ti.init(arch=ti.cpu, record_passes=True)
    fill = _kernel()
    fill(2, 4)
    explorer = PassExplorer()
    explorer.add(fill, fill.instances()[0])
    assert explorer.cfg == {}  # the IR tab: no CFG built
    explorer.tab = "cfg"
    records = fill.instances()[0].result.records
    last = len(records) - 1
    assert explorer.cfg["pass"] == last and explorer.cfg["instance"] == 0
    body = explorer.cfg["graph"]["graphs"][0]["body"]
    shape = [
        line.split(" block")[0] + " block" if "block" in line else line for line in outline(body)
    ]
    assert shape == [  # the struct-for became a range-for task over the 16 cells
        "task range_for",
        "  block",
        "  loop range",
        "    block",
        "    if (then 1, else 0)",
        "      block",
        "  block",
    ]
    assert explorer.cfg["graph"]["stmts"] == records[last].stmt_count
    explorer.pass_index = 0  # the frontend IR: a struct-for around a range-for around an if
    assert explorer.cfg["pass"] == 0
    assert outline(explorer.cfg["graph"]["graphs"][0]["body"])[:5] == [
        "block 1",  # n's argload into its alloca
        "loop struct",
        "  block 1",
        "  loop range",
        "    if (then 1, else 0)",
    ]
    explorer.tab = "ir"
    explorer.pass_index = 1
    assert explorer.cfg["pass"] == 0  # left as it was: nothing built for the IR tab


def test_hide_unchanged_marks_what_the_list_hides():
    ti.init(arch=ti.cpu, record_passes=True)
    fill = _kernel()
    fill(2, 4)
    rows = pass_rows(list(fill.instances()[0].result.records))
    unchanged = [r["name"] for r in rows if not r["changed"]]
    assert unchanged, "some pass of this kernel changes nothing (scalarize on scalars)"
    assert all(r["added"] == r["removed"] == 0 for r in rows if not r["changed"])


def test_the_bundle_defines_drawcfg_before_the_explorer_uses_it():
    text = explorer_esm()
    assert text.index("export function drawCfg") < text.index("drawCfg(pane")
    assert text.count("export default") == 1
    assert PassExplorer._esm == text
