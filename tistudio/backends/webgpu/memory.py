"""Loads, stores and atomics on storage buffers, as WGSL lines (a mixin of `TaskEmitter`).

A global pointer is a `Ptr`: a buffer (resource) and a byte offset (a `u32` expression). 32- and
64-bit values go through a view of their own type; 8- and 16-bit values live inside a `u32`
word: a load extracts their bits, and a store changes only their bits with `atomicAnd` and
`atomicOr`, so threads that write neighbouring bytes of one word do not lose each other's
writes. Atomics are native where WGSL has them (`atomicAdd` on `i32`/`u32`, on `f32` with
`shader-float32-atomic`, on 64-bit integers with `shader-int64-atomic-all-ops`) and otherwise
a compare-exchange loop on the integer bits of the value (`mul`, float `max`/`min`, `f64`,
narrow types and `f16`, which change their half of a `u32` word).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from tistudio.backends.webgpu import wgsl
from tistudio.backends.webgpu.resources import ShaderResources, view_bytes, view_name
from tistudio.ir.ops import AtomicOpType as A
from tistudio.ir.types import PrimitiveType


@dataclass(frozen=True)
class Ptr:
    """A global address: byte `offset` (a u32 WGSL expression) into buffer `resource`."""

    resource: str
    offset: str


class Unexpressible(Exception):
    """Raised by the memory helpers; the emitter re-raises it as `UnsupportedOnBackend`."""


_NATIVE_ATOMIC = {
    A.add: "atomicAdd",
    A.sub: "atomicSub",
    A.max: "atomicMax",
    A.min: "atomicMin",
    A.bit_and: "atomicAnd",
    A.bit_or: "atomicOr",
    A.bit_xor: "atomicXor",
}
_F32_NATIVE = {A.add, A.sub}  # what shader-float32-atomic gives atomic<f32>
_BOOL_SAFE = {A.max, A.min, A.bit_and, A.bit_or, A.bit_xor}


class MemoryEmitter:
    """Memory access for one task's shader; needs `line`, `fresh`, `resources` from its host."""

    resources: ShaderResources
    line: Callable[[str], None]
    fresh: Callable[[str], str]
    indent: Callable[[], object]

    # --- views and windows --------------------------------------------------------------

    def access(self, ptr: Ptr, view: str, write: bool, body: Callable[[str], list[str]]) -> None:
        """Emit `body(ref)` for the element of `view` at `ptr`, `ref` being `name[index]`;
        a windowed buffer gets one branch per window."""
        shift = view_bytes(view).bit_length() - 1
        constant = re.fullmatch(r"(\d+)u", ptr.offset)
        offset = ptr.offset if re.fullmatch(r"\w+", ptr.offset) else f"({ptr.offset})"
        index = f"{int(constant[1]) >> shift}u" if constant else f"({offset} >> {shift}u)"
        lane = ""  # the component, when a scalar goes through the buffer's vec4 view
        vector = self.resources.vector_view(ptr.resource, view)
        if vector is not None:
            lane = f"[{int(constant[1]) >> 2 & 3}u]" if constant else f"[{index} & 3u]"
            index = f"{int(constant[1]) >> 4}u" if constant else f"({index} >> 2u)"
            view = vector
        self.resources.use(ptr.resource, view, write)
        windows = self.resources.windows_of(ptr.resource)
        if windows == 1:
            for text in body(f"{view_name(ptr.resource, view, 0, 1)}[{index}]{lane}"):
                self.line(text)
            return
        per_window = self.resources.caps.window_bytes // view_bytes(view)
        at = self.fresh("at")
        self.line(f"let {at}: u32 = {index};")
        for w in range(windows):
            ref = f"{view_name(ptr.resource, view, w, windows)}[{at} - {w * per_window}u]{lane}"
            if w == 0:
                self.line(f"if ({at} < {per_window}u) {{")
            elif w < windows - 1:
                self.line(f"}} else if ({at} < {(w + 1) * per_window}u) {{")
            else:
                self.line("} else {")
            with self.indent():
                for text in body(ref):
                    self.line(text)
        self.line("}")

    def load_global(self, name: str, ptr: Ptr, dtype: PrimitiveType) -> None:
        """`let name: T = *ptr;` (a `var` filled per window when the buffer is windowed)."""
        reg = wgsl.wgsl_type(dtype)
        if wgsl.is_narrow(dtype) or dtype.kind == "bool":
            word = self.fresh("word")
            self.line(f"var {word}: u32;")
            self.access(ptr, "u32", False, lambda ref: [f"{word} = {ref};"])
            self.line(f"let {name}: {reg} = {_extract(word, ptr, dtype)};")
            return
        view = _plain_view(dtype)
        if self.resources.windows_of(ptr.resource) == 1:
            self.access(ptr, view, False, lambda ref: [f"let {name}: {reg} = {ref};"])
            return
        self.line(f"var {name}: {reg};")
        self.access(ptr, view, False, lambda ref: [f"{name} = {ref};"])

    def store_global(self, ptr: Ptr, dtype: PrimitiveType, value: str) -> None:
        if wgsl.is_narrow(dtype) or dtype.kind == "bool":
            mask, bits = _bit_mask(ptr, dtype)
            pattern = _pattern(value, dtype)

            def body(ref: str) -> list[str]:
                return [f"atomicAnd(&{ref}, ~{mask});", f"atomicOr(&{ref}, {pattern} << {bits});"]

            self.access(ptr, "au32", True, body)
            return
        self.access(ptr, _plain_view(dtype), True, lambda ref: [f"{ref} = {value};"])

    # --- atomics ------------------------------------------------------------------------

    def atomic_global(self, name: str, op: A, ptr: Ptr, dtype: PrimitiveType, value: str) -> None:
        """`name` = the old value; `*ptr = old op value`, atomically."""
        reg = wgsl.wgsl_type(dtype)
        native = self._native_view(op, dtype)
        self.line(f"var {name}: {reg};")
        if native is not None:
            fn = _NATIVE_ATOMIC[op]
            self.access(ptr, native, True, lambda ref: [f"{name} = {fn}(&{ref}, {value});"])
            return
        if dtype.kind == "bool" and op not in _BOOL_SAFE:
            raise Unexpressible(f"atomic {op.value} on {dtype}")
        self.cas_loop(name, op, ptr, dtype, value)

    def compare_exchange(
        self, name: str, ptr: Ptr, dtype: PrimitiveType, expected: str, desired: str
    ) -> None:
        """`name` = the old value; `*ptr = desired` if it was `expected`. WGSL's weak
        compare-exchange may fail spuriously, so it retries until it swaps or sees another
        value: a strong one, as `AtomicCAS` means. WGSL has 32-bit atomics only."""
        if dtype.name not in ("i32", "u32"):
            raise Unexpressible(
                f"compare-and-swap on {dtype} (quantized fields in a {dtype.bits}-bit word: "
                "WGSL atomics are 32-bit only; use max_num_bits=32)"
            )
        self.line(f"var {name}: {wgsl.wgsl_type(dtype)};")
        self.access(
            ptr,
            "a" + dtype.name,
            True,
            lambda ref: [
                "loop {",
                f"  let cas = atomicCompareExchangeWeak(&{ref}, {expected}, {desired});",
                f"  if (cas.exchanged || cas.old_value != {expected}) {{",
                f"    {name} = cas.old_value;",
                "    break;",
                "  }",
                "}",
            ],
        )

    def _native_view(self, op: A, dtype: PrimitiveType) -> str | None:
        if op not in _NATIVE_ATOMIC or wgsl.is_narrow(dtype) or dtype.kind == "bool":
            return None
        caps = self.resources.caps
        if dtype.name in ("i32", "u32"):
            return "a" + dtype.name
        if dtype.name == "f32" and op in _F32_NATIVE and caps.has("shader-float32-atomic"):
            return "af32"
        if dtype.name in ("i64", "u64") and caps.has("shader-int64-atomic-all-ops"):
            return "a" + dtype.name
        return None

    def cas_loop(self, name: str, op: A, ptr: Ptr, dtype: PrimitiveType, value: str) -> None:
        """Compare-exchange on the bits of the word holding `*ptr` until no thread interfered."""
        narrow = wgsl.is_narrow(dtype) or dtype.kind == "bool" or dtype.name == "f16"
        if dtype.bits == 64 and not self.resources.caps.has("shader-int64-atomic-all-ops"):
            raise Unexpressible(
                f"atomic {op.value} on {dtype} needs the adapter feature "
                "shader-int64-atomic-all-ops"
            )
        view = "au64" if dtype.bits == 64 else "au32"
        bits_type = view[1:]
        new = wgsl.binary(op.binary, dtype, "cas_old", value)
        if new is None:
            raise Unexpressible(f"atomic {op.value} on {dtype}")
        if narrow:
            mask, shift = _bit_mask(ptr, dtype)
            decode = _extract("cas_seen", ptr, dtype)
            encode = f"(cas_seen & ~{mask}) | ({_pattern('cas_new', dtype)} << {shift})"
        else:
            reg = wgsl.wgsl_type(dtype)
            decode = "cas_seen" if reg == bits_type else f"bitcast<{reg}>(cas_seen)"
            encode = "cas_new" if reg == bits_type else f"bitcast<{bits_type}>(cas_new)"

        def body(ref: str) -> list[str]:
            return [
                f"var cas_seen = atomicLoad(&{ref});",
                "loop {",
                f"    let cas_old = {decode};",
                f"    let cas_new = {new};",
                f"    let cas = atomicCompareExchangeWeak(&{ref}, cas_seen, {encode});",
                f"    if (cas.exchanged) {{ {name} = cas_old; break; }}",
                "    cas_seen = cas.old_value;",
                "}",
            ]

        self.line("{")
        with self.indent():
            self.access(ptr, view, True, body)
        self.line("}")


