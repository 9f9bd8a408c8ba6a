"""LLVM IR as text, built through a small `IRBuilder`: what the CPU back end emits for LLVM.

The back end used llvmlite's `ir` package, which makes a Python object per type, value and
instruction, registers each in a name scope, checks operand types and then prints the whole
module through `str()`: about 4.5 ms of the ~25 ms that a 20-line kernel's first call takes,
half in building and half in printing. This module keeps the part of that interface the back end
uses (`IRBuilder` with llvmlite's method names and arguments, `Function`, `Module`, constants)
and little else: an instruction is a list of strings and the values it names, joined when the
module is printed; operand types are not checked, because LLVM's parser checks them when the
module is compiled and names the line. Names follow llvmlite's rules (an explicit name that is
taken gets `.1`, `.2`, ...; an unnamed value is `%".N"`), so the studio shows the same text.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence

# --- types -----------------------------------------------------------------------------------


class Type:
    """An LLVM type; equal types have equal text."""

    __slots__ = ("text", "intrinsic_name")

    def __init__(self, text: str, intrinsic_name: str = "") -> None:
        self.text = text
        self.intrinsic_name = intrinsic_name  # the type's suffix in intrinsic names: `f32`

    def __str__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Type) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def constant_text(self, value: object) -> str:
        return "null" if value is None else str(value)


class IntType(Type):
    __slots__ = ("width",)

    def __init__(self, width: int) -> None:
        super().__init__(f"i{width}", f"i{width}")
        self.width = width

    def constant_text(self, value: object) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(int(value))  # type: ignore[call-overload]


class _FloatType(Type):
    __slots__ = ("_pack",)

    def __init__(self, text: str, intrinsic_name: str, pack: str) -> None:
        super().__init__(text, intrinsic_name)
        self._pack = pack

    def constant_text(self, value: object) -> str:
        """The value rounded to this type, written as the hex of its double (LLVM's form)."""
        rounded = struct.unpack(self._pack, struct.pack(self._pack, float(value)))[0]  # type: ignore[arg-type]
        return f"0x{struct.unpack('<Q', struct.pack('<d', rounded))[0]:016x}"


HALF = _FloatType("half", "f16", "<e")
FLOAT = _FloatType("float", "f32", "<f")
DOUBLE = _FloatType("double", "f64", "<d")
PTR = Type("ptr", "p0")  # opaque: LLVM 22 has no other pointers
VOID = Type("void")


def array_type(element: Type, count: int) -> Type:
    return Type(f"[{count} x {element}]")


class _VectorType(Type):
    __slots__ = ("element",)

    def __init__(self, element: Type, count: int) -> None:
        super().__init__(f"<{count} x {element}>", f"v{count}{element.intrinsic_name}")
        self.element = element


def vector_type(element: Type, count: int) -> Type:
    return _VectorType(element, count)


class FunctionType(Type):
    __slots__ = ("return_type", "args", "var_arg")

    def __init__(self, return_type: Type, args: Sequence[Type], var_arg: bool = False) -> None:
        params = ", ".join([str(a) for a in args] + (["..."] if var_arg else []))
        super().__init__(f"{return_type} ({params})")
        self.return_type, self.args, self.var_arg = return_type, tuple(args), var_arg


class _PairType(Type):
    """`{value, i1}`: what `cmpxchg` returns."""

    __slots__ = ("members",)

    def __init__(self, *members: Type) -> None:
        super().__init__("{" + ", ".join(str(m) for m in members) + "}")
        self.members = members


I1, _I8 = IntType(1), IntType(8)

# --- values ----------------------------------------------------------------------------------


class Value:
    """Something an instruction can use: `ref` is how an operand names it."""

    __slots__ = ("type",)

    def ref(self) -> str:
        raise NotImplementedError

    def typed(self) -> str:
        return f"{self.type} {self.ref()}"


class Constant(Value):
    """A constant of `typ`: a number, or for array types a list of `Value`s."""

    __slots__ = ("text",)

    def __init__(self, typ: Type, value: object) -> None:
        self.type = typ
        if isinstance(value, (list, tuple)):
            self.text = "[" + ", ".join(v.typed() for v in value) + "]"
        else:
            self.text = typ.constant_text(value)

    def ref(self) -> str:
        return self.text


class _Scope:
    """Names in one function, made unique as llvmlite makes them: `x`, `x.1`, `x.2`, ..."""

    __slots__ = ("used", "suffixes", "unnamed")

    def __init__(self) -> None:
        self.used: set[str] = set()
        self.suffixes: dict[str, int] = {}
        self.unnamed = 0

    def register(self, name: str) -> str:
        if not name:
            self.unnamed += 1
            name = f".{self.unnamed}"
        base = name
        while name in self.used:
            n = self.suffixes.get(base, 0) + 1
            self.suffixes[base] = n
            name = f"{base}.{n}"
        self.used.add(name)
        return name


class NamedValue(Value):
    """A value with a name in its function: an argument, a block or an instruction."""

    __slots__ = ("_name", "_scope")

    def __init__(self, scope: _Scope, typ: Type, name: str) -> None:
        self.type, self._scope = typ, scope
        self._name = scope.register(name)

    @property
    def name(self) -> str:
        return self._name

    @name.setter
    def name(self, name: str) -> None:
        self._name = self._scope.register(name)

    def ref(self) -> str:
        return f'%"{self._name}"'


class Argument(NamedValue):
    __slots__ = ("attributes",)

    def __init__(self, scope: _Scope, typ: Type) -> None:
        super().__init__(scope, typ, "")
        self.attributes: list[str] = []

    def add_attribute(self, attribute: str) -> None:
        self.attributes.append(attribute)

    def declared(self) -> str:
        return " ".join([str(self.type), *self.attributes, self.ref()])


class Instruction(NamedValue):
    """One instruction: its text after `%name = `, as strings and the values it uses."""

    __slots__ = ("parts",)

    def __init__(self, scope: _Scope | None, typ: Type, name: str, parts: list) -> None:
        if scope is None:  # makes no value: needs no name
            self.type, self._scope, self._name = typ, None, ""
        else:
            super().__init__(scope, typ, name)
        self.parts = parts

    def text(self) -> str:
        body = "".join([p if p.__class__ is str else p.ref() for p in self.parts])
        return f'  %"{self._name}" = {body}' if self._scope is not None else f"  {body}"


class Phi(Instruction):
    __slots__ = ("incoming",)

    def __init__(self, scope: _Scope, typ: Type, name: str) -> None:
        super().__init__(scope, typ, name, [])  # printed from `incoming`
        self.incoming: list[tuple[Value, Block]] = []

    def add_incoming(self, value: Value, block: Block) -> None:
        self.incoming.append((value, block))

    def text(self) -> str:
        pairs = ", ".join(f"[{v.ref()}, {b.ref()}]" for v, b in self.incoming)
        return f'  %"{self._name}" = phi {self.type} {pairs}'


class Block(NamedValue):
    __slots__ = ("function", "instructions")

    def __init__(self, function: Function, name: str) -> None:
        super().__init__(function.scope, _LABEL, name)
        self.function = function
        self.instructions: list[Instruction] = []

    def text(self) -> str:
        return "\n".join([f"{self._name}:", *[i.text() for i in self.instructions]])


_LABEL = Type("label")


class Function(Value):
    """A function of `module`: a declaration until it gets a block."""

    __slots__ = ("module", "name", "function_type", "scope", "args", "attributes", "blocks")
    __slots__ += ("linkage",)

    def __init__(self, module: Module, fnty: FunctionType, name: str) -> None:
        self.type, self.module, self.name, self.function_type = PTR, module, name, fnty
        self.linkage = ""  # "internal": a definition no other object sees
        self.scope = _Scope()
        self.args = tuple(Argument(self.scope, t) for t in fnty.args)
        self.attributes: list[str] = []
        self.blocks: list[Block] = []
        module.add_global(self)

    def ref(self) -> str:
        return f'@"{self.name}"'

    def append_basic_block(self, name: str = "") -> Block:
        block = Block(self, name)
        self.blocks.append(block)
        return block

    def __str__(self) -> str:
        fnty = self.function_type
        params = ", ".join([a.declared() for a in self.args] + (["..."] if fnty.var_arg else []))
        attributes = "".join(f" {a}" for a in self.attributes)
        head = f'{fnty.return_type} @"{self.name}"({params}){attributes}'
        if not self.blocks:
            return f"declare {head}\n"
        body = "\n".join(b.text() for b in self.blocks)
        linkage = f"{self.linkage} " if self.linkage else ""
        return f"define {linkage}{head}\n{{\n{body}\n}}\n"


class GlobalVariable(Value):
    __slots__ = ("name", "value_type", "linkage", "section", "initializer")

    def __init__(self, module: Module, typ: Type, name: str) -> None:
        self.type, self.value_type, self.name = PTR, typ, name
        self.linkage, self.section = "", ""
        self.initializer: Constant | None = None
        module.add_global(self)

    def ref(self) -> str:
        return f'@"{self.name}"'

    def __str__(self) -> str:
        linkage = f"{self.linkage} " if self.linkage else ""
        init = f" {self.initializer.ref()}" if self.initializer is not None else ""
        section = f', section "{self.section}"' if self.section else ""
        return f"{self.ref()} = {linkage}global {self.value_type}{init}{section}\n"


class Module:
    """Functions and globals, printed in the order they were made."""

    def __init__(self, name: str = "") -> None:
        self.name = name
        self.triple = ""
        self.data_layout = ""
        self.globals: dict[str, Function | GlobalVariable] = {}

    def add_global(self, value: Function | GlobalVariable) -> None:
        if value.name in self.globals:
            raise ValueError(f"the module already defines @{value.name}")
        self.globals[value.name] = value

    def release(self) -> None:
        """Break the module's reference cycles (a block and its function, a loop's phi and the
        instructions it joins), so that reference counting frees it at once instead of the
        cyclic collector, whose next pass would have to look at every one of its objects."""
        for value in self.globals.values():
            for block in value.blocks if isinstance(value, Function) else ():
                for instr in block.instructions:
                    instr.parts = []
                    if isinstance(instr, Phi):
                        instr.incoming = []
                block.instructions = []
            if isinstance(value, Function):
                value.blocks = []
        self.globals = {}

    def __str__(self) -> str:
        head = [f'; ModuleID = "{self.name}"']
        if self.triple:
            head.append(f'target triple = "{self.triple}"')
        if self.data_layout:
            head.append(f'target datalayout = "{self.data_layout}"')
        return "\n".join(head) + "\n\n" + "\n".join(str(g) for g in self.globals.values())


# --- the builder -----------------------------------------------------------------------------

_CMP = {">": "gt", "<": "lt", "==": "eq", "!=": "ne", ">=": "ge", "<=": "le"}


def _flags(flags: Iterable[str]) -> str:
    return "".join(f" {f}" for f in flags)


def _operand(parts: list, value: Value) -> None:
    """Append `value` as a typed operand (`i32 %"x"`) to an instruction's parts."""
    parts.append(f"{value.type} ")
    parts.append(value.text if value.__class__ is Constant else value)  # type: ignore[attr-defined]


def _operands(head: str, values: Iterable[Value]) -> list:
    """An instruction's parts: `head`, then `values` as typed operands separated by commas."""
    parts: list = [head]
    for k, value in enumerate(values):
        if k:
            parts.append(", ")
        _operand(parts, value)
    return parts


def _binary_op(op: str):  # an IRBuilder method
    def method(
        self: IRBuilder, lhs: Value, rhs: Value, name: str = "", flags: Sequence[str] = ()
    ) -> Value:
        return self._binary(op, lhs, rhs, name, flags)

    method.__name__ = method.__qualname__ = op
    return method


def _cast_op(op: str):  # an IRBuilder method
    def method(self: IRBuilder, value: Value, typ: Type, name: str = "") -> Value:
        return self._cast(op, value, typ, name)

    method.__name__ = method.__qualname__ = op
    return method


class IRBuilder:
    """Appends instructions at the end of one block at a time (llvmlite's method names)."""

    def __init__(self, block: Block) -> None:
        self.block, self.scope = block, block.function.scope

    @property
    def module(self) -> Module:
        return self.block.function.module

    def position_at_end(self, block: Block) -> None:
        self.block, self.scope = block, block.function.scope

    def append_basic_block(self, name: str = "") -> Block:
        return self.block.function.append_basic_block(name)

    def _value(self, typ: Type, name: str, parts: list) -> Instruction:
        instr = Instruction(self.scope, typ, name, parts)
        self.block.instructions.append(instr)
        return instr

    def _effect(self, parts: list) -> Instruction:
        instr = Instruction(None, VOID, "", parts)
        self.block.instructions.append(instr)
        return instr

    def _binary(self, op: str, lhs: Value, rhs: Value, name: str, flags: Iterable[str]) -> Value:
        parts: list = [f"{op}{_flags(flags)} "]
        _operand(parts, lhs)
        parts.append(", ")
        parts.append(rhs.text if rhs.__class__ is Constant else rhs)  # type: ignore[attr-defined]
        return self._value(lhs.type, name, parts)

    # arithmetic: `flags` are `nsw`/`nuw` on integers, fast-math flags on floats
    add, sub, mul = _binary_op("add"), _binary_op("sub"), _binary_op("mul")
    sdiv, udiv = _binary_op("sdiv"), _binary_op("udiv")
    srem, urem = _binary_op("srem"), _binary_op("urem")
    fadd, fsub, fmul = _binary_op("fadd"), _binary_op("fsub"), _binary_op("fmul")
    fdiv, frem = _binary_op("fdiv"), _binary_op("frem")
    and_, or_, xor = _binary_op("and"), _binary_op("or"), _binary_op("xor")
    shl, lshr, ashr = _binary_op("shl"), _binary_op("lshr"), _binary_op("ashr")

    def neg(self, value: Value, name: str = "") -> Value:
        return self.sub(Constant(value.type, 0), value, name)

    def not_(self, value: Value, name: str = "") -> Value:
        return self.xor(value, Constant(value.type, -1), name)

    def fneg(self, value: Value, name: str = "", flags: Sequence[str] = ()) -> Value:
        return self._value(value.type, name, _operands(f"fneg{_flags(flags)} ", (value,)))

    # comparisons and selection
    def icmp_signed(self, op: str, lhs: Value, rhs: Value, name: str = "") -> Value:
        return self._compare(
            "icmp", ("s" if op not in ("==", "!=") else "") + _CMP[op], lhs, rhs, name
        )

    def icmp_unsigned(self, op: str, lhs: Value, rhs: Value, name: str = "") -> Value:
        return self._compare(
            "icmp", ("u" if op not in ("==", "!=") else "") + _CMP[op], lhs, rhs, name
        )

    def fcmp_ordered(self, op: str, lhs: Value, rhs: Value, name: str = "") -> Value:
        return self._compare("fcmp", "o" + _CMP[op], lhs, rhs, name)

    def fcmp_unordered(self, op: str, lhs: Value, rhs: Value, name: str = "") -> Value:
        return self._compare("fcmp", "u" + _CMP[op], lhs, rhs, name)

    def _compare(self, instr: str, cond: str, lhs: Value, rhs: Value, name: str) -> Value:
        parts: list = [f"{instr} {cond} "]
        _operand(parts, lhs)
        parts.append(", ")
        parts.append(rhs.text if rhs.__class__ is Constant else rhs)  # type: ignore[attr-defined]
        return self._value(I1, name, parts)

    def select(self, cond: Value, a: Value, b: Value, name: str = "") -> Value:
        return self._value(a.type, name, _operands("select ", (cond, a, b)))

    # casts
    def _cast(self, op: str, value: Value, typ: Type, name: str) -> Value:
        parts: list = [f"{op} "]
        _operand(parts, value)
        parts.append(f" to {typ}")
        return self._value(typ, name, parts)

    trunc, zext, sext = _cast_op("trunc"), _cast_op("zext"), _cast_op("sext")
    fptrunc, fpext = _cast_op("fptrunc"), _cast_op("fpext")
    sitofp, uitofp = _cast_op("sitofp"), _cast_op("uitofp")
    bitcast, ptrtoint = _cast_op("bitcast"), _cast_op("ptrtoint")

    # memory
    def alloca(self, typ: Type, name: str = "", align: int = 0) -> Value:
        return self._value(PTR, name, [f"alloca {typ}" + (f", align {align}" if align else "")])

    def load(self, ptr: Value, name: str = "", typ: Type = PTR, align: int = 0) -> Value:
        parts: list = [f"load {typ}, ptr ", ptr]
        if align:
            parts.append(f", align {align}")
        return self._value(typ, name, parts)

    def load_atomic(
        self, ptr: Value, ordering: str, align: int, name: str = "", typ: Type = PTR
    ) -> Value:
        return self._value(
            typ, name, [f"load atomic {typ}, ptr ", ptr, f" {ordering}, align {align}"]
        )

    def store(self, value: Value, ptr: Value) -> Instruction:
        return self._effect(_operands("store ", (value, ptr)))

    def store_atomic(self, value: Value, ptr: Value, ordering: str, align: int) -> Instruction:
        parts = _operands("store atomic ", (value, ptr))
        return self._effect([*parts, f" {ordering}, align {align}"])

    def gep(
        self,
        ptr: Value,
        indices: Sequence[Value],
        inbounds: bool = False,
        name: str = "",
        source_etype: Type = _I8,
    ) -> Value:
        parts: list = [f"getelementptr{' inbounds' if inbounds else ''} {source_etype}, ptr ", ptr]
        for index in indices:
            parts.append(", ")
            _operand(parts, index)
        return self._value(PTR, name, parts)

    def atomic_rmw(self, op: str, ptr: Value, value: Value, ordering: str, name: str = "") -> Value:
        parts = _operands(f"atomicrmw {op} ", (ptr, value))
        return self._value(value.type, name, [*parts, f" {ordering}"])

    def cmpxchg(
        self, ptr: Value, cmp: Value, value: Value, ordering: str, failordering: str, name: str = ""
    ) -> Value:
        parts = [*_operands("cmpxchg ", (ptr, cmp, value)), f" {ordering} {failordering}"]
        return self._value(_PairType(value.type, I1), name, parts)

    def insert_element(self, vector: Value, value: Value, idx: Value, name: str = "") -> Value:
        return self._value(vector.type, name, _operands("insertelement ", (vector, value, idx)))

    def extract_element(self, vector: Value, idx: Value, name: str = "") -> Value:
        element = vector.type.element  # type: ignore[attr-defined]
        return self._value(element, name, _operands("extractelement ", (vector, idx)))

    def extract_value(self, aggregate: Value, index: int, name: str = "") -> Value:
        parts: list = ["extractvalue "]
        _operand(parts, aggregate)
        parts.append(f", {index}")
        return self._value(aggregate.type.members[index], name, parts)  # type: ignore[attr-defined]

    # control flow
    def phi(self, typ: Type, name: str = "") -> Phi:
        instr = Phi(self.scope, typ, name)
        self.block.instructions.append(instr)
        return instr

    def branch(self, target: Block) -> Instruction:
        return self._effect(["br label ", target])

    def cbranch(self, cond: Value, then: Block, otherwise: Block) -> Instruction:
        return self._effect(_operands("br ", (cond, then, otherwise)))  # blocks: `label %"b"`

    def ret_void(self) -> Instruction:
        return self._effect(["ret void"])

    def ret(self, value: Value) -> Instruction:
        return self._effect(_operands("ret ", (value,)))

    def call(
        self, fn: Value, args: Sequence[Value], name: str = "", fastmath: Sequence[str] = ()
    ) -> Value:
        """Call `fn`: a `Function`, or an address from `callee`."""
        fnty: FunctionType = fn.function_type  # type: ignore[attr-defined]
        shown = fnty if fnty.var_arg else fnty.return_type  # a varargs call names its type
        parts: list = [f"call{_flags(fastmath)} {shown} ", fn, "(", *_operands("", args), ")"]
        if fnty.return_type == VOID:
            return self._effect(parts)
        return self._value(fnty.return_type, name, parts)

    def asm(
        self,
        fnty: FunctionType,
        asm: str,
        constraint: str,
        args: Sequence[Value],
        side_effect: bool,
        name: str = "",
    ) -> Value:
        inline = f'asm {"sideeffect " if side_effect else ""}"{asm}", "{constraint}"'
        return self.call(_Callee(inline, fnty), args, name)


class _Callee(Value):
    """What `call` calls through: an address (see `callee`) or inline assembly's text."""

    __slots__ = ("target", "function_type")

    def __init__(self, target: Value | str, fnty: FunctionType) -> None:
        self.type, self.target, self.function_type = PTR, target, fnty

    def ref(self) -> str:
        return self.target if isinstance(self.target, str) else self.target.ref()


def callee(address: Value, fnty: FunctionType) -> Value:
    """`address` as something `IRBuilder.call` calls indirectly, as a function of type `fnty`."""
    return _Callee(address, fnty)
