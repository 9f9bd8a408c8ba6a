"""The hierarchical SSA IR: types, statements, blocks, printer, parser and verifier."""

from tistudio.ir.ops import AtomicOpType, BinaryOpType, TaskType, TernaryOpType, UnaryOpType
from tistudio.ir.parser import ParseError, parse_ir
from tistudio.ir.printer import print_ir
from tistudio.ir.snode import SNode, finalize_layout
from tistudio.ir.statements import *  # noqa: F403 - the statement classes are the IR's vocabulary
from tistudio.ir.statements import ALL_STATEMENTS, const_of, is_const, normalize_value
from tistudio.ir.stmt import Block, Kernel, Param, SourceLoc, Stmt, walk, walk_backward
from tistudio.ir.verifier import InternalCompilerError, IRVerifyError, verify

__all__ = [
    "ALL_STATEMENTS",
    "AtomicOpType",
    "BinaryOpType",
    "Block",
    "InternalCompilerError",
    "IRVerifyError",
    "Kernel",
    "Param",
    "ParseError",
    "SNode",
    "SourceLoc",
    "Stmt",
    "TaskType",
    "TernaryOpType",
    "UnaryOpType",
    "const_of",
    "finalize_layout",
    "is_const",
    "normalize_value",
    "parse_ir",
    "print_ir",
    "verify",
    "walk",
    "walk_backward",
]
