"""Random well-typed kernels as Python source, drawn through hypothesis (so failures shrink).

A `ProgramGen` takes hypothesis's `draw` and writes the source of a module with one function,
`make(ti)`, that declares fields and one kernel and returns both. Every expression is built for a
known type: operators only ever combine operands of one type, and `ti.cast` changes types, so
the generator knows each value's dtype without reimplementing promotion. Results must not depend
on thread scheduling: a parallel loop stores only into element `i` of arrays it owns, reads other
arrays it does not write, updates the rest only atomically with order-free operations, and sums
only values whose sums are exact in any order: `+=` into outer variables (scalars, or vector
locals `acc = ti.math.vec2(0)` / `ivec3`) of any integers, or of small integers for floats, and
atomic adds to integer arrays or to "integral" float arrays (their data and every value stored
in them are small integers). Values from transcendental functions ("inexact", since libm and
NumPy may differ in the last bits) never reach a cast to an integer, a comparison, rounding or
an index, so a last-bit difference cannot grow into a wrong answer.

Float literals and scalar arguments include NaN and infinities, and expressions whose operands
are one value twice (`x - x`, `x / (x - x)`, `(x - x) * inf`, `x != x`) check that no optimisation
assumes a value is finite; `a * b + c` checks that none fuses it. f16 values (`half=False` leaves
them out) round after every operation, as the interpreter computes them; they never reach
transcendental functions or `**` and are never summed in parallel (exact only up to 2048).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

INT_TYPES = ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64")
FLOAT_TYPES = ("f32", "f64", "f16")
INT_LITERALS = (0, 1, -1, 2, 3, 7, 31, 32, 63, 100, 127, 128, 255, 32767, -32768, 65535)
INT_LITERALS += (2**31 - 1, -(2**31), 12345, -7)
FLOAT_LITERALS = (0.0, 1.0, -1.5, 0.1, 3.0, 0.5, -2.25, 1e10, -1e-3, 1e30, 7.75)
SPECIAL_ARGS = (-0.0, 2.5e-8, 123.456, math.nan, math.inf, -math.inf)  # scalar arguments only
TRANSCENDENTAL = ("ti.sin", "ti.cos", "ti.tanh", "ti.exp", "ti.log")


@dataclass
class Array:
    """A field or an ndarray argument: 1-D (or 2-D fields), read and written as `name[...]`."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    is_ndarray: bool = False
    vector: int = 0  # > 0: a vector field of that many elements
    exact: bool = True  # False: may hold values of transcendental functions
    integral: bool = False  # floats that only ever hold small integers, so sums are exact


@dataclass
class Var:
    name: str
    dtype: str
    writable: bool = True
    argument: bool = False  # a kernel argument: never written (Taichi refuses)
    reduce_only: bool = False  # an outer variable that a parallel loop may only `+=`
    exact: bool = True


@dataclass
class VectorReducer:
    """A vector local that a parallel loop may only `+=`: `ti.math.vec{n}` or `ivec{n}`."""

    name: str
    dtype: str  # "f32" or "i32"
    n: int


@dataclass
class Program:
    """The generated module's source and what to call its kernel with."""

    source: str
    arrays: list[Array]
    scalar_args: list[tuple[str, Any]]  # (dtype, value) per scalar parameter
    ret_type: str | None
    float_kernel: bool
    data_seed: int


@dataclass
class _Context:
    """What statements may do where they are generated."""

    parallel: bool = False  # inside a top-level (parallel) loop
    loop_var: str = ""  # that loop's index, i32
    loop_extent: int = 0
    owned: set[str] = field(default_factory=set)  # arrays stored only at [loop_var]
    # arrays only updated atomically, each with one family of operations: two families on one
    # element (`xor` then `max`) give an order-dependent result
    atomic: dict[str, tuple[str, ...]] = field(default_factory=dict)
    depth: int = 0  # nesting of blocks
    in_serial_loop: bool = False  # break/continue allowed


