"""Checks of relocatable object code before LLVM loads it (`check_object`).

LLVM's run-time linker (RuntimeDyld, behind MCJIT) trusts the object files it is given: a
string-table offset past the table, a section index out of range, an alignment that is not a
power of two or a relocation type it does not know aborts the process inside LLVM, and a
relocation past the end of its section writes past LLVM's memory. Object code reaches
`JitEngine.load_object` from files we do not control (AOT modules people share, the disk
cache), so every field the linker reads is checked here first, against what our own back end
emits: 64-bit little-endian relocatable ELF files for x86-64 or AArch64, written by LLVM for
the large code model with static relocations (`jit.CODE_MODEL`): sections of known names,
one symbol table, relocations with explicit addends of a few absolute kinds.

The second check is about what the code links to. MCJIT links a symbol that nobody defines
to address 0, so the first call of a kernel referring to it jumps there (old AOT modules
calling `tistudio_sin` did): every undefined symbol must be one that `resolvable` finds.

Passing these checks makes loading safe, not the code: a well-formed object can do anything
when it is called, so load only modules from sources you trust.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from dataclasses import dataclass


class ObjectFileError(ValueError, RuntimeError):
    """Object code that is malformed, or not what our back end makes. A `ValueError` (bad
    bytes) that is also a `RuntimeError`, what callers of `load_object` already catch when
    object code cannot be loaded (the thread pool's runtime then compiles its code instead)."""


_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")
_SECTION = struct.Struct("<IIQQQQIIQQ")
_SYMBOL = struct.Struct("<IBBHQQ")
_RELA = struct.Struct("<QQq")
_MAX_SECTIONS = 1 << 12
_MAX_NOBITS = 1 << 26  # zero-filled memory the linker would allocate: our kernels have none

# section types and flags (ELF gABI)
SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_RELA, SHT_NOBITS = 1, 2, 3, 4, 8
SHT_LLVM_ADDRSIG = 0x6FFF4C03
SHF_WRITE, SHF_ALLOC, SHF_EXEC, SHF_MERGE, SHF_STRINGS, SHF_INFO_LINK = 1, 2, 4, 0x10, 0x20, 0x40
SHF_X86_64_LARGE, SHF_EXCLUDE = 0x10000000, 0x80000000
SHN_UNDEF, SHN_ABS = 0, 0xFFF1
STT_NOTYPE, STT_OBJECT, STT_FUNC, STT_SECTION, STT_FILE = 0, 1, 2, 3, 4
STB_LOCAL, STB_GLOBAL, STB_WEAK = 0, 1, 2

# e_machine -> the relocation types our back end emits there (all of them ones RuntimeDyld
# implements), with the bytes each one patches. x86-64: R_X86_64_64, the large code model's
# absolute address. AArch64, where LLVM's ELF output calls through CALL26 and reaches other
# functions through the GOT: ABS64, MOVW_UABS_G0_NC/G1_NC/G2_NC/G3, ADR_PREL_PG_HI21,
# ADD_ABS_LO12_NC, the LDST*_ABS_LO12_NC family, JUMP26/CALL26 and ADR_GOT_PAGE/LD64_GOT_LO12_NC.
_MACHINES = {"x86_64": 62, "aarch64": 183}
_AARCH64_INSTRUCTIONS = (264, 266, 268, 269, 275, 277, 278, 282, 283, 284, 285, 286, 299, 311, 312)
_RELOCATIONS = {62: {1: 8}, 183: {257: 8, **dict.fromkeys(_AARCH64_INSTRUCTIONS, 4)}}
_MACHINE_FLAGS = {62: SHF_X86_64_LARGE, 183: 0}

# (name pattern, type, flags it must have, flags it may have): the sections LLVM writes for us
_KINDS = (
    (r"\.l?text", SHT_PROGBITS, SHF_ALLOC | SHF_EXEC, 0),
    (r"\.l?rodata", SHT_PROGBITS, SHF_ALLOC, SHF_MERGE | SHF_STRINGS),
    (r"\.l?data(\.rel\.ro)?", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 0),
    (r"\.l?bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE, 0),
    (r"\.rela\..+", SHT_RELA, 0, SHF_INFO_LINK),
    (r"\.symtab", SHT_SYMTAB, 0, 0),
    (r"\.(sh)?strtab", SHT_STRTAB, 0, 0),
    (r"\.note\.GNU-stack", SHT_PROGBITS, 0, 0),
    (r"\.comment", SHT_PROGBITS, 0, SHF_MERGE | SHF_STRINGS),
    (r"\.llvm_addrsig", SHT_LLVM_ADDRSIG, 0, SHF_EXCLUDE),
)
_KIND_PATTERNS = [(re.compile(rf"{p}(\..*)?", re.DOTALL), *rest) for p, *rest in _KINDS]


@dataclass(frozen=True)
class _Section:
    index: int
    name: str
    type: int
    flags: int
    addr: int
    offset: int
    size: int
    link: int
    info: int
    align: int
    entsize: int

    @property
    def in_file(self) -> bool:
        return self.type != SHT_NOBITS and self.size > 0


@dataclass(frozen=True)
class _Symbol:
    index: int
    name: str
    type: int
    bind: int
    other: int
    shndx: int
    value: int
    size: int


def machine_of(triple: str) -> int | None:
    """The ELF machine number of an LLVM triple we build for, or None."""
    return _MACHINES.get(triple.split("-")[0])


def check_object(data: bytes, triple: str, resolvable: Callable[[str], bool]) -> None:
    """Raise `ObjectFileError` unless `data` is a well-formed relocatable object of the kind
    our back end makes for `triple`, all of whose undefined symbols `resolvable` accepts."""
    machine = machine_of(triple)
    if machine is None:
        raise ObjectFileError(f"no object checks for the target {triple}")
    sections = _sections(data, machine)
    symtab = _symbol_table(sections)
    symbols = _symbols(data, sections, symtab)
    for section in sections:
        if section.type == SHT_RELA:
            _check_relocations(data, sections, symtab, symbols, section, machine)
    for symbol in symbols:
        if symbol.shndx == SHN_UNDEF and symbol.index and not resolvable(symbol.name):
            raise ObjectFileError(f"undefined symbol {symbol.name!r}: nothing here defines it")


def _sections(data: bytes, machine: int) -> list[_Section]:
    """The section table, each entry checked on its own, then the layout of the file."""
    if len(data) < _HEADER.size or data[:4] != b"\x7fELF":
        raise ObjectFileError("no ELF header")
    (
        ident,
        kind,
        arch,
        version,
        entry,
        phoff,
        shoff,
        flags,
        ehsize,
        _,
        phnum,
        shentsize,
        shnum,
        (shstrndx),
    ) = _HEADER.unpack_from(data)
    if ident[4:7] != b"\x02\x01\x01" or kind != 1 or version != 1:
        raise ObjectFileError("not a relocatable 64-bit little-endian ELF file")
    if arch != machine:
        raise ObjectFileError(f"ELF machine {arch}, expected {machine}")
    if entry or phoff or phnum or flags or ehsize != _HEADER.size:
        raise ObjectFileError("a relocatable file has no entry, program headers or flags")
    if shentsize != _SECTION.size or not 0 < shnum <= _MAX_SECTIONS or shoff % 8:
        raise ObjectFileError(f"section table of {shnum} entries of {shentsize} bytes")
    if shoff < _HEADER.size or shoff + shnum * shentsize > len(data):
        raise ObjectFileError("the section table lies outside the file")
    raw = [_SECTION.unpack_from(data, shoff + k * shentsize) for k in range(shnum)]
    if any(raw[0]):
        raise ObjectFileError("section 0 is not empty")
    if not 0 < shstrndx < shnum or raw[shstrndx][1] != SHT_STRTAB:
        raise ObjectFileError(f"section names in section {shstrndx}, not a string table")
    names = _string_table(data, raw[shstrndx], "section names")
    sections = [_Section(0, "", *raw[0][1:])]
    for index, (name, *fields) in enumerate(raw[1:], 1):
        section = _Section(index, _string(names, name, f"section {index}"), *fields)
        _check_section(section, len(data), machine)
        sections.append(section)
    _check_layout(sections, shoff, shnum * shentsize)
    return sections


def _check_section(section: _Section, file_size: int, machine: int) -> None:
    where = f"section {section.index} ({section.name!r})"
    kind = next((k for k in _KIND_PATTERNS if k[0].fullmatch(section.name)), None)
    if kind is None:
        raise ObjectFileError(f"{where}: not a section our back end makes")
    _, sh_type, required, optional = kind
    optional |= _MACHINE_FLAGS[machine] if required & SHF_ALLOC else 0
    if section.type != sh_type or section.flags & required != required:
        raise ObjectFileError(f"{where}: type {section.type}, flags {section.flags:#x}")
    if section.flags & ~(required | optional):
        raise ObjectFileError(f"{where}: unexpected flags {section.flags:#x}")
    align = section.align
    if align & (align - 1) or align > 4096 or section.addr or section.offset % max(align, 1):
        raise ObjectFileError(f"{where}: address {section.addr}, alignment {align}")
    if section.offset > file_size or (section.in_file and section.size > file_size):
        raise ObjectFileError(f"{where} lies outside the file")
    if section.in_file and section.offset + section.size > file_size:
        raise ObjectFileError(f"{where} lies outside the file")
    if section.type == SHT_NOBITS and section.size > _MAX_NOBITS:
        raise ObjectFileError(f"{where}: {section.size} bytes of zeros")
    entsize = {SHT_SYMTAB: _SYMBOL.size, SHT_RELA: _RELA.size}.get(section.type)
    if entsize is not None and (section.entsize != entsize or section.size % entsize):
        raise ObjectFileError(f"{where}: entries of {section.entsize} bytes")


def _check_layout(sections: list[_Section], shoff: int, table_size: int) -> None:
    """Header, section table and the sections' bytes may not overlap."""
    extents = [(0, _HEADER.size, "the ELF header"), (shoff, shoff + table_size, "section table")]
    extents += [(s.offset, s.offset + s.size, f"section {s.index}") for s in sections if s.in_file]
    extents.sort()
    for (_, end, first), (start, _, second) in zip(extents, extents[1:]):
        if start < end:
            raise ObjectFileError(f"{first} and {second} overlap")


def _string_table(data: bytes, raw: tuple, what: str) -> bytes:
    offset, size = raw[4], raw[5]
    table = data[offset : offset + size]
    if not table or table[0] != 0 or table[-1] != 0:
        raise ObjectFileError(f"the string table of {what} does not begin and end with NUL")
    return table


def _string(table: bytes, offset: int, what: str) -> str:
    if offset >= len(table):
        raise ObjectFileError(f"{what}: name at {offset}, past its string table")
    raw = table[offset : table.index(0, offset)]
    try:
        return raw.decode()
    except UnicodeDecodeError:
        raise ObjectFileError(f"{what}: name {raw!r} is not UTF-8") from None


def _symbol_table(sections: list[_Section]) -> _Section:
    tables = [s for s in sections if s.type == SHT_SYMTAB]
    if len(tables) != 1:
        raise ObjectFileError(f"{len(tables)} symbol tables, expected one")
    symtab = tables[0]
    if not 0 < symtab.link < len(sections) or sections[symtab.link].type != SHT_STRTAB:
        raise ObjectFileError(f"symbol names in section {symtab.link}, not a string table")
    return symtab


def _symbols(data: bytes, sections: list[_Section], symtab: _Section) -> list[_Symbol]:
    """Every symbol, checked: names, kinds and the sections they are defined in."""
    count = symtab.size // _SYMBOL.size
    if count == 0 or not 0 < symtab.info <= count:
        raise ObjectFileError(f"symbol table of {count} symbols, first global {symtab.info}")
    names = _string_table(data, _raw(sections[symtab.link]), "symbol names")
    if any(_SYMBOL.unpack_from(data, symtab.offset)):
        raise ObjectFileError("symbol 0 is not empty")
    symbols = [_Symbol(0, "", 0, 0, 0, 0, 0, 0)]
    for index in range(1, count):
        name, info, other, shndx, value, size = _SYMBOL.unpack_from(
            data, symtab.offset + index * _SYMBOL.size
        )
        where = f"symbol {index}"
        name_text = _string(names, name, where)
        symbol = _Symbol(index, name_text, info & 15, info >> 4, other, shndx, value, size)
        _check_symbol(symbol, sections, (index >= symtab.info), f"{where} ({symbol.name!r})")
        symbols.append(symbol)
    _check_unique(symbols)
    return symbols


def _check_symbol(symbol: _Symbol, sections: list[_Section], is_global: bool, where: str) -> None:
    if symbol.type not in (STT_NOTYPE, STT_OBJECT, STT_FUNC, STT_SECTION, STT_FILE):
        raise ObjectFileError(f"{where}: symbol type {symbol.type}")
    if symbol.bind not in (STB_LOCAL, STB_GLOBAL, STB_WEAK) or symbol.other > 3:
        raise ObjectFileError(f"{where}: binding {symbol.bind}, visibility {symbol.other}")
    if is_global != (symbol.bind != STB_LOCAL):
        raise ObjectFileError(f"{where}: local and global symbols out of order")
    if symbol.type == STT_FILE:
        if symbol.shndx != SHN_ABS or symbol.bind != STB_LOCAL:
            raise ObjectFileError(f"{where}: a file symbol outside SHN_ABS")
    elif symbol.shndx == SHN_UNDEF:
        if not is_global or not symbol.name or symbol.type == STT_SECTION:
            raise ObjectFileError(f"{where}: an undefined symbol must be a named global")
    else:
        _check_definition(symbol, sections, where)


def _check_definition(symbol: _Symbol, sections: list[_Section], where: str) -> None:
    """A defined symbol lies inside a section that is loaded (a function: inside code)."""
    if not 0 < symbol.shndx < len(sections):
        raise ObjectFileError(f"{where}: section index {symbol.shndx} out of range")
    section = sections[symbol.shndx]
    if not section.flags & SHF_ALLOC:
        raise ObjectFileError(f"{where}: defined in section {section.index}, not loaded")
    if symbol.type == STT_FUNC and not section.flags & SHF_EXEC:
        raise ObjectFileError(f"{where}: a function in section {section.index}, not code")
    if symbol.value > section.size or symbol.size > section.size - symbol.value:
        raise ObjectFileError(f"{where}: lies outside section {section.index}")


def _check_unique(symbols: list[_Symbol]) -> None:
    """LLVM writes one global per name and one section symbol per section; an object with two
    is not one it wrote (and would link a relocation to whichever the linker finds first)."""
    seen: set[tuple[int, str | int]] = set()
    for symbol in symbols[1:]:
        if symbol.type == STT_SECTION:
            key: tuple[int, str | int] = (0, symbol.shndx)
        elif symbol.bind != STB_LOCAL:
            key = (1, symbol.name)
        else:
            continue
        if key in seen:
            raise ObjectFileError(f"symbol {symbol.index} ({symbol.name!r}) is defined twice")
        seen.add(key)


def _check_relocations(
    data: bytes,
    sections: list[_Section],
    symtab: _Section,
    symbols: list[_Symbol],
    rela: _Section,
    machine: int,
) -> None:
    """The relocations of one section: known kinds, real symbols, inside their target (whose
    bytes there are zero: with explicit addends, LLVM writes nothing where the linker will)."""
    where = f"section {rela.index} ({rela.name!r})"
    if rela.link != symtab.index or not 0 < rela.info < len(sections):
        raise ObjectFileError(f"{where}: symbols in {rela.link}, target section {rela.info}")
    target = sections[rela.info]
    if rela.name != ".rela" + target.name or target.type != SHT_PROGBITS:
        raise ObjectFileError(f"{where}: relocates section {target.index} ({target.name!r})")
    if not target.flags & SHF_ALLOC:
        raise ObjectFileError(f"{where}: relocates section {target.index}, which is not loaded")
    if sum(s.type == SHT_RELA and s.info == target.index for s in sections) != 1:
        raise ObjectFileError(f"section {target.index} has several relocation sections")
    widths = _RELOCATIONS[machine]
    for k in range(rela.size // _RELA.size):
        offset, info, _ = _RELA.unpack_from(data, rela.offset + k * _RELA.size)
        sym, kind = info >> 32, info & 0xFFFFFFFF
        if kind not in widths:
            raise ObjectFileError(f"{where}, relocation {k}: type {kind} is not one we emit")
        if not 0 < sym < len(symbols) or symbols[sym].type == STT_FILE:
            raise ObjectFileError(f"{where}, relocation {k}: symbol {sym}")
        width = widths[kind]
        if offset > target.size - width or (width == 4 and offset % 4):
            raise ObjectFileError(f"{where}, relocation {k}: offset {offset} outside the section")
        field = data[target.offset + offset : target.offset + offset + width]
        if width == 8 and any(field):
            raise ObjectFileError(f"{where}, relocation {k}: the bytes at {offset} are not 0")


def _raw(section: _Section) -> tuple:
    return (0, section.type, section.flags, section.addr, section.offset, section.size)
