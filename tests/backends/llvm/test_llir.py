"""The text IR builder (`llir`): what it writes is what LLVM reads, values and names included."""

from __future__ import annotations

import ctypes
import gc
import math

import llvmlite.binding as llvm
import pytest

from tistudio.backends.llvm import llir as ir
from tistudio.backends.llvm.jit import JitEngine
from tistudio.backends.llvm.lltypes import I1, I8, I32, I64, PTR, VOID

F32, F64, F16 = ir.FLOAT, ir.DOUBLE, ir.HALF


def _parsed(module: ir.Module) -> llvm.ModuleRef:
    parsed = llvm.parse_assembly(str(module))
    parsed.verify()
    return parsed


def _returning(typ: ir.Type, value: float) -> str:
    """LLVM's own printing of `ret <typ> <value>` written by llir."""
    module = ir.Module("constants")
    fn = ir.Function(module, ir.FunctionType(typ, []), "f")
    ir.IRBuilder(fn.append_basic_block("entry")).ret(ir.Constant(typ, value))
    text = str(_parsed(module))
    return text[text.index("ret ") :].split("\n")[0]


@pytest.mark.parametrize(
    ("typ", "value", "printed"),
    [
        (F32, 0.1, "ret float 0x3FB99999A0000000"),  # rounded to single precision first
        (F32, -0.0, "ret float -0.000000e+00"),
        (F32, math.inf, "ret float 0x7FF0000000000000"),
        (F64, 0.1, "ret double 1.000000e-01"),
        (F16, 0.1, "ret half 0xH2E66"),  # rounded to half precision
        (F64, math.nan, "ret double 0x7FF8000000000000"),
    ],
)
def test_float_constants_are_rounded_to_their_type(typ: ir.Type, value: float, printed: str):
    assert _returning(typ, value) == printed


def test_integer_and_null_constants():
    assert _returning(I32, -7) == "ret i32 -7"
    assert _returning(I1, True) == "ret i1 true"
    assert _returning(PTR, None) == "ret ptr null"


def test_names_are_made_unique_as_llvmlite_makes_them():
    module = ir.Module("names")
    fn = ir.Function(module, ir.FunctionType(I32, [I32]), "f")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    x = fn.args[0]
    first, second = b.add(x, x, name="s"), b.add(x, x, name="s")
    unnamed = b.mul(first, second)
    assert (first.name, second.name) == ("s", "s.1")
    assert unnamed.name.startswith(".")
    unnamed.name = "s"  # a rename after the fact: what codegen does for statements
    assert unnamed.name == "s.2"
    b.ret(unnamed)
    for block_name in ("then", "then", "then"):
        fn.append_basic_block(block_name)
    assert [blk.name for blk in fn.blocks[1:]] == ["then", "then.1", "then.2"]
    assert '%"s.2" = mul i32 %"s", %"s.1"' in str(module)


