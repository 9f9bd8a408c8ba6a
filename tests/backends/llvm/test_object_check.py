"""Object code from files is checked before LLVM links it (`object_check.py`): one targeted
edit of a real kernel's object per check, the undefined-symbol check, and the call from
`JitEngine.load_object` (the random mutations are in `test_object_fuzz.py`)."""

from __future__ import annotations

import ctypes
import re
import subprocess
import sys
from pathlib import Path

import llvmlite.binding as llvm
import pytest

from tests.backends.llvm.helpers import compile_text, ndarray, scalar
from tests.backends.llvm.objects import SIN_EXP, SYMBOL, Elf, compile_objects
from tistudio.backends.llvm import CpuBackend
from tistudio.backends.llvm.jit import JitEngine
from tistudio.backends.llvm.object_check import ObjectFileError, check_object

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def kernels() -> dict[str, tuple[dict, bytes]]:
    return compile_objects()


def _check(obj: bytes) -> None:
    JitEngine()  # an engine makes the process's symbols (libm) visible to the look-up
    check_object(obj, llvm.get_process_triple(), lambda name: bool(llvm.address_of_symbol(name)))


def test_objects_of_our_back_end_pass(kernels):
    for _, obj in kernels.values():
        _check(obj)


def _task(elf: Elf) -> str:
    """The name of the kernel's task function (the launcher refers to it)."""
    return next(name for name, _ in elf.symbols() if name.endswith("_task0_range_for"))


# (what is edited, the words the error must contain)
TARGETED = {
    "truncated header": (lambda e: e.bytes()[:40], "no ELF header"),
    "another machine": (lambda e: e.set_header("<H", 0x12, 183).bytes(), "machine 183"),
    "an executable": (lambda e: e.set_header("<H", 0x10, 2).bytes(), "not a relocatable"),
    "program headers": (lambda e: e.set_header("<H", 0x38, 1).bytes(), "program headers"),
    "section entry size": (lambda e: e.set_header("<H", 0x3A, 40).bytes(), "entries of 40"),
    "section table outside": (
        lambda e: e.set_header("<Q", 0x28, len(e.data) - 64).bytes(),
        "section table lies outside",
    ),
    "names index out of range": (lambda e: e.set_header("<H", 0x3E, 99).bytes(), "section 99"),
    "names in the symbol table": (
        lambda e: e.set_header("<H", 0x3E, e.index(".symtab")).bytes(),
        "not a string table",
    ),
    "section name past its table": (
        lambda e: e.set_field(".ltext", "name", 1 << 20).bytes(),
        "past its string table",
    ),
    "unterminated string table": (
        lambda e: _unterminate(e, ".strtab"),
        "does not begin and end with NUL",
    ),
    "code as zeros": (
        lambda e: e.set_field(".ltext", "type", 8).bytes(),
        "flags",
    ),
    "code not executable": (
        lambda e: e.set_field(".ltext", "flags", 2).bytes(),
        "flags 0x2",
    ),
    "thread-local code": (
        lambda e: e.set_field(".ltext", "flags", 0x10000406).bytes(),
        "unexpected flags",
    ),
    "alignment not a power of two": (
        lambda e: e.set_field(".ltext", "align", 24).bytes(),
        "alignment 24",
    ),
    "misaligned section": (
        lambda e: e.set_field(".ltext", "offset", e.field(e.index(".ltext"), "offset") + 4),
        "alignment 16",
    ),
    "section past the end": (
        lambda e: e.set_field(".ltext", "size", 1 << 40).bytes(),
        "lies outside the file",
    ),
    "overlapping sections": (
        lambda e: e.set_field(".symtab", "offset", e.field(e.index(".ltext"), "offset")).bytes(),
        "overlap",
    ),
    "symbol entry size": (
        lambda e: e.set_field(".symtab", "entsize", 16).bytes(),
        "entries of 16",
    ),
    "symbol names not in a string table": (
        lambda e: e.set_field(".symtab", "link", e.index(".ltext")).bytes(),
        "not a string table",
    ),
    "first global out of range": (
        lambda e: e.set_field(".symtab", "info", 1000).bytes(),
        "first global 1000",
    ),
    "locals after globals": (
        lambda e: e.set_field(".symtab", "info", e.field(e.index(".symtab"), "info") + 1).bytes(),
        "out of order",
    ),
    "symbol name past its table": (
        lambda e: e.set_symbol(_task(e), "name", 1 << 20).bytes(),
        "past its string table",
    ),
    "symbol section out of range": (
        lambda e: e.set_symbol(_task(e), "shndx", 0xFF00).bytes(),
        "out of range",
    ),
    "thread-local symbol": (
        lambda e: e.set_symbol(_task(e), "info", 0x16).bytes(),
        "symbol type 6",
    ),
    "indirect function": (
        lambda e: e.set_symbol(_task(e), "info", 0x1A).bytes(),
        "symbol type 10",
    ),
    "function outside its section": (
        lambda e: e.set_symbol(_task(e), "value", 1 << 32).bytes(),
        "lies outside section",
    ),
    "function in a section not loaded": (
        lambda e: e.set_symbol(_task(e), "shndx", e.index(".symtab")).bytes(),
        "not loaded",
    ),
    "two globals of one name": (lambda e: _same_name(e), "defined twice"),
    "relocations of another table": (
        lambda e: e.set_field(".rela.ltext", "link", e.index(".strtab")).bytes(),
        "symbols in",
    ),
    "relocations of another section": (
        lambda e: e.set_field(".rela.ltext", "info", e.index(".text")).bytes(),
        "relocates section",
    ),
    "relocation target out of range": (
        lambda e: e.set_field(".rela.ltext", "info", 77).bytes(),
        "target section 77",
    ),
    "relocation type": (lambda e: _edit_relocation(e, kind=2), "type 2 is not one we emit"),
    "relocation symbol": (lambda e: _edit_relocation(e, sym=1000), "symbol 1000"),
    "relocation past the section": (
        lambda e: _edit_relocation(e, offset=1 << 20),
        "outside the section",
    ),
    "relocation inside an instruction": (
        lambda e: _edit_relocation(e, offset=-1),
        "are not 0",
    ),
}


