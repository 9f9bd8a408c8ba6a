"""`%%ti_kernel` through IPython's InteractiveShell, and a notebook run by nbclient."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Callable

import pytest
from IPython.core.interactiveshell import InteractiveShell

import tistudio as ti
from tistudio.studio.panel import CompileProgress, StudioHeader

CELL = """\
import tistudio as ti
x = ti.field(ti.f32, shape=(32, 32))

@ti.func
def wave(i, j, t):
    return ti.sin(i * 0.2 + t) * ti.cos(j * 0.2)

def fill(t: ti.f32):
    for i, j in x:
        x[i, j] = wave(i, j, t)

@ti.kernel
def total() -> ti.f32:
    s = 0.0
    for i, j in x:
        s += x[i, j]
    return s

fill(0.5)
"""


@pytest.fixture
def shell():
    ti.init(arch=ti.cpu)
    sh = InteractiveShell.instance()
    sh.run_cell("%load_ext tistudio").raise_error()
    yield sh
    for panel in sh.magics_manager.registry["StudioMagics"].panels.values():
        panel.close()
    InteractiveShell.clear_instance()
    ti.reset()


def eventually(condition: Callable[[], bool], within: float = 60.0) -> bool:
    """Whether `condition` holds by `within` seconds from now: updates that throttles and
    timers send on other threads arrive later on a busy machine, but they arrive."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def panel_of(sh, *names):
    return sh.magics_manager.registry["StudioMagics"].panels[names]


def test_import_tistudio_does_not_import_the_studio():
    studio = ("tistudio.studio", "IPython", "ipywidgets", "matplotlib", "anywidget")
    code = f"import sys, tistudio; print(any(m in sys.modules for m in {studio!r}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_plain_functions_become_kernels_and_decorated_ones_are_kept(shell):
    shell.run_cell("%%ti_kernel --show passes,cache,fields,export\n" + CELL).raise_error()
    ns = shell.user_ns
    assert isinstance(ns["fill"], ti.lang.kernel.Kernel)
    assert isinstance(ns["total"], ti.lang.kernel.Kernel)
    assert isinstance(ns["wave"], ti.lang.kernel.Func)
    panel = panel_of(shell, "fill", "total")
    assert panel.header.kernels == ["fill", "total"]
    assert panel.explorer.instances == ["fill(t: f32 (runtime))"]
    assert [r["hits"] for r in panel.cache.rows] == [0]
    assert [v.title for v in panel.field_views.values()] == ["x"]
    assert panel.export is not None and panel.export.kernel_names == ["fill", "total"]


def test_the_panel_keeps_updating_when_later_cells_call_the_kernels(shell):
    shell.run_cell("%%ti_kernel --show passes,cache,fields\n" + CELL).raise_error()
    panel = panel_of(shell, "fill", "total")
    view = next(iter(panel.field_views.values()))
    frame = view.frame
    shell.run_cell("for k in range(5):\n    fill(k * 0.1)\nt = total()").raise_error()
    final = float(shell.user_ns["x"].to_numpy().mean())

    def updated() -> bool:  # the cache view and field view send their trailing update: the
        # field view shows the last launch's field (an earlier frame may come first; under
        # load the CI run of 39fa1ad read the mean between the two)
        rows = {r["kernel"]: r for r in panel.cache.rows}
        fill, total = rows.get("fill", {}), rows.get("total", {})
        shown = view.frame > frame and abs(view.mean - final) < 1e-6
        return fill.get("hits") == 5 and total.get("misses") == 1 and shown

    assert eventually(updated), (panel.cache.rows, view.frame, frame, view.mean, final)
    assert panel.explorer.instances[-1] == "total()"


GRAD_CELL = """\
import tistudio as ti
x = ti.field(ti.f32, shape=8, needs_grad=True)
loss = ti.field(ti.f32, shape=(), needs_grad=True)

def square_sum():
    for i in x:
        loss[None] += x[i] * x[i]
"""


def test_the_panel_shows_the_adjoint_of_its_kernels(shell):
    shell.run_cell("%%ti_kernel --show passes,cache\n" + GRAD_CELL).raise_error()
    panel = panel_of(shell, "square_sum")
    shell.run_cell("x.fill(3.0)\nsquare_sum()\nloss.grad[None] = 1.0\nsquare_sum.grad()")
    assert shell.user_ns["x"].grad.to_numpy().tolist() == [6.0] * 8
    assert panel.explorer.instances == ["square_sum()", "square_sum.grad()"]
    want = [("square_sum", 1), ("square_sum.grad", 1)]

    def rows() -> list[tuple[str, int]]:  # after the cache view's trailing update
        return [(r["kernel"], r["misses"]) for r in panel.cache.rows]

    assert eventually(lambda: rows() == want), rows()


def test_help_and_usage_errors(shell):
    doc = shell.find_cell_magic("ti_kernel").__doc__
    for option in (
        "--arch",
        "--show",
        "--export",
        "--debug",
        "--no-debug",
        "becomes a `@ti.kernel`",
    ):
        assert option in doc
    for line, message in [
        ("--bogus", "unrecognized arguments: --bogus"),
        ("--arch tpu", "invalid choice: 'tpu'"),
        ("--show passes,nope", "--show: unknown item 'nope'"),
        ("--export out.zip", "must end in .tcm"),
    ]:
        result = shell.run_cell(f"%%ti_kernel {line}\ndef k():\n    pass\n")
        assert message in str(result.error_in_exec)
        assert "\n" not in str(result.error_in_exec)


