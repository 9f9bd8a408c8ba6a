"""Helpers for the CPU back-end tests: final IR as text -> a launchable executable.

`compile_text` parses kernel IR text (the printer's format), sets the kernel's parameters,
return types and global-temporary size, verifies it and compiles it. `Tree` builds a real SNode
tree (root -> dense -> one place per field) over a NumPy buffer, so tests read and write fields
as NumPy views while kernels address them through `get root`/`lookup`/`get child`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import numpy as np

from tistudio.backends.llvm import CpuBackend, CpuExecutable
from tistudio.ir import Param, SNode, finalize_layout, parse_ir, verify
from tistudio.ir.config import CompileConfig
from tistudio.ir.types import DataType, PrimitiveType, parse_type

# y[i] = a * x[i] + y[i] over ndarrays x (arg 1) and y (arg 2) of 100000 f32, a = arg 0
SAXPY = """
$0 = offloaded range_for(0, 100000) body {
  <i32> $1 = loop $0 index 0
  <*f32> $2 = external_ptr arg 1, [$1]
  <*f32> $3 = external_ptr arg 2, [$1]
  <f32> $4 = argload[0]
  <f32> $5 = global load $2
  <f32> $6 = mul $4 $5
  <f32> $7 = global load $3
  <f32> $8 = add $6 $7
  $9 : global store [$3 <- $8]
}
"""


def kernel_text(body: str) -> str:
    body = textwrap.dedent(body).strip("\n")
    if body.lstrip().startswith("kernel {"):
        return body
    return "kernel {\n" + textwrap.indent(body, "  ") + "\n}"


def compile_text(
    backend: CpuBackend,
    body: str,
    *,
    params: Sequence[Param] = (),
    ret_types: Sequence[DataType | str] = (),
    gtmp_size: int = 0,
    snodes: dict[int, SNode] | None = None,
    config: CompileConfig | None = None,
) -> CpuExecutable:
    kernel = parse_ir(kernel_text(body), snodes)
    kernel.params = list(params)
    kernel.ret_types = [parse_type(t) if isinstance(t, str) else t for t in ret_types]
    kernel.gtmp_size = gtmp_size
    verify(kernel, after="(test input)")
    return backend.compile(kernel, config or CompileConfig())


def scalar(name: str, dtype: str) -> Param:
    return Param(name, "scalar", parse_type(dtype))


def ndarray(name: str, dtype: str, ndim: int) -> Param:
    return Param(name, "ndarray", parse_type(dtype), ndim)


class Tree:
    """SNode tree 0: `root -> dense(n) -> place(dtype)` per field; memory is a NumPy buffer.

    SNode ids: root 0, dense 1, fields 2, 3, ... in the order given. `ptr(k, index)` is the IR
    text that addresses field k at the value `index` (a `$n` name); it defines `$base..`.
    """

    def __init__(self, n: int, *dtypes: str) -> None:
        self.root = SNode(0, "root")
        self.dense = self.root.dense((0,), (n,), 1)
        self.places = [self.dense.place(parse_type(t), 2 + k) for k, t in enumerate(dtypes)]
        nbytes = finalize_layout(self.root)
        self.memory = np.zeros(nbytes // 8 + 1, np.int64).view(np.uint8)
        self.n = n

    @property
    def snodes(self) -> dict[int, SNode]:
        return {s.id: s for s in (self.root, self.dense, *self.places)}

    @property
    def roots(self) -> list[int]:
        return [self.memory.ctypes.data]

    def field(self, k: int) -> np.ndarray:
        """A writable NumPy view of field k (strided: fields share cells)."""
        place = self.places[k]
        dtype = np.dtype(place.dtype.numpy_name)
        return np.ndarray(
            (self.n,),
            dtype,
            buffer=self.memory,
            offset=place.offset_in_parent_cell,
            strides=(self.dense.cell_size,),
        )

    def ptr_text(self, k: int, index: str, first: int) -> tuple[str, str]:
        """IR lines addressing field k at `index` (a `$n`), numbered from `$first` (ids need
        not be consecutive, so pick a range no other line uses); and the pointer's name."""
        place = self.places[k]
        a, b, c, d, e, f = range(first, first + 6)
        lines = (
            f"<*gen> ${a} = get root [tree 0]\n"
            f"<i32> ${b} = const 0\n"
            f"<*gen> ${c} = [S0root]::lookup(${a}, ${b})\n"
            f"<*gen> ${d} = get child [S1dense] ${c}\n"
            f"<*gen> ${e} = [S1dense]::lookup(${d}, {index})\n"
            f"<*{place.dtype}> ${f} = get child [{place.ref()}] ${e}\n"
        )
        return lines, f"${f}"


def np_dtype(dtype: str | PrimitiveType) -> np.dtype:
    t = parse_type(dtype) if isinstance(dtype, str) else dtype
    return np.dtype(t.numpy_name)
