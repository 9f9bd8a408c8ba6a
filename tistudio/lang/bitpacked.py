"""`ti.BitpackedFields` and quant fields: fields of quantized types, packed into words.

`BitpackedFields(max_num_bits=32)` is one unsigned word per cell; `.place(a, b)` gives each
field the next free bits of it (a quant float its exponent's bits, then its digits'), and
`ti.root.dense(ti.i, n).place(bitpack)` makes it an SNode of kind `bit_struct` whose places are
those fields. `snode.quant_array(ti.i, n, max_num_bits=32)` packs `n` elements of one quant
field into a word instead (`lang/snode.py`). The compiler turns accesses into bit operations
(`passes/lower_quant.py`); Python-scope access runs small kernels (`lang/quant_access.py`), so
the encoding exists once, in the compiler.
"""

from __future__ import annotations

from typing import Any

from tistudio.frontend.errors import TaichiSyntaxError
from tistudio.ir.quant import QuantFloat, QuantType, is_quant
from tistudio.ir.snode import SNode
from tistudio.ir.types import TYPES_BY_NAME, PrimitiveType
from tistudio.lang import quant_access
from tistudio.lang.field import Field


class QuantField(Field):
    """A scalar field of a quant type: its `dtype` is the compute type, `quant` the type."""

    def __init__(self, quant: QuantType, name: str = "") -> None:
        super().__init__(quant.compute, name, companions=False)
        self.quant = quant

    def _attach(self, snode: SNode) -> None:
        container = snode.parent
        assert container is not None
        if container.type == "quant_array":
            used = self.quant.bits * container.num_cells
            if used > container.dtype.bits:
                raise TaichiSyntaxError(
                    f"quant_array of {container.num_cells} elements of {self.quant.bits} bits "
                    f"needs {used} bits, more than max_num_bits={container.dtype.bits}"
                )
        elif container.type != "bit_struct":
            raise TaichiSyntaxError(
                f"a field of quant type {self.quant} must be placed in a ti.BitpackedFields "
                "or a quant_array, not directly in an SNode"
            )
        snode.quant = self.quant
        super()._attach(snode)

    # --- Python scope: each through a kernel, so the bits are the compiler's ----------------

    def __getitem__(self, key: Any) -> Any:
        return quant_access.read(self, self._key(key))

    def __setitem__(self, key: Any, value: Any) -> None:
        quant_access.write(self, self._key(key), value)

    def to_numpy(self, dtype: Any = None) -> Any:
        out = quant_access.to_numpy(self)
        return out if dtype is None else out.astype(dtype)

    def from_numpy(self, arr: Any) -> None:
        quant_access.from_numpy(self, arr)

    def fill(self, value: Any) -> None:  # type: ignore[override]
        quant_access.fill(self, value)

    def copy_from(self, other: Field) -> None:
        self.from_numpy(other.to_numpy())


class BitpackedFields:
    """Quant fields sharing one word per cell (Taichi's bit struct)."""

    def __init__(self, max_num_bits: int) -> None:
        if max_num_bits not in (8, 16, 32, 64):
            raise ValueError(f"max_num_bits must be 8, 16, 32 or 64, got {max_num_bits!r}")
        self.physical: PrimitiveType = TYPES_BY_NAME[f"u{max_num_bits}"]
        self.members: list[tuple[QuantField, int, int, bool]] = []  # field, bits at, exp at
        self.used_bits = 0
        self.placed = False

    def place(self, *fields: Any, shared_exponent: bool = False) -> None:
        """Give each field (each component of a vector or matrix field) the next free bits;
        with `shared_exponent`, the quant floats among them keep one exponent."""
        shared_at = -1
        count = 0
        for f in fields:
            for leaf in f._ti_leaves() if hasattr(f, "_ti_leaves") else [f]:
                if not isinstance(leaf, QuantField):
                    raise TaichiSyntaxError("only fields of quant types can be bit-packed")
                exponent_at = -1
                if isinstance(leaf.quant, QuantFloat):
                    if shared_exponent and shared_at != -1:
                        exponent_at = shared_at
                    else:
                        exponent_at = self._take(leaf.quant.exponent.bits)
                        shared_at = exponent_at if shared_exponent else -1
                at = self._take(leaf.quant.bits)
                shared = shared_exponent and isinstance(leaf.quant, QuantFloat)
                self.members.append((leaf, at, exponent_at, shared))
                count += 1
        if shared_exponent and count <= 1:
            raise TaichiSyntaxError("At least 2 fields need to be placed when shared_exponent=True")

    def _take(self, bits: int) -> int:
        at = self.used_bits
        self.used_bits += bits
        if self.used_bits > self.physical.bits:
            raise TaichiSyntaxError(
                f"BitpackedFields overflows: {self.used_bits} bits used out of "
                f"{self.physical.bits}."
            )
        return at

    def _ti_place_in(self, parent: SNode, new_id: Any, offsets: tuple[int, ...]) -> None:
        """Make the bit_struct SNode under `parent` and its places (`SNodeBuilder.place`)."""
        if self.placed:
            raise RuntimeError("this BitpackedFields is already placed")
        self.placed = True
        word = SNode(new_id(), "bit_struct", parent, dtype=self.physical, tree_id=parent.tree_id)
        parent.children.append(word)
        for leaf, at, exponent_at, shared in self.members:
            snode = word.place(leaf.dtype, new_id(), leaf._name, offsets)
            snode.bit_offset, snode.exponent_bit_offset = at, exponent_at
            snode.shared_exponent = shared
            leaf._attach(snode)


def new_field(dtype: Any, name: str = "") -> Field | None:
    """A `QuantField` when `dtype` is a quant type, else None (`ti.field` makes a `Field`)."""
    return QuantField(dtype, name) if is_quant(dtype) else None
