"""`ti.ui.Canvas`: the 2-D drawing surface of a window, and where a 3-D scene is drawn.

Canvas coordinates are Taichi's: (0, 0) bottom left, (1, 1) top right. Each call adds draws to
the window's frame in call order; 2-D draws are painted over what is there, a scene is
depth-tested against itself. Circle radii and canvas line widths are fractions of the window's
height, as in Taichi.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from tistudio.ui.ggui import data, geometry
from tistudio.ui.ggui.renderer import Draw, pack_uniforms

if TYPE_CHECKING:
    from tistudio.ui.ggui.scene import SceneV2
    from tistudio.ui.ggui.window import Frame

# maps the canvas's [0, 1]^2 onto clip space; depth 0.5 (2-D draws do not test depth)
CANVAS_PROJECTION = np.array(
    [[2.0, 0.0, 0.0, -1.0], [0.0, 2.0, 0.0, -1.0], [0.0, 0.0, 0.0, 0.5], [0.0, 0.0, 0.0, 1.0]]
)


class Canvas:
    """The canvas of a window (`window.get_canvas()`)."""

    def __init__(self, frame: Frame) -> None:
        self.frame = frame

    def _uniforms(self, half_width: float = 0.0, disc: bool = False) -> bytes:
        aspect = self.frame.width / self.frame.height
        return pack_uniforms(
            np.eye(4), CANVAS_PROJECTION, aspect=aspect, half_width=half_width, disc=disc
        )

    def set_background_color(self, color: Any) -> None:
        """The colour the frame is cleared to (r, g, b in [0, 1])."""
        self.frame.background = tuple(float(c) for c in color)[:3]

    def set_image(self, img: Any) -> None:
        """Fill the window with an [x, y] image (field, ndarray or NumPy array; grey, RGB or
        RGBA; uint8, or floats in [0, 1]), stretched to the window's size."""
        self.frame.draws.append(Draw("image", image=data.image_rgba8(img)))

    def triangles(
        self,
        vertices: Any,
        color: Any = (0.5, 0.5, 0.5),
        indices: Any = None,
        per_vertex_color: Any = None,
    ) -> None:
        """Filled 2-D triangles (three indices, or three vertices in a row, per triangle)."""
        points = data.rows(vertices, 3)
        points[:, 2] = 0.0
        rgba = data.colors(per_vertex_color, len(points), color)
        rows = geometry.mesh_rows(points, np.zeros_like(points), rgba)
        index = data.indices(indices)
        self.frame.draws.append(Draw("mesh", rows, self._uniforms(), indices=index))

    def lines(
        self,
        vertices: Any,
        width: float,
        indices: Any = None,
        color: Any = (0.5, 0.5, 0.5),
        per_vertex_color: Any = None,
    ) -> None:
        """2-D segments between pairs of points (or index pairs), `width` a fraction of the
        window's height."""
        points = data.rows(vertices, 3)
        points[:, 2] = 0.0
        rgba = data.colors(per_vertex_color, len(points), color)
        rows = geometry.line_rows(points, rgba, data.indices(indices))
        self.frame.draws.append(Draw("lines", rows, self._uniforms(half_width=width)))

    def circles(
        self,
        centers: Any,
        radius: float,
        color: Any = (0.5, 0.5, 0.5),
        per_vertex_color: Any = None,
        per_vertex_radius: Any = None,
    ) -> None:
        """Filled discs at `centers`, `radius` a fraction of the window's height."""
        points = data.rows(centers, 3)
        points[:, 2] = 0.0
        rgba = data.colors(per_vertex_color, len(points), color)
        rows = geometry.sphere_rows(points, radius, per_vertex_radius, rgba)
        self.frame.draws.append(Draw("discs", rows, self._uniforms(disc=True)))

    def scene(self, scene: SceneV2) -> None:
        """Draw the scene's meshes, particles and lines, seen through its camera."""
        draws, lights = scene.draws(self.frame.width, self.frame.height)
        self.frame.draws.extend(draws)
        self.frame.lights = lights
