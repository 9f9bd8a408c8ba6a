"""The assembly tab's source lines (backends/llvm/debug_lines.py, studio/lineage_view.py): the
kernel's assembly made again with a line table is the same code as the kernel's own, and its
instructions name the Python line and final-IR statement they came from, vectorised loops too."""

from __future__ import annotations

import inspect
import re

import pytest

import tistudio as ti
from tistudio.backends.llvm.debug_lines import split_lines, with_lines
from tistudio.ir.lineage import history
from tistudio.studio.lineage_view import located_assembly


def line_of(kernel, text: str) -> int:
    lines, first = inspect.getsourcelines(kernel.fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def instructions(assembly: str) -> list[str]:
    return [
        line
        for line in assembly.split("\n")
        if line.startswith("\t") and not line.lstrip().startswith(".")
    ]


def located(kernel):
    entry = kernel.instances()[0]
    made = located_assembly(entry.result.executable.compiled, list(entry.result.records))
    assert made is not None
    text, links = made
    assert len(links["src"]) == len(links["ids"]) == len(text.split("\n"))
    return entry, text, links


@pytest.fixture
def cpu() -> None:
    ti.init(arch=ti.cpu, record_passes=True, offline_cache=False)


def test_a_vectorised_loop_keeps_its_lines_and_its_code(cpu: None) -> None:
    a = ti.field(ti.f32, 64)
    b = ti.field(ti.f32, 64)

    @ti.kernel
    def scale(k: ti.f32):
        for i in a:
            x = a[i] * k
            b[i] = x + 2.0

    scale(3.0)
    entry, text, links = located(scale)
    assert instructions(text) == instructions(entry.result.executable.assembly)
    assert ".loc" not in text and ".debug_" not in text and ".file" not in text
    by_line: dict[int | None, list[str]] = {}
    for code, src in zip(text.split("\n"), links["src"]):
        by_line.setdefault(src, []).append(code)
    mul, add = line_of(scale, "x = a[i] * k"), line_of(scale, "b[i] = x + 2.0")
    assert any(re.match(r"\tvmulps|\tmulps", c) for c in by_line[mul]), by_line.get(mul)
    assert any(re.match(r"\tvaddps|\taddps", c) for c in by_line[add]), by_line.get(add)
    assert not any("mul" in c for c in by_line[add])
    # the statement of each instruction is one the final IR has, of that instruction's line
    final = history(list(entry.result.records))[-1][0]
    for src, sid in zip(links["src"], links["ids"]):
        if sid is not None:
            assert final.lines[sid] == src


def test_branches_atomics_and_a_2d_loop_compile_the_same_with_lines(cpu: None) -> None:
    x = ti.field(ti.i32, shape=(32, 32))
    total = ti.field(ti.i32, shape=())

    @ti.kernel
    def fill(n: ti.i32):
        for i, j in x:
            if i + j < n:
                x[i, j] = i * j
            else:
                x[i, j] = -1
            total[None] += x[i, j]

    fill(40)
    entry, text, links = located(fill)
    assert instructions(text) == instructions(entry.result.executable.assembly)
    sources = {src for src in links["src"] if src is not None}
    assert line_of(fill, "total[None] += x[i, j]") in sources
    assert line_of(fill, "if i + j < n") in sources  # the branches became one select
    assert sources <= set(range(line_of(fill, "def fill"), line_of(fill, "total[None]") + 1))


def test_with_lines_numbers_its_metadata_after_the_modules_own() -> None:
    text = "\n".join(
        [
            "define void @f(ptr %p) {",
            "entry:",
            '  %"s1" = load i32, ptr %p, !tbaa !0',
            "  ret void",
            "}",
            "!0 = !{!1}",
            '!1 = !{!"int"}',
        ]
    )
    out = with_lines(text, [None, None, 12, None], [None, None, 1, None])
    assert "define void @f(ptr %p) !dbg !" in out
    assert re.search(r"!tbaa !0, !dbg !(\d+)", out)
    assert "!DILocation(line: 12, column: 2," in out  # statement 1, in the column as 1 + 1
    assert "!DILocation(line: 0, column: 0," in out  # `ret` has no line
    assert not re.search(r"^!(0|1) = !DI", out, re.M)  # the module's own nodes keep theirs


def test_split_lines_drops_the_line_table_and_reads_it() -> None:
    assembly = "\n".join(
        [
            '\t.file\t1 "" "kernel.py"',
            "f:",
            ".Lfunc_begin0:",
            "\t.loc\t1 7 4 prologue_end",
            "\tvaddps\t%ymm0, %ymm1, %ymm2",
            ".Ltmp0:",
            "\t.loc\t1 0 0",
            "\tretq",
            '\t.section\t.debug_abbrev,"",@progbits',
            "\t.byte\t1",
            '\t.section\t".note.GNU-stack","",@progbits',
        ]
    )
    text, lines, ids = split_lines(assembly)
    assert text.split("\n") == [
        "f:",
        "\tvaddps\t%ymm0, %ymm1, %ymm2",
        "\tretq",
        '\t.section\t".note.GNU-stack","",@progbits',
    ]
    assert lines == [None, 7, None, None] and ids == [None, 3, None, None]
