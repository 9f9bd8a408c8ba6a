"""Offload: split the kernel into tasks (offloaded statements) that run one after another.

A back end launches each task on its own: straight-line top-level code becomes a `serial` task,
each top-level parallel `for i in range(...)` a `range_for` task and each `for I in field` a
`struct_for` task. Tasks share no registers, so a value made in one task and used in a later one
travels through a slot of the kernel's global-temporary buffer (constants, addresses and kernel
arguments are simply recomputed), and a loop bound that is not a constant is written there by the
serial task before the loop, the way Taichi's `offload` pass does it.
"""

from __future__ import annotations

import dataclasses

from tistudio.ir.ops import TaskType, UnaryOpType
from tistudio.ir.statements import (
    Alloca,
    ArgLoad,
    Const,
    ExternalTensorShape,
    GlobalLoad,
    GlobalStore,
    GlobalTemporary,
    LocalLoad,
    LocalStore,
    LoopIndex,
    Offloaded,
    RangeFor,
    StructFor,
    UnaryOp,
)
from tistudio.ir.stmt import Kernel, Stmt, walk, walk_backward
from tistudio.ir.types import DataType, PointerType, PrimitiveType, i32
from tistudio.passes.context import PassContext

_SLOT_ALIGN = 8  # every global temporary starts on an 8-byte boundary
_RECOMPUTED = (Const, ArgLoad, ExternalTensorShape)  # values every task can read for itself


def run(kernel: Kernel, ctx: PassContext) -> bool:
    if all(isinstance(s, Offloaded) for s in kernel.body):
        return False  # empty, or already offloaded
    tasks = _Tasks(kernel.gtmp_size)
    for stmt in kernel.body.take_all():
        tasks.add(stmt)
    kernel.body.extend(tasks.tasks)
    tasks.owner = {s: task for task in tasks.tasks for s in walk(task.body)}
    _promote_shared_allocas(tasks)
    _Importer(tasks).fix_all()
    _erase_unused(kernel, tasks.recomputed)
    for task in tasks.tasks:
        if task.task_type is TaskType.serial and not len(task.body):
            task.erase()
    kernel.gtmp_size = tasks.gtmp_size
    return True


