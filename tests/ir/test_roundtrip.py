"""Every statement kind prints and parses back to the same text (STYLE.md section 4)."""

from __future__ import annotations

import pytest

from tistudio.ir import ALL_STATEMENTS, ParseError, parse_ir, print_ir, verify

SAMPLES = {
    "MatrixInit": "<[Tensor (2) i32]> $1 = [$0, $0]",
    "GetElement": None,
    "MatrixPtr": None,
    "Const": "<i32> $1 = const 7",
    "ArgLoad": "<f32> $1 = argload[0]",
    "UnaryOp": "<f32> $1 = sin $0",
    "BinaryOp": "<i32> $1 = add $0 $0",
    "TernaryOp": "<i32> $1 = select($0, $0, $0)",
    "LoopIndex": None,  # inside loops below
    "Rand": "<u32> $1 = rand()",
    "Alloca": "<*i32> $1 = alloca",
    "LocalLoad": None,
    "LocalStore": None,
    "GlobalPtr": "<*f32> $1 = global ptr [S2place<f32>], index [$0, $0]",
    "ExternalPtr": "<*f32> $1 = external_ptr arg 1, [$0]",
    "ExternalTensorShape": "<i32> $1 = external_tensor_shape_along_axis 0, arg 1",
    "GlobalLoad": None,
    "GlobalStore": None,
    "AtomicOp": None,
    "AtomicCAS": "<i32> $1 = atomic cas($0, $0, $0)",
    "GlobalTemporary": "<*i32> $1 = global tmp var (offset = 8 B)",
    "ThreadLocalPtr": "<*f32> $1 = thread local ptr (offset = 0 B)",
    "ThreadLocalArrayPtr": "<*f32> $1 = thread local array ptr (offset = 8 B) [$0]",
    "GetRoot": "<*gen> $1 = get root [tree 0]",
    "SNodeLookup": None,
    "SNodeOp": "<i32> $1 = is_active [S3pointer], index [$0, $0]",
    "SNodeCellOp": "$1 : activate [S3bitmasked]::cell($0, $0)",
    "PoolCell": "<*gen> $1 = [S3pointer]::pool($0)",
    "GetAddr": "<u64> $1 = get addr $0",
    "GetCh": None,
    "RangeFor": None,
    "StructFor": None,
    "If": None,
    "While": None,
    "Break": None,
    "Continue": None,
    "Return": "$1 : return $0, $0",
    "FuncCall": "<i32> $1 = call sum_0($0, $0)",
    "Offloaded": None,
    "Print": '$1 : print "x = {} {{}} {:.3f}\\n" [$0, $0]',
    "Assert": '$1 : assert $0, "x[%d] is \\"out\\"", args [$0, $0]',
    "AdStackAlloca": "<f32> $1 = stack alloc (max_size=16)",
    "AdStackPush": "$1 : stack push $0, val = $0",
    "AdStackPop": "$1 : stack pop $0",
    "AdStackLoadTop": "<i32> $1 = stack load top $0",
    "AdStackLoadTopAdj": "<i32> $1 = stack load top adj $0",
    "AdStackCount": "<i32> $1 = stack count $0",
    "AdStackAccAdjoint": "$1 : stack acc adj $0, val = $0",
    "SharedArray": "<*f32> $1 = shared array [64]",
    "SharedLoad": "<f32> $1 = shared load $0[$0]",
    "SharedStore": "$1 : shared store $0[$0] <- $0",
    "SharedAtomic": "<i32> $1 = shared atomic add($0[$0], $0)",
    "BlockBarrier": "$1 : block barrier",
    "ThreadIdx": '<i32> $1 = thread index "local"',
}

