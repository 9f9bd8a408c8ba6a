"""The CFG description (tistudio/studio/cfg.py) of real kernels' IR, pass by pass."""

from __future__ import annotations

import pytest

import tistudio as ti
from tistudio.studio.cfg import cfg_of, outline, walk


@pytest.fixture
def kernels():
    ti.init(arch=ti.cpu)
    x = ti.field(ti.f32, shape=(8, 8))
    y = ti.field(ti.i32, shape=8)

    @ti.kernel
    def nested(n: ti.i32):
        for i in range(8):
            for j in range(n):
                if x[i, j] > 0:
                    x[i, j] = 1.0
                else:
                    x[i, j] = 2.0

    @ti.kernel
    def search(n: ti.i32):
        for i in y:
            c = 0
            while c < 10:
                c += 1
                if c > n:
                    break
            y[i] = c

    return nested, search


def _pass(report, name):
    return next(p for p in report.passes if p.name == name)


def test_nested_loops_and_if_else_in_the_frontend_ir(kernels):
    nested, _ = kernels
    first = nested.compile_report(3).passes[0]
    cfg = cfg_of(first.ir_text, first.lines)
    assert [g["head"] for g in cfg["graphs"]] == ["kernel"]
    assert outline(cfg["graphs"][0]["body"]) == [
        "block 1",
        "loop range",
        "  loop range",
        "    if (then 1, else 1)",
        "      block 1",
        "    else",
        "      block 1",
    ]
    assert cfg["stmts"] == first.stmt_count


def test_offloaded_tasks_after_offload_and_in_the_final_ir(kernels):
    nested, search = kernels
    report = nested.compile_report(3)
    final = report.passes[-1]
    body = cfg_of(final.ir_text)["graphs"][0]["body"]
    assert [n["kind"] for n in body] == ["task"]
    task = body[0]
    assert task["task"] == "range_for" and task["head"].endswith("offloaded range_for(0, 8)")
    inner = [n for n in walk(body) if n["kind"] != "block"]
    assert [n.get("loop", n["kind"]) for n in inner] == ["task", "range", "if"]
    branch = inner[2]
    assert any("global store" in s["text"] for s in branch["then"][0]["stmts"])
    assert any("global store" in s["text"] for s in branch["else"][0]["stmts"])
    # every statement of the text is in the description once, with its line in the text
    text = final.ir_text.splitlines()
    for block in (n for n in walk(body) if n["kind"] == "block"):
        for stmt in block["stmts"]:
            assert text[stmt["line"]].strip().startswith(stmt["text"])
    assert cfg_of(final.ir_text)["stmts"] == final.stmt_count
    struct = cfg_of(_pass(search.compile_report(3), "offload").ir_text)["graphs"][0]["body"]
    assert [n["task"] for n in struct] == ["struct_for"]


def test_while_with_break_ends_its_blocks(kernels):
    _, search = kernels
    report = search.compile_report(3)
    lowered = _pass(report, "lower_ast")
    body = cfg_of(lowered.ir_text, lowered.lines)["graphs"][0]["body"]
    loops = [n for n in walk(body) if n["kind"] == "loop"]
    assert [n["loop"] for n in loops] == ["struct", "while"]
    ifs = [n for n in walk(loops[1]["body"]) if n["kind"] == "if"]
    assert len(ifs) == 2  # the loop condition (`if !c: break`) and the user's `if c > n: break`
    for branch in ifs:
        assert branch["then"][-1]["exit"] == "break"
        assert branch["then"][-1]["stmts"][-1]["text"].endswith("break")
        assert branch["else"] == []
    user_if = ifs[1]
    source_line = user_if["src"]
    assert source_line is not None  # the user's line of `if c > n:`
    # the frontend IR's while keeps its condition in the header
    first = cfg_of(report.passes[0].ir_text)["graphs"][0]["body"]
    whiles = [n for n in walk(first) if n.get("loop") == "while"]
    assert len(whiles) == 1 and " : while (cmp_lt @tmp" in whiles[0]["head"]


def test_every_pass_of_a_kernel_parses_whole(kernels):
    """The statement count of every recorded pass equals the description's."""
    for kernel in kernels:
        for record in kernel.compile_report(5).passes:
            assert cfg_of(record.ir_text)["stmts"] == record.stmt_count, record.name


def test_tls_prologue_and_ir_functions():
    text = "\n".join(
        [
            "kernel {",
            "  $0 = offloaded range_for(0, 8) tls prologue {",
            "    <*f32> $1 = thread local ptr(0)",
            "  } body {",
            "    <i32> $2 = loop $0 index 0",
            "    $3 : for in range($2, $2) reversed=false serialize=false {",
            "      $4 : continue",
            "    }",
            "  } tls epilogue {",
            "    $5 : return",
            "  }",
            "}",
            "function f_0(i32) {",
            "  $6 : return",
            "}",
        ]
    )
    cfg = cfg_of(text)
    assert [g["head"] for g in cfg["graphs"]] == ["kernel", "function f_0(i32)"]
    task = cfg["graphs"][0]["body"][0]
    assert [p["label"] for p in task["parts"]] == ["tls prologue", "body", "tls epilogue"]
    loop = task["parts"][1]["body"][1]
    assert loop["loop"] == "range" and loop["body"][0]["exit"] == "continue"
    assert cfg["graphs"][1]["body"][0]["exit"] == "return"
    assert cfg["stmts"] == 7
