"""`KernelSpec`: everything launching a compiled kernel needs besides its machine code.

The executable is built from a spec and the addresses of the spec's functions, never from the
IR, so a kernel whose object code comes from the disk cache (no frontend IR was lowered, no
pass ran) launches exactly like a freshly compiled one. A spec is plain data and round-trips
through JSON (`to_json`/`from_json`), which is how the offline cache stores it next to the code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tistudio.backends.llvm.context import ContextLayout, ParamSlots
from tistudio.backends.llvm.launcher import SHORT_WORK_LIMIT, bounded_work, task_grain
from tistudio.ir.assertions import AssertInfo, assert_table, checks_from_json, checks_to_json
from tistudio.ir.ops import TaskType
from tistudio.ir.printing import PrintFormat, print_formats
from tistudio.ir.statements import Offloaded
from tistudio.ir.stmt import Kernel, Param
from tistudio.ir.types import TYPES_BY_NAME, PrimitiveType, parse_type
from tistudio.ir.writes import written_ndarrays


@dataclass(frozen=True)
class TaskSpec:
    """One offloaded task: its kind, its bounds (constants, or gtmp byte offsets), its grain."""

    task_type: TaskType
    const_begin: bool = True
    begin: int = 0
    const_end: bool = True
    end: int = 0
    grain: int = 1


@dataclass(frozen=True)
class KernelSpec:
    """A compiled kernel's interface: parameters, returns, tasks, argument-buffer layout and
    the symbols of its functions (one per task, then the native launcher if there is one)."""

    name: str
    params: tuple[Param, ...]
    ret_types: tuple[PrimitiveType, ...]
    gtmp_size: int
    tasks: tuple[TaskSpec, ...]
    layout: ContextLayout
    functions: tuple[str, ...]
    has_launcher: bool = False
    print_formats: tuple[PrintFormat, ...] = ()  # by format id (see `ir/printing.py`)
    checks: tuple[AssertInfo, ...] = ()  # debug checks (see `ir/assertions.py`)
    short: bool = False  # a launch does little enough to keep the GIL (`SHORT_WORK_LIMIT`)
    # ndarray parameters the kernel may write, by argument id, and where (see `ir/writes.py`)
    written_arrays: tuple[tuple[int, str], ...] = ()

    @classmethod
    def of(cls, kernel: Kernel, layout: ContextLayout, functions: list[str], grain: int):
        tasks = []
        for task in kernel.body:
            assert isinstance(task, Offloaded)
            tasks.append(
                TaskSpec(
                    task.task_type,
                    bool(task.const_begin),
                    int(task.begin or 0),
                    bool(task.const_end),
                    int(task.end or 0),
                    task_grain(task, grain) if task.task_type is TaskType.range_for else 1,
                )
            )
        return cls(
            kernel.name,
            tuple(kernel.params),
            tuple(kernel.ret_types),  # type: ignore[arg-type]
            kernel.gtmp_size,
            tuple(tasks),
            layout,
            tuple(functions),
            len(functions) > len(tasks),
            tuple(print_formats(kernel)[0]),
            checks=assert_table(kernel),
            short=bounded_work(kernel) <= SHORT_WORK_LIMIT,
            written_arrays=tuple(written_ndarrays(kernel).items()),
        )

    def to_json(self) -> dict[str, Any]:
        layout = self.layout
        return {
            "name": self.name,
            "params": [[p.name, p.kind, str(p.dtype), p.ndim] for p in self.params],
            "ret_types": [str(t) for t in self.ret_types],
            "gtmp_size": self.gtmp_size,
            "tasks": [
                [t.task_type.value, t.const_begin, t.begin, t.const_end, t.end, t.grain]
                for t in self.tasks
            ],
            "layout": {
                "num_returns": layout.num_returns,
                "root_slots": [[tree, slot] for tree, slot in layout.root_slots.items()],
                "params": [[p.kind, p.slot, list(p.shape_slots)] for p in layout.params],
                "num_slots": layout.num_slots,
                "print_slot": layout.print_slot,
                "random_slot": layout.random_slot,
            },
            "functions": list(self.functions),
            "has_launcher": self.has_launcher,
            "print_formats": [[f.template, [str(t) for t in f.dtypes]] for f in self.print_formats],
            "checks": checks_to_json(self.checks),
            "short": self.short,
            "written_arrays": [list(pair) for pair in self.written_arrays],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> KernelSpec:
        raw = data["layout"]
        layout = ContextLayout(
            raw["num_returns"],
            {int(tree): int(slot) for tree, slot in raw["root_slots"]},
            tuple(ParamSlots(kind, slot, tuple(shape)) for kind, slot, shape in raw["params"]),
            raw["num_slots"],
            raw.get("print_slot", -1),
            raw.get("random_slot", -1),
        )
        return cls(
            data["name"],
            tuple(Param(n, k, parse_type(d), nd) for n, k, d, nd in data["params"]),
            tuple(TYPES_BY_NAME[t] for t in data["ret_types"]),
            data["gtmp_size"],
            tuple(TaskSpec(TaskType(t[0]), *t[1:]) for t in data["tasks"]),
            layout,
            tuple(data["functions"]),
            data["has_launcher"],
            tuple(
                PrintFormat(template, tuple(TYPES_BY_NAME[t] for t in dtypes))
                for template, dtypes in data.get("print_formats", [])
            ),
            checks=checks_from_json(data.get("checks", [])),
            short=data.get("short", False),
            written_arrays=_written_arrays(data),
        )


def _written_arrays(data: dict[str, Any]) -> tuple[tuple[int, str], ...]:
    """From a spec's JSON; a spec written before it said (an older AOT module) may write any
    ndarray parameter, so a read-only array is refused for each."""
    if "written_arrays" in data:
        return tuple((int(arg), str(where)) for arg, where in data["written_arrays"])
    return tuple((k, "") for k, p in enumerate(data["params"]) if p[1] == "ndarray")