def _plain_view(dtype: PrimitiveType) -> str:
    return wgsl.wgsl_type(dtype) or dtype.name


def _bit_mask(ptr: Ptr, dtype: PrimitiveType) -> tuple[str, str]:
    """(mask of the value's bits in its word, the shift amount), as u32 expressions."""
    shift = f"(({ptr.offset} & 3u) * 8u)"
    width_mask = hex((1 << max(8, dtype.bits)) - 1)
    return f"({width_mask}u << {shift})", shift


def _pattern(value: str, dtype: PrimitiveType) -> str:
    """The value's bits, zero-extended into a u32."""
    if dtype.kind == "bool":
        return f"select(0u, 1u, {value})"
    if dtype.name == "f16":
        return f"pack2x16float(vec2<f32>(f32({value}), 0.0f))"
    return wgsl.narrow_unsigned(value, dtype)


def _extract(word: str, ptr: Ptr, dtype: PrimitiveType) -> str:
    """A narrow value (or u1 byte) out of its u32 word, sign-extended for signed types."""
    shift = f"(({ptr.offset} & 3u) * 8u)"
    if dtype.kind == "bool":
        return f"((({word} >> {shift}) & 0xffu) != 0u)"
    if dtype.name == "f16":
        return f"f16(unpack2x16float({word} >> {shift}).x)"
    if dtype.kind == "int":
        up = 32 - dtype.bits
        return f"(bitcast<i32>({word} << ({up}u - {shift})) >> {up}u)"
    return f"(({word} >> {shift}) & {hex((1 << dtype.bits) - 1)}u)"
