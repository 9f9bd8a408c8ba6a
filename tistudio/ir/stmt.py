"""The skeleton of the IR: `Stmt`, `Block`, `Kernel` and source locations.

A kernel is a tree of blocks; a block is a list of statements; a statement refers to the
statements whose values it uses (its operands) by object reference, so the IR is in SSA form
inside a block tree (Taichi's "hierarchical SSA"). Mutable local variables are `Alloca`s read and
written through `LocalLoad`/`LocalStore`. Each statement class declares its operands once, in
`operand_fields`, and that declaration drives `operands()`, `replace_operand()`, cloning and the
verifier.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from tistudio.ir.errors import InternalCompilerError
from tistudio.ir.types import DataType, PointerType, PrimitiveType


def _operand_reader(cls: type[Stmt]) -> Callable[[Stmt], list[Stmt]]:
    """`cls.operands`, specialised to its `operand_fields`: every pass asks each statement
    for its operands, often several times (~2,500 calls per compile of a 20-line kernel), and
    the generic loop with a getattr and an isinstance per field cost 0.5 us a call. A field
    whose annotation is a list leaves the class on the generic `Stmt.operands`; None is left
    out where an annotation allows it."""
    names = cls.operand_fields
    kinds = _annotations(cls)
    if not names:
        return lambda stmt: []
    if any("list" in kinds.get(n, "") for n in names):
        return Stmt.operands
    get = operator.attrgetter(*names)
    if len(names) == 1:
        return lambda stmt: [] if (v := get(stmt)) is None else [v]
    if any("None" in kinds.get(n, "") for n in names):
        return lambda stmt: [v for v in get(stmt) if v is not None]
    return lambda stmt: list(get(stmt))


def _annotations(cls: type) -> dict[str, str]:
    """Each field's annotation as text, the class's own over its bases'."""
    found: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        found.update({k: str(v) for k, v in klass.__dict__.get("__annotations__", {}).items()})
    return found


@dataclass(frozen=True)
class SourceLoc:
    """Where a statement came from in the user's Python source (1-based line, 0-based column)."""

    filename: str
    line: int
    col: int = 0
    source_line: str = ""

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}"