COMPOSITE = """
kernel {
  <i32> $0 = const 0
  <i32> $1 = const 16
  <*i32> $2 = alloca
  $3 : local store [$2 <- $0]
  <i32> $4 = local load [$2]
  $5 : for in range($0, $1) reversed=false serialize=true {
    <i32> $6 = loop $5 index 0
    <u1> $7 = cmp_lt $6 $4
    $8 : if $7 {
      $9 : break
    } else {
      $10 : continue
    }
  }
  $11 : while true {
    $12 : break
  }
  $13 : struct for in S1dense {
    <i32> $14 = loop $13 index 1
    <*gen> $15 = get root [tree 0]
    <*gen> $16 = [S0root]::lookup($15, $0)
    <*gen> $17 = get child [S1dense] $16
    <*gen> $18 = [S1dense]::lookup($17, $14)
    <*f32> $19 = get child [S2place<f32>] $18
    <f32> $20 = global load $19
    $21 : global store [$19 <- $20]
    <f32> $22 = atomic add($19, $20)
    <f32> $23 = cast_value<f32> $14
  }
  <[Tensor (2, 2) i32]> $24 = [$0, $1, $0, $1]
  <i32> $25 = get element $24[3]
  <*[Tensor (2, 2) i32]> $26 = alloca
  <*i32> $27 = shift ptr [$26 + $0]
  $28 = offloaded range_for(0, tmp(offset=8B)) tls_size=4 tls prologue {
    <*f32> $29 = thread local ptr (offset = 0 B)
  } body {
    <i32> $30 = loop $28 index 0
  } tls epilogue {
    <*f32> $31 = thread local ptr (offset = 0 B)
  }
  $32 = offloaded struct_for(S1dense) body {
  }
  $33 = offloaded serial body {
  }
}
"""


def test_composite_round_trip() -> None:
    text = print_ir(parse_ir(COMPOSITE))
    assert print_ir(parse_ir(text)) == text
    assert text == "\n".join(line for line in COMPOSITE.strip("\n").splitlines())


@pytest.mark.parametrize("cls", ALL_STATEMENTS, ids=lambda c: c.__name__)
def test_every_statement_round_trips(cls: type) -> None:
    line = SAMPLES[cls.__name__]
    if line is None:
        assert cls.__name__ + " " in _composite_classes()
        return
    text = f"kernel {{\n  <i32> $0 = const 1\n  {line}\n}}"
    kernel = parse_ir(text)
    assert type(kernel.body.stmts[1]) is cls
    assert print_ir(kernel) == text


def _composite_classes() -> str:
    from tistudio.ir import walk

    return " ".join(type(s).__name__ for s in walk(parse_ir(COMPOSITE).body)) + " "


def test_parse_rejects_use_before_definition() -> None:
    with pytest.raises(ParseError, match="before it is defined"):
        parse_ir("kernel {\n  <i32> $0 = add $1 $1\n}")


def test_verifier_rejects_mixed_operand_types() -> None:
    kernel = parse_ir(
        "kernel {\n  <i32> $0 = const 1\n  <f32> $1 = const 1.0\n  <i32> $2 = add $0 $1\n}"
    )
    with pytest.raises(AssertionError, match="operand types differ"):
        verify(kernel)


def test_verifier_rejects_break_outside_loop() -> None:
    kernel = parse_ir("kernel {\n  $0 : break\n}")
    with pytest.raises(AssertionError, match="break outside a loop"):
        verify(kernel, typed=False)


def test_verifier_rejects_operand_from_a_sibling_block() -> None:
    kernel = parse_ir("""kernel {
  <u1> $0 = const true
  $1 : if $0 {
    <i32> $2 = const 1
  }
}""")
    stmt = kernel.body.stmts[1].true_block.stmts[0]
    from tistudio.ir import BinaryOp, BinaryOpType
    from tistudio.ir.types import i32

    kernel.body.append(BinaryOp(BinaryOpType.add, stmt, stmt, ret_type=i32))
    with pytest.raises(AssertionError, match="not defined before use"):
        verify(kernel)


def test_operands_specialised_per_class_read_every_declared_field() -> None:
    from tistudio.ir import walk
    from tistudio.ir.stmt import Stmt

    stmts = list(walk(parse_ir(COMPOSITE).body))
    for line in filter(None, SAMPLES.values()):
        stmts.extend(walk(parse_ir(f"kernel {{\n  <i32> $0 = const 1\n  {line}\n}}").body))
    seen = {type(s) for s in stmts}
    assert seen == set(ALL_STATEMENTS)  # every statement kind is in the samples
    for stmt in stmts:
        # the generic loop over `operand_fields`, which the specialised readers replace
        assert stmt.operands() == Stmt.operands(stmt), type(stmt).__name__
    assert any(len(s.operands()) >= 3 for s in stmts)  # a list field spread (print, assert)
