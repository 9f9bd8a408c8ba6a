"""`ti.ui.Scene`: the 3-D things of one frame (meshes, particles, lines), its lights and camera.

A scene only collects NumPy rows; `canvas.scene(scene)` turns them into the renderer's draws
with the camera's matrices for the window's aspect, then forgets them (a program declares its
scene anew every frame, as with Taichi). The ambient light stays until changed.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from tistudio.ui.ggui import data, geometry
from tistudio.ui.ggui.camera import Camera
from tistudio.ui.ggui.renderer import Draw, pack_uniforms


@dataclass
class _Item:
    kind: str  # "mesh", "spheres" or "lines"
    rows: np.ndarray
    indices: np.ndarray | None = None
    models: np.ndarray | None = None
    two_sided: bool = False
    width: float = 1.0
    wireframe: bool = False


class SceneV2:
    """A 3-D scene of a window (`window.get_scene()`)."""

    def __init__(self) -> None:
        self.camera: Camera | None = None
        self.items: list[_Item] = []
        self.lights: list[tuple[tuple[float, ...], tuple[float, ...]]] = []
        self.ambient = (0.0, 0.0, 0.0)

    def set_camera(self, camera: Camera) -> None:
        """See the scene through `camera`."""
        self.camera = camera

    def point_light(self, pos: Any, color: Any) -> None:
        """A point light at `pos` with colour `color` (r, g, b in [0, 1]) for this frame."""
        self.lights.append((tuple(map(float, pos)), tuple(map(float, color))))

    def ambient_light(self, color: Any) -> None:
        """The ambient light's colour."""
        self.ambient = tuple(map(float, color))

    def particles(
        self,
        centers: Any,
        radius: float,
        color: Any = (0.5, 0.5, 0.5),
        per_vertex_color: Any = None,
        per_vertex_radius: Any = None,
        index_offset: int = 0,
        index_count: int | None = None,
    ) -> None:
        """Spheres of `radius` at `centers` (a 3-D vector field, ndarray or NumPy array)."""
        points = data.rows(centers, 3)
        stop = len(points) if index_count is None else index_offset + index_count
        rgba = data.colors(per_vertex_color, len(points), color)
        rows = geometry.sphere_rows(points, radius, per_vertex_radius, rgba)
        self.items.append(_Item("spheres", rows[index_offset:stop]))

    def mesh(
        self,
        vertices: Any,
        indices: Any = None,
        normals: Any = None,
        color: Any = (0.5, 0.5, 0.5),
        per_vertex_color: Any = None,
        two_sided: bool = False,
        vertex_offset: int = 0,
        vertex_count: int | None = None,
        index_offset: int = 0,
        index_count: int | None = None,
        show_wireframe: bool = False,
    ) -> None:
        """A triangle mesh (three indices, or three vertices in a row, per triangle), lit by
        the scene's lights; normals are generated when not given."""
        self.mesh_instance(
            vertices, indices, normals, color, per_vertex_color, two_sided, None, 0, None,
            vertex_offset, vertex_count, index_offset, index_count, show_wireframe,
        )  # fmt: skip

    def mesh_instance(
        self,
        vertices: Any,
        indices: Any = None,
        normals: Any = None,
        color: Any = (0.5, 0.5, 0.5),
        per_vertex_color: Any = None,
        two_sided: bool = False,
        transforms: Any = None,
        instance_offset: int = 0,
        instance_count: int | None = None,
        vertex_offset: int = 0,
        vertex_count: int | None = None,
        index_offset: int = 0,
        index_count: int | None = None,
        show_wireframe: bool = False,
    ) -> None:
        """Copies of a mesh, one per 4x4 matrix of `transforms` (None: one, untransformed)."""
        points = data.rows(vertices, 3)
        index = data.indices(indices)
        normal = data.normals(points, index) if normals is None else data.rows(normals, 3)
        rgba = data.colors(per_vertex_color, len(points), color)
        keep, index = geometry.select(
            len(points), index, vertex_offset, vertex_count, index_offset, index_count
        )
        rows = geometry.mesh_rows(points, normal, rgba)[keep]
        models = None
        if transforms is not None:
            matrices = data.to_numpy(transforms).astype(np.float32).reshape(-1, 4, 4)
            stop = len(matrices) if instance_count is None else instance_offset + instance_count
            models = matrices[instance_offset:stop].transpose(0, 2, 1).reshape(-1, 16)
        if show_wireframe and index is not None:  # unindexed: each triangle's own corners
            rows, index = rows[index[: len(index) // 3 * 3]], None
        item = _Item("mesh", rows, index, models, bool(two_sided), wireframe=show_wireframe)
        self.items.append(item)

    def lines(
        self,
        vertices: Any,
        width: float,
        indices: Any = None,
        color: Any = (0.5, 0.5, 0.5),
        per_vertex_color: Any = None,
        vertex_offset: int = 0,
        vertex_count: int | None = None,
        index_offset: int = 0,
        index_count: int | None = None,
    ) -> None:
        """Segments between pairs of points (or index pairs), `width` pixels wide."""
        points = data.rows(vertices, 3)
        rgba = data.colors(per_vertex_color, len(points), color)
        index = data.indices(indices)
        keep, index = geometry.select(
            len(points), index, vertex_offset, vertex_count, index_offset, index_count
        )
        order = keep if index is None else index
        self.items.append(_Item("lines", geometry.line_rows(points, rgba, order), width=width))

    # --- for the canvas ------------------------------------------------------------------

    def draws(self, width: int, height: int) -> tuple[list[Draw], np.ndarray]:
        """This frame's draws for a `width` x `height` target and the light rows; then the
        frame's items and point lights are forgotten."""
        camera = self.camera or Camera()
        aspect = width / height
        common = {
            "camera_pos": camera.curr_position,
            "ambient": self.ambient,
            "aspect": aspect,
            "tan_half_fov": math.tan(math.radians(camera.fov_degrees) / 2),
            "lights": len(self.lights),
        }
        view, proj = camera.view_matrix(), camera.projection_matrix(aspect)
        draws = []
        for item in self.items:
            uniforms = pack_uniforms(
                view, proj, lit=item.kind != "lines", two_sided=item.two_sided,
                half_width=item.width / height, wireframe=item.wireframe, **common,
            )  # fmt: skip
            draws.append(Draw(item.kind, item.rows, uniforms, True, item.indices, item.models))
        lights = np.zeros((len(self.lights), 8), dtype=np.float32)
        for row, (pos, color) in zip(lights, self.lights, strict=True):
            row[0:3], row[4:7] = pos, color
        self.items, self.lights = [], []
        return draws, lights


class Scene(SceneV2):
    """A scene made on its own (`ti.ui.Scene()`), deprecated in Taichi 1.7 in favour of
    `window.get_scene()`; it works the same."""

    def __init__(self) -> None:
        warnings.warn(
            "Instantiating ti.ui.Scene directly is deprecated, use the get_scene() function "
            "from a taichi.ui.Window object instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        super().__init__()
