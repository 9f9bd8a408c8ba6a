"""determine_ad_stack_size: stack sizes from constant trip counts, the fallback size where a
trip count is known only at run time, and there, in debug mode, a check before every push."""

from __future__ import annotations

from tests.passes.golden import check_pass
from tistudio.ir.config import CompileConfig
from tistudio.passes import determine_ad_stack_size
from tistudio.passes.determine_ad_stack_size import _OVERFLOW

RUN_TIME_LOOP = """
    <i32> $0 = const 0
    <i32> $1 = argload[0]
    <f32> $2 = stack alloc (max_size={size})
    <f32> $3 = const 1.0
    $4 : for in range($0, $1) reversed=false serialize=true {{
      $5 : stack push $2, val = $3
    }}
"""


def test_debug_mode_checks_every_push_onto_a_stack_of_fallback_size() -> None:
    message = _OVERFLOW.format(size=8)
    check_pass(
        determine_ad_stack_size,
        config=CompileConfig(debug=True, ad_stack_size=8),
        before=RUN_TIME_LOOP.format(size=0),
        after=f"""
            <i32> $0 = const 0
            <i32> $1 = argload[0]
            <f32> $2 = stack alloc (max_size=8)
            <f32> $3 = const 1.0
            $4 : for in range($0, $1) reversed=false serialize=true {{
              <i32> $5 = stack count $2
              <i32> $6 = const 8
              <u1> $7 = cmp_lt $5 $6
              $8 : assert $7, "{message}", args []
              $9 : stack push $2, val = $3
            }}
        """,
    )
    assert "ti.init(ad_stack_size=N)" in message and "8 values per thread" in message


def test_release_mode_sizes_the_stack_and_adds_no_check() -> None:
    check_pass(
        determine_ad_stack_size,
        config=CompileConfig(ad_stack_size=8),
        before=RUN_TIME_LOOP.format(size=0),
        after=RUN_TIME_LOOP.format(size=8),
    )


def test_a_stack_sized_from_constant_trip_counts_needs_no_check() -> None:
    loop = RUN_TIME_LOOP.replace("argload[0]", "const 5")
    check_pass(
        determine_ad_stack_size,
        config=CompileConfig(debug=True),
        before=loop.format(size=0),
        after=loop.format(size=5),
    )
