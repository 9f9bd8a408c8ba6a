"""How values move across the four lanes of a vec4 step (`passes/lane_forms.py`): the
rules that decide which loads and stores may become vectors, each checked on a small task."""

from __future__ import annotations

import textwrap

from tests.backends.webgpu.test_emitter import tree
from tistudio.ir.parser import parse_ir
from tistudio.ir.stmt import walk
from tistudio.passes.lane_forms import Form, LaneForms


def forms(lines: str, begin: int = 0) -> dict[int, Form | None]:
    """The form of each `$N` defined in `lines`, in a range_for(begin, begin + 1024) task whose
    loop index is `$1`."""
    body = "<i32> $1 = loop $0 index 0\n" + textwrap.dedent(lines).strip("\n")
    text = f"kernel {{\n$0 = offloaded range_for({begin}, {begin + 1024}) body {{\n{body}\n}}\n}}"
    task = parse_ir(text, tree("f32")).body.stmts[0]
    analysis = LaneForms(task)
    numbers = [int(line.split("$")[1].split()[0]) for line in body.splitlines()]
    return dict(zip(numbers, (analysis.of(stmt) for stmt in walk(task.body))))


def lane_step(form: Form | None) -> int | None:
    return None if form is None else form.c


def test_the_loop_index_moves_by_one_and_starts_each_step_at_a_multiple_of_four():
    assert forms("")[1] == Form(1, 4, 0, 0, True)
    assert forms("", begin=5)[1] == Form(1, 4, 1, 0, True)


def test_a_struct_fors_row_and_column_of_a_power_of_two_width():
    got = forms("""
        <i32> $2 = const 13
        <i32> $3 = bit_sar $1 $2
        <i32> $4 = const 8191
        <i32> $5 = bit_and $1 $4
        <i32> $6 = const 1
        <i32> $7 = sub $5 $6
        <i32> $8 = const 4
        <i32> $9 = mul $7 $8
    """)
    assert lane_step(got[3]) == 0  # the row: the same for the four lanes
    assert got[5] == Form(1, 4, 0, None, True)  # the column moves with the lane
    assert got[9] == Form(4, 16, 12, None, False)  # 4 * (j - 1): 12 bytes into a vec4


def test_division_by_a_multiple_of_four_keeps_the_lanes_in_one_row():
    got = forms("""
        <i32> $2 = const 8188
        <i32> $3 = mod $1 $2
        <i32> $4 = div $1 $2
        <i32> $5 = const 8190
        <i32> $6 = mod $1 $5
        <i32> $7 = div $1 $5
    """)
    assert lane_step(got[3]) == 1 and lane_step(got[4]) == 0
    assert got[6] is None and got[7] is None  # a row of 8190 may end between two lanes


def test_carries_negative_values_and_unknown_products_have_no_form():
    got = forms("""
        <i32> $2 = const 1
        <i32> $3 = bit_sar $1 $2
        <i32> $4 = sub $1 $2
        <i32> $5 = const 8
        <i32> $6 = mod $4 $5
        <i32> $7 = const 7
        <i32> $8 = bit_and $4 $7
        <i32> $9 = sub $2 $1
        <i32> $10 = bit_and $9 $7
        <i32> $11 = mul $1 $1
        <i32> $12 = const 4
        <i32> $13 = sub $1 $12
        <i32> $14 = bit_and $13 $7
    """)
    assert got[3] is None  # k >> 1: lanes 1 and 2 differ
    assert got[6] is None  # (k - 1) % 8 rounds toward zero at k = 0: not a floor remainder
    assert got[8] is None  # (k - 1) & 7: the step at k = 8 has lanes 7, 0, 1, 2
    assert got[14] == Form(1, 4, 0, None, True)  # (k - 4) & 7: a mask, whatever the sign
    assert lane_step(got[9]) == -1 and got[10] is None  # lanes moving down
    assert got[11] is None
