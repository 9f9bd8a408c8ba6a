"""The field viewer: a live picture of one field (or any NumPy array).

1D fields are drawn as a line, 2D as a heat map with a colour bar, 3D as one slice chosen with a
slider (the whole volume travels once per frame, so the slider works without the kernel), and
vector fields as their magnitude with optional arrows. A sparse field's inactive elements are
drawn hatched grey, apart from active zeros, with the block grid of its sparse levels
(`activity.py`). The widget listens to `field_written` events and redraws at most `max_fps`
times a second.
"""

from __future__ import annotations

import base64
import io
import math
import pathlib
from collections.abc import Sequence
from typing import Any

import anywidget
import numpy as np
import traitlets

from tistudio.events import bus
from tistudio.lang.nan_explain import explain_nan, record_writes
from tistudio.studio import frames
from tistudio.studio.activity import Activity, read_activity
from tistudio.studio.markup import Markup, element
from tistudio.studio.throttle import Throttle

STATIC = pathlib.Path(__file__).parent / "static"
INACTIVE_RGB = "#c8c8c8"  # a sparse field's inactive elements (the browser hatches them too)
COLORMAPS = ("viridis", "magma", "inferno", "plasma", "cividis", "turbo", "coolwarm", "gray")


def colormap_luts(names: tuple[str, ...] = COLORMAPS) -> bytes:
    """256 RGB entries per colour map, one after another, from matplotlib's tables."""
    import matplotlib

    ramp = np.linspace(0.0, 1.0, 256)
    tables = [matplotlib.colormaps[n](ramp)[:, :3] for n in names]
    return (np.concatenate(tables) * 255 + 0.5).astype(np.uint8).tobytes()


def field_esm() -> str:
    """The viewer's ES module: the WebGL2 drawing (field_gl.js) followed by field_view.js,
    which calls it (an anywidget module is one file)."""
    return "\n".join(
        (STATIC / n).read_text(encoding="utf-8") for n in ("field_gl.js", "field_view.js")
    )


def _is_field(source: Any) -> bool:
    return hasattr(source, "to_numpy") and hasattr(source, "snode")


def snode_ids(source: Any) -> set[int]:
    """Ids of the place SNodes behind a field (one per component of a vector field)."""
    parts = getattr(source, "components", None) or [source]
    return {part.snode.id for part in parts}


def _values_of(source: Any) -> np.ndarray:
    return source.to_numpy() if hasattr(source, "to_numpy") else np.asarray(source)


def _guess_vector(source: Any, values: np.ndarray) -> bool:
    """A field whose NumPy form has one more axis than the field itself is a vector field."""
    shape = getattr(source, "shape", None)
    return _is_field(source) and shape is not None and values.ndim == len(tuple(shape)) + 1


