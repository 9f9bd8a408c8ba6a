"""The studio's widget models and conversions, in Python, without a browser (STYLE.md §5)."""

from __future__ import annotations

import io
import time
import zipfile

import numpy as np
import pytest

import tistudio as ti
from tistudio.studio import frames
from tistudio.studio.cache_view import CacheView
from tistudio.studio.export import UNAVAILABLE, ExportPanel, aot_available
from tistudio.studio.field_view import FieldView, view
from tistudio.studio.markup import escape
from tistudio.studio.passes_view import NO_WGSL, PassExplorer, diff_lines
from tistudio.studio.throttle import Throttle


@pytest.fixture(autouse=True)
def fresh_program():
    ti.init(arch=ti.cpu)
    yield
    ti.reset()


# --- frames ----------------------------------------------------------------------------------


def test_small_frames_travel_as_exact_float32_with_stats():
    values = np.array([[1.0, np.nan], [np.inf, -2.0]], dtype=np.float32)
    frame = frames.encode(values)
    assert frame["encoding"] == "f32" and frame["shape"] == [2, 2]
    assert (frame["vmin"], frame["vmax"], frame["mean"]) == (-2.0, 1.0, -0.5)
    assert (frame["nan_count"], frame["inf_count"]) == (1, 1)
    np.testing.assert_array_equal(frames.decode(frame), values)


def test_big_2d_frames_are_quantised_to_one_byte_with_codes_for_nan_and_inf():
    values = np.linspace(-1, 3, 512 * 512, dtype=np.float32).reshape(512, 512)
    values[0, 0], values[0, 1], values[0, 2] = np.nan, np.inf, -np.inf
    frame = frames.encode(values)
    assert frame["encoding"] == "u8" and len(frame["data"]) == 512 * 512
    codes = np.frombuffer(frame["data"], np.uint8)
    assert list(codes[:3]) == [frames.NAN_CODE, frames.POS_INF_CODE, frames.NEG_INF_CODE]
    assert codes[3:].max() == frames.LEVELS and codes[3:].min() == 0
    back = frames.decode(frame)
    step = (frame["vmax"] - frame["vmin"]) / frames.LEVELS
    finite = np.isfinite(values)
    assert np.abs(back[finite] - values[finite]).max() <= step / 2 + 1e-6
    assert np.isnan(back[0, 0]) and back[0, 1] == np.inf and back[0, 2] == -np.inf


def test_vector_frames_show_magnitude_and_a_grid_of_arrows():
    comps = np.zeros((96, 48, 2), dtype=np.float32)
    comps[..., 0] = 3.0  # u
    comps[..., 1] = 4.0  # v
    frame = frames.encode(comps, vector=True)
    assert frame["shape"] == [96, 48] and frame["vmin"] == frame["vmax"] == 5.0
    rows, cols, step = frame["arrow_shape"]
    assert step == 4 and (rows, cols) == (24, 12)
    uv = np.frombuffer(frame["arrows"], np.float32).reshape(rows, cols, 2)
    np.testing.assert_allclose(uv[..., 0], 0.6)
    np.testing.assert_allclose(uv[..., 1], 0.8)


def test_frames_refuse_what_they_cannot_draw():
    with pytest.raises(ValueError, match="1D, 2D and 3D"):
        frames.encode(np.zeros((2, 2, 2, 2)))
    with pytest.raises(ValueError, match="component axis"):
        frames.encode(np.zeros(4), vector=True)


# --- throttle --------------------------------------------------------------------------------


def test_throttle_drops_calls_but_never_the_last_one():
    """Runs start at least `interval` apart, a burst of calls runs at most once per interval,
    and the burst's last call is never lost (a timer runs it)."""
    starts: list[float] = []
    throttle = Throttle(lambda: starts.append(throttle._last), 0.05)
    began = time.monotonic()
    for _ in range(200):
        throttle()
    burst = time.monotonic() - began
    assert 1 <= len(starts) <= burst / 0.05 + 1  # dropped: at most one run per interval
    ran = len(starts)
    assert _eventually(lambda: len(starts) == ran + 1)  # the trailing call ran from the timer
    time.sleep(0.1)
    assert len(starts) == ran + 1  # and only once
    assert all(b - a >= 0.05 - 1e-6 for a, b in zip(starts, starts[1:])), starts