@dataclass(eq=False)
class Stmt:
    """Base of every IR statement. Subclasses are small dataclasses with `syntax` and operands."""

    ret_type: DataType | None = field(default=None, kw_only=True)
    loc: SourceLoc | None = field(default=None, kw_only=True, repr=False)
    parent: Block | None = field(default=None, kw_only=True, repr=False)

    operand_fields: ClassVar[tuple[str, ...]] = ()
    block_fields: ClassVar[tuple[tuple[str, str], ...]] = ()  # (field name, printed label)
    syntax: ClassVar[str] = ""
    is_void: ClassVar[bool] = False  # prints as `$3 : ...` and has no value

    # Traits: what the statement *is*, declared once here and read by passes and back ends
    # (`docs/adding-a-statement.md`). A trait that allows a transformation defaults to False,
    # so a new statement kind is left alone until someone has checked that the trait holds.
    has_side_effects: ClassVar[bool] = False  # writes memory, prints, checks or jumps: never dead
    pure: ClassVar[bool] = False  # value depends on operands and attributes only (cse, licm)
    lane_safe: ClassVar[bool] = False  # GPU vectoriser may emit one copy per lane side by side
    interleavable: ClassVar[bool] = False  # unroll-and-jam may interleave copies in its inner loop
    uses_ad_stack: ClassVar[bool] = False  # makes or works on a per-thread autodiff stack
    jumps: ClassVar[bool] = False  # leaves its block early (break, continue, return)
    carries_derivative: ClassVar[bool] = True  # auto_diff needs a rule (or a refusal) for it
    removed_by: ClassVar[str] = ""  # the pass after which none is left (back ends never see it)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "operand_fields" in cls.__dict__:
            cls.operands = _operand_reader(cls)  # type: ignore[method-assign]

    def __post_init__(self) -> None:
        for name, _ in self.block_fields:
            getattr(self, name).parent_stmt = self

    def set_block(self, name: str, block: Block) -> None:
        """Replace block `name` of this statement, keeping parent links right."""
        block.parent_stmt = self
        setattr(self, name, block)

    # --- operands ------------------------------------------------------------------------

    def operands(self) -> list[Stmt]:
        out: list[Stmt] = []
        for name in self.operand_fields:
            value = getattr(self, name)
            if isinstance(value, list):
                out.extend(value)
            elif value is not None:
                out.append(value)
        return out

    def replace_operand(self, old: Stmt, new: Stmt) -> bool:
        changed = False
        for name in self.operand_fields:
            value = getattr(self, name)
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if item is old:
                        value[i] = new
                        changed = True
            elif value is old:
                setattr(self, name, new)
                changed = True
        return changed

    def blocks(self) -> list[Block]:
        fields = self.block_fields
        if not fields:  # most statements: every pass's walk asks, so answer fast
            return []
        return [getattr(self, name) for name, _ in fields]

    # --- editing -------------------------------------------------------------------------

    def erase(self) -> None:
        """Remove this statement from its block."""
        assert self.parent is not None, f"{type(self).__name__} is not in a block"
        self.parent.remove(self)

    def insert_before(self, *stmts: Stmt) -> None:
        assert self.parent is not None
        self.parent.insert(self.parent.index(self), *stmts)

    def insert_after(self, *stmts: Stmt) -> None:
        assert self.parent is not None
        self.parent.insert(self.parent.index(self) + 1, *stmts)

    def replace_with(self, new: Stmt) -> None:
        """Put `new` where this statement is (if `new` is not placed yet), redirect all uses."""
        assert self.parent is not None
        if new.parent is None:
            self.insert_before(new)
        kernel_root(self).replace_all_uses(self, new)
        self.erase()

    def attributes(self) -> dict[str, Any]:
        """Non-operand, non-block dataclass fields (e.g. `op`, `value`, `snode`)."""
        skip = {
            "ret_type",
            "loc",
            "parent",
            *self.operand_fields,
            *(n for n, _ in self.block_fields),
        }
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in skip}

    def same_value_as(self, other: Stmt) -> bool:
        """Structural equality of two statements (same class, attributes, operands and type)."""
        return (
            type(self) is type(other)
            and not self.block_fields
            and self.ret_type == other.ret_type
            and self.attributes() == other.attributes()
            and self.operands() == other.operands()
            and all(a is b for a, b in zip(self.operands(), other.operands()))
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__} at {id(self):#x}>"


class Block:
    """An ordered list of statements owned by a kernel or by a control-flow statement."""

    def __init__(self, stmts: list[Stmt] | None = None, parent_stmt: Stmt | None = None) -> None:
        self.stmts: list[Stmt] = []
        self.parent_stmt = parent_stmt
        for s in stmts or []:
            self.append(s)

    def __iter__(self) -> Iterator[Stmt]:
        return iter(self.stmts)

    def __len__(self) -> int:
        return len(self.stmts)

    def __getitem__(self, i: int) -> Stmt:
        return self.stmts[i]

    def index(self, stmt: Stmt) -> int:
        for i, s in enumerate(self.stmts):
            if s is stmt:
                return i
        raise ValueError(f"{stmt!r} not in block")

    def append(self, stmt: Stmt) -> Stmt:
        stmt.parent = self
        self.stmts.append(stmt)
        return stmt

    def insert(self, index: int, *stmts: Stmt) -> None:
        for offset, s in enumerate(stmts):
            s.parent = self
            self.stmts.insert(index + offset, s)

    def remove(self, stmt: Stmt) -> None:
        del self.stmts[self.index(stmt)]
        stmt.parent = None

    def extend(self, stmts: list[Stmt]) -> None:
        for s in stmts:
            self.append(s)

    def take_all(self) -> list[Stmt]:
        """Detach and return every statement of this block."""
        stmts, self.stmts = self.stmts, []
        for s in stmts:
            s.parent = None
        return stmts


@dataclass
class Param:
    """One runtime parameter of a kernel: a scalar or an ndarray (template args are not params)."""

    name: str
    kind: str  # "scalar" | "ndarray"
    dtype: DataType
    ndim: int = 0


@dataclass(eq=False)
class Kernel:
    """The IR of one kernel instantiation: parameters, return types, and the body block."""

    name: str
    body: Block
    params: list[Param] = field(default_factory=list)
    ret_types: list[DataType] = field(default_factory=list)
    gtmp_size: int = 0  # bytes of global temporaries (set by `offload`)
    autodiff_mode: str = "none"  # "reverse" (kernel.grad) or "forward" (ti.ad.FwdMode)
    functions: list[Kernel] = field(default_factory=list)  # its IR functions (`ir/calls.py`)

    def __post_init__(self) -> None:
        self.body.parent_stmt = None
        self.body.kernel = self  # type: ignore[attr-defined]

    # --- traversal -----------------------------------------------------------------------

    def walk(self) -> Iterator[Stmt]:
        """Every statement, pre-order (a control statement before the statements inside it)."""
        return walk(self.body)

    def use_counts(self) -> dict[Stmt, int]:
        counts: dict[Stmt, int] = {}
        for s in self.walk():
            counts.setdefault(s, 0)
            for op in s.operands():
                counts[op] = counts.get(op, 0) + 1
        return counts

    def replace_all_uses(self, old: Stmt, new: Stmt) -> None:
        for s in self.walk():
            s.replace_operand(old, new)

    def stmt_count(self) -> int:
        return sum(1 for _ in self.walk())


def walk(block: Block) -> Iterator[Stmt]:
    """Pre-order walk over a snapshot of `block` (safe to edit what has been yielded)."""
    for stmt in list(block.stmts):
        yield stmt
        if stmt.block_fields:
            for inner in stmt.blocks():
                yield from walk(inner)


def walk_backward(block: Block) -> Iterator[Stmt]:
    """Reverse post-order: inner statements before the control statement owning them."""
    for stmt in reversed(list(block.stmts)):
        if stmt.block_fields:
            for inner in reversed(stmt.blocks()):
                yield from walk_backward(inner)
        yield stmt


def pointee(ptr: Stmt) -> PrimitiveType:
    """The scalar type that the pointer statement `ptr` points to."""
    t = ptr.ret_type
    if not isinstance(t, PointerType) or not isinstance(t.pointee, PrimitiveType):
        raise InternalCompilerError(f"{type(ptr).__name__} has type {t}, not a value pointer")
    return t.pointee


def kernel_root(stmt: Stmt) -> Kernel:
    """The `Kernel` that (transitively) contains `stmt`."""
    block = stmt.parent
    while block is not None:
        if block.parent_stmt is None:
            return block.kernel  # type: ignore[attr-defined,no-any-return]
        block = block.parent_stmt.parent
    raise AssertionError(f"{stmt!r} is not inside a kernel")