class FieldView(anywidget.AnyWidget):
    """Live picture of one field. Fed by `field_written` events; knows nothing of the compiler."""

    _esm = field_esm()
    _css = STATIC / "studio.css"

    title = traitlets.Unicode("").tag(sync=True)
    shape = traitlets.List(traitlets.Int(), []).tag(sync=True)
    encoding = traitlets.Unicode("f32").tag(sync=True)  # "f32" or "u8" (see frames.py)
    data = traitlets.Bytes(b"").tag(sync=True)
    vmin = traitlets.Float(0.0).tag(sync=True)
    vmax = traitlets.Float(0.0).tag(sync=True)
    mean = traitlets.Float(0.0, allow_none=True).tag(sync=True)
    nan_count = traitlets.Int(0).tag(sync=True)
    inf_count = traitlets.Int(0).tag(sync=True)
    vector = traitlets.Bool(False).tag(sync=True)
    arrows = traitlets.Bytes(b"").tag(sync=True)
    arrow_shape = traitlets.List(traitlets.Int(), []).tag(sync=True)
    show_arrows = traitlets.Bool(True).tag(sync=True)
    cmap = traitlets.Unicode("viridis").tag(sync=True)
    cmaps = traitlets.List(traitlets.Unicode(), list(COLORMAPS)).tag(sync=True)
    luts = traitlets.Bytes(b"").tag(sync=True)
    slice_axis = traitlets.Int(0).tag(sync=True)
    slice_index = traitlets.Int(0).tag(sync=True)
    paused = traitlets.Bool(False).tag(sync=True)
    # a sparse field: uint8 per element (1: active), C order; empty for a dense field or array
    active = traitlets.Bytes(b"").tag(sync=True)
    blocks = traitlets.List(traitlets.List(traitlets.Int()), []).tag(sync=True)
    show_blocks = traitlets.Bool(True).tag(sync=True)
    activity = traitlets.Unicode("").tag(sync=True)  # "N of M cells (x %)"
    lengths = traitlets.Unicode("").tag(sync=True)  # a dynamic node's list lengths
    frame = traitlets.Int(0).tag(sync=True)  # bumps with every frame sent
    # a field's NaN/Inf elements can be clicked: explain_nan's answer for the last one clicked
    explainable = traitlets.Bool(False).tag(sync=True)
    explanation = traitlets.Dict({}).tag(sync=True)

    def __init__(
        self,
        source: Any,
        *,
        title: str | None = None,
        cmap: str = "viridis",
        vector: bool | None = None,
        max_fps: float = 30.0,
        live: bool = True,
    ) -> None:
        if cmap not in COLORMAPS:
            raise ValueError(f"unknown colour map {cmap!r}; choose one of {', '.join(COLORMAPS)}")
        if max_fps <= 0:
            raise ValueError("max_fps must be positive")
        values = _values_of(source)
        if vector is None:
            vector = _guess_vector(source, values)
        name = getattr(source, "name", "") or ""
        super().__init__(
            title=title or name or _describe(values), cmap=cmap, vector=vector, luts=colormap_luts()
        )
        self.source = source
        self._last: dict | None = None
        self._throttle = Throttle(self._refresh_quietly, 1.0 / max_fps)
        self._unsubscribe = None
        if live and _is_field(source):
            self._snode_ids = snode_ids(source)
            self._unsubscribe = bus.subscribe("field_written", self._on_written)
            record_writes()  # which launch writes it, for explain_nan on a click
            self.explainable = True
        # the browser's drawing rates (measure_draw_rate): frames/s drawn back to back, and
        # once per animation frame (at most the screen's refresh rate)
        self.draw_fps: float | None = None
        self.paced_fps: float | None = None
        self.on_msg(self._on_message)
        self.show(values, read_activity(source))

    # --- frames ------------------------------------------------------------------------------

    def show(self, array: Any, active: Activity | None = None) -> None:
        """Draw these values now (no throttling), with a sparse field's activity if given."""
        frame = frames.encode(np.asarray(array), self.vector)
        frame.update(_activity_traits(active))
        depth = frame["shape"][self.slice_axis] if len(frame["shape"]) == 3 else 0
        with self.hold_sync():
            for name, value in frame.items():
                setattr(self, name, value if not _is_nan(value) else None)
            if depth and self.slice_index >= depth:
                self.slice_index = depth // 2
            self.frame += 1
        self._last = frame

    def refresh(self) -> None:
        """Read the source again and draw it now."""
        self.show(_values_of(self.source), read_activity(self.source))

    def update(self) -> None:
        """Read the source and draw it, unless a frame went out less than 1/max_fps ago (then
        the latest values are drawn once that time is up)."""
        if not self.paused:
            self._throttle()

    @traitlets.observe("paused")
    def _resumed(self, change: dict) -> None:
        if not change["new"]:
            self.update()

    def _refresh_quietly(self) -> None:
        try:
            self.refresh()
        except Exception as e:  # noqa: BLE001 - a field gone with ti.reset() must not crash
            self.title = f"{self.title.split(' — ')[0]} — {e}"

    def _on_written(self, event: Any) -> None:
        if any(s.id in self._snode_ids for s in event.data.get("snodes", ())):
            self.update()

    # --- where a NaN came from, and the drawing rate -------------------------------------

    def explain(self, index: Sequence[int]) -> Any:
        """`explain_nan` for element `index` of the field, also shown under the picture (what
        a click on a NaN or Inf element does)."""
        try:
            found = explain_nan(self.source, tuple(int(i) for i in index))
        except (LookupError, RuntimeError, IndexError) as e:
            self.explanation = {"cell": [int(i) for i in index], "error": str(e)}
            return None
        self.explanation = found.to_dict()
        return found

    def measure_draw_rate(self, seconds: float = 2.0) -> None:
        """Ask the browser to redraw the frame on screen as new for `seconds`; the frames per
        second arrive in `draw_fps` and `paced_fps` (the view's `data-draw-fps` and
        `data-paced-fps`)."""
        self.send({"measure_draw": seconds})

    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        if "explain" in content:
            self.explain(content["explain"])
        if "draw_fps" in content:
            self.draw_fps = float(content["draw_fps"])
            self.paced_fps = float(content.get("paced_fps", 0.0))

    def flush(self) -> None:
        self._throttle.flush()

    def close(self) -> None:
        # also called by Widget.__del__ on a view whose __init__ failed (bad cmap): no attributes
        if getattr(self, "_unsubscribe", None) is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if hasattr(self, "_throttle"):
            self._throttle.cancel()
        super().close()

    # --- pictures ----------------------------------------------------------------------------

    def current_values(self) -> np.ndarray:
        """The values of the frame on screen (quantised frames at their level centres)."""
        if self._last is None:
            raise ValueError("nothing has been drawn yet")
        return frames.decode(self._last)

    def current_active(self) -> np.ndarray | None:
        """Which elements of the frame on screen are active (a sparse field), else None."""
        if not self.active:
            return None
        return np.frombuffer(self.active, np.uint8).reshape(self.shape).astype(bool)

    def snapshot(self, path: str | pathlib.Path | None = None) -> pathlib.Path | bytes:
        """Save the frame on screen as a PNG through matplotlib (returns the path), or return
        the PNG's bytes when no path is given."""
        png = render_png(
            self.current_values(),
            self.title,
            self.cmap,
            self.slice_index,
            active=self.current_active(),
            blocks=self.blocks if self.show_blocks else [],
        )
        if path is None:
            return png
        target = pathlib.Path(path)
        target.write_bytes(png)
        return target

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        if isinstance(data, dict) and self._last is not None:
            data["text/html"] = self.static_html()
            data["text/plain"] = self.static_text()
        return bundle

    def static_text(self) -> str:
        """One line for viewers without HTML: the title, shape and statistics."""
        shape = "×".join(map(str, self.shape))
        kind = "vector magnitude " if self.vector else ""
        return f"{self.title}: {kind}{shape}, {_stats_text(self)}"

    def static_html(self) -> Markup:
        """What notebook viewers without the widget's JavaScript show."""
        png = base64.b64encode(self.snapshot()).decode()
        picture = element(
            "img", alt=self.title, src=f"data:image/png;base64,{png}", style="max-width:480px"
        )
        caption = element("div", f"{self.title}: {_stats_text(self)}")
        return element("div", picture, caption, class_="tistudio-static")