def _eventually(condition, within: float = 60.0) -> bool:
    """Whether `condition` holds by `within` seconds from now (a timer's thread runs late on
    a busy machine, but it runs)."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


# --- field view ------------------------------------------------------------------------------


def test_field_view_shows_a_field_and_follows_kernel_writes():
    x = ti.field(ti.f32, shape=(8, 4), name="x")

    @ti.kernel
    def fill(v: ti.f32):
        for i, j in x:
            x[i, j] = v + i

    fill(1.0)
    w = view(x, max_fps=1000)
    assert w.title == "x" and w.shape == [8, 4] and w.encoding == "f32"
    np.testing.assert_array_equal(w.current_values(), x.to_numpy())
    frame = w.frame
    fill(10.0)
    w.flush()
    assert w.frame > frame and w.vmin == 10.0 and w.vmax == 17.0
    w.paused = True
    fill(100.0)
    w.flush()
    assert w.vmax == 17.0  # paused: no new frames
    w.paused = False
    w.flush()
    assert w.vmax == 107.0  # resuming draws the latest values
    w.close()
    fill(0.0)
    assert w.vmax == 107.0  # closed: no longer listening


def test_field_view_live_updates_are_throttled():
    x = ti.field(ti.f32, shape=64)

    @ti.kernel
    def bump():
        for i in x:
            x[i] += 1.0

    w = FieldView(x, max_fps=20)
    start = w.frame
    t0 = time.monotonic()
    launches = 0
    while time.monotonic() - t0 < 0.3 or launches < 50:
        bump()
        launches += 1
    sent = w.frame - start
    # at most 20 frames/s (plus the first, at once), not one per launch: how many launches a
    # second this machine makes does not matter
    assert 1 <= sent <= (time.monotonic() - t0) * 20 + 1, (sent, launches)
    w.flush()
    assert w.vmax == x.to_numpy().max()
    w.close()


def test_field_view_of_numpy_vectors_and_volumes():
    comps = np.random.default_rng(0).normal(size=(32, 32, 2)).astype(np.float32)
    w = view(comps, vector=True, title="v")
    np.testing.assert_allclose(w.current_values(), np.hypot(comps[..., 0], comps[..., 1]), 1e-6)
    assert w.vector and w.arrow_shape == [16, 16, 2]
    volume = np.arange(4 * 5 * 6, dtype=np.float32).reshape(4, 5, 6)
    v3 = view(volume)
    assert v3.shape == [4, 5, 6] and v3.slice_index < 4
    with pytest.raises(ValueError, match="colour map"):
        view(volume, cmap="nope")


def test_snapshot_writes_a_png_through_matplotlib(tmp_path):
    import matplotlib.image

    values = np.outer(np.arange(40), np.ones(30)).astype(np.float32)
    values[3, 3] = np.nan
    w = view(values, title="ramp", cmap="magma")
    path = w.snapshot(tmp_path / "ramp.png")
    image = matplotlib.image.imread(path)
    assert image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 100
    assert w.static_html().startswith('<div class="tistudio-static"><img')


# --- pass explorer ---------------------------------------------------------------------------


def test_diff_lines_interleave_removed_and_added_lines_with_source_lines():
    before = ["kernel {", "  $0 = const 1", "  $1 = add $0 $0", "}"]
    after = ["kernel {", "  $0 = const 2", "}"]
    assert diff_lines(before, after, [None, 7, None]) == [
        [" ", "kernel {", None],
        ["-", "  $0 = const 1", None],
        ["-", "  $1 = add $0 $0", None],
        ["+", "  $0 = const 2", 7],
        [" ", "}", None],
    ]


def test_pass_explorer_shows_every_pass_of_an_instantiation():
    ti.init(arch=ti.cpu, record_passes=True)
    x = ti.field(ti.f32, shape=16)

    @ti.kernel
    def scale(k: ti.f32):
        for i in x:
            x[i] = x[i] * k + 0.0

    explorer = PassExplorer()
    scale(2.0)
    explorer.add(scale, scale.instances()[0])
    data = explorer.data
    names = [p["name"] for p in data["passes"]]
    assert names[0] == "initial IR" and "offload" in names and "lower_access" in names
    assert all(p["ms"] >= 0 and p["stmts"] > 0 and p["doc"] for p in data["passes"])
    changed = [p for p in data["passes"][1:] if p["added"] or p["removed"]]
    assert changed, "some pass must change the IR"
    first, lines = data["source"]["first"], data["source"]["lines"]
    assert lines[:2] == ["@ti.kernel", "def scale(k: ti.f32):"]
    loop_line = first + 3  # x[i] = x[i] * k + 0.0
    assert any(d[2] == loop_line for p in data["passes"] for d in p["diff"])
    assert "define" in data["llvm"] and data["asm"]
    assert data["wgsl"] is None and explorer.no_wgsl == NO_WGSL
    assert data["label"] == "scale(k: f32 (runtime))"


def test_pass_explorer_switches_instantiations():
    ti.init(arch=ti.cpu, record_passes=True)

    @ti.kernel
    def pick(t: ti.template()) -> ti.i32:
        return t

    pick(1)
    pick(2)
    explorer = PassExplorer()
    for entry in pick.instances():
        explorer.add(pick, entry)
    assert explorer.instances == ["pick(t=1)", "pick(t=2)"] and explorer.instance == 0
    explorer.instance = 1
    assert explorer.data["label"] == "pick(t=2)"
    report = pick.compile_report(3)
    explorer.show_report(pick, report)
    assert explorer.instance == 2 and explorer.data["label"] == "pick(t=3)"


# --- cache view ------------------------------------------------------------------------------


def test_cache_view_has_a_row_per_signature_with_hits_and_misses():
    x = ti.field(ti.f32, shape=(128,), name="x")
    y = ti.field(ti.f32, shape=(4,), name="y")

    @ti.kernel
    def add(field: ti.template(), delta: ti.f32):
        for i in field:
            field[i] += delta

    for _ in range(3):
        add(x, 1.0)
    add(y, 1.0)
    cache = CacheView([add])
    rows = {r["signature"]: r for r in cache.rows}
    assert set(rows) == {
        "field=x: f32[128], delta: f32 (runtime)",
        "field=y: f32[4], delta: f32 (runtime)",
    }
    assert (
        rows["field=x: f32[128], delta: f32 (runtime)"]["hits"],
        rows["field=x: f32[128], delta: f32 (runtime)"]["misses"],
    ) == (2, 1)
    assert all(r["arch"] == "cpu" and r["compile_ms"] > 0 for r in cache.rows)
    assert "<td>add</td>" in cache.static_html()


def test_cache_view_says_why_each_row_compiled():
    u = ti.field(ti.f32, shape=(16, 16))
    v = ti.field(ti.f32, shape=(16, 16))

    @ti.kernel
    def heat(src: ti.template(), dst: ti.template(), k: ti.f32):
        for I in ti.grouped(src):
            dst[I] = src[I] * k

    heat(u, v, 0.5)
    heat(v, u, 0.5)
    cache = CacheView([heat])
    first, second = cache.rows
    assert first["signature"] != second["signature"]
    assert first["why_short"] == "first call of heat"
    assert second["why_short"] == "src is field v, was u; dst is field u, was v"
    assert second["why"] == heat.cache_info()[1]["why"]
    assert "(nearest earlier: heat_c" in second["why"]
    html = cache.static_html()
    assert "<th>why compiled</th>" in html
    assert f"<td>{escape(second['why'])}</td>" in html


def test_cache_view_shows_the_back_ends_start_up_apart(monkeypatch):
    import threading
    import time

    from tistudio.runtime import warm_up

    @ti.kernel
    def one() -> ti.i32:
        return 1

    ti.init(arch=ti.cpu)  # a new program, whose first compile starts the back end
    starting = threading.Thread(target=time.sleep, args=(0.2,), daemon=True)
    monkeypatch.setattr(warm_up, "_thread", starting)
    starting.start()
    one()
    (row,) = CacheView([one]).rows
    assert row["startup_ms"] >= 150 and row["compile_ms"] < row["startup_ms"]
    assert f"<td>{row['compile_ms']} (+{row['startup_ms']:.0f} start-up)</td>" in (
        CacheView([one]).static_html()
    )


# --- export ----------------------------------------------------------------------------------


def test_export_says_clearly_when_aot_is_not_there():
    @ti.kernel
    def k():
        pass

    panel = ExportPanel({"k": k})
    assert panel.available is aot_available()
    if not panel.available:  # until issue #7 lands: a clear message, no traceback, no file
        assert panel.message == UNAVAILABLE
        panel.export(["k"], [], "cpu", "out.tcm")
        assert panel.status == "error" and "not available" in panel.message


def test_export_button_writes_the_archive_in_a_worker_thread(tmp_path):
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def k():
        pass

    def zip_exporter(kernels, fields, arch, path):  # what tistudio.aot will do, in miniature
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("metadata.json", f'{{"arch": "{arch}"}}')
            for kernel in kernels:
                z.writestr(f"{kernel.__name__}.ll", "; llvm")

    panel = ExportPanel({"k": k}, {"x": x}, exporter=zip_exporter)
    assert panel.available
    target = tmp_path / "sub" / "m.tcm"
    panel.start_export(["k"], ["x"], "cpu", str(target))
    panel.worker.join(10)
    assert panel.status == "done" and target.exists()
    assert [f["name"] for f in panel.files] == ["metadata.json", "k.ll"]
    assert panel.size == target.stat().st_size and zipfile.is_zipfile(io.BytesIO(panel.archive))
    panel.export([], [], "cpu", str(target))
    assert panel.status == "error" and panel.message == "choose at least one kernel to export"
    panel.export(["k"], [], "cpu", str(tmp_path / "m.zip"))
    assert panel.status == "error" and "must end in .tcm" in panel.message
