"""Transcendental math that vectorises: glibc's vector math library (libmvec).

LLVM widens `llvm.sin.f32` in a vectorised loop and then scalarises it again into eight calls of
`sinf` (about 13x slower than NumPy here), because llvmlite gives no way to switch on a vector
library. What works instead (research notes, part A5):

* call the scalar function under a name LLVM does not know as a libcall, `tistudio_sinf`,
  registered as an alias of libm's `sinf` (so an unvectorised call still gets glibc's result);
* declare that function `memory(none)` with the attribute
  `"vector-function-abi-variant"="_ZGV_LLVM_N8v_tistudio_sinf(_ZGVdN8v_sinf)"`, which tells the
  loop vectoriser that eight lanes at once are `_ZGVdN8v_sinf` from libmvec;
* declare that vector function and keep it alive in `@llvm.compiler.used`, or it is deleted as
  unused before the vectoriser runs.

libmvec is accurate to 4 ulp instead of glibc's ~1, so it is used only with `fast_math`.
"""

from __future__ import annotations

from dataclasses import dataclass

import llvmlite.binding as llvm

from tistudio.backends.llvm import llir as ir
from tistudio.backends.llvm.lltypes import PTR
from tistudio.ir.ops import BinaryOpType, UnaryOpType
from tistudio.ir.types import PrimitiveType

LIBM_NAMES: dict[UnaryOpType | BinaryOpType, str] = {
    UnaryOpType.sin: "sin",
    UnaryOpType.cos: "cos",
    UnaryOpType.tan: "tan",
    UnaryOpType.asin: "asin",
    UnaryOpType.acos: "acos",
    UnaryOpType.tanh: "tanh",
    UnaryOpType.exp: "exp",
    UnaryOpType.log: "log",
    BinaryOpType.atan2: "atan2",
    BinaryOpType.pow: "pow",
}
PREFIX = "tistudio_"
_VARIANT_PREFIX = "_ZGV"


@dataclass(frozen=True)
class VectorLibrary:
    """The libmvec variants of this process: ISA letter (`d` AVX2, `b` SSE4) and lanes per
    float width. Detected once per JIT engine; `None` where libmvec is missing."""

    isa: str
    lanes: tuple[tuple[int, int], ...]  # (bits, lanes)

    @staticmethod
    def detect(cpu_features: str) -> VectorLibrary | None:
        try:
            llvm.load_library_permanently("libmvec.so.1")
        except RuntimeError:
            return None
        avx2 = "+avx2" in cpu_features
        isa, lanes = ("d", ((32, 8), (64, 4))) if avx2 else ("b", ((32, 4), (64, 2)))
        if not llvm.address_of_symbol(f"_ZGV{isa}N{lanes[0][1]}v_sinf"):
            return None
        for libm in LIBM_NAMES.values():
            for suffix in ("f", ""):
                address = llvm.address_of_symbol(libm + suffix)
                if address:  # the same address each time: re-registering is harmless
                    llvm.add_symbol(PREFIX + libm + suffix, address)
        return VectorLibrary(isa, lanes)

    def call(
        self, b: ir.IRBuilder, op: UnaryOpType | BinaryOpType, dtype: PrimitiveType, args: list
    ) -> ir.Value | None:
        """`op(*args)` through libm with a libmvec variant, or None if there is none."""
        lanes = dict(self.lanes).get(dtype.bits)
        if op not in LIBM_NAMES or lanes is None:
            return None
        libm = LIBM_NAMES[op] + ("f" if dtype.bits == 32 else "")
        variant = f"_ZGV{self.isa}N{lanes}{'v' * len(args)}_{libm}"
        if not llvm.address_of_symbol(variant):
            return None
        fn = b.module.globals.get(PREFIX + libm)
        if fn is None:
            fn = _declare(b.module, libm, variant, lanes, args[0].type, len(args))
        return b.call(fn, args, fastmath=("fast",))


def _declare(
    module: ir.Module, libm: str, variant: str, lanes: int, typ: ir.Type, arity: int
) -> ir.Function:
    scalar = ir.Function(module, ir.FunctionType(typ, [typ] * arity), PREFIX + libm)
    scalar.attributes += ["nounwind", "memory(none)"]
    mangled = f"_ZGV_LLVM_N{lanes}{'v' * arity}_{PREFIX}{libm}({variant})"
    scalar.attributes.append(f'"vector-function-abi-variant"="{mangled}"')
    vector = ir.vector_type(typ, lanes)
    ir.Function(module, ir.FunctionType(vector, [vector] * arity), variant)
    return scalar


def keep_variants(module: ir.Module) -> None:
    """Add `@llvm.compiler.used` listing every libmvec function the module declares."""
    variants = [g for name, g in module.globals.items() if name.startswith(_VARIANT_PREFIX)]
    if not variants:
        return
    array = ir.array_type(PTR, len(variants))
    used = ir.GlobalVariable(module, array, "llvm.compiler.used")
    used.linkage = "appending"
    used.section = "llvm.metadata"
    used.initializer = ir.Constant(array, variants)  # a function is a `ptr` constant
