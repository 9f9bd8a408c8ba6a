"""The pass explorer's lineage data (studio/lineage_view.py): per source line the passes that
touched its statements, per statement where it came from, per line of LLVM IR and WGSL the
statement and source line behind it."""

from __future__ import annotations

import inspect

import pytest

import tistudio as ti
from tistudio.ir.lineage import statements_of
from tistudio.studio.lineage_view import lineage_data, wgsl_links
from tistudio.studio.passes_view import PassExplorer


def line_of(kernel, text: str) -> int:
    lines, first = inspect.getsourcelines(kernel.fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def make_kernel():
    a = ti.field(ti.f32, 16)
    b = ti.field(ti.f32, 16)

    @ti.kernel
    def scale(k: ti.f32):
        for i in a:
            x = a[i] * 1.0
            b[i] = x + k * 2.0

    return scale


@pytest.fixture
def cpu() -> None:
    ti.init(arch=ti.cpu, record_passes=True)


def test_passes_that_touched_a_line_are_counted_by_kind(cpu: None) -> None:
    scale = make_kernel()
    scale(1.0)
    explorer = PassExplorer()
    explorer.add(scale, scale.instances()[0])
    data = explorer.data
    names = [p["name"] for p in data["passes"]]
    counts = data["lineage"]["by_line"][str(line_of(scale, "x = a[i] * 1.0"))]
    assert len(counts) == len(names)
    assert counts[names.index("alg_simp (simplify I)")] == [0, 0, 1]  # the mul by 1.0 deleted
    assert counts[names.index("type_check")] == [0, 0, 0]
    created, _, deleted = counts[names.index("lower_ast")]
    assert created >= 4 and deleted == 1
    # every printed IR line of every pass carries its statement's id (braces and the kernel
    # lines none), so the browser can tell which statement a clicked line is
    for row in data["passes"]:
        assert len(row["ids"]) == sum(op != "-" for op, *_ in row["diff"])


def test_a_statement_knows_its_line_and_the_passes_that_made_and_changed_it(cpu: None) -> None:
    scale = make_kernel()
    report = scale.compile_report(1.0)
    records = report.passes
    names = [r.name for r in records]
    data = lineage_data(records, {"llvm": report.llvm_ir, "wgsl": None})
    final = statements_of(records[-1])
    store = next(i for i, t in final.texts.items() if "global store" in t)
    line, created, rewritten, deleted = data["origins"][str(store)]
    assert line == line_of(scale, "b[i] = x + k * 2.0")
    assert names[created] == "lower_ast" and deleted is None
    assert "lower_access" in [names[i] for i in rewritten]
    assert "wgsl" not in data["links"]


def test_llvm_lines_that_define_a_statement_map_to_it_and_its_line(cpu: None) -> None:
    scale = make_kernel()
    report = scale.compile_report(1.0)
    final = statements_of(report.passes[-1])
    links = lineage_data(report.passes, {"llvm": report.llvm_ir})["links"]["llvm"]
    lines = report.llvm_ir.split("\n")
    assert len(links["ids"]) == len(lines) == len(links["src"])
    add = next(i for i, t in final.texts.items() if "= add " in t)
    number = next(n for n, i in final.numbers.items() if i == add)
    row = next(k for k, text in enumerate(lines) if text.strip().startswith(f"%s{number} = "))
    assert "fadd" in lines[row]
    assert links["ids"][row] == add and links["src"][row] == line_of(scale, "b[i] = x + k")
    assert links["src"][lines.index("entry:")] is None  # LLVM's own lines map to nothing
    # a store defines nothing: it takes the line of the values it stores
    stores = [k for k, text in enumerate(lines) if text.strip().startswith("store float %s")]
    assert stores and all(links["src"][k] == line_of(scale, "b[i] = x + k") for k in stores)
    assert all(links["ids"][k] is None for k in stores)


def test_wgsl_lines_map_through_value_names_and_source_comments() -> None:
    ti.init(arch=ti.gpu, record_passes=True)
    scale = make_kernel()
    report = scale.compile_report(1.0)
    final = statements_of(report.passes[-1])
    links = wgsl_links(report.wgsl, final)
    lines = report.wgsl.split("\n")
    line9, line10 = line_of(scale, "x = a[i] * 1.0"), line_of(scale, "b[i] = x + k")
    comments = [k for k, text in enumerate(lines) if text.strip().endswith("x = a[i] * 1.0")]
    assert comments and all(links["src"][k] == line9 for k in comments)
    adds = [k for k, text in enumerate(lines) if " = (s" in text and " + s" in text]
    assert adds and all(links["src"][k] == line10 for k in adds)
    assert all("= add " in final.texts[links["ids"][k]] for k in adds)
    assert links["src"][0] is None  # the `// kernel ..., task 0` title


def test_wgsl_comment_reaches_only_the_lines_below_it_up_to_a_brace() -> None:
    text = "\n".join(
        [
            "// kernel k, task 0: offloaded serial",
            "fn main() {",
            "    // k.py:7: y = x + 1",
            "    tree0[0] = 1;",
            "    {",
            "    let s0: i32 = 1;",
            "}",
        ]
    )
    final = statements_of(_record(["kernel {", "  <i32> $0 = const 1", "}"], [None, 9, None]))
    links = wgsl_links(text, final)
    assert links["src"] == [None, None, 7, 7, None, 9, None]
    assert links["ids"] == [None, None, None, None, None, 1, None]


class _record:
    """A pass record as the pipeline leaves one: text, source line and id per line."""

    def __init__(self, text: list[str], lines: list) -> None:
        self.ir_text = "\n".join(text)
        self.lines = lines
        self.stmt_ids = [None if line is None else 1 for line in lines]
        self.name = "p"
