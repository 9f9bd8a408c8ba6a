"""Taichi 1.7.4's own IR of a kernel, pass by pass, next to ours.

tistudio adopts Taichi's pass names and IR words, so a student can hold the two pipelines side
by side: for one kernel instantiation this writes a script that recreates what the kernel needs
(its source under `@ti.kernel`, the `@ti.func`s, constants, fields and modules it uses, and
arguments of the types it was compiled for), runs it with real Taichi and `print_ir=True` in a
subprocess (Taichi loads its own LLVM and takes seconds: never in the user's kernel process),
and parses what Taichi prints: the IR after each pass on stdout, the pass names on stderr (its
log), one for one. `TAICHI_NAMES` pairs our pass names with Taichi's where they match.
Runtime scalars are passed as zeros and ndarrays as two elements per axis: the IR does not depend
on their values, and the script compiles the kernel without launching it.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import textwrap
import types
from dataclasses import dataclass
from typing import Any

import tistudio

TIMEOUT_S = 60.0
NOT_INSTALLED = "Taichi is not installed (pip install taichi==1.7.4)"

# Our pass (its record's name in the explorer) -> Taichi's print_ir title after its pass.
TAICHI_NAMES: dict[str, str] = {
    "initial IR": "Initial IR",
    "lower_ast": "Lowered",
    "type_check": "Typechecked",
    # Taichi 1.7.4 prints "Scalarized" only for a kernel with vectors, and last of all, after
    # its DIE: same name, but not the same place in the pipeline as ours (after type_check)
    "scalarize": "Scalarized",
    # Taichi runs full_simplify where we run a simplify group: "Simplified I" is the IR after
    # its first group, the one between type checking and offloading, as ours is
    "simplify I": "Simplified I",
    "offload": "Offloaded",
    "demote_atomics": "Atomics demoted I",
    "demote_dense_struct_fors": "Dense struct-for demoted",
    "make_thread_local": "Make thread local",
    "demote_atomics II": "Atomics demoted II",
    "lower_access": "Access lowered",
    "demote_operations": "Operations demoted",
    # our last group runs after demote_operations, where Taichi runs its fourth full_simplify
    # (its second and third, after offloading, we do not run: see passes/pipeline.py)
    "simplify II": "Simplified IV",
}
GROUP = re.compile(r"\((simplify [IV]+)\)$")  # a simplify sub-pass: "alg_simp (simplify I)"
TASK_START = "Start offload_to_executable"  # Taichi's title before it compiles one task
TITLE = re.compile(r"@\d+\] \[(?P<kernel>[^\]]+)\] (?P<title>.*):\s*$")  # Taichi's log line


@dataclass(frozen=True)
class TaichiPass:
    """Taichi's IR after one of its passes, as `print_ir` printed it."""

    name: str
    ir: str


@dataclass(frozen=True)
class TaichiPasses:
    """Taichi's passes of one kernel instantiation, in order, or why there are none."""

    passes: tuple[TaichiPass, ...] = ()
    error: str = ""

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.passes]

    def matching(self, our_name: str) -> TaichiPass | None:
        """Taichi's pass that matches our pass `our_name` (a simplify sub-pass: its group's)."""
        group = GROUP.search(our_name)
        title = TAICHI_NAMES.get(group.group(1) if group else our_name)
        return next((p for p in self.passes if p.name == title), None)


class Unrecreatable(Exception):
    """Something the kernel uses that the Taichi script cannot make again (the message says)."""


def taichi_passes(kernel: Any, entry: Any, timeout: float = TIMEOUT_S) -> TaichiPasses:
    """Run Taichi 1.7.4 on `kernel` as instantiated by cache `entry`; its passes, or the error."""
    try:
        script = taichi_script(kernel, entry)
    except Unrecreatable as e:
        return TaichiPasses(error=str(e))
    return run_script(script, kernel.fn.__name__, timeout)


