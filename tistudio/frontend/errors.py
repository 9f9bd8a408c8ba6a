"""User-facing errors, named as Taichi names them (`taichi.lang.exception`, with the same class
hierarchy), compile errors pointing at the user's line.

A message looks like Taichi's: the file and line, the source line, a caret under the column, and
what is wrong. These are the user's mistakes; broken compiler invariants raise
`InternalCompilerError` from `tistudio.ir` instead.
"""

from __future__ import annotations

from tistudio.ir.assertions import TaichiAssertionError, TaichiRuntimeError  # noqa: F401
from tistudio.ir.stmt import SourceLoc
from tistudio.ir.types import TensorType


class TaichiCompilationError(Exception):
    """Base of the errors raised while compiling a kernel."""

    def __init__(self, message: str, loc: SourceLoc | None = None) -> None:
        self.raw_message = message
        self.loc = loc
        super().__init__(format_error(message, loc))


class TaichiSyntaxError(TaichiCompilationError, SyntaxError):
    """Python syntax that kernels do not support, or a misuse of a Taichi construct."""

    def __str__(self) -> str:
        return self.args[0] if self.args else ""


class TaichiArgumentError(TaichiSyntaxError, TypeError):
    """A call whose arguments do not fit the callee's parameters (too many, a name twice, a
    missing one). Taichi raises a TaichiSyntaxError, Python a TypeError; both handlers catch
    this one."""


class TaichiTypeError(TaichiCompilationError, TypeError):
    """An operation on values of types it does not accept."""


class TaichiNameError(TaichiCompilationError, NameError):
    """A name that is not defined where the kernel uses it."""


class TaichiRuntimeTypeError(TaichiRuntimeError, TypeError):
    """A kernel argument or return value that cannot be converted to its declared type."""

    @staticmethod
    def get(pos: int, needed: object, provided: object) -> TaichiRuntimeTypeError:
        """The error for argument number `pos`, worded as Taichi words it."""
        return TaichiRuntimeTypeError(
            f"Argument {pos} (type={provided}) cannot be converted into required type {needed}"
        )

    @staticmethod
    def get_ret(needed: object, provided: object) -> TaichiRuntimeTypeError:
        """The error for a kernel's return value, worded as Taichi words it."""
        return TaichiRuntimeTypeError(
            f"Return (type={provided}) cannot be converted into required type {needed}"
        )


class TaichiAutodiffError(TaichiCompilationError, RuntimeError):
    """A kernel that autodiff cannot differentiate, found while making its adjoint: Taichi's
    autodiff pass reports these from C++ as a RuntimeError ("RandStmt not supported in
    AutoDiff"); this one is caught as either, and points at the user's line."""


class TaichiIndexError(TaichiCompilationError, IndexError):
    """Indices that do not fit what they index (a 2-d ndarray indexed with one index)."""


def element_type_text(dtype: object, element_shape: tuple = ()) -> str:
    """An ndarray's element type as Taichi's messages print it: `f32`, `[Tensor (3) f32]`."""
    return str(TensorType(tuple(element_shape), dtype)) if element_shape else str(dtype)


def matrix_type_text(shape: tuple, dtype: object) -> str:
    """A vector or matrix element annotation as Taichi's messages print it: `VectorType[3,
    f32]`, `MatrixType[2,2, f32]`."""
    kind = "VectorType" if len(shape) == 1 else "MatrixType"
    return f"{kind}[{','.join(map(str, shape))}, {dtype}]"


# What to call a Python construct (and what to do instead) when a kernel may not use it.
CONSTRUCT_HINTS = {
    "ListComp": "list comprehensions; use a ti.static(range(...)) loop or ti.Vector([...])",
    "SetComp": "set comprehensions",
    "DictComp": "dict comprehensions",
    "GeneratorExp": "generator expressions",
    "Lambda": "lambda expressions; define a @ti.func instead",
    "NamedExpr": "assignment expressions (:=); assign on a line of its own",
    "Await": "await",
    "Yield": "yield",
    "FunctionDef": "nested function definitions; define a @ti.func outside the kernel",
    "ClassDef": "class definitions; define the class outside the kernel",
    "Global": "global declarations; pass the value in or use a field",
    "Nonlocal": "nonlocal declarations; pass the value in or use a field",
    "Import": "imports; import at module level",
    "ImportFrom": "imports; import at module level",
    "Raise": "raise; use assert in debug mode, or check arguments before the launch",
    "Try": "try/except",
    "With": "with blocks",
    "Delete": "del",
}


def unsupported(kind: str, node_name: str) -> str:
    """The message for a Python construct kernels do not support: `'Try' statements are not
    supported in Taichi kernels (try/except)`."""
    hint = CONSTRUCT_HINTS.get(node_name)
    quoted = f"'{node_name}'" if kind == "statements" else node_name
    message = f"{quoted} {kind} are not supported in Taichi kernels"
    return f"{message} ({hint})" if hint else message


def format_error(message: str, loc: SourceLoc | None) -> str:
    if loc is None:
        return message
    lines = [f'File "{loc.filename}", line {loc.line}:']
    if loc.source_line:
        stripped = loc.source_line.rstrip()
        indent = len(stripped) - len(stripped.lstrip())
        lines.append("    " + stripped.lstrip())
        lines.append("    " + " " * max(0, loc.col - indent) + "^")
    lines.append(message)
    return "\n".join(lines)
