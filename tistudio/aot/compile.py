"""Compile one kernel instantiation into a module's artifacts and its metadata entry.

The frontend IR goes through the same pass pipeline as a JIT compile, then through the
program's back end, which makes its half of the entry and the files (`Backend.aot_artifacts`):
the CPU's object code and LLVM IR, the GPU's WGSL per task with its bindings and dispatch size.
This module owns the format: the entry's keys common to both arches, into which the back end's
are merged, without asking which back end it holds. The back end names the CPU's symbols after
the module's kernel name and a hash of its final IR (never after a per-process counter), so the
same module gives the same bytes in every process, and two modules loaded into one process
never clash. Source locations keep only the file's base name: a module holds no path of the
machine that built it, and the same source gives the same module wherever it lives.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from tistudio.aot.format import PTYPE_NDARRAY, PTYPE_SCALAR
from tistudio.ir import statements as s
from tistudio.ir.printer import print_ir
from tistudio.ir.stmt import Kernel
from tistudio.passes.context import PassContext
from tistudio.passes.pipeline import compile_to_final_ir, refuse_functions
from tistudio.runtime.offline_cache import make_key


def compile_artifacts(ir: Kernel, program: Any, stem: str) -> tuple[dict, dict[str, bytes]]:
    """(metadata entry, files) of the frontend IR `ir` compiled for `program`'s arch; file
    names start with `stem`."""
    ctx = PassContext(program.config)
    refuse_functions(ir, "an AOT module cannot hold recursive calls; run it with ti.cpu")
    compile_to_final_ir(ir, ctx)
    _strip_paths(ir)  # after the passes: statements they made carry locations too
    tasks = [_task(task, f"{stem}_t{i:02d}") for i, task in enumerate(_tasks(ir))]
    backend = program.backend
    key = make_key([ir.name, print_ir(ir), backend.fingerprint()])
    artifacts = backend.aot_artifacts(ir, program.config, stem, key)
    assert len(artifacts.tasks) == len(tasks), "the back end describes every task"
    entry = {
        "name": ir.name,
        "args": [_arg(p) for p in ir.params],
        "rets": [{"dtype": str(t)} for t in ir.ret_types],
        "gtmp_size": ir.gtmp_size,
        "tasks": [{**task, **extra} for task, extra in zip(tasks, artifacts.tasks)],
        "trees": artifacts.trees,
        **artifacts.entry,
    }
    if any(isinstance(stmt, s.Rand) for stmt in ir.walk()):  # its launches' keys: see format
        entry["random_seed"] = program.config.random_seed & 0xFFFFFFFF
    return entry, artifacts.files


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