def run_script(
    script: str,
    kernel_name: str,
    timeout: float = TIMEOUT_S,
    python: tuple[str, ...] = (sys.executable,),
) -> TaichiPasses:
    """Run a Taichi script in a subprocess of `python` (this interpreter); the passes of kernel
    `kernel_name` it printed."""
    env = {**os.environ, "TI_LOG_LEVEL": "info"}  # the pass titles are info lines
    with tempfile.TemporaryDirectory(prefix="tistudio-taichi-") as folder:
        path = pathlib.Path(folder) / "kernel.py"  # Taichi reads a kernel's source from its file
        path.write_text(script, encoding="utf-8")
        try:
            done = subprocess.run(
                [*python, str(path)],
                capture_output=True,
                text=True,
                timeout=timeout,
                env=env,
                cwd=folder,
            )
        except subprocess.TimeoutExpired:
            return TaichiPasses(error=f"Taichi did not finish within {timeout:.0f} s")
    if "No module named 'taichi'" in done.stderr:
        return TaichiPasses(error=NOT_INSTALLED)
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        last = lines[-1] if lines else f"exit status {done.returncode}"
        return TaichiPasses(error=f"Taichi failed on this kernel: {last}")
    return parse_output(done.stdout, done.stderr, kernel_name)


def parse_output(stdout: str, stderr: str, kernel_name: str) -> TaichiPasses:
    """Pair the n-th pass title Taichi logged with the n-th IR block it printed; keep the
    passes of `kernel_name` (its instances are named `name_c<id>_<n>`; `.simplify` titles are
    the sub-passes of a full_simplify, left out)."""
    titles = [m.group("kernel", "title") for m in map(TITLE.search, stderr.splitlines()) if m]
    blocks = ir_blocks(stdout)
    if len(titles) != len(blocks):
        return TaichiPasses(
            error=f"Taichi logged {len(titles)} pass names but printed {len(blocks)} IR texts"
        )
    own = re.compile(rf"{re.escape(kernel_name)}_c\d+_\d+")
    passes = tuple(
        TaichiPass(title, block)
        for (name, title), block in zip(titles, blocks, strict=True)
        if own.fullmatch(name)
    )
    if not passes:
        return TaichiPasses(error=f"Taichi printed no IR for the kernel {kernel_name!r}")
    return TaichiPasses(merge_tasks(passes))


def merge_tasks(passes: tuple[TaichiPass, ...]) -> tuple[TaichiPass, ...]:
    """Taichi's CPU back end runs the passes after offloading once per offloaded task, each
    printing that task alone; ours run on the whole kernel. One pass per title (and per run of
    that title within a task), its IR the tasks' IRs in order, each headed `# task k of n`."""
    starts = [i for i, p in enumerate(passes) if p.name == TASK_START]
    if len(starts) < 2:
        return passes
    tasks = [passes[a:b] for a, b in zip(starts, [*starts[1:], len(passes)], strict=True)]
    merged: dict[tuple[str, int], list[str]] = {}
    for k, task in enumerate(tasks):
        seen: dict[str, int] = {}
        for p in task:
            run = seen[p.name] = seen.get(p.name, -1) + 1
            merged.setdefault((p.name, run), []).append(f"# task {k + 1} of {len(tasks)}\n{p.ir}")
    after = tuple(TaichiPass(name, "\n".join(irs)) for (name, _), irs in merged.items())
    return passes[: starts[0]] + after


def ir_blocks(stdout: str) -> list[str]:
    """The IR texts in Taichi's stdout: from `kernel {` to the `}` that closes it."""
    blocks: list[str] = []
    current: list[str] | None = None
    for line in stdout.splitlines():
        if current is None and line.startswith("kernel {"):
            current = [line]
        elif current is not None:
            current.append(line)
            if line == "}":
                blocks.append("\n".join(current))
                current = None
    return blocks


# ---- the script ---------------------------------------------------------------------------