def render_png(
    values: np.ndarray,
    title: str,
    cmap: str,
    slice_index: int = 0,
    *,
    active: np.ndarray | None = None,
    blocks: Sequence[Sequence[int]] = (),
) -> bytes:
    """A PNG of `values` (1D line, 2D heat map with colour bar, 3D: one slice); a sparse
    field's inactive elements (`active` False) grey, with the grid of its `blocks`."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5, 3.6), dpi=100)
    ax = fig.add_subplot()
    if values.ndim == 1:
        ax.plot(values, color="#3b7dd8", linewidth=1.2)
        if active is not None:
            _grey_line_gaps(ax, active, blocks)
    else:
        k = min(slice_index, values.shape[0] - 1)
        picture = values[k] if values.ndim == 3 else values
        # i to the right and j up, as Taichi's GUI and the browser view show a field
        import matplotlib

        colours = matplotlib.colormaps[cmap].with_extremes(bad="#ff00ff")  # NaN/Inf: magenta
        image = ax.imshow(np.ma.masked_invalid(picture.T), cmap=colours, origin="lower")
        fig.colorbar(image, ax=ax)
        if active is not None:
            plane = active[k] if active.ndim == 3 else active
            _grey_inactive(ax, plane, [b[-2:] for b in blocks])
    ax.set_title(title)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")
    return buffer.getvalue()


def _grey_inactive(ax: Any, active: np.ndarray, blocks: Sequence[Sequence[int]]) -> None:
    """Paint a heat map's inactive elements grey, hatched, and draw the block grid."""
    from matplotlib.colors import ListedColormap

    inactive = np.where(active, np.nan, 1.0).T
    ax.imshow(inactive, cmap=ListedColormap([INACTIVE_RGB]), origin="lower", vmin=0, vmax=1)
    if (~active).any():
        ni, nj = active.shape
        ax.contourf(
            (~active.T).astype(float),
            levels=[0.5, 1.5],
            colors="none",
            hatches=["///"],
            extent=(0, ni - 1, 0, nj - 1),
        )
    for level, (bi, bj) in enumerate(blocks):
        width = 1.2 if level < len(blocks) - 1 else 0.6
        for x in np.arange(bi, active.shape[0], bi) - 0.5:
            ax.axvline(x, color="white", linewidth=width, alpha=0.7)
        for y in np.arange(bj, active.shape[1], bj) - 0.5:
            ax.axhline(y, color="white", linewidth=width, alpha=0.7)


