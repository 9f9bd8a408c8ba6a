"""Lineage (issue #30): `kernel.compile_report(*args).lineage(lineno)` follows the statements of
one source line through every pass, by ids that survive the printer's renumbering."""

from __future__ import annotations

import inspect

import pytest

import tistudio as ti
from tistudio.ir.lineage import changes_between, origins, statements_of
from tistudio.ir.parser import parse_ir
from tistudio.passes import die
from tistudio.passes.context import PassContext
from tistudio.passes.pipeline import PassRunner


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init(arch=ti.cpu)


def line_of(kernel, text: str) -> int:
    """The file line of the kernel's source line that contains `text`."""
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


def test_a_line_is_created_then_simplified_pass_by_pass() -> None:
    scale = make_kernel()
    report = scale.compile_report(1.0)
    line = line_of(scale, "x = a[i] * 1.0")
    story = report.lineage(line)
    assert story.line == line and story.source.strip() == "x = a[i] * 1.0"
    assert [p.name for p in story] == [r.name for r in report.passes]
    (initial,) = story["initial IR"].created  # the frontend's one expression statement
    assert "mul" in initial.text
    lowered = story["lower_ast"]
    assert [c.stmt_id for c in lowered.deleted] == [initial.stmt_id]
    assert any("global load" in c.text for c in lowered.created)
    assert any(c.text.endswith("= const 1.0") for c in lowered.created)
    # x * 1.0 is x: alg_simp deletes the multiplication, and die the constant left unused
    (gone,) = story["alg_simp (simplify I)"].deleted
    assert "= mul " in gone.text
    assert any(c.text.endswith("= const 1.0") for c in story["die (simplify I)"].deleted)
    assert all("mul" not in t for t in story[-1].after)  # nothing of it reaches the final IR
    assert any("global load" in t for t in story[-1].after)


def test_rewritten_means_changed_in_place_not_renumbered() -> None:
    scale = make_kernel()
    report = scale.compile_report(1.0)
    story = report.lineage(line_of(scale, "b[i] = x + k * 2.0"))
    # store forwarding reads k and x straight from their values: the add keeps its identity
    rewritten = story["store_forwarding (simplify I)"].rewritten
    add = next(c for c in rewritten if "= add " in c.text)
    assert add.before and add.before != add.text
    assert "local load" not in repr(rewritten)
    # die deletes statements of other lines before this one, so every statement here prints
    # with a smaller number afterwards; none of them counts as rewritten for that
    die = story["die (simplify I)"]
    assert not die.changed and die.summary() == "unchanged"
    # (the texts did change: the same statements, printed with other numbers)
    assert set(die.after).isdisjoint(story[story.passes.index(die) - 1].after)


def test_repr_reads_as_a_table_of_the_passes_that_touched_the_line() -> None:
    scale = make_kernel()
    text = repr(scale.compile_report(1.0).lineage(line_of(scale, "x = a[i] * 1.0")))
    lines = text.splitlines()
    assert lines[0].endswith(": x = a[i] * 1.0") and lines[0].startswith("lineage of line ")
    assert "alg_simp (simplify I): 1 deleted" in lines
    assert any(line.startswith("  - #") and "= mul " in line for line in lines)
    assert any(line.startswith("  + #") and "global load" in line for line in lines)
    assert lines[-1].endswith("other passes left this line's statements as they were)")
    assert "type_check" not in text  # a pass that changed nothing here is not listed


def test_a_line_with_no_statements_has_an_empty_lineage() -> None:
    scale = make_kernel()
    story = scale.compile_report(1.0).lineage(1)
    assert story.changed() == [] and all(p.after == () for p in story)


def test_origins_name_the_pass_that_created_each_statement() -> None:
    scale = make_kernel()
    records = scale.compile_report(1.0).passes
    names = [r.name for r in records]
    found = origins(records)
    final = statements_of(records[-1])
    store = next(i for i, t in final.texts.items() if "global store" in t)
    assert names[found[store].created] == "lower_ast"
    assert found[store].line == line_of(scale, "b[i] = x + k * 2.0")
    assert found[store].deleted is None and "lower_access" in [
        names[i] for i in found[store].rewritten
    ]
    assert all(o.deleted is not None for i, o in found.items() if i not in final.texts)


IR = """
kernel {
  <i32> $0 = const 1
  <i32> $1 = add $0 $0
  <*i32> $2 = global tmp var (offset = 0 B)
  $3 : global store [$2 <- $0]
}
"""


def test_ids_survive_renumbering_and_are_handed_out_only_while_recording() -> None:
    quiet = PassRunner(parse_ir(IR), PassContext(), record=False)
    quiet.run(die)
    assert quiet.records == [] and quiet.ids.ids == {}  # plain compiles pay nothing
    runner = PassRunner(parse_ir(IR), PassContext(), record=True)
    runner.snapshot("initial IR", "", 0.0)
    runner.run(die)  # deletes the unused add: the two statements after it print one lower
    first, second = runner.records
    assert first.stmt_ids == (None, 0, 1, 2, 3, None)
    assert second.stmt_ids == (None, 0, 2, 3, None)
    assert "$1 = global tmp var" in second.ir_text
    assert changes_between(statements_of(first), statements_of(second)) == {
        "created": [],
        "rewritten": [],
        "deleted": [1],
    }


def test_print_numbers_follow_the_order_statements_first_print_in() -> None:
    """`statements_of` names `$n` the n-th statement printed: true of nested blocks too."""
    x = ti.field(ti.f32, shape=8)

    @ti.kernel
    def nested(n: ti.i32):
        for i in x:
            c = 0
            while c < n:
                if x[i] > c:
                    x[i] -= 1.0
                else:
                    break
                c += 1

    for record in nested.compile_report(3).passes:
        found = statements_of(record)
        assert len(found.numbers) == len(found.texts) > 0
        for number, sid in found.numbers.items():
            head = found.texts[sid]
            assert f"${number} = " in head or f"${number} : " in head, (record.name, head)
