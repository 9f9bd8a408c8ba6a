"""`%%ti_kernel`: run a cell whose functions are kernels, and show the studio panel under it.

The cell runs in the user's namespace. Before it runs, its top-level `def`s without decorators
get `ti.kernel` (decorated ones, `@ti.kernel` and `@ti.func` alike, are kept), and after each
`def` the panel learns the new kernel, so even calls in the same cell are watched. Errors come
back short: a compile error shows the user's line and what is wrong, never the compiler's
frames.
"""

from __future__ import annotations

import ast
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import display

import tistudio
from tistudio.frontend.errors import TaichiCompilationError
from tistudio.lang import impl
from tistudio.lang.kernel import Kernel
from tistudio.lang.nan_explain import record_writes
from tistudio.studio.panel import DEFAULT_SHOW, SHOW_ITEMS, Panel

HOOK = "__tistudio_cell__"


class StudioError(Exception):
    """A cell's error with its traceback already trimmed to what the user needs to see."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines

    def _render_traceback_(self) -> list[str]:  # IPython shows these lines and nothing else
        return self.lines


def compact_error(error: BaseException) -> list[str]:
    """A Taichi compile error as IPython shows it: red name, then file, line, caret, message."""
    return [f"\x1b[1;31m{type(error).__name__}\x1b[0m: {error}"]


def parse_show(text: str) -> tuple[str, ...]:
    items = tuple(part.strip() for part in text.split(",") if part.strip())
    unknown = [i for i in items if i not in SHOW_ITEMS]
    if unknown:
        raise UsageError(
            f"--show: unknown item {unknown[0]!r}; choose from {', '.join(SHOW_ITEMS)}"
        )
    return items


class _CellTransformer(ast.NodeTransformer):
    """Adds `ti.kernel` to undecorated top-level defs and reports each def to the panel."""

    def visit_Module(self, node: ast.Module) -> ast.Module:
        body: list[ast.stmt] = []
        for stmt in node.body:
            body.append(stmt)
            if isinstance(stmt, ast.FunctionDef):
                if not stmt.decorator_list:
                    decorator = ast.Attribute(ast.Name(HOOK, ast.Load()), "kernel", ast.Load())
                    stmt.decorator_list.append(ast.copy_location(decorator, stmt))
                call = ast.parse(f"{HOOK}.defined({stmt.name})").body[0]
                body.append(ast.fix_missing_locations(ast.copy_location(call, stmt)))
        node.body = body
        return node


class CellHook:
    """What the rewritten cell calls: `kernel` for plain defs, `defined` after every def.
    With `debug` set, the cell's kernels compile with debug checks whatever the program's
    mode (bounds, division by zero, `assert`), and the program's fields stay."""

    def __init__(self, start_panel: Any, debug: bool | None = None) -> None:
        self.start_panel = start_panel
        self.panel: Panel | None = None
        self.debug = debug

    def kernel(self, fn: Any) -> Any:
        return tistudio.kernel(fn)

    def defined(self, obj: Any) -> None:
        if isinstance(obj, Kernel):
            obj.debug = self.debug
            if self.panel is None:
                self.panel = self.start_panel()
            self.panel.add_kernel(obj)


def ensure_program(arch: str | None, debug: bool | None) -> list[str]:
    """Start a program with the asked arch/debug if the current one differs; say so."""
    config = impl.current_config()
    want_arch = arch or config.arch
    want_debug = config.debug if debug is None else debug
    if want_arch == config.arch and want_debug == config.debug:
        return []
    tistudio.init(arch=want_arch, debug=want_debug)
    return [f"ti.init(arch={want_arch}, debug={want_debug}): fields from before are gone"]


