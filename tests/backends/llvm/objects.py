"""Object code of two real kernels, and a small ELF editor, for the object-check tests.

`compile_objects` compiles the kernels as the disk cache would store them (optimised); `Elf`
reads an object's section table, symbols and relocations and edits their fields in place.
"""

from __future__ import annotations

import struct

from tests.backends.llvm.helpers import compile_text, ndarray, scalar
from tistudio.backends.llvm import CpuBackend

# y[i] = a * sin(x[i]) + exp(0.25 * x[i]): calls into libm, constants, a parallel loop whose
# launcher refers to the task's function
SIN_EXP = """
$0 = offloaded range_for(0, 1000) body {
  <i32> $1 = loop $0 index 0
  <*f32> $2 = external_ptr arg 1, [$1]
  <*f32> $3 = external_ptr arg 2, [$1]
  <f32> $4 = argload[0]
  <f32> $5 = global load $2
  <f32> $6 = sin $5
  <f32> $7 = mul $4 $6
  <f32> $8 = const 0.25
  <f32> $9 = mul $8 $5
  <f32> $10 = exp $9
  <f32> $11 = add $7 $10
  $12 : global store [$3 <- $11]
}
"""

# cos(2.5 * a) + 0.5: one serial task that returns a value
COS = """
$0 = offloaded serial body {
  <f64> $1 = argload[0]
  <f64> $2 = const 2.5
  <f64> $3 = mul $1 $2
  <f64> $4 = cos $3
  <f64> $5 = const 0.5
  <f64> $6 = add $4 $5
  $7 : return $6
}
"""


def compile_objects() -> dict[str, tuple[dict, bytes]]:
    """Spec (JSON) and optimised object code of each kernel."""
    cpu = CpuBackend(num_threads=2, tiering="optimised")
    made = {
        "sin_exp": compile_text(
            cpu,
            SIN_EXP,
            params=[scalar("a", "f32"), ndarray("x", "f32", 1), ndarray("y", "f32", 1)],
        ),
        "cos": compile_text(cpu, COS, params=[scalar("a", "f64")], ret_types=["f64"]),
    }
    objects = {name: (ex.spec.to_json(), ex.compiled.object_code) for name, ex in made.items()}
    cpu.close()
    return objects


SECTION = struct.Struct("<IIQQQQIIQQ")
SYMBOL = struct.Struct("<IBBHQQ")
RELA = struct.Struct("<QQq")
SECTION_FIELDS = "name type flags addr offset size link info align entsize".split()
SYMBOL_FIELDS = "name info other shndx value size".split()


class Elf:
    """Reads the section table, symbols and relocations of an object and edits them in place."""

    def __init__(self, data: bytes) -> None:
        self.data = bytearray(data)
        self.shoff, self.shnum = struct.unpack_from("<Q", data, 0x28)[0], data[0x3C]
        shstrndx = struct.unpack_from("<H", data, 0x3E)[0]
        strings = self.section(shstrndx)
        self.names = [self._name(strings, self.field(k, "name")) for k in range(self.shnum)]

    def _name(self, table: tuple, offset: int) -> str:
        start = table[4] + offset
        return bytes(self.data[start : self.data.index(0, start)]).decode()

    def section(self, index: int) -> tuple:
        return SECTION.unpack_from(self.data, self.shoff + index * SECTION.size)

    def index(self, name: str) -> int:
        return self.names.index(name)

    def field(self, index: int, name: str) -> int:
        return self.section(index)[SECTION_FIELDS.index(name)]

    def set_field(self, section: str | int, name: str, value: int) -> Elf:
        index = self.index(section) if isinstance(section, str) else section
        fields = list(self.section(index))
        fields[SECTION_FIELDS.index(name)] = value
        SECTION.pack_into(self.data, self.shoff + index * SECTION.size, *fields)
        return self

    def set_header(self, fmt: str, offset: int, value: int) -> Elf:
        struct.pack_into(fmt, self.data, offset, value)
        return self

    def symbols(self) -> list[tuple[str, int]]:
        """(name, file offset of the entry) per symbol."""
        symtab = self.section(self.index(".symtab"))
        strings = self.section(symtab[6])
        found = []
        for k in range(symtab[5] // SYMBOL.size):
            at = symtab[4] + k * SYMBOL.size
            found.append((self._name(strings, SYMBOL.unpack_from(self.data, at)[0]), at))
        return found

    def set_symbol(self, name: str, field: str, value: int) -> Elf:
        at = dict(self.symbols())[name]
        fields = list(SYMBOL.unpack_from(self.data, at))
        fields[SYMBOL_FIELDS.index(field)] = value
        SYMBOL.pack_into(self.data, at, *fields)
        return self

    def relocation(self, k: int = 0, section: str = ".rela.ltext") -> tuple[int, tuple]:
        rela = self.section(self.index(section))
        at = rela[4] + k * RELA.size
        return at, RELA.unpack_from(self.data, at)

    def set_relocation(
        self, k: int, offset: int, info: int, addend: int, section: str = ".rela.ltext"
    ) -> Elf:
        RELA.pack_into(self.data, self.relocation(k, section)[0], offset, info, addend)
        return self

    def bytes(self) -> bytes:
        return bytes(self.data)