def test_every_builder_method_writes_text_that_llvm_verifies():
    module = ir.Module("all")
    variadic = ir.Function(module, ir.FunctionType(I64, [I64], var_arg=True), "variadic")
    fn = ir.Function(module, ir.FunctionType(VOID, [PTR, I32, F32]), "all")
    fn.attributes.append("nounwind")
    ptr, i, f = fn.args
    ptr.add_attribute("noalias")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    slot = b.alloca(ir.array_type(I32, 4), "slot", align=16)
    for method in ("add", "sub", "mul", "sdiv", "udiv", "srem", "urem", "and_", "or_", "xor"):
        getattr(b, method)(i, i)
    for method in ("shl", "lshr", "ashr"):
        getattr(b, method)(i, ir.Constant(I32, 1))
    for method in ("fadd", "fsub", "fmul", "fdiv", "frem"):
        getattr(b, method)(f, f, flags=("fast",))
    b.add(i, i, flags=("nsw",))
    b.fneg(f)
    b.neg(i)
    b.not_(i)
    cond = b.icmp_signed("<", i, ir.Constant(I32, 3))
    b.icmp_unsigned(">=", i, i)
    b.fcmp_ordered("==", f, f)
    b.fcmp_unordered("!=", f, f)
    picked = b.select(cond, i, ir.Constant(I32, 0))
    wide = b.sext(picked, I64)
    b.zext(i, I64), b.trunc(i, I8), b.fpext(f, F64), b.fptrunc(f, F16)
    b.sitofp(i, F32), b.uitofp(i, F32), b.bitcast(f, I32), b.ptrtoint(ptr, I64)
    cell = b.gep(slot, [wide], inbounds=True, source_etype=I32)
    b.store(i, cell)
    b.load(cell, typ=I32, align=4)
    b.load_atomic(cell, "acquire", 4, typ=I32)
    b.store_atomic(i, cell, "release", 4)
    b.atomic_rmw("add", cell, i, "monotonic")
    pair = b.cmpxchg(cell, i, i, "monotonic", "monotonic")
    assert b.extract_value(pair, 1).type == I1
    b.call(variadic, [wide, wide, ptr])
    b.call(ir.callee(ptr, ir.FunctionType(VOID, [I32])), [i])
    b.asm(ir.FunctionType(VOID, []), "nop", "", [], True)
    loop, done = b.append_basic_block("loop"), b.append_basic_block("done")
    before = b.block
    b.cbranch(cond, loop, done)
    b.position_at_end(loop)
    k = b.phi(I32, "k")
    k.add_incoming(ir.Constant(I32, 0), before)
    k_next = b.add(k, ir.Constant(I32, 1))
    k.add_incoming(k_next, loop)
    b.cbranch(b.icmp_signed("<", k_next, i), loop, done)
    b.position_at_end(done)
    b.ret_void()
    text = str(module)
    assert 'call i64 (i64, ...) @"variadic"(' in text  # a varargs call names its type
    _parsed(module)


def _sum_to_module() -> ir.Module:
    """`sum_to(out, n)`: `*out = 0 + 1 + ... + (n - 1)`, a loop of two phis."""
    module = ir.Module("sum")
    fn = ir.Function(module, ir.FunctionType(VOID, [PTR, I32]), "sum_to")
    out, n = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    entry, loop, done = b.block, b.append_basic_block("loop"), b.append_basic_block("done")
    b.cbranch(b.icmp_signed(">", n, ir.Constant(I32, 0)), loop, done)
    b.position_at_end(loop)
    k, total = b.phi(I32, "k"), b.phi(I64, "total")
    k.add_incoming(ir.Constant(I32, 0), entry)
    total.add_incoming(ir.Constant(I64, 0), entry)
    total_next = b.add(total, b.sext(k, I64))
    k_next = b.add(k, ir.Constant(I32, 1))
    k.add_incoming(k_next, loop)
    total.add_incoming(total_next, loop)
    b.cbranch(b.icmp_signed("<", k_next, n), loop, done)
    b.position_at_end(done)
    result = b.phi(I64, "result")
    result.add_incoming(ir.Constant(I64, 0), entry)
    result.add_incoming(total_next, loop)
    b.store(result, out)
    b.ret_void()
    return module


def test_a_compiled_function_computes():
    """The loop, compiled by the back end's engine, gives n(n-1)/2."""
    compiled = JitEngine().compile(_sum_to_module(), ["sum_to"], opt_level=1)
    sum_to = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32)(compiled.addresses[0])
    value = ctypes.c_int64(-1)
    sum_to(ctypes.addressof(value), 100_000)
    assert value.value == 100_000 * 99_999 // 2


@pytest.mark.parametrize("release", [True, False])
def test_a_released_module_needs_no_cyclic_collection(release: bool):
    """Blocks point at their function and a loop's phis at the instructions that use them:
    `release` breaks those cycles, so that reference counting frees a printed module."""
    gc.collect()
    gc.disable()
    try:
        module = _sum_to_module()
        assert 'phi i32 [0, %"entry"], [%"' in str(module)
        if release:
            module.release()
        del module
        found = gc.collect()
    finally:
        gc.enable()
    assert (found == 0) == release
