"""The thread pool's runtime, precompiled: object code shipped inside the package.

Taichi ships its runtime as LLVM bitcode in the wheel and loads it in `ti.init`; ours is small
(the worker loop and fork-join of `runtime_ir.py`) but compiling it still costs 30-45 ms of LLVM
work, which used to land on the first kernel of every process. So the package carries its object
code, compiled for the architecture's baseline CPU (`x86-64`, `generic` on aarch64: the pool
needs no vector instructions), and `native_pool` loads it in a fraction of a millisecond.

The file is named after the SHA-256 of the runtime's LLVM IR text, so a changed `runtime_ir.py`
can never load stale code: the name no longer matches, the runtime is compiled as before, and
`tests/backends/llvm/test_runtime_object.py` fails until the object is written again with

    python -m tistudio.backends.llvm.runtime_object --write
"""

from __future__ import annotations

import hashlib
import platform
from pathlib import Path

import llvmlite.binding as llvm

from tistudio.backends.llvm import runtime_ir as rt
from tistudio.backends.llvm.jit import CODE_MODEL, RELOC_MODEL

FOLDER = Path(__file__).resolve().parent / "runtime_objects"
BASELINE_CPU = {"x86_64": "x86-64", "amd64": "x86-64", "aarch64": "generic", "arm64": "generic"}


def _baseline_machine() -> llvm.TargetMachine:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_triple(llvm.get_process_triple())
    cpu = BASELINE_CPU.get(platform.machine().lower(), "generic")
    return target.create_target_machine(cpu=cpu, opt=3, reloc=RELOC_MODEL, codemodel=CODE_MODEL)


def runtime_ir_text(machine: llvm.TargetMachine | None = None) -> str:
    """The runtime module's IR for this process's triple: what the shipped file is named after."""
    module = rt.build_runtime_module()
    module.triple = llvm.get_process_triple()
    module.data_layout = str((machine or _baseline_machine()).target_data)
    return str(module)


def object_path(ir_text: str) -> Path:
    compiled_as = f"{ir_text}|{CODE_MODEL}|{RELOC_MODEL}"  # the same IR, other code: other name
    digest = hashlib.sha256(compiled_as.encode()).hexdigest()[:20]
    return FOLDER / f"{platform.machine().lower()}-{digest}.o"


def shipped_object() -> bytes | None:
    """The packaged object code of the current runtime for this architecture, or None."""
    if platform.machine().lower() not in BASELINE_CPU:
        return None
    path = object_path(runtime_ir_text())
    return path.read_bytes() if path.is_file() else None


def compile_baseline() -> tuple[str, bytes]:
    """Compile the runtime for the baseline CPU at O3; returns (IR text, object code)."""
    machine = _baseline_machine()
    text = runtime_ir_text(machine)
    parsed = llvm.parse_assembly(text)
    parsed.verify()
    tuning = llvm.create_pipeline_tuning_options(speed_level=3)
    builder = llvm.create_pass_builder(machine, tuning)
    builder.getModulePassManager().run(parsed, builder)
    return text, machine.emit_object(parsed)


def write() -> Path:
    """Replace the shipped objects of this architecture by a freshly compiled one."""
    text, code = compile_baseline()
    FOLDER.mkdir(exist_ok=True)
    for old in FOLDER.glob(f"{platform.machine().lower()}-*.o"):
        old.unlink()
    path = object_path(text)
    path.write_bytes(code)
    return path


def main(argv: list[str] | None = None) -> None:
    import argparse  # here: argparse's ~130 functions would sit in every process's heap

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="compile and write the object")
    args = parser.parse_args(argv)
    if args.write:
        print(f"wrote {write()}")
    else:
        found = shipped_object()
        print(f"shipped runtime object: {'present' if found else 'missing or stale'}")


if __name__ == "__main__":
    main()
