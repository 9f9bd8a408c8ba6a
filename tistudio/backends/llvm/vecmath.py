"""Transcendental math that vectorises: glibc's vector math library (libmvec), with the same
value for an argument wherever it is computed. Only with `ti.init(approx_math=True)`.

LLVM widens `llvm.sin.f32` in a vectorised loop and then scalarises it again into eight calls of
`sinf` (about 13x slower than NumPy here), because llvmlite gives no way to switch on a vector
library. What works instead (research notes, part A5):

* call a scalar function under a name LLVM does not know as a libcall, `tistudio_sinf`;
* give it the attribute `"vector-function-abi-variant"`, here
  `"_ZGV_LLVM_N8v_tistudio_sinf(_ZGVdN8v_sinf)"`, which tells the loop vectoriser that eight
  lanes at once are `_ZGVdN8v_sinf` from libmvec.

`tistudio_sinf` itself is lane 0 of `_ZGVdN8v_sinf` on its argument splatted to every lane,
defined in each module that calls it (internal, never inlined, so the vectoriser sees a call it
can widen). So the quick tier, which vectorises nothing, the scalar remainder of a vectorised
loop and its vector body all give libmvec's value. When it was an alias of glibc's `sinf`, they
gave glibc's and the vector body libmvec's, which differ in 1% (powf) to 42% (cos) of the
arguments of `tests/backends/llvm/test_vecmath.py`: the tier and an element's place in its loop
changed the bits. libmvec's lanes are independent (a lane's result depends on that lane's
arguments only, also where NaN, infinities or huge arguments send some lanes to its scalar
fallback: the same test), so lane 0 of a splat is what any lane gives. A definition in each
module, not one per JIT engine registered with `llvm.add_symbol`, keeps object code
self-contained (the disk cache, AOT modules, C programs) and lets engines for different CPUs
share a process: the AVX2 (`d`) and SSE4 (`b`) variants differ in up to 9% of values (cosf).

libmvec is accurate to 4 ulp instead of glibc's ~1, so it is used only with `approx_math`.
"""

from __future__ import annotations

from dataclasses import dataclass

import llvmlite.binding as llvm

from tistudio.backends.llvm import llir as ir
from tistudio.backends.llvm.lltypes import I32
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
        if "+avx2" in cpu_features:
            library = VectorLibrary("d", ((32, 8), (64, 4)))
        else:
            library = VectorLibrary("b", ((32, 4), (64, 2)))
        return library if llvm.address_of_symbol(library.variant("sinf", 32, 1)) else None

    def variant(self, libm: str, bits: int, arity: int) -> str:
        """The libmvec name of `libm` (`sinf`, `pow`) on this ISA's lanes of `bits`-bit floats."""
        return f"_ZGV{self.isa}N{dict(self.lanes)[bits]}{'v' * arity}_{libm}"

    def call(
        self, b: ir.IRBuilder, op: UnaryOpType | BinaryOpType, dtype: PrimitiveType, args: list
    ) -> ir.Value | None:
        """`op(*args)` as libmvec computes it, or None where libmvec has no variant."""
        if op not in LIBM_NAMES or dtype.bits not in dict(self.lanes):
            return None
        libm = LIBM_NAMES[op] + ("f" if dtype.bits == 32 else "")
        variant = self.variant(libm, dtype.bits, len(args))
        if not llvm.address_of_symbol(variant):
            return None
        fn = b.module.globals.get(PREFIX + libm)
        if fn is None:
            lanes = dict(self.lanes)[dtype.bits]
            fn = _define_scalar(b.module, libm, variant, lanes, args[0].type, len(args))
        return b.call(fn, args)


def _define_scalar(
    module: ir.Module, libm: str, variant: str, lanes: int, typ: ir.Type, arity: int
) -> ir.Function:
    """`tistudio_<libm>`: lane 0 of `variant` on its arguments splatted to every lane."""
    vector = ir.vector_type(typ, lanes)
    vector_fn = module.globals.get(variant)
    if vector_fn is None:
        vector_fn = ir.Function(module, ir.FunctionType(vector, [vector] * arity), variant)
    scalar = ir.Function(module, ir.FunctionType(typ, [typ] * arity), PREFIX + libm)
    scalar.linkage = "internal"
    mangled = f"_ZGV_LLVM_N{lanes}{'v' * arity}_{PREFIX}{libm}({variant})"
    abi_variant = f'"vector-function-abi-variant"="{mangled}"'
    scalar.attributes += ["nounwind", "noinline", "memory(none)", abi_variant]
    b = ir.IRBuilder(scalar.append_basic_block("entry"))
    splats = []
    for x in scalar.args:
        splat = ir.Constant(vector, "poison")
        for lane in range(lanes):
            splat = b.insert_element(splat, x, ir.Constant(I32, lane))
        splats.append(splat)
    b.ret(b.extract_element(b.call(vector_fn, splats), ir.Constant(I32, 0)))
    return scalar
