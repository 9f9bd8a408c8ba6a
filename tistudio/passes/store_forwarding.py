"""Store-to-load forwarding and dead-store elimination (store_forwarding).

`lower_ast` gives every Python variable a memory slot (`alloca`) and reads it with a `local load`
each time the variable is used. When we know which value was last stored in the slot, the load is
replaced by that value, so most variables dissolve into plain SSA values (Taichi does this in
`cfg_optimization`). A store that is overwritten before anything reads it, or whose slot is never
read at all, is deleted. Loops need care: a load in a loop body may see a store from the previous
iteration, so a value stored before the loop is forwarded only if the loop never stores the slot.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tistudio.ir.statements import (
    Alloca,
    AtomicOp,
    FuncCall,
    GlobalLoad,
    GlobalStore,
    If,
    LocalLoad,
    LocalStore,
    Offloaded,
)
from tistudio.ir.stmt import Block, Kernel, Stmt
from tistudio.passes.context import PassContext
from tistudio.passes.util import erase_all, redirect_operands


def run(kernel: Kernel, ctx: PassContext) -> bool:
    forwarding = _Forwarding(kernel)
    forwarding.block(kernel.body, {})
    dead = forwarding.dead | forwarding.unread_stores()
    erase_all(dead)
    return bool(dead)


@dataclass
class _BlockState:
    """What is known while walking one block, in program order."""

    known: dict[Stmt, Stmt]  # alloca -> value it holds now
    pending: dict[Stmt, LocalStore] = field(default_factory=dict)  # alloca -> store not yet read
    globals: dict[Stmt, Stmt] = field(default_factory=dict)  # global pointer -> value stored
    reads: set[Stmt] = field(default_factory=set)  # allocas whose memory was read
    jumps: bool = False  # a break/continue/return leaves the block early


class _Forwarding:
    """One run of the pass over one kernel."""

    def __init__(self, kernel: Kernel) -> None:
        self.loads: dict[Stmt, int] = {}  # tracked alloca -> number of loads left
        self.stores: dict[Stmt, list[LocalStore]] = {}
        self.written: dict[Stmt, set[Stmt]] = {}  # control statement -> allocas stored inside
        self.replaced: dict[Stmt, Stmt] = {}
        self.dead: set[Stmt] = set()
        escaped: set[Stmt] = set()
        self._scan(kernel.body, escaped)
        # track allocas used only as the address of loads and stores (no atomics, no escapes)
        for alloca in escaped | (self.loads.keys() - self.stores.keys()):
            self.loads.pop(alloca, None)
            self.stores.pop(alloca, None)
        for alloca in self.stores:
            self.loads.setdefault(alloca, 0)

    def _scan(self, block: Block, escaped: set[Stmt]) -> set[Stmt]:
        """Count loads, collect stores, and return the allocas stored anywhere in `block`."""
        written: set[Stmt] = set()
        for stmt in block.stmts:
            for op in stmt.operands():
                if not isinstance(op, Alloca):
                    continue
                if isinstance(stmt, LocalLoad):
                    self.loads[op] = self.loads.get(op, 0) + 1
                elif isinstance(stmt, LocalStore) and op is stmt.ptr and op is not stmt.value:
                    self.stores.setdefault(op, []).append(stmt)
                    written.add(op)
                else:
                    escaped.add(op)
            if stmt.block_fields:
                inner = set().union(*(self._scan(b, escaped) for b in stmt.blocks()))
                self.written[stmt] = inner
                written |= inner
        return written

    def unread_stores(self) -> set[Stmt]:
        """Stores into allocas that no load is left to read."""
        return {s for a, n in self.loads.items() if n == 0 for s in self.stores[a]}

    # --- the walk ------------------------------------------------------------------------

    def block(self, block: Block, known: dict[Stmt, Stmt]) -> _BlockState:
        state = _BlockState(dict(known))
        for stmt in block.stmts:
            redirect_operands(stmt, self.replaced)
            if stmt.blocks():
                self.control(stmt, state)
            elif isinstance(stmt, LocalLoad):
                self.local_load(stmt, state)
            elif isinstance(stmt, LocalStore):
                self.local_store(stmt, state)
            elif isinstance(stmt, GlobalLoad) and stmt.ptr in state.globals:
                self.forward(stmt, state.globals[stmt.ptr])
            elif isinstance(stmt, (GlobalStore, AtomicOp, FuncCall)):
                # any global pointer may alias any other, and a call may write any of them:
                # forget all but this store
                state.globals = {stmt.ptr: stmt.value} if isinstance(stmt, GlobalStore) else {}
            elif stmt.jumps:  # break, continue, return
                state.jumps = True
                state.pending.clear()
        return state

    def forward(self, load: Stmt, value: Stmt) -> None:
        self.replaced[load] = value
        self.dead.add(load)

    def local_load(self, load: LocalLoad, state: _BlockState) -> None:
        value = state.known.get(load.ptr)
        if value is not None:
            self.forward(load, value)
            self.loads[load.ptr] -= 1
        else:
            state.reads.add(load.ptr)
            state.pending.pop(load.ptr, None)

    def local_store(self, store: LocalStore, state: _BlockState) -> None:
        if store.ptr not in self.stores:
            return
        earlier = state.pending.get(store.ptr)
        if earlier is not None:  # overwritten before anything read it
            self.dead.add(earlier)
        state.pending[store.ptr] = store
        state.known[store.ptr] = store.value

    def control(self, stmt: Stmt, state: _BlockState) -> None:
        written = self.written[stmt]
        if isinstance(stmt, Offloaded):  # a task starts with nothing known
            entry: dict[Stmt, Stmt] = {}
        elif isinstance(stmt, If):  # each branch runs at most once, right after this point
            entry = state.known
        else:
            # a loop body may run again after storing: only slots it never stores stay known
            entry = {a: v for a, v in state.known.items() if a not in written}
        for inner in stmt.blocks():
            inner_state = self.block(inner, entry)
            state.reads |= inner_state.reads
            state.jumps |= inner_state.jumps
            for alloca in inner_state.reads:
                state.pending.pop(alloca, None)
            if inner_state.jumps:
                state.pending.clear()
        for alloca in written:
            state.known.pop(alloca, None)
        state.globals.clear()