class _Tasks:
    """The tasks being built for one kernel, the owner of every statement, and gtmp slots."""

    def __init__(self, gtmp_size: int) -> None:
        self.tasks: list[Offloaded] = []
        self.serial: Offloaded | None = None  # the serial task still open for statements
        self.owner: dict[Stmt, Offloaded] = {}
        self.bound_slots: dict[Stmt, int] = {}
        self.recomputed: set[Stmt] = set()  # consts/addresses whose uses may have left their task
        self.prelude: dict[Offloaded, list[Stmt]] = {}  # statements to put at a task's start
        self.gtmp_size = gtmp_size

    def allocate(self, dtype: DataType) -> int:
        assert isinstance(dtype, PrimitiveType), f"cannot keep a {dtype} in a global temporary"
        offset = -(-self.gtmp_size // _SLOT_ALIGN) * _SLOT_ALIGN
        self.gtmp_size = offset + dtype.nbytes
        return offset

    def open_serial(self) -> Offloaded:
        if self.serial is None:
            self.serial = Offloaded(TaskType.serial)
            self.tasks.append(self.serial)
        return self.serial

    def add(self, stmt: Stmt) -> None:
        if isinstance(stmt, RangeFor) and not stmt.serialize:
            task = Offloaded(TaskType.range_for, block_dim=stmt.block_dim, loc=stmt.loc)
            task.begin, task.const_begin = self.bound(stmt.begin)
            task.end, task.const_end = self.bound(stmt.end)
        elif isinstance(stmt, StructFor):
            task = Offloaded(TaskType.struct_for, snode=stmt.snode, loc=stmt.loc)
        else:
            self.open_serial().body.append(stmt)
            return
        task.set_block("body", stmt.body)  # type: ignore[attr-defined]
        for inner in walk(task.body):
            if isinstance(inner, LoopIndex) and inner.loop is stmt:
                inner.loop = task
        self.tasks.append(task)
        self.serial = None

    def bound(self, value: Stmt) -> tuple[int, bool]:
        """(value, True) for a constant bound; else (gtmp offset, False), stored before the loop."""
        if isinstance(value, Const):
            self.recomputed.add(value)
            return int(value.value), True
        if value not in self.bound_slots:
            body = self.open_serial().body
            self.bound_slots[value] = offset = self.allocate(i32)
            stored = value
            if value.ret_type != i32:
                stored = body.append(UnaryOp(UnaryOpType.cast_value, value, ret_type=i32))
            tmp = body.append(GlobalTemporary(offset, ret_type=PointerType(i32)))
            body.append(GlobalStore(tmp, stored, loc=value.loc))
        return self.bound_slots[value], False


def _promote_shared_allocas(tasks: _Tasks) -> None:
    """A local variable used by several tasks becomes a global temporary, one address per task."""
    users: dict[Alloca, list[Stmt]] = {}
    for task in tasks.tasks:
        for stmt in walk(task.body):
            for op in stmt.operands():
                if isinstance(op, Alloca):
                    users.setdefault(op, []).append(stmt)
    for alloca, stmts in users.items():
        if all(tasks.owner[s] is tasks.owner[alloca] for s in stmts):
            continue
        assert isinstance(alloca.ret_type, PointerType)
        offset = tasks.allocate(alloca.ret_type.pointee)
        slot_in: dict[Offloaded, GlobalTemporary] = {}
        for user in stmts:
            task = tasks.owner[user]
            if task not in slot_in:
                slot_in[task] = GlobalTemporary(offset, ret_type=alloca.ret_type, loc=alloca.loc)
                tasks.prelude.setdefault(task, []).append(slot_in[task])
            _retarget(user, alloca, slot_in[task], tasks)
        alloca.erase()


def _retarget(user: Stmt, alloca: Alloca, tmp: GlobalTemporary, tasks: _Tasks) -> None:
    user.replace_operand(alloca, tmp)
    if isinstance(user, LocalLoad):
        new: Stmt = GlobalLoad(tmp, ret_type=user.ret_type, loc=user.loc)
    elif isinstance(user, LocalStore):
        new = GlobalStore(tmp, user.value, loc=user.loc)
    else:
        return
    tasks.owner[new] = tasks.owner[user]
    user.replace_with(new)


class _Importer:
    """Makes every operand visible in the task that uses it (clone, or store-and-reload)."""

    def __init__(self, tasks: _Tasks) -> None:
        self.tasks = tasks
        self.imported: dict[tuple[Stmt, Offloaded], Stmt] = {}
        self.stored: dict[Stmt, int] = {}  # value -> offset of the slot it was stored to

    def fix_all(self) -> None:
        for task in self.tasks.tasks:
            for stmt in walk(task.body):
                for op in stmt.operands():
                    if self.tasks.owner.get(op, task) is not task:
                        stmt.replace_operand(op, self.value_in(op, task))
            task.body.insert(0, *self.tasks.prelude.get(task, []))

    def value_in(self, value: Stmt, task: Offloaded) -> Stmt:
        key = (value, task)
        if key not in self.imported:
            self.imported[key] = self._import(value, task)
        return self.imported[key]

    def _import(self, value: Stmt, task: Offloaded) -> Stmt:
        prelude = self.tasks.prelude.setdefault(task, [])
        if isinstance(value, _RECOMPUTED) or isinstance(value.ret_type, PointerType):
            # constants, arguments and addresses are cheaper to recompute than to store
            copy = _clone(value)
            for op in copy.operands():
                copy.replace_operand(op, self.value_in(op, task))
            self.tasks.recomputed.add(value)
            prelude.append(copy)
            return copy
        tmp = GlobalTemporary(self._slot_of(value), ret_type=PointerType(value.ret_type))
        load = GlobalLoad(tmp, ret_type=value.ret_type, loc=value.loc)
        prelude.extend([tmp, load])
        return load

    def _slot_of(self, value: Stmt) -> int:
        """Store `value` to a fresh slot right after it is computed (once)."""
        if value not in self.stored:
            assert value.ret_type is not None
            offset = self.tasks.allocate(value.ret_type)
            tmp = GlobalTemporary(offset, ret_type=PointerType(value.ret_type), loc=value.loc)
            value.insert_after(tmp, GlobalStore(tmp, value, loc=value.loc))
            self.stored[value] = offset
        return self.stored[value]


def _erase_unused(kernel: Kernel, candidates: set[Stmt]) -> None:
    """Erase the recomputed statements that no task uses any more (users before operands)."""
    uses = kernel.use_counts()
    for stmt in walk_backward(kernel.body):
        if stmt in candidates and not uses[stmt]:
            for op in stmt.operands():
                uses[op] -= 1
            stmt.erase()


def _clone(stmt: Stmt) -> Stmt:
    assert not stmt.block_fields, f"cannot clone {type(stmt).__name__} into another task"
    lists = {n: list(v) for n in stmt.operand_fields if isinstance(v := getattr(stmt, n), list)}
    return dataclasses.replace(stmt, parent=None, **lists)  # type: ignore[arg-type]
