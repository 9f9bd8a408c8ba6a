"""Reverse mode for global memory and atomics (the part of `ReverseBlock` that touches fields).

A load `v = x[i]` sends v's adjoint to `x.grad[i]` with an atomic add (other threads may read
x[i] too). An overwriting store `x[i] = v` hands `x.grad[i]` to v and zeroes it, since the old
value of x[i] no longer reaches the output; an atomic `x[i] += v` hands it on and keeps it. The
forward stores and atomics into fields with gradients are dropped from the adjoint kernel, so it
leaves the primal outputs as they are; fields without gradients keep theirs, as in Taichi.
"""

from __future__ import annotations

from tistudio.ir.ops import AtomicOpType, UnaryOpType
from tistudio.ir.statements import (
    Alloca,
    AtomicOp,
    ExternalPtr,
    GlobalLoad,
    GlobalPtr,
    GlobalStore,
)
from tistudio.ir.stmt import Stmt, pointee
from tistudio.passes.autodiff.common import forbid
from tistudio.passes.autodiff.rules import is_real


class MemoryAdjoints:
    """Mixed into `ReverseBlock`, whose `emit`, `primal`, `accumulate`, `read_adjoint`,
    `builder`, `used`, `erased` and `grad_args` (ndarray argument -> its `.grad` argument)
    these methods use."""

    def _has_grad(self, ptr: Stmt) -> bool:
        if isinstance(ptr, GlobalPtr):
            return ptr.snode.adjoint is not None
        return isinstance(ptr, ExternalPtr) and ptr.arg_id in self.grad_args

    def _grad_ptr(self, ptr: Stmt) -> Stmt:
        """The address of the gradient of the element at `ptr`: `x.grad[i]` for a field,
        `arr.grad[i]` (passed as one more ndarray argument) for an ndarray."""
        indices = [self.primal(i) for i in ptr.indices]
        if isinstance(ptr, GlobalPtr):
            return self.emit(GlobalPtr(ptr.snode.adjoint, indices, ret_type=ptr.ret_type))
        return self.emit(ExternalPtr(self.grad_args[ptr.arg_id], indices, ret_type=ptr.ret_type))

    def reverse_GlobalLoad(self, stmt: GlobalLoad) -> None:
        adj = self.read_adjoint(stmt) if self._has_grad(stmt.ptr) and is_real(stmt) else None
        if adj is not None:
            ptr = self._grad_ptr(stmt.ptr)
            self.emit(AtomicOp(AtomicOpType.add, ptr, adj, ret_type=adj.ret_type))

    def _grad_of_dest(self, dest: Stmt) -> tuple[Stmt, Stmt] | None:
        """The address and value of `x.grad[i]` for a written `x[i]`, or None without grad."""
        if not self._has_grad(dest):
            return None
        ptr = self._grad_ptr(dest)
        return ptr, self.emit(GlobalLoad(ptr, ret_type=pointee(ptr)))

    def reverse_GlobalStore(self, stmt: GlobalStore) -> None:
        """`x[i] = v` overwrote x[i]: v takes x.grad[i], which then restarts from zero."""
        found = self._grad_of_dest(stmt.ptr)
        if found is None:
            return  # a field without gradient keeps its store, as in Taichi
        ptr, grad = found
        self.erased.append(stmt)
        self.accumulate(stmt.value, grad)
        self.emit(GlobalStore(ptr, self.builder.const(0.0, grad.ret_type)))

    def reverse_AtomicOp(self, stmt: AtomicOp) -> None:
        """`x[i] += v` adds x.grad[i] to v's adjoint (`-=` subtracts it) and keeps x.grad."""
        if isinstance(stmt.dest, Alloca):
            self.reverse_local_atomic(stmt)
            return
        found = self._grad_of_dest(stmt.dest) if is_real(stmt.val) else None
        if found is None:
            return
        if stmt.op not in (AtomicOpType.add, AtomicOpType.sub):
            forbid(
                stmt, f"atomic {stmt.op.value} on a field with gradients cannot be differentiated"
            )
        if stmt in self.used:
            forbid(
                stmt,
                "the old value of an atomic on a field with gradients cannot be differentiated",
            )
        grad = found[1]
        self.erased.append(stmt)
        if stmt.op is AtomicOpType.sub:
            grad = self.builder.un(UnaryOpType.neg, grad)
        self.accumulate(stmt.val, grad)

    def reverse_local_atomic(self, stmt: AtomicOp) -> None:
        adj = self.read_adjoint(stmt.dest) if is_real(stmt.val) else None
        if adj is None:
            return
        if stmt.op not in (AtomicOpType.add, AtomicOpType.sub):
            forbid(stmt, f"atomic {stmt.op.value} on a local variable cannot be differentiated")
        self.accumulate(
            stmt.val, adj if stmt.op is AtomicOpType.add else self.builder.un(UnaryOpType.neg, adj)
        )