class ProgramGen:
    """Draws one program; `draw` is hypothesis's, so every choice shrinks."""

    def __init__(self, draw: Callable[[Any], Any], floats: bool = True, half: bool = True) -> None:
        from hypothesis import strategies as st

        self.st = st
        self.draw = draw
        self.floats = floats
        self.float_types = () if not floats else FLOAT_TYPES if half else FLOAT_TYPES[:2]
        self.vector_reducers: list[VectorReducer] = []  # those of the parallel loop being made
        self.lines: list[str] = []
        self.scopes: list[list[Var]] = [[]]
        self.arrays: list[Array] = []
        self.counter = 0
        self.index_nesting = 0  # loads inside index expressions, to bound their recursion

    # --- small helpers ----------------------------------------------------------------------

    def choice(self, options: Any) -> Any:
        return self.draw(self.st.sampled_from(list(options)))

    def chance(self, p: float) -> bool:
        return self.draw(self.st.integers(0, 99)) < int(p * 100)

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def dtype(self) -> str:
        return self.choice(INT_TYPES + self.float_types)

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def visible(self) -> list[Var]:
        return [v for scope in self.scopes for v in scope]

    # --- expressions ------------------------------------------------------------------------

    def expr(self, t: str, depth: int, ctx: _Context, exact: bool = True) -> str:
        """Source of an expression of type `t`; `exact=False` allows transcendental math."""
        if depth <= 0 or self.chance(0.25):
            return self.leaf(t, ctx, exact)
        kinds = ("binary", "binary", "cast", "unary", "select", "compare", "math", "same")
        kind = self.choice(kinds)
        sub = depth - 1
        if kind == "same":
            return self.same_operands(t, sub, ctx, exact)
        if kind == "binary":
            return self.binary(t, sub, ctx, exact)
        if kind == "cast":
            u = self.dtype()
            return f"ti.cast({self.expr(u, sub, ctx)}, ti.{t})"
        if kind == "unary":
            return self.unary(t, sub, ctx, exact)
        if kind == "select":
            cond = self.condition(sub, ctx)
            a, b = self.expr(t, sub, ctx, exact), self.expr(t, sub, ctx, exact)
            return f"ti.select({cond}, {a}, {b})"
        if kind == "compare":
            return f"ti.cast({self.condition(sub, ctx)}, ti.{t})"
        return self.math(t, sub, ctx, exact)

    def leaf(self, t: str, ctx: _Context, exact: bool = True) -> str:
        readable = [v for v in self.visible() if not v.reduce_only and (v.exact or not exact)]
        loads = self.arrays and self.index_nesting < 2
        options = ["literal"] + (["var"] if readable else []) + (["array"] if loads else [])
        kind = self.choice(options)
        if kind == "var":
            v = self.choice(readable)
            return v.name if v.dtype == t else f"ti.cast({v.name}, ti.{t})"
        if kind == "array":
            loaded = self.load(ctx, exact)
            if loaded is not None:
                source, u = loaded
                return source if u == t else f"ti.cast({source}, ti.{t})"
        if t in FLOAT_TYPES:
            value = self.choice(FLOAT_LITERALS + (math.inf, -math.inf, math.nan))
            return f"ti.cast({_float_source(value)}, ti.{t})"
        return f"ti.cast({self.choice(INT_LITERALS)}, ti.{t})"

    def binary(self, t: str, depth: int, ctx: _Context, exact: bool) -> str:
        ops = ["+", "-", "*", "//", "%", "min", "max"]
        if t in FLOAT_TYPES:  # "*+": a * b + c or c - a * b, which must not become an FMA
            ops += ["/", "/", "raw_mod", "*+"] + ([] if exact or t == "f16" else ["**"])
        else:
            ops += ["&", "|", "^", "<<", ">>", "**", "/"]
        op = self.choice(ops)
        a, b = self.expr(t, depth, ctx, exact), self.expr(t, depth, ctx, exact)
        if op == "*+":
            c = self.expr(t, depth, ctx, exact)
            return f"({a} * {b} + {c})" if self.chance(0.5) else f"({c} - {a} * {b})"
        if op in ("min", "max", "raw_mod"):  # raw_mod: C's fmod
            return f"ti.{op}({a}, {b})"
        if op == "/" and t not in FLOAT_TYPES:  # int / int is a float: cast it back
            return f"ti.cast({a} / {b}, ti.{t})"
        if op == "**" and t in FLOAT_TYPES:
            return f"(ti.abs({a}) ** ti.cast({self.choice((0.5, 2.0, 1.5, -1.0))}, ti.{t}))"
        if op == "**":
            b = f"ti.cast({self.choice((0, 1, 2, 3, 7, 31, -1, -2))}, ti.{t})"
        return f"({a} {op} {b})"

    def unary(self, t: str, depth: int, ctx: _Context, exact: bool) -> str:
        a = self.expr(t, depth, ctx, exact)
        ops = ["-", "abs"] + (["~"] if t in INT_TYPES else ["floor", "ceil", "sqrt", "round"])
        op = self.choice(ops)
        if op in ("floor", "ceil", "round") and not exact:
            op = "abs"  # rounding an inexact value could amplify a last-bit difference
        if op == "abs":
            return f"ti.abs({a})"
        if op == "sqrt":
            return f"ti.sqrt(ti.abs({a}))"
        if op in ("floor", "ceil", "round"):
            return f"ti.cast(ti.{op}({a}), ti.{t})"
        return f"({op}{a})"

    def same_operands(self, t: str, depth: int, ctx: _Context, exact: bool) -> str:
        """One value twice: `x - x` is 0 only where x is finite, `x / (x - x)` is an infinity
        or NaN, `(x - x) * inf` NaN; folding them as if x were finite is wrong."""
        x = self.expr(t, min(depth, 1), ctx, exact)
        zero = f"({x} - {x})"
        forms = [zero, f"({x} * {zero})", f"({x} + {x})", f"ti.min({x}, {x})"]
        if t in FLOAT_TYPES:
            inf = f"ti.cast(ti.math.inf, ti.{t})"
            forms += [f"({x} / {zero})", f"({zero} * {inf})", f"({x} / {x})", f"({zero} / {zero})"]
        else:  # int / int is a float: x / (x - x) is an infinity or NaN, then saturates
            forms += [f"ti.cast({x} / {zero}, ti.{t})", f"({x} // {x})", f"({x} ^ {x})"]
        return self.choice(forms)

    def math(self, t: str, depth: int, ctx: _Context, exact: bool) -> str:
        if exact or t not in FLOAT_TYPES or t == "f16":
            return self.binary(t, depth, ctx, exact)
        fn = self.choice(TRANSCENDENTAL)
        arg = self.expr(t, depth, ctx, exact)
        if fn == "ti.exp":
            arg = f"ti.min(ti.max({arg}, ti.cast(-20.0, ti.{t})), ti.cast(20.0, ti.{t}))"
        if fn == "ti.log":
            arg = f"(ti.abs({arg}) + ti.cast(1.0, ti.{t}))"
        if fn in ("ti.sin", "ti.cos"):  # keep arguments where libm and NumPy agree closely
            arg = f"ti.min(ti.max({arg}, ti.cast(-100.0, ti.{t})), ti.cast(100.0, ti.{t}))"
        return f"{fn}({arg})"

    def condition(self, depth: int, ctx: _Context) -> str:
        u = self.dtype()
        a, b = self.expr(u, depth, ctx), self.expr(u, depth, ctx)
        cmp = self.choice(("<", "<=", ">", ">=", "==", "!="))
        if self.chance(0.15):  # `x != x` is true for NaN only: no folding it to False
            b = a
        text = f"({a} {cmp} {b})"
        if depth > 0 and self.chance(0.2):
            other = self.condition(depth - 1, ctx)
            text = f"({text} {self.choice(('and', 'or'))} {other})"
        return f"(not {text})" if self.chance(0.1) else text

    # --- arrays -----------------------------------------------------------------------------

    def index(self, arr: Array, ctx: _Context) -> str:
        self.index_nesting += 1
        try:
            return self._index(arr, ctx)
        finally:
            self.index_nesting -= 1

    def _index(self, arr: Array, ctx: _Context) -> str:
        parts = []
        for extent in arr.shape:
            if ctx.loop_var and self.chance(0.4):
                parts.append(f"{ctx.loop_var} % {extent}")
            else:
                parts.append(f"ti.cast({self.expr('i32', 1, ctx)}, ti.i32) % {extent}")
        return ", ".join(parts)

    def element(self, arr: Array, index: str) -> str:
        if arr.vector:
            return f"{arr.name}[{index}][{self.draw(self.st.integers(0, arr.vector - 1))}]"
        return f"{arr.name}[{index}]"

    def load(self, ctx: _Context, exact: bool = True) -> tuple[str, str] | None:
        readable = [a for a in self.arrays if a.name not in ctx.atomic and (a.exact or not exact)]
        if not readable:
            return None
        arr = self.choice(readable)
        if arr.name in ctx.owned:
            return self.element(arr, ctx.loop_var), arr.dtype
        return self.element(arr, self.index(arr, ctx)), arr.dtype

    # --- statements -------------------------------------------------------------------------

    def block(self, indent: int, ctx: _Context, budget: int) -> None:
        """A block of 1..budget statements at `indent`, in a scope of its own."""
        self.scopes.append([])
        count = self.draw(self.st.integers(1, max(1, budget)))
        for _ in range(count):
            self.statement(indent, ctx)
        self.scopes.pop()

    def statement(self, indent: int, ctx: _Context) -> None:
        kinds = ["declare", "declare", "assign", "augassign", "store", "atomic", "vector"]
        if ctx.depth < 2:  # a `for` at the kernel's top level would be a parallel loop
            kinds += ["if", "while"] + (["for"] if ctx.loop_var or ctx.depth else [])
        if ctx.in_serial_loop:
            kinds.append("jump")
        if self.vector_reducers or any(v.reduce_only for v in self.visible()):
            kinds += ["reduce", "reduce"]
        getattr(self, f"stmt_{self.choice(kinds)}")(indent, ctx)

    def stmt_declare(self, indent: int, ctx: _Context) -> None:
        t = self.dtype()
        exact = t not in FLOAT_TYPES or self.chance(0.6)
        value = self.expr(t, 3, ctx, exact)
        name = self.fresh("v")
        self.emit(indent, f"{name} = {value}")
        self.scopes[-1].append(Var(name, t, exact=exact))

    def writable_var(self) -> Var | None:
        options = [v for v in self.scopes[-1] if v.writable]
        if self.chance(0.5):  # also variables of enclosing blocks (same task: no race)
            options = [v for v in self.visible() if v.writable]
        return self.choice(options) if options else None

    def stmt_assign(self, indent: int, ctx: _Context) -> None:
        var = self.writable_var()
        if var is None:
            return self.stmt_declare(indent, ctx)
        t = var.dtype if self.chance(0.7) else self.dtype()
        exact = var.exact or t not in FLOAT_TYPES
        self.emit(indent, f"{var.name} = {self.expr(t, 3, ctx, exact and var.exact)}")

    def stmt_augassign(self, indent: int, ctx: _Context) -> None:
        var = self.writable_var()
        if var is None:
            return self.stmt_declare(indent, ctx)
        ops = ["+=", "-=", "*=", "//=", "%="]
        if var.dtype in INT_TYPES:
            ops += ["&=", "|=", "^=", "<<=", ">>="]
        value = self.expr(var.dtype, 2, ctx, var.exact)
        self.emit(indent, f"{var.name} {self.choice(ops)} {value}")

    def stmt_store(self, indent: int, ctx: _Context) -> None:
        targets = [a for a in self.arrays if not ctx.parallel or a.name in ctx.owned]
        if not targets:
            return self.stmt_declare(indent, ctx)
        arr = self.choice(targets)
        index = ctx.loop_var if arr.name in ctx.owned else self.index(arr, ctx)
        value = self.stored(arr, arr.dtype if self.chance(0.7) else self.dtype(), 3, ctx)
        if arr.vector and self.chance(0.3):
            elements = ", ".join(self.stored(arr, arr.dtype, 1, ctx) for _ in range(arr.vector))
            value = f"ti.Vector([{elements}], dt=ti.{arr.dtype})"
            self.emit(indent, f"{arr.name}[{index}] = {value}")
            return
        self.emit(indent, f"{self.element(arr, index)} = {value}")

    def stored(self, arr: Array, t: str, depth: int, ctx: _Context) -> str:
        """A value of type `t` to store into `arr` (small integers into an integral array)."""
        if arr.integral:
            return self.exact_integer_value(arr.dtype, ctx)
        return self.expr(t, depth, ctx, arr.exact or t not in FLOAT_TYPES)

    def stmt_atomic(self, indent: int, ctx: _Context) -> None:
        targets = [a for a in self.arrays if not ctx.parallel or a.name in ctx.atomic]
        if not targets:
            return self.stmt_declare(indent, ctx)
        arr = self.choice(targets)
        value = self.exact_integer_value(arr.dtype, ctx)
        target = self.element(arr, self.index(arr, ctx))
        ops = ["add", "sub", "max", "min"] + (
            ["and", "or", "xor"] if arr.dtype in INT_TYPES else []
        )
        op = self.choice(ctx.atomic[arr.name] if ctx.parallel else ops)
        if self.chance(0.4) and op in ("add", "sub"):
            self.emit(indent, f"{target} {'+' if op == 'add' else '-'}= {value}")
        else:
            self.emit(indent, f"ti.atomic_{op}({target}, {value})")

    def exact_integer_value(self, t: str, ctx: _Context) -> str:
        """A value of type `t` whose sums are exact in any order: any integer, or a small
        integer-valued float."""
        if t in FLOAT_TYPES:
            return f"ti.cast(ti.cast({self.expr('i32', 2, ctx)}, ti.i8), ti.{t})"
        return self.expr(t, 2, ctx)

    def stmt_reduce(self, indent: int, ctx: _Context) -> None:
        scalars: list[Var | VectorReducer] = [v for v in self.visible() if v.reduce_only]
        var = self.choice(scalars + self.vector_reducers)
        if isinstance(var, VectorReducer):
            return self.reduce_vector(indent, ctx, var)
        self.emit(indent, f"{var.name} += {self.exact_integer_value(var.dtype, ctx)}")

    def reduce_vector(self, indent: int, ctx: _Context, acc: VectorReducer) -> None:
        """`acc += v` of a vector (a literal, or an element of a vector field as in `acc +=
        vel[i]`: small integers for f32), or `acc[k] += x` of one element."""
        form = self.choice(("literal", "element", "array"))
        if form == "element":
            k = self.draw(self.st.integers(0, acc.n - 1))
            self.emit(indent, f"{acc.name}[{k}] += {self.exact_integer_value(acc.dtype, ctx)}")
            return
        sources = [a for a in self.arrays if a.vector == acc.n and a.name not in ctx.atomic]
        sources = [a for a in sources if a.dtype in INT_TYPES or a.integral]
        if form == "array" and sources:
            arr = self.choice(sources)
            value = f"{arr.name}[{ctx.loop_var if arr.name in ctx.owned else self.index(arr, ctx)}]"
            if arr.dtype in INT_TYPES and acc.dtype == "f32":
                value = f"ti.cast({value}, ti.i8)"  # small integers
            if arr.dtype != acc.dtype:
                value = f"ti.cast({value}, ti.{acc.dtype})"
            self.emit(indent, f"{acc.name} += {value}")
            return
        parts = ", ".join(self.exact_integer_value(acc.dtype, ctx) for _ in range(acc.n))
        self.emit(indent, f"{acc.name} += ti.Vector([{parts}], dt=ti.{acc.dtype})")

    def stmt_vector(self, indent: int, ctx: _Context) -> None:
        t, n = self.dtype(), self.draw(self.st.integers(2, 4))
        name = self.fresh("w")
        elements = ", ".join(self.expr(t, 1, ctx) for _ in range(n))
        self.emit(indent, f"{name} = ti.Vector([{elements}], dt=ti.{t})")
        for _ in range(self.draw(self.st.integers(0, 2))):
            other = ", ".join(self.expr(t, 1, ctx) for _ in range(n))
            op = self.choice(("+", "-", "*") + (("&", "^") if t in INT_TYPES else ()))
            self.emit(indent, f"{name} = {name} {op} ti.Vector([{other}], dt=ti.{t})")
        k = self.draw(self.st.integers(0, n - 1))
        self.emit(indent, f"{name}[{k}] = {self.expr(t, 1, ctx)}")
        scalar = self.fresh("v")
        total = f"{name}.sum()" if self.chance(0.5) else f"{name}[{k}] - {name}[0]"
        self.emit(indent, f"{scalar} = ti.cast({total}, ti.{t})")
        self.scopes[-1].append(Var(scalar, t))

    def stmt_if(self, indent: int, ctx: _Context) -> None:
        self.emit(indent, f"if {self.condition(2, ctx)}:")
        inner = _nested(ctx)
        self.block(indent + 1, inner, 3)
        if self.chance(0.4):
            self.emit(indent, "else:")
            self.block(indent + 1, inner, 2)

    def stmt_for(self, indent: int, ctx: _Context) -> None:
        name = self.fresh("j")
        if self.chance(0.5):
            bound = str(self.draw(self.st.integers(0, 4)))
        else:
            bound = f"ti.cast({self.expr('i32', 2, ctx)}, ti.i32) % 5"
        start = "" if self.chance(0.7) else f"{self.draw(self.st.integers(-2, 1))}, "
        self.emit(indent, f"for {name} in range({start}{bound}):")
        self.scopes.append([Var(name, "i32", writable=False)])
        self.block(indent + 1, _nested(ctx, serial_loop=True), 3)
        self.scopes.pop()

    def stmt_while(self, indent: int, ctx: _Context) -> None:
        counter = self.fresh("c")
        self.emit(indent, f"{counter} = 0")
        self.emit(indent, f"while {counter} < {self.draw(self.st.integers(1, 4))}:")
        self.emit(indent + 1, f"{counter} += 1")
        self.scopes[-1].append(Var(counter, "i32", writable=False))
        self.block(indent + 1, _nested(ctx, serial_loop=True), 3)

    def stmt_jump(self, indent: int, ctx: _Context) -> None:
        self.emit(indent, f"if {self.condition(1, ctx)}:")
        self.emit(indent + 1, self.choice(("break", "continue")))

    # --- the program ------------------------------------------------------------------------

    def declare_arrays(self) -> None:
        for _ in range(self.draw(self.st.integers(0, 3))):
            t = self.dtype()
            exact = t not in FLOAT_TYPES or self.chance(0.5)
            integral = exact and t in ("f32", "f64") and self.chance(0.4)
            if self.chance(0.25):
                name = self.fresh("n")
                shape: tuple[int, ...] = (self.draw(self.st.integers(1, 8)),)
                self.arrays.append(Array(name, t, shape, True, exact=exact, integral=integral))
                continue
            shape = (self.draw(self.st.integers(1, 8)),)
            if self.chance(0.25):
                shape += (self.draw(self.st.integers(1, 4)),)
            vector = self.draw(self.st.integers(2, 3)) if self.chance(0.2) else 0
            arr = Array(self.fresh("f"), t, shape, vector=vector, exact=exact, integral=integral)
            self.arrays.append(arr)

    def parallel_loop(self) -> None:
        extent = self.draw(self.st.integers(1, 12))
        name = self.fresh("i")
        ctx = _Context(parallel=extent > 1, loop_var=name, loop_extent=extent)
        for arr in self.arrays:
            role = self.choice(("read", "owned", "atomic"))
            if role == "owned" and len(arr.shape) == 1 and arr.shape[0] >= extent:
                ctx.owned.add(arr.name)
            elif role == "atomic":
                exact_sums = arr.dtype in INT_TYPES or arr.integral  # in any order
                families = [("max",), ("min",)] + ([("add", "sub")] if exact_sums else [])
                if arr.dtype in INT_TYPES:
                    families += [("and",), ("or",), ("xor",)]
                ctx.atomic[arr.name] = self.choice(families)
        outer = self.scopes[0]
        saved = [(v.writable, v.reduce_only) for v in outer]
        for v in outer:
            v.writable = not ctx.parallel and not v.argument
        if ctx.parallel and self.chance(0.5):
            t = self.choice([t for t in INT_TYPES + self.float_types if t != "f16"])
            reducer = self.fresh("s")
            self.emit(2, f"{reducer} = ti.cast(0, ti.{t})")
            outer.append(Var(reducer, t, writable=False, reduce_only=True))
            saved.append((True, False))
        acc = self.vector_reducer() if ctx.parallel and self.chance(0.3) else None
        self.emit(2, f"for {name} in range({extent}):")
        self.scopes.append([Var(name, "i32", writable=False)])
        self.block(3, ctx, 4)
        self.scopes.pop()
        for v, (writable, reduce_only) in zip(outer, saved):
            v.writable, v.reduce_only = writable, reduce_only
        self.vector_reducers = []
        if acc is not None:  # its total, or one element, for the statements after the loop
            k = self.draw(self.st.integers(0, acc.n - 1))
            total, value = self.fresh("v"), f"{acc.name}[{k}]"
            self.emit(2, f"{total} = {f'{acc.name}.sum()' if self.chance(0.5) else value}")
            outer.append(Var(total, acc.dtype))

    def vector_reducer(self) -> VectorReducer:
        """Declares `acc = ti.math.vec2(0)` (or `ivec3`...) for the next parallel loop."""
        dtype = "f32" if "f32" in self.float_types and self.chance(0.5) else "i32"
        acc = VectorReducer(self.fresh("acc"), dtype, self.draw(self.st.integers(2, 3)))
        self.emit(2, f"{acc.name} = ti.math.{'vec' if dtype == 'f32' else 'ivec'}{acc.n}(0)")
        self.vector_reducers = [acc]
        return acc

    def build(self) -> Program:
        self.declare_arrays()
        scalars = [(self.dtype(), None) for _ in range(self.draw(self.st.integers(0, 3)))]
        params = [f"a{k}: ti.{t}" for k, (t, _) in enumerate(scalars)]
        params += [
            f"{a.name}: ti.types.ndarray(dtype=ti.{a.dtype}, ndim=1)"
            for a in self.arrays
            if a.is_ndarray
        ]
        for k, (t, _) in enumerate(scalars):
            self.scopes[0].append(Var(f"a{k}", t, writable=False, argument=True))
        ret = self.dtype() if self.chance(0.8) else None
        for _ in range(self.draw(self.st.integers(1, 4))):
            if self.chance(0.6):
                self.parallel_loop()
            else:
                self.statement(2, _Context())
        if ret is not None:
            exact = ret not in FLOAT_TYPES or self.chance(0.5)
            self.emit(2, f"return {self.expr(ret, 3, _Context(), exact)}")
        arrow = f" -> ti.{ret}" if ret else ""
        head = ["def make(ti):"]
        for a in self.arrays:
            if a.is_ndarray:
                continue
            kind = (
                f"ti.Vector.field({a.vector}, dtype=ti.{a.dtype},"
                if a.vector
                else f"ti.field(ti.{a.dtype},"
            )
            head.append(f"    {a.name} = {kind} shape={a.shape})")
        head += ["", "    @ti.kernel", f"    def kern({', '.join(params)}){arrow}:", "        pass"]
        fields = ", ".join(a.name for a in self.arrays if not a.is_ndarray)
        tail = ["", f"    return kern, [{fields}]", ""]
        args = [(t, self.scalar_value(t)) for t, _ in scalars]
        source = "\n".join(head + self.lines + tail)
        seed = self.draw(self.st.integers(0, 2**32 - 1))
        return Program(source, self.arrays, args, ret, self.floats, seed)

    def scalar_value(self, t: str) -> Any:
        if t in FLOAT_TYPES:
            return self.draw(self.st.sampled_from(FLOAT_LITERALS + SPECIAL_ARGS))
        bits = int(t[1:])
        low, high = (0, 2**bits - 1) if t[0] == "u" else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
        return self.draw(
            self.st.one_of(self.st.sampled_from((0, 1, low, high)), self.st.integers(low, high))
        )


