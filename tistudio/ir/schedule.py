"""What the back-end passes decided for one task: the `schedule` of an `Offloaded`.

The last passes of each back end's pipeline choose how a task's loops meet the hardware:
`vectorize` (GPU: four loop indices per invocation, some loads and stores as `vec4`),
`unroll` (GPU: serial loops written four times per step), `jam` (CPU: four outer iterations
around one inner loop) and `jam_rows` (GPU: up to eight rows of a 2-D loop around one inner
loop). They record the choice here, and the printer shows it after the task's header, so the
studio's pass explorer shows what each of them did; the emitters only print what was chosen.
The choice names statements of the task, so nothing may rewrite the task after these passes
(they run last).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from tistudio.ir.stmt import Stmt


@dataclass(eq=False)
class Schedule:
    """How a task's loops are laid out; the defaults mean "as written"."""

    lanes: int = 1  # vectorize: consecutive loop indices per invocation step (1: one)
    # vectorize: loads served by aligned vec4s -> bytes the first vec4 starts before lane 0's
    # address (0, 4, 8 or 12; not 0: a second vec4 follows it)
    vec4_loads: dict[Stmt, int] = field(default_factory=dict)
    vec4_stores: list[Stmt] = field(default_factory=list)  # vectorize: stores into a vec4
    unroll: int = 1  # unroll: iterations per step of each loop in `unrolled`
    unrolled: list[Stmt] = field(default_factory=list)  # unroll: serial `RangeFor`s
    jam: int = 1  # jam: outer iterations per step around the body's one inner loop
    # jam_rows (GPU): the flat index distance between those iterations, one row of the 2-D
    # loop (0: consecutive iterations, the CPU's jam)
    jam_stride: int = 0

    def text(self, name: Callable[[Stmt], str]) -> str:
        """` vectorize(4, loads [$8, $12@4], stores [$11])`, ` unroll(4, $5)`, ` jam(4)`,
        ` jam(8, stride 4096)`, or "" (`name` gives a statement's printed name; `@4`: the load's
        vec4 starts 4 bytes early)."""
        parts = []
        if self.lanes > 1:
            loads = ", ".join(name(x) + (f"@{n}" if n else "") for x, n in self.vec4_loads.items())
            stores = ", ".join(map(name, self.vec4_stores))
            parts.append(f"vectorize({self.lanes}, loads [{loads}], stores [{stores}])")
        if self.unrolled:
            parts.append(f"unroll({self.unroll}, {', '.join(map(name, self.unrolled))})")
        if self.jam > 1:
            stride = f", stride {self.jam_stride}" if self.jam_stride else ""
            parts.append(f"jam({self.jam}{stride})")
        return "".join(" " + part for part in parts)

    @classmethod
    def parse(cls, text: str, operand: Callable[[str], Stmt]) -> Schedule:
        """The schedule that `text` prints (`operand` finds a statement by its `$n`)."""
        schedule = cls()
        for kind, args in _PART.findall(text):
            if kind == "vectorize":
                m = _VECTORIZE.fullmatch(args)
                if m is None:
                    raise ValueError(f"bad vectorize({args})")
                schedule.lanes = int(m.group(1))
                for ref in _items(m.group(2)):
                    load, _, skew = ref.partition("@")
                    schedule.vec4_loads[operand(load)] = int(skew or 0)
                schedule.vec4_stores = [operand(ref) for ref in _items(m.group(3))]
            elif kind == "unroll":
                factor, *loops = _items(args)
                schedule.unroll, schedule.unrolled = int(factor), [operand(x) for x in loops]
            else:
                m = _JAM.fullmatch(args)
                if m is None:
                    raise ValueError(f"bad jam({args})")
                schedule.jam, schedule.jam_stride = int(m.group(1)), int(m.group(2) or 0)
        if _PART.sub("", text).strip():
            raise ValueError(f"bad task schedule {text!r}")
        return schedule


_PART = re.compile(r"(vectorize|unroll|jam)\(((?:[^()\[\]]|\[[^\]]*\])*)\)")
_JAM = re.compile(r"(\d+)(?:, stride (\d+))?")
_VECTORIZE = re.compile(r"(\d+), loads \[([^\]]*)\], stores \[([^\]]*)\]")


def _items(text: str) -> list[str]:
    return [item for item in text.split(", ") if item]