def _grey_line_gaps(ax: Any, active: np.ndarray, blocks: Sequence[Sequence[int]]) -> None:
    """Shade a line plot's inactive elements grey and mark its block boundaries."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], ~active, [0]]).astype(np.int8)))
    for start, end in zip(edges[::2], edges[1::2]):
        ax.axvspan(start - 0.5, end - 0.5, color=INACTIVE_RGB, hatch="///", alpha=0.8, lw=0)
    for (b,) in blocks:
        for x in np.arange(b, active.size, b) - 0.5:
            ax.axvline(x, color="#888888", linewidth=0.6, alpha=0.6)


def view(source: Any, **options: Any) -> FieldView:
    """A live view of a field (or a NumPy array): `tistudio.studio.view(x, cmap="magma")`.

    Options: `title`, `cmap` (one of COLORMAPS), `vector` (True when the trailing axis holds a
    vector's components; guessed for fields), `max_fps` (default 30), `live` (default True:
    redraw whenever a kernel writes the field).
    """
    return FieldView(source, **options)


def _describe(values: np.ndarray) -> str:
    return f"array {values.dtype}{list(values.shape)}"


def _is_nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _stats_text(w: FieldView) -> str:
    mean = "—" if w.mean is None else f"{w.mean:.4g}"
    text = f"min {w.vmin:.4g}, max {w.vmax:.4g}, mean {mean}"
    if w.nan_count or w.inf_count:
        text += f", {w.nan_count} NaN, {w.inf_count} Inf"
    if w.activity:
        text += f"; active: {w.activity}"
    if w.lengths:
        text += f"; lengths: {w.lengths}"
    return text


def _activity_traits(found: Activity | None) -> dict[str, Any]:
    """The viewer's sparse traits for `found` (all empty for a dense field or an array)."""
    if found is None:
        return {"active": b"", "blocks": [], "activity": "", "lengths": ""}
    return {
        "active": np.ascontiguousarray(found.mask, np.uint8).tobytes(),
        "blocks": found.blocks,
        "activity": found.text(),
        "lengths": found.lengths_text(),
    }
