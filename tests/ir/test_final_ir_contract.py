"""The final-IR contract is checked at the end of every compile (`ir/final_ir.py`).

A lowering pass that misses a statement is a tistudio bug: the compile must say so, naming the
statement and the pass, instead of letting the back end call the user's kernel "not supported
on the cpu back end". The passes are made to miss by replacing one with a pass that does
nothing, for one compile.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator

import pytest

import tistudio as ti
from tistudio.backends.errors import UnsupportedOnBackend
from tistudio.ir import ALL_STATEMENTS, SNode, finalize_layout, parse_ir
from tistudio.ir import frontend as fe
from tistudio.ir.final_ir import FinalIRError, check_final_ir, removing_pass
from tistudio.ir.types import f32
from tistudio.ir.verifier import IRVerifyError


@pytest.fixture
def cpu() -> Iterator[None]:
    ti.init(arch=ti.cpu, offline_cache=False)
    yield
    ti.reset()


def _vector_kernel():
    v = ti.Vector.field(3, ti.f32, shape=8)

    @ti.kernel
    def k():
        for i in v:
            v[i] = v[i] * 2.0 + ti.Vector([1.0, 2.0, 3.0])

    return k, ()


def _floordiv_kernel():
    a = ti.field(ti.i32, shape=(4, 4))

    @ti.kernel
    def k(d: ti.i32):
        for i, j in a:
            a[i, j] = (i - j) // d

    return k, (3,)


def _skip_pass(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Make pass `name` do nothing (the pipeline calls `module.run`) until the test ends."""
    module = importlib.import_module(f"tistudio.passes.{name}")
    monkeypatch.setattr(module, "run", lambda kernel, ctx: False)


@pytest.mark.parametrize(
    ("skipped", "left", "make"),
    [
        ("scalarize", "MatrixInit", _vector_kernel),
        ("lower_access", "GlobalPtr", _vector_kernel),
        ("offload", "outside any offloaded task", _floordiv_kernel),
        ("demote_operations", "BinaryOp floordiv", _floordiv_kernel),
    ],
)
def test_a_missed_lowering_is_reported_as_a_compiler_bug(
    cpu: None, monkeypatch: pytest.MonkeyPatch, skipped: str, left: str, make
) -> None:
    kernel, args = make()
    _skip_pass(monkeypatch, skipped)
    with pytest.raises(FinalIRError) as caught:
        kernel(*args)
    message = str(caught.value)
    assert left in message
    assert f"pass {skipped!r} should have" in message
    assert "tistudio bug" in message
    assert "not supported" not in message
    assert not isinstance(caught.value, UnsupportedOnBackend)
    assert isinstance(caught.value, IRVerifyError)


def test_the_same_kernel_compiles_when_no_pass_is_skipped(cpu: None) -> None:
    for make in (_vector_kernel, _floordiv_kernel):
        kernel, args = make()
        kernel(*args)


def test_every_removing_pass_runs_in_the_pipeline(cpu: None) -> None:
    """Each class's `removed_by` (and `lower_ast` for the frontend IR) names a pass that
    `compile_to_final_ir` runs, so the check at its end holds that pass to its word."""
    kernel, args = _vector_kernel()
    kernel(*args)
    ran = {record.name for record in kernel.compile_report(*args).passes}
    frontend = [c for c in vars(fe).values() if isinstance(c, type) and c.__module__ == fe.__name__]
    claims = {cls.__name__: removing_pass(cls) for cls in (*ALL_STATEMENTS, *frontend)}
    claimed = {name: p for name, p in claims.items() if p}
    assert {"GlobalPtr", "StructFor", "MatrixInit", "FrontendAssign"} <= set(claimed)
    assert {name: p for name, p in claimed.items() if p not in ran} == {}


def _place() -> dict[int, SNode]:
    root = SNode(0, "root")
    place = root.dense((0,), (8,), 1).place(f32, 2)
    finalize_layout(root)
    return {0: root, 1: place.parent, 2: place}


def test_final_ir_passes_the_check() -> None:
    kernel = parse_ir(
        """
        kernel {
          $0 = offloaded range_for(0, 8) body {
            <i32> $1 = loop $0 index 0
            <i32> $2 = const 2
            <i32> $3 = div $1 $2
          }
        }
        """
    )
    check_final_ir(kernel)


@pytest.mark.parametrize(
    ("body", "left"),
    [
        ("<*f32> $2 = global ptr [S2place<f32>], index [$1]", "GlobalPtr"),
        ("<i32> $2 = floordiv $1 $1", "BinaryOp floordiv"),
        ("$2 : return $1", "Return is in a range_for task"),
    ],
)
def test_what_the_final_ir_may_not_hold(body: str, left: str) -> None:
    kernel = parse_ir(
        f"""
        kernel {{
          $0 = offloaded range_for(0, 8) body {{
            <i32> $1 = loop $0 index 0
            {body}
          }}
        }}
        """,
        snodes=_place(),
    )
    with pytest.raises(FinalIRError, match=left):
        check_final_ir(kernel)