def _unterminate(elf: Elf, name: str) -> bytes:
    index = elf.index(name)
    elf.data[elf.field(index, "offset") + elf.field(index, "size") - 1] = ord("x")
    return elf.bytes()


def _same_name(elf: Elf) -> bytes:
    launcher = next(name for name, _ in elf.symbols() if name.endswith("_launch"))
    other = SYMBOL.unpack_from(elf.data, dict(elf.symbols())[launcher])[0]
    return elf.set_symbol(_task(elf), "name", other).bytes()


def _edit_relocation(elf: Elf, offset: int = 0, sym: int | None = None, kind: int = 1) -> bytes:
    _, (at, info, addend) = elf.relocation(0)
    sym = info >> 32 if sym is None else sym
    return elf.set_relocation(0, at + offset, sym << 32 | kind, addend).bytes()


@pytest.mark.parametrize("case", list(TARGETED))
def test_each_check_refuses_its_malformation(kernels, case):
    edit, words = TARGETED[case]
    damaged = edit(Elf(kernels["sin_exp"][1]))
    if isinstance(damaged, Elf):
        damaged = damaged.bytes()
    with pytest.raises(ObjectFileError, match=re.escape(words)):
        _check(damaged)


def _emit(engine: JitEngine, text: str) -> bytes:
    module = llvm.parse_assembly(engine.module_text(text))
    return engine.object_machine.emit_object(module)


def test_an_undefined_symbol_nothing_defines_is_refused_before_loading():
    """MCJIT would link `tistudio_sin` to address 0: the first call would jump there."""
    engine = JitEngine()
    obj = _emit(
        engine,
        "declare float @tistudio_sin(float)\n"
        "define float @f(float %x) nounwind {\n  %y = call float @tistudio_sin(float %x)\n"
        "  ret float %y\n}\n",
    )
    with pytest.raises(ObjectFileError, match="undefined symbol 'tistudio_sin'"):
        engine.load_object(obj, ["f"])