@magics_class
class StudioMagics(Magics):
    """The `%%ti_kernel` cell magic; `%load_ext tistudio` registers it."""

    def __init__(self, shell: Any) -> None:
        super().__init__(shell)
        self.panels: dict[tuple[str, ...], Panel] = {}

    @magic_arguments()
    @argument("--arch", choices=["cpu", "gpu"], default=None, help="run on this arch")
    @argument(
        "--show",
        default=",".join(DEFAULT_SHOW),
        metavar="ITEMS",
        help=f"comma-separated views to show: {', '.join(SHOW_ITEMS)} "
        f"(default: {','.join(DEFAULT_SHOW)})",
    )
    @argument("--export", default=None, metavar="PATH.tcm", help="export an AOT module")
    @argument(
        "--debug",
        dest="debug",
        action="store_true",
        default=None,
        help="ti.init(debug=True); without either flag the cell's kernels alone get debug checks",
    )
    @argument("--no-debug", dest="debug", action="store_false", help="ti.init(debug=False)")
    @cell_magic
    def ti_kernel(self, line: str, cell: str) -> None:
        """Run the cell as tistudio kernels and show the studio panel under it.

        Every top-level function in the cell without a decorator becomes a `@ti.kernel`
        (its parameters need type annotations: `ti.f32`, `ti.template()`, ...); decorated
        functions are kept as they are, so `@ti.func` helpers stay funcs. The panel shows,
        for each kernel, the compiler passes (IR after each pass, diffs, timings), the
        cache of template instantiations, the fields the kernels write (with
        `--show fields`) and an AOT export button, and keeps updating as later cells call
        the kernels. The cell's kernels run with debug checks (indices out of bounds,
        integer division by zero, `assert`) unless `--no-debug` is given; either flag
        restarts the program in that mode instead.

        Example::

            %%ti_kernel --show passes,cache,fields
            x = ti.field(ti.f32, shape=(256, 256))

            def fill(t: ti.f32):
                for i, j in x:
                    x[i, j] = ti.sin(i * 0.1 + t) * ti.cos(j * 0.1)

            fill(0.0)
        """
        args = parse_argstring(self.ti_kernel, line)
        show = parse_show(args.show)
        if args.export is not None and not args.export.endswith(".tcm"):
            raise UsageError(f"--export: the file name must end in .tcm, got {args.export!r}")
        notes = ensure_program(args.arch, args.debug)
        record_writes()  # so that explain_nan (and a click on a NaN) can rerun the last writer
        debug = True if args.debug is None else None  # checks by default; flags restart
        hook = CellHook(lambda: self._start_panel(show, notes, args.export), debug)
        try:
            self._run(cell, hook)
        finally:  # a cell that raised keeps its panel too (and it is closed when re-run)
            if hook.panel is not None:
                self._keep(hook.panel)

    def _keep(self, panel: Panel) -> None:
        panel.finish()
        if panel.display_handle is not None:
            panel.display_handle.update(panel)  # fresh static HTML for nbviewer
        key = tuple(k.__name__ for k in panel.kernels)
        old = self.panels.pop(key, None)
        if old is not None and old is not panel:
            old.close()  # the cell ran again: its old kernels are gone
        self.panels[key] = panel

    def _start_panel(self, show: tuple[str, ...], notes: list[str], export: str | None) -> Panel:
        arch = impl.current_config().arch
        panel = Panel(self.shell.user_ns, show=show, arch=arch, export_path=export)
        panel.header.notes = notes
        panel.display_handle = display(panel, display_id=True)
        return panel

    def _run(self, cell: str, hook: CellHook) -> None:
        source = self.shell.transform_cell(cell)
        filename = self.shell.compile.cache(source, self.shell.execution_count, raw_code=cell)
        ns = self.shell.user_ns
        try:
            tree = ast.fix_missing_locations(_CellTransformer().visit(ast.parse(source, filename)))
            code = compile(tree, filename, "exec")
        except SyntaxError:
            self.shell.showsyntaxerror(filename)
            raise StudioError(["the cell has a syntax error (shown above)"]) from None
        ns[HOOK] = hook
        try:
            exec(code, ns)  # noqa: S102 - running the user's cell is the point
        except TaichiCompilationError as e:
            raise StudioError(compact_error(e)) from None
        except Exception:
            etype, value, tb = _exc_info()
            while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
                tb = tb.tb_next  # the user's frames only (IPython 9 ignores tb_offset here)
            stb = self.shell.InteractiveTB.structured_traceback(etype, value, tb, tb_offset=0)
            raise StudioError(stb) from None
        finally:
            ns.pop(HOOK, None)


def _exc_info() -> tuple:
    import sys

    return sys.exc_info()


def show_compile_error(shell: Any, etype: type, value: BaseException, tb: Any, tb_offset=None):
    """IPython custom exception handler: Taichi compile errors in any cell, shown short."""
    stb = compact_error(value)
    shell._showtraceback(etype, value, stb)
    return stb


def load_ipython_extension(ipython: Any) -> None:
    ipython.register_magics(StudioMagics)
    ipython.set_custom_exc((TaichiCompilationError,), show_compile_error)