def test_compile_errors_show_the_users_line_and_not_the_compiler(shell, capsys):
    shell.run_cell("import tistudio as ti")
    shell.run_cell("%%ti_kernel\ndef bad(a: ti.f32):\n    return a + undefined_name\nbad(1.0)\n")
    out = capsys.readouterr().out
    assert "TaichiNameError" in out and "return a + undefined_name" in out and "^" in out
    assert "Traceback" not in out and "tistudio/" not in out
    shell.run_cell("bad(2.0)")  # a later, plain cell: the same short error
    out = capsys.readouterr().out
    assert "TaichiNameError" in out and "tistudio/" not in out


def test_python_errors_in_the_cell_show_only_the_users_frames(shell, capsys):
    shell.run_cell("%%ti_kernel\nvalue = 1\nvalue / 0\n")
    out = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out)
    assert "ZeroDivisionError" in out and "value / 0" in out and "magic.py" not in out


def test_debug_and_arch_options_restart_the_program_and_say_so(shell):
    shell.run_cell("%%ti_kernel --debug\ndef k():\n    pass\nk()\n").raise_error()
    assert ti.lang.impl.current_config().debug
    assert "fields from before are gone" in panel_of(shell, "k").header.notes[0]
    shell.run_cell("%%ti_kernel --no-debug\ndef k():\n    pass\n").raise_error()
    assert not ti.lang.impl.current_config().debug


def test_cell_kernels_get_debug_checks_by_default_and_keep_the_fields(shell, capsys):
    shell.run_cell("import tistudio as ti\nx = ti.field(ti.i32, shape=4)").raise_error()
    shell.run_cell("%%ti_kernel\ndef put(i: ti.i32):\n    x[i] = i\n\nput(4)\n")
    out = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out)
    assert "TaichiAssertionError" in out and "magic.py" not in out
    assert "(kernel=put, line 2) Accessing field 'x' of shape (4,) with indices (4,)" in out
    assert not ti.lang.impl.current_config().debug  # the program and its fields stayed
    assert panel_of(shell, "put").kernels  # kept although the cell raised (closed on teardown)
    shell.run_cell("put(3)\nassert x.to_numpy().tolist() == [0, 0, 0, 3]").raise_error()
    shell.run_cell("%%ti_kernel --no-debug\ndef k(i: ti.i32):\n    assert i < 0\n\nk(1)\n")
    assert shell.user_ns["k"].debug is None and not ti.lang.impl.current_config().debug
    shell.run_cell("k(2)").raise_error()  # no checks: the assert is ignored, as in Taichi


def test_rerunning_a_cell_closes_its_old_panel(shell):
    shell.run_cell("%%ti_kernel\ndef k():\n    pass\n").raise_error()
    old = panel_of(shell, "k")
    shell.run_cell("%%ti_kernel\ndef k():\n    pass\n").raise_error()
    assert panel_of(shell, "k") is not old and old._subscriptions == []


def test_progress_appears_only_for_compiles_longer_than_the_threshold():
    """A timer shows the progress once the compile has run `after` seconds: never sooner (load
    can only make it later), and never for a compile that finished first."""
    header = StudioHeader()
    shown: list[float] = []
    header.observe(lambda change: shown.append(time.monotonic()) if change.new else None, "busy")
    progress = CompileProgress(header, after=0.3)
    start = time.monotonic()
    progress.pass_ran("k_c0_0", "initial IR")
    progress.pass_ran("k_c0_0", "lower_ast")
    assert eventually(lambda: header.busy), "the progress never appeared"
    assert shown[0] - start >= 0.3, shown[0] - start
    assert header.progress == "compiling k_c0_0: lower_ast"
    progress.pass_ran("k_c0_0", "offload")
    assert header.progress == "compiling k_c0_0: offload" and header.passes_done == 3
    progress.finished()
    assert not header.busy and header.progress == ""
    progress.pass_ran("k_c0_1", "initial IR")
    progress.finished()  # a fast compile: its timer is cancelled, or finds itself outdated
    time.sleep(0.6)  # past its threshold
    assert not header.busy and len(shown) == 1


def test_static_fallback_html_travels_with_the_widget(shell):
    shell.run_cell("%%ti_kernel --show passes,cache,fields\n" + CELL).raise_error()
    bundle = panel_of(shell, "fill", "total")._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    html = bundle["text/html"]
    assert "fill, total" in html and "<td>fill</td>" in html and "data:image/png;base64" in html


def test_a_ti_kernel_cell_records_writes_so_explain_nan_needs_no_viewer(shell):
    cell = """%%ti_kernel --show cache
y = ti.field(ti.f32, shape=8)

def logs(a: ti.f32):
    for i in y:
        y[i] = ti.log(a - i)

logs(3.0)
"""
    shell.run_cell("import tistudio as ti").raise_error()
    shell.run_cell(cell).raise_error()
    from tistudio.studio import explain_nan

    why = explain_nan(shell.user_ns["y"], 5)
    assert why.origin is not None and "ti.log(a - i)" in why.expression, why