def test_a_symbol_an_earlier_object_defines_is_resolved():
    engine = JitEngine()
    helper = (
        "define i32 @object_check_helper(i32 %x) nounwind {\n"
        "  %y = mul i32 %x, 3\n  ret i32 %y\n}\n"
    )
    engine.load_object(_emit(engine, helper), ["object_check_helper"])
    caller = _emit(
        engine,
        "declare i32 @object_check_helper(i32)\n"
        "define i32 @object_check_caller(i32 %x) nounwind {\n"
        "  %y = call i32 @object_check_helper(i32 %x)\n  %z = add i32 %y, 1\n  ret i32 %z\n}\n",
    )
    compiled = engine.load_object(caller, ["object_check_caller"])
    call = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int32)(compiled.addresses[0])
    assert call(5) == 16


LOAD_DAMAGED = """
import sys
from pathlib import Path
from tistudio.backends.llvm.jit import JitEngine
from tistudio.backends.llvm.object_check import ObjectFileError

try:
    JitEngine().load_object(Path(sys.argv[1]).read_bytes(), sys.argv[2:])
except ObjectFileError as e:
    print("refused:", e)
"""


def test_load_object_checks_what_it_loads(kernels, tmp_path):
    """Through `JitEngine.load_object`, which every loader uses (AOT, disk cache, pool); in a
    subprocess, as LLVM itself crashes on this object."""
    spec, obj = kernels["cos"]
    assert JitEngine().load_object(obj, spec["functions"]).addresses
    path = tmp_path / "damaged.o"
    path.write_bytes(Elf(obj).set_field(".strtab", "size", 1 << 30).bytes())
    done = subprocess.run(
        [sys.executable, "-c", LOAD_DAMAGED, str(path), *spec["functions"]],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    assert "refused: section 1 ('.strtab') lies outside the file" in done.stdout


AARCH64 = "aarch64-unknown-linux-gnu"


def test_aarch64_objects_of_our_back_end_pass_and_unknown_relocations_do_not():
    """The kernel's module compiled for AArch64 as `JitEngine` would there (large code model,
    static relocations): checked, not run. A relocation RuntimeDyld does not implement there
    (MOVW_UABS_G1, the checked form) would abort the process."""
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    try:
        target = llvm.Target.from_triple(AARCH64)
    except RuntimeError:
        pytest.skip("this LLVM has no AArch64 target")
    machine = target.create_target_machine(cpu="generic", opt=3, reloc="static", codemodel="large")
    engine = JitEngine()
    cpu = CpuBackend(num_threads=1, tiering="optimised")
    ex = compile_text(
        cpu, SIN_EXP, params=[scalar("a", "f32"), ndarray("x", "f32", 1), ndarray("y", "f32", 1)]
    )
    text = re.sub(r'target triple = ".*"', f'target triple = "{AARCH64}"', ex.llvm_ir)
    text = re.sub(r'target datalayout = ".*"', f'target datalayout = "{machine.target_data}"', text)
    text = re.sub(r'"target-(cpu|features)"="[^"]*"', "", text)  # the host's x86-64 features
    obj = machine.emit_object(llvm.parse_assembly(text))
    resolvable = lambda name: bool(llvm.address_of_symbol(name))  # noqa: E731
    check_object(obj, AARCH64, resolvable)
    elf = Elf(obj)
    _, (offset, info, addend) = elf.relocation(0, ".rela.text")
    elf.set_relocation(0, offset, (info >> 32) << 32 | 265, addend, ".rela.text")
    with pytest.raises(ObjectFileError, match="type 265 is not one we emit"):
        check_object(elf.bytes(), AARCH64, resolvable)
    with pytest.raises(ObjectFileError, match="ELF machine 183, expected 62"):
        check_object(obj, engine.triple, resolvable)
    cpu.close()