def taichi_script(kernel: Any, entry: Any) -> str:
    """A Taichi program that compiles the kernel as `entry` instantiated it, printing its IR."""
    fn = kernel.fn
    if getattr(kernel, "takes_self", False):
        raise Unrecreatable(
            "a kernel of a class (its `self`) cannot be recreated in the Taichi run"
        )
    mode = getattr(kernel, "autodiff_mode", "none")
    if mode != "none":
        raise Unrecreatable(
            f"{kernel.__name__} is the {mode}-mode autodiff twin of {fn.__name__}: "
            "the Taichi run compiles kernels as written only"
        )
    names = _Names()
    names.collect(fn, skip=set(inspect.signature(fn).parameters))
    if not hasattr(entry, "facts"):
        raise Unrecreatable("a compile report does not keep the argument types: call the kernel")
    args = [_argument(facts) for facts in entry.facts]
    lines = [
        "import taichi as _ti",
        "_ti.init(arch=_ti.cpu, print_ir=True, print_ir_dbg_info=False, offline_cache=False)",
        *names.lines,
        *(f"@_ti.func\n{source}" for source in names.funcs),
        f"@_ti.kernel\n{_def_source(fn)}",
        COMPILE_ONLY,
        f"{fn.__name__}({', '.join(args)})",
    ]
    return "\n".join(lines) + "\n"


# Taichi compiles a kernel when it launches it (kernel_impl.py: prog.compile_kernel, then
# prog.launch_kernel): the script's Program launches nothing, so arguments that only stand in
# for the user's (an ndarray of two elements where the kernel indexes more) are never touched.
COMPILE_ONLY = """
class _CompileOnly:
    def __init__(self, prog):
        self._prog = prog

    def __getattr__(self, name):
        return getattr(self._prog, name)

    def launch_kernel(self, *args):
        pass


_runtime = _ti.lang.impl.get_runtime()
_runtime.materialize()
_runtime.prog = _CompileOnly(_runtime.prog)
"""


def _source(fn: Any) -> str:
    """The function's source, dedented."""
    try:
        return textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as e:
        raise Unrecreatable(f"the source of {fn.__name__!r} cannot be read ({e})") from e


def _def_source(fn: Any) -> str:
    """The function's source from its `def` line on (decorators left out)."""
    text = _source(fn)
    node = ast.parse(text).body[0]
    return "\n".join(text.splitlines()[node.lineno - 1 :])


