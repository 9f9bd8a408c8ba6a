"""Assemble each task's WGSL module: bindings, immediates, helpers and the entry point.

`build_shaders` turns a kernel's final IR into one `TaskShader` per offloaded task: its WGSL text,
the bindings its bind group must provide, and how to dispatch it (one invocation for a serial
task; for a range_for, the number of workgroups of its grid-stride loop, or the fixed grid
`Caps.max_groups` when the bounds are computed by an earlier task and only known on the device).
A range_for with `ti.loop_config(block_dim=B)` has workgroups of B; one that shares memory or
waits at a barrier runs as tiles of B (`simt.py`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from tistudio.backends.errors import UnsupportedOnBackend
from tistudio.backends.webgpu import jam_rows, random, simt, unroll, vectorize, wgsl
from tistudio.backends.webgpu.emitter import BACKEND, TaskEmitter
from tistudio.backends.webgpu.memory import Ptr
from tistudio.backends.webgpu.resources import UNIFORM, ArgsLayout, Binding, Caps
from tistudio.ir import statements as s
from tistudio.ir.ops import TaskType
from tistudio.ir.printer import Printer, offloaded_header
from tistudio.ir.stmt import Kernel, walk
from tistudio.ir.types import PointerType, i32
from tistudio.ir.verifier import InternalCompilerError


@dataclass
class TaskShader:
    """One task, compiled: WGSL text, bindings, and its dispatch size."""

    wgsl: str
    bindings: list[Binding]
    serial: bool
    groups: int  # workgroups to dispatch (0: nothing to run)
    writes: set[str] = field(default_factory=set)  # resources the task may write

    def to_json(self) -> dict:
        """What the offline cache stores of this task (see `from_json`)."""
        return {
            "wgsl": self.wgsl,
            "bindings": [
                [b.index, b.resource, b.view, b.window, b.writable] for b in self.bindings
            ],
            "serial": self.serial,
            "groups": self.groups,
            "writes": sorted(self.writes),
        }

    @classmethod
    def from_json(cls, data: dict) -> TaskShader:
        """The task `to_json` stored; KeyError, TypeError or ValueError if it is damaged."""
        bindings = [
            Binding(int(i), str(r), str(v), int(w), bool(x)) for i, r, v, w, x in data["bindings"]
        ]
        return cls(
            str(data["wgsl"]),
            bindings,
            bool(data["serial"]),
            int(data["groups"]),
            set(data["writes"]),
        )


_F16 = re.compile(r"\bf16\b|\b[0-9][0-9.e+-]*h\b")  # the type, or a literal of it
SMALL_GRID = 128  # workgroups (of Caps.workgroup_size) below which Caps.small_group is used


def build_shaders(
    kernel: Kernel, caps: Caps, args: ArgsLayout, windows: dict[str, int], fast_math: bool = True
) -> list[TaskShader]:
    names = Printer()
    names.number(kernel.body)
    uses = kernel.use_counts()
    shaders = []
    for index, task in enumerate(kernel.body):
        if not isinstance(task, s.Offloaded):
            raise InternalCompilerError(f"kernel body holds {type(task).__name__}, not a task")
        title = f"kernel {kernel.name}, task {index}: {offloaded_header(task)}"
        emitter = unroll.UnrollingEmitter(
            task, title, args, caps, names.names, uses, windows, fast_math, index
        )
        shaders.append(_build_task(emitter))
    return shaders


def _build_task(e: TaskEmitter) -> TaskShader:
    task = e.task
    if task.task_type is TaskType.serial:
        e.block(task.body)
        if e.draws:  # `ti.random`'s calls, counted from 0 (random.py)
            e.body.insert(0, f"    var {random.COUNTER}: u32 = 0u;")
        entry = ["@compute @workgroup_size(1)", "fn main() {"]
        groups, serial = 1, True
    elif task.task_type is TaskType.range_for:
        tiled = simt.is_tiled(task)  # shares memory or waits: every invocation runs each tile
        lanes = None if tiled else vectorize.lanes_of(task, e.caps)
        if lanes is not None:  # before any access: the buffer's scalars go through it too
            e.resources.vectors.update(lanes.views())
        # indices per invocation: four lanes, or the rows of a jammed task (jam_rows.py)
        per_invocation = jam_rows.copies(task, e.caps) if lanes is None else vectorize.LANES
        size = _workgroup_size(task, e.caps, per_invocation)
        e.caps = replace(e.caps, workgroup_size=size)  # this task's
        _range_for_body(e, lanes, tiled)
        entry = [
            f"@compute @workgroup_size({e.caps.workgroup_size})",
            "fn main(@builtin(global_invocation_id) gid: vec3<u32>,",
            "        @builtin(local_invocation_index) lid: u32,",
            *(["        @builtin(workgroup_id) wid: vec3<u32>,"] if tiled else []),
            "        @builtin(num_workgroups) groups: vec3<u32>) {",
        ]
        groups, serial = _groups(task, e.caps, per_invocation), False
    else:
        raise UnsupportedOnBackend(task, BACKEND, "struct_for tasks must be demoted")
    bindings = e.resources.bindings()
    if len(bindings) > e.caps.max_storage_buffers:
        raise UnsupportedOnBackend(
            task,
            BACKEND,
            f"the task needs {len(bindings)} storage bindings, the adapter allows "
            f"{e.caps.max_storage_buffers}",
        )
    e.need_helper("\n".join(e.body))  # every helper any line calls: atomics' loops too
    # values drivers cannot know (ieee.opaque, wgsl.opaque_bits), wherever they went
    e.unknowns = [n for n in _UNKNOWNS if any(n in text for text in e.body + e.helpers)]
    if e.unknowns:
        if serial:
            entry[-1] = "fn main(@builtin(num_workgroups) groups: vec3<u32>) {"
        for name in reversed(e.unknowns):  # private: helpers read them too
            e.body.insert(0, f"    {name} = {_UNKNOWNS[name][1]};")
    text = _module_text(e, entry, len(bindings))
    if e.uses_args and e.args.uniform:
        bindings.append(Binding(len(bindings), "args", UNIFORM, 0, False))
    return TaskShader(text, bindings, serial, groups, set(e.resources.writable))


def _range_for_body(e: TaskEmitter, lanes: vectorize.Lanes | None, tiled: bool = False) -> None:
    task = e.task
    for offset, dtype in _tls_slots(task).items():
        e.line(f"var tls{offset}: {e.reg(task, dtype)};")
    e.block(task.tls_prologue)
    begin, end = (
        _bound(e, task.const_begin, task.begin, "begin"),
        _bound(e, task.const_end, task.end, "end"),
    )
    stride = f"groups.x * {e.caps.workgroup_size}u"
    if task.const_begin and task.const_end:
        e.line(f"let count: u32 = {max(0, task.end - task.begin)}u;")
    else:
        e.line(f"let count: u32 = select(0u, u32({end} - {begin}), {end} > {begin});")
    index = f"{e.name_of(task)}_i"
    e.loop_vars[task] = index
    if lanes is None and not tiled and jam_rows.copies(task, e.caps) > 1:
        jam_rows.emit(e, index, stride)  # rows of a 2-D loop per step (no tls to reduce)
        return
    start = "gid.x"
    if lanes is not None:  # four indices per step, then the rest one by one
        vectorize.emit_lanes(e, lanes, begin, stride, index)
        start = f"{lanes.count // vectorize.LANES * vectorize.LANES}u + gid.x"
    mark = len(e.body)
    e.guard = simt.guard_of(task, e.caps.workgroup_size) if tiled else None  # the body's only
    with e.indent():
        e.block(task.body)
    e.guard = None
    body = e.body[mark:]
    del e.body[mark:]
    if e.draws:  # each iteration's `ti.random` calls count from 0 (random.py)
        body.insert(0, f"        var {random.COUNTER}: u32 = 0u;")
    first = "i32(k)" if begin == "0i" else f"{begin} + i32(k)"
    let_index = f"let {index}: i32 = {first};"
    factor = e.caps.grid_unroll
    if tiled:
        simt.tile_loop(e, task, let_index, body)
    elif lanes is None and factor > 1 and unroll.grid_eligible(body, task.body):
        unroll.emit_grid(e, factor, start, f"({stride})", let_index, body)
    else:
        e.line(f"for (var k: u32 = {start}; k < count; k = k + {stride}) {{")
        e.line(f"    {let_index}")
        e.body.extend(body)
        e.line("}")
    e.in_epilogue = True
    e.block(task.tls_epilogue)


def _bound(e: TaskEmitter, const: bool, value: int, name: str) -> str:
    if const:
        return wgsl.literal(value, i32)
    e.load_global(name, Ptr("gtmp", f"{value}u"), i32)  # written by an earlier task
    return name


def _groups(task: s.Offloaded, caps: Caps, lanes: int) -> int:
    if not (task.const_begin and task.const_end):
        return caps.max_groups
    n = -(-(task.end - task.begin) // lanes)  # invocations: each takes `lanes` indices
    return min(-(-n // caps.workgroup_size), caps.max_groups) if n > 0 else 0


def _workgroup_size(task: s.Offloaded, caps: Caps, lanes: int) -> int:
    """`caps.workgroup_size`, or `caps.small_group` for a range known to give fewer than
    SMALL_GRID workgroups: those would leave most of a large GPU's multiprocessors idle
    (n-body's 8192 invocations: 32 workgroups of 256 for the H100's 132 SMs; 128 of 64 run
    its unrolled loop 1.3x faster, `benchmarks/gpu/nbody_probe.py`)."""
    if simt.block_dim(task):  # ti.loop_config(block_dim=...)
        return simt.block_dim(task)
    if not (task.const_begin and task.const_end):
        return caps.workgroup_size
    n = -(-(task.end - task.begin) // lanes)
    if n < SMALL_GRID * caps.workgroup_size:
        return min(caps.small_group, caps.workgroup_size)
    return caps.workgroup_size


def _tls_slots(task: s.Offloaded) -> dict[int, object]:
    slots: dict[int, object] = {}
    for block in task.blocks():
        for stmt in walk(block):
            if isinstance(stmt, s.ThreadLocalPtr) and isinstance(stmt.ret_type, PointerType):
                slots.setdefault(stmt.offset, stmt.ret_type.pointee)
    return slots


# private values set from `num_workgroups.y`, 1 in every dispatch (device.py), which no
# compiler can know: name -> (type, value, what it is at run time)
_UNKNOWNS = {
    "ti_never": ("bool", "groups.y == 0u", "false at run time (ieee.opaque)"),
    "ti_zero": ("u32", "groups.y - 1u", "0 at run time (wgsl.opaque_bits)"),
}


def _module_text(e: TaskEmitter, entry: list[str], args_binding: int) -> str:
    lines = [f"// {e.title}"]
    code = (text for text in e.body + e.helpers if not text.lstrip().startswith("//"))
    if e.caps.has("shader-f16") and any(_F16.search(text) for text in code):
        lines.append("enable f16;")
    if e.uses_args:
        lines += e.args.declaration(args_binding)
    lines += e.resources.declarations()
    lines += e.workgroup_vars
    for reg in sorted(e.reduction_types):
        lines.append(f"var<workgroup> reduce_{reg}: array<{reg}, {e.caps.workgroup_size}>;")
    for name in e.unknowns:
        wgsl_type, _, comment = _UNKNOWNS[name]
        lines.append(f"var<private> {name}: {wgsl_type};  // {comment}")
    for helper in e.helpers:
        lines += ["", helper]
    lines += ["", *entry, *e.body, "}", ""]
    return "\n".join(lines)
