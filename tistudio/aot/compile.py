"""Compile one kernel instantiation into a module's artifacts and its metadata entry.

The frontend IR goes through the same pass pipeline as a JIT compile, then through the
program's back end. On the CPU the object code's symbols are named after the module's kernel
name and a hash of its final IR (never after a per-process counter), so the same module gives
the same bytes in every process, and two modules loaded into one process never clash. On the
GPU each task's WGSL is kept with the bindings its bind group needs and its dispatch size.
Source locations keep only the file's base name: a module holds no path of the machine that
built it, and the same source gives the same module wherever it lives. `bind_object` puts the
metadata's digest into a kernel's object code (`binding.py`).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import llvmlite.binding as llvm

from tistudio.aot.binding import bind_llvm_ir
from tistudio.aot.format import PTYPE_NDARRAY, PTYPE_SCALAR, required_wgpu_features
from tistudio.ir import statements as s
from tistudio.ir.printer import print_ir
from tistudio.ir.stmt import Kernel
from tistudio.passes.context import PassContext
from tistudio.passes.pipeline import compile_to_final_ir
from tistudio.runtime.offline_cache import make_key


def compile_artifacts(ir: Kernel, program: Any, stem: str) -> tuple[dict, dict[str, bytes]]:
    """(metadata entry, files) of the frontend IR `ir` compiled for `program`'s arch; file
    names start with `stem`."""
    ctx = PassContext(program.config)
    compile_to_final_ir(ir, ctx)
    _strip_paths(ir)  # after the passes: statements they made carry locations too
    entry = {
        "name": ir.name,
        "args": [_arg(p) for p in ir.params],
        "rets": [{"dtype": str(t)} for t in ir.ret_types],
        "gtmp_size": ir.gtmp_size,
        "tasks": [_task(task, f"{stem}_t{i:02d}") for i, task in enumerate(_tasks(ir))],
    }
    if program.config.arch == "gpu":
        files = _gpu(ir, program, stem, entry)
    else:
        files = _cpu(ir, program, stem, entry)
    return entry, files


def _cpu(ir: Kernel, program: Any, stem: str, entry: dict) -> dict[str, bytes]:
    backend = program.backend
    key = make_key([ir.name, print_ir(ir), backend.fingerprint()])
    executable = backend.compile(ir, program.config, cache_key=key)
    spec = executable.spec
    for task, function in zip(entry["tasks"], spec.functions):
        task["function"] = function
    entry["trees"] = sorted(spec.layout.root_slots)
    entry["cpu"] = {
        "object": f"{stem}.o",
        "llvm_ir": f"{stem}.ll",
        "launcher": spec.functions[-1] if spec.has_launcher else None,
        "threads": program.config.cpu_max_num_threads,
        "spec": spec.to_json(),
    }
    return {
        f"{stem}.o": executable.compiled.object_code,
        f"{stem}.ll": executable.llvm_ir_optimized.encode(),
    }


def _gpu(ir: Kernel, program: Any, stem: str, entry: dict) -> dict[str, bytes]:
    executable = program.backend.compile(ir, program.config)
    if executable.args.uniform:  # the web runner and loader pass arguments as immediates
        raise ValueError(
            f"kernel {ir.name!r} has {executable.args.size} bytes of scalar arguments and "
            f"ndarray extents, more than the adapter's immediates; AOT modules need fewer"
        )
    if getattr(getattr(executable, "failure", None), "checks", ()):
        raise ValueError(
            f"kernel {ir.name!r} has debug checks (ti.init(debug=True)); GPU modules do not "
            "carry them: build the module without debug"
        )
    files = {}
    for index, ((shader, _, _), task) in enumerate(zip(executable.tasks, entry["tasks"])):
        if any(b.window for b in shader.bindings):
            raise ValueError(
                f"kernel {ir.name!r} binds a buffer larger than one binding window "
                f"({program.gpu.device.caps.window_bytes} bytes); AOT modules need smaller fields"
            )
        name = f"{stem}_{index}_t{index:02d}.wgsl"
        files[name] = shader.wgsl.encode()
        task["wgsl"] = name
        task["dispatch_groups"] = shader.groups
        task["buffer_binds"] = [_binding(b) for b in shader.bindings]
    entry["trees"] = list(executable.trees_used)
    entry["required_caps"] = required_wgpu_features([t.decode() for t in files.values()])
    entry["gpu"] = {
        "immediates_size": executable.args.size,
        "immediates": [list(m) for m in executable.args.members],
        "trees_written": list(executable.trees_written),
        "arrays_written": list(executable.arrays_written),
        "print_formats": [[f.template, list(map(str, f.dtypes))] for f in executable.print_formats],
    }
    return files


def bind_object(llvm_ir: str, mark: str, symbol: str, jit: Any) -> tuple[str, bytes]:
    """(LLVM IR, object code) of the optimised module `llvm_ir` with `mark` added as the
    constant `symbol`: code generation again, without optimising (the text is optimised)."""
    text = bind_llvm_ir(llvm_ir, mark, symbol)
    context = llvm.create_context()  # not the engine's: nothing here touches its modules
    parsed = llvm.parse_assembly(text, context)
    parsed.verify()
    obj = jit.object_target_machine(3).emit_object(parsed)
    parsed.close()
    return text, obj


def _strip_paths(ir: Kernel) -> None:
    """Keep only the base name of every statement's source file."""
    for stmt in ir.walk():
        loc = stmt.loc
        if loc is not None and re.search(r"[/\\]", loc.filename):
            base = re.split(r"[/\\]", loc.filename)[-1]
            stmt.loc = dataclasses.replace(loc, filename=base)


def _tasks(ir: Kernel) -> list[s.Offloaded]:
    tasks = [t for t in ir.body if isinstance(t, s.Offloaded)]
    assert len(tasks) == len(ir.body), "final IR holds only offloaded tasks"
    return tasks


def _task(task: s.Offloaded, name: str) -> dict:
    entry: dict[str, Any] = {"name": name, "task_type": task.task_type.value}
    if task.task_type.value == "range_for":
        entry["range_for_attribs"] = {
            "begin": int(task.begin or 0),
            "end": int(task.end or 0),
            "const_begin": bool(task.const_begin),
            "const_end": bool(task.const_end),
        }
    return entry


def _arg(param: Any) -> dict:
    ptype = PTYPE_NDARRAY if param.kind == "ndarray" else PTYPE_SCALAR
    return {"name": param.name, "ptype": ptype, "dtype": str(param.dtype), "ndim": param.ndim}


def _binding(binding: Any) -> dict:
    """A task's binding, with Taichi's buffer vocabulary (root buffer, global temporaries,
    returns, an ndarray argument) and our view (the WGSL element type of the binding)."""
    resource = binding.resource
    if resource.startswith("tree"):
        buffer = {"type": "root", "root_id": int(resource[4:])}
    elif resource.startswith("arg"):
        buffer = {"type": "ndarray", "arg_id": int(resource[3:])}
    else:
        buffer = {"type": {"gtmp": "gtmp", "ret": "rets", "print": "print"}[resource]}
    return {
        "binding": binding.index,
        "buffer": buffer,
        "view": binding.view,
        "writable": binding.writable,
    }