class _Names:
    """The module-level names a kernel (and the funcs it calls) uses, as lines of the script."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.funcs: list[str] = []
        self.seen: set[str] = set()

    def collect(self, fn: Any, skip: set[str]) -> None:
        tree = ast.parse(_source(fn))
        scope = {**inspect.getclosurevars(fn).nonlocals}
        loads = {
            n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
        }
        for name in sorted(loads - skip - self.seen):
            if name in scope:
                value = scope[name]
            elif name in fn.__globals__:
                value = fn.__globals__[name]
            else:
                continue  # a local or a builtin
            if name in vars(builtins) and value is getattr(builtins, name):
                continue
            self.seen.add(name)
            self.add(name, value)

    def add(self, name: str, value: Any) -> None:
        func = getattr(value, "__ti_func__", None)
        if func is not None:
            self.collect(func, skip=set(inspect.signature(func).parameters))
            self.funcs.append(_def_source(func))
        elif isinstance(value, bool | int | float):
            self.lines.append(f"{name} = {_literal(value)}")
        elif isinstance(value, types.ModuleType):
            self.lines.append(f"import {_module(name, value)} as {name}")
        elif hasattr(value, "_ti_place_snode") and hasattr(value, "dtype"):
            self.lines.append(f"{name} = {_field(name, value)}")
        elif (alias := _taichi_alias(value)) is not None:
            self.lines.append(f"{name} = _ti.{alias}")
        else:
            kind = type(value).__name__
            raise Unrecreatable(
                f"uses the global `{name}`, a {kind}, which the Taichi run cannot recreate"
            )


def _module(name: str, module: types.ModuleType) -> str:
    if module is tistudio:
        return "taichi"
    if module.__name__.startswith("tistudio"):
        for sub in ("math", "types"):
            if module is getattr(tistudio, sub, None):
                return f"taichi.{sub}"
        raise Unrecreatable(
            f"uses the module `{name}` ({module.__name__}), which has no Taichi counterpart here"
        )
    return module.__name__


def _literal(value: bool | int | float) -> str:
    """Python source for a constant: `float('inf')` where repr would give a bare `inf`."""
    text = repr(value)
    return f"float({text!r})" if text in ("inf", "-inf", "nan") else text


def _taichi_alias(value: Any) -> str | None:
    """`<name>` or `math.<name>` for a value that is one of tistudio's names under `ti.` or
    `ti.math.` (a dtype, `ti.static`, `ti.math.vec3`): Taichi has it under the same name."""
    if isinstance(value, bool | int | float | str):
        return None
    for prefix, space in (("", tistudio), ("math.", tistudio.math)):
        found = next((n for n in dir(space) if getattr(space, n, None) is value), None)
        if found is not None:
            return prefix + found
    return None


def _dtype(text: str, what: str) -> str:
    if not re.fullmatch(r"[uif]\d+", text):
        raise Unrecreatable(
            f"{what} has the element type {text}, which the Taichi run cannot recreate"
        )
    return f"_ti.{text}"


def _field(name: str, field: Any) -> str:
    snode = field._ti_place_snode
    if not snode.is_path_all_dense():
        raise Unrecreatable(f"uses the sparse field `{name}`, which the Taichi run cannot recreate")
    dtype = _dtype(str(field.dtype), f"the field `{name}`")
    shape = tuple(field.shape)
    elements = tuple(getattr(field, "element_shape", None) or ())
    if not elements:
        return f"_ti.field({dtype}, shape={shape})"
    if len(elements) == 1:
        return f"_ti.Vector.field({elements[0]}, {dtype}, shape={shape})"
    return f"_ti.Matrix.field({elements[0]}, {elements[1]}, {dtype}, shape={shape})"


def _argument(facts: Any) -> str:
    """An argument of the kind, type and shape the instantiation was compiled for."""
    what = f"the argument `{facts.param}`"
    if facts.kind == "field":
        shape = tuple(int(n) for n in re.findall(r"\d+", facts.shape))
        elements = tuple(int(n) for n in re.findall(r"\d+", facts.elements))
        dtype = _dtype(facts.dtype, what)
        if not elements:
            return f"_ti.field({dtype}, shape={shape})"
        if len(elements) == 1:
            return f"_ti.Vector.field({elements[0]}, {dtype}, shape={shape})"
        return f"_ti.Matrix.field({elements[0]}, {elements[1]}, {dtype}, shape={shape})"
    if facts.kind == "value":
        try:
            value = ast.literal_eval(facts.label)
        except (ValueError, SyntaxError):
            value = None
        if isinstance(value, bool | int | float):
            return _literal(value)
        raise Unrecreatable(f"{what} is {facts.label}, which the Taichi run cannot recreate")
    if facts.kind == "ndarray":
        ndim = int(facts.shape.rstrip("d"))
        elements = tuple(int(n) for n in re.findall(r"\d+", facts.elements))
        return f"__import__('numpy').zeros({(2,) * ndim + elements}, dtype='{facts.dtype}')"
    if facts.kind == "runtime" and re.fullmatch(r"[uif]\d+", facts.dtype):
        return "0.0" if facts.dtype.startswith("f") else "0"
    raise Unrecreatable(f"{what} ({facts.text}) cannot be recreated in the Taichi run")


def view_data(result: TaichiPasses, our_names: list[str]) -> dict:
    """What the explorer's Taichi IR tab shows: Taichi's passes, and for each of our passes
    the index of its match among them (None where Taichi has no pass of that name)."""
    index = {id(p): i for i, p in enumerate(result.passes)}
    matches = [result.matching(name) for name in our_names]
    return {
        "passes": [[p.name, p.ir] for p in result.passes],
        "match": [None if m is None else index[id(m)] for m in matches],
        "error": result.error,
    }