def _float_source(value: float) -> str:
    """`value` as kernel source: NaN and infinities by their names in `ti.math`."""
    if math.isnan(value):
        return "ti.math.nan"
    if math.isinf(value):
        return f"{'-' if value < 0 else ''}ti.math.inf"
    return repr(value)


def _nested(ctx: _Context, serial_loop: bool = False) -> _Context:
    """The context of a block inside one of `ctx` (sharing its sets of arrays)."""
    return replace(ctx, depth=ctx.depth + 1, in_serial_loop=ctx.in_serial_loop or serial_loop)


def programs(floats: bool | None = None, half: bool = True) -> Any:
    """The hypothesis strategy of `Program`s (integer-only kernels when `floats` is False; no
    f16 when `half` is False)."""
    from hypothesis import strategies as st

    @st.composite
    def strategy(draw: Callable[[Any], Any]) -> Program:
        use_floats = draw(st.booleans()) if floats is None else floats
        return ProgramGen(draw, use_floats, half).build()

    return strategy()


def drawing(
    examples: int, floats: bool | None, half: bool, shrink: bool = False, seed: int | None = None
) -> Callable[[Callable[[Program], None]], Callable[[], None]]:
    """The decorator that calls a function on `examples` programs drawn as a campaign draws
    them (`campaign.py`), so that `replay.py` draws the same ones again from the same seed."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as seeded

    phases = [Phase.generate, Phase.shrink] if shrink else [Phase.generate]

    def decorate(fn: Callable[[Program], None]) -> Callable[[], None]:
        drawn = settings(
            max_examples=examples,
            deadline=None,
            database=None,
            phases=phases,
            suppress_health_check=list(HealthCheck),
        )(given(programs(floats=floats, half=half))(fn))
        return drawn if seed is None else seeded(seed)(drawn)

    return decorate
