"""IR functions on the CPU: each recursive real function as an internal LLVM function.

ABI: `internal <ret> @<prefix>_fn_<name>(ptr ctx, <params>...)`. `ctx` is the argument buffer
of the task that calls it (`context.py`), so the body reaches tree roots, global temporaries and
the print buffer as a task body does; the parameters are scalar values in the order of the IR
function's `params` (a vector or struct element by element), and the one return value, if any,
is the function's result. A call is a native call: recursion runs on the calling thread's
stack (the thread pool's Python threads have the platform's 8 MiB; a small function's frame
is well under 100 bytes, so depth 1000 is far from it).
"""

from __future__ import annotations

from tistudio.backends.errors import UnsupportedOnBackend
from tistudio.backends.llvm import llir as ir
from tistudio.backends.llvm.codegen import BACKEND, TaskEmitter
from tistudio.backends.llvm.context import ContextLayout
from tistudio.backends.llvm.lltypes import PTR, VOID, constant, value_type
from tistudio.ir import statements as s
from tistudio.ir.assertions import kernel_asserts
from tistudio.ir.calls import Function
from tistudio.ir.printing import print_formats
from tistudio.ir.stmt import Kernel, Stmt


def declare_functions(module: ir.Module, kernel: Kernel, prefix: str) -> dict[str, ir.Function]:
    """An LLVM function (a declaration, until `FunctionEmitter` fills it) per IR function of
    `kernel`, by the IR function's name: declared first, so any body can call any of them."""
    declared: dict[str, ir.Function] = {}
    for function in kernel.functions:
        ret = value_type(function.ret_types[0]) if function.ret_types else VOID
        params = [PTR, *(value_type(p.dtype) for p in function.params)]
        llvm_function = ir.Function(
            module, ir.FunctionType(ret, params), f"{prefix}_fn_{function.name}"
        )
        llvm_function.linkage = "internal"
        declared[function.name] = llvm_function
    return declared


class FunctionEmitter(TaskEmitter):
    """Emits one IR function's body into its declared LLVM function. Made per function."""

    def __init__(
        self,
        kernel: Kernel,
        function: Function,
        callees: dict[str, ir.Function],
        layout: ContextLayout,
        numbers: dict[Stmt, int],
    ) -> None:
        self.begin(callees[function.name], layout, numbers)
        self.kernel, self.ir_function = kernel, function
        self.callees = callees
        for param, arg in zip(function.params, self.function.args[1:]):
            arg.name = param.name
        # prints and checks are numbered over the whole kernel, its functions included
        if any(isinstance(x, s.Print) for x in function.walk()):
            self.print_ids.update(print_formats(kernel)[1])
        if any(isinstance(x, s.Assert) for x in function.walk()):
            self.assert_numbers.update((a, k) for k, a in enumerate(kernel_asserts(kernel)))

    def build(self) -> ir.Function:
        self.block(self.ir_function.body)
        # the body ends with its `return`; the builder is left in an unreachable block
        self.abandon()
        self.entry.branch(self.start)
        return self.function

    def abandon(self) -> None:
        """After a failed debug check: return a zero to the caller, which carries on (every
        access has its own check, so none goes out of bounds) until the task ends; the host
        reports the first failure after the launch."""
        ret_types = self.ir_function.ret_types
        if ret_types:
            self.builder.ret(constant(ret_types[0], 0))
        else:
            self.builder.ret_void()

    def emit_ArgLoad(self, stmt: s.ArgLoad) -> None:
        self.values[stmt] = self.function.args[1 + stmt.arg_id]

    def emit_Return(self, stmt: s.Return) -> None:
        if stmt.values:
            self.builder.ret(self.values[stmt.values[0]])
        else:
            self.builder.ret_void()
        self.dead_block()

    def emit_Rand(self, stmt: s.Rand) -> None:
        raise UnsupportedOnBackend(
            stmt, BACKEND, "ti.random() in a ti.real_func that calls itself (not supported yet)"
        )
