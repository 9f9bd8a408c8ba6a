"""What a kernel's final IR may write: field places and ndarray parameters.

The runtime needs both without the IR (a kernel from the disk cache or an AOT module has none):
the studio redraws the fields a launch may have changed (`written_snodes`), and a launch must
refuse a read-only array for a parameter the kernel writes (`written_ndarrays`): writing through
its pointer changed memory NumPy promised to keep, and killed the process with a segmentation
fault where that memory was mapped read-only (`mmap.ACCESS_READ`, `np.frombuffer` of a
read-only file mapping).
"""

from __future__ import annotations

from tistudio.ir.ops import SNodeOpType
from tistudio.ir.snode import SNode
from tistudio.ir.snode_ops import SNodeCellOp, SNodeOp
from tistudio.ir.statements import AtomicCAS, AtomicOp, ExternalPtr, GetCh, GlobalStore
from tistudio.ir.stmt import Kernel, Stmt


def written_snodes(kernel: Kernel) -> list[SNode]:
    """Place SNodes a kernel may write (for `field_written` events), with those under a sparse
    node it activates or deactivates (their activity, and a pointer's values, change)."""
    found: dict[int, SNode] = {}
    for ptr in _write_targets(kernel):
        if isinstance(ptr, GetCh) and ptr.child.type == "place":
            found[ptr.child.id] = ptr.child
    for stmt in kernel.walk():
        if isinstance(stmt, SNodeOp | SNodeCellOp) and stmt.op in _CHANGES_ACTIVITY:
            found.update((p.id, p) for p in _places_under(stmt.snode))
    return list(found.values())


_CHANGES_ACTIVITY = (SNodeOpType.activate, SNodeOpType.deactivate, SNodeOpType.append)


def _places_under(node: SNode) -> list[SNode]:
    if node.type == "place":
        return [node]
    return [p for child in node.children for p in _places_under(child)]


def written_ndarrays(kernel: Kernel) -> dict[int, str]:
    """Ndarray parameters (by argument id) a kernel may write, each with where it first does
    (`file:line (`source`)`, or "" where the IR kept no location)."""
    found: dict[int, str] = {}
    for ptr in _write_targets(kernel):  # (a vector element's pointer is an ExternalPtr too)
        if isinstance(ptr, ExternalPtr) and ptr.arg_id not in found:
            found[ptr.arg_id] = _where(ptr)
    return found


def _where(stmt: Stmt) -> str:
    loc = stmt.loc
    if loc is None:
        return ""
    source = loc.source_line.strip()
    return f"{loc} (`{source}`)" if source else str(loc)


def _write_targets(kernel: Kernel) -> list[Stmt]:
    targets: list[Stmt] = []
    for stmt in kernel.walk():
        if isinstance(stmt, GlobalStore):
            targets.append(stmt.ptr)
        elif isinstance(stmt, AtomicOp | AtomicCAS):
            targets.append(stmt.dest)
    return targets


def read_only_message(name: str, where: str) -> str:
    """Why a read-only array cannot be argument `name` of a kernel that writes it at `where`
    ("" where unknown)."""
    writes = f"writes it at {where}" if where else "may write it"
    return (
        f"argument {name!r} is a read-only array (flags.writeable is False) and the kernel "
        f"{writes}; pass a writeable copy (arr.copy())"
    )
