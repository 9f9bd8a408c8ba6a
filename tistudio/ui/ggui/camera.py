"""`ti.ui.Camera`: where a 3-D scene is seen from, and its movement by keys and mouse.

The matrices are Taichi 1.7.4's (glm's `lookAt`, and `perspective`/`ortho` with the near and
far planes swapped for a reversed depth in [0, 1]); `get_view_matrix` and
`get_projection_matrix` return them as Taichi does, column by column (the transpose of the math
matrix, whose translation is the last row). `track_user_inputs` moves the camera with
w/a/s/d/e/q and turns it with the cursor, from the window's events.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np


class ProjectionMode:
    """Camera projection mode (Taichi's enum values)."""

    Perspective = 0
    Orthogonal = 1


def look_at(eye: Any, target: Any, up: Any) -> np.ndarray:
    """glm's right-handed `lookAt` as a math matrix (column vectors)."""
    eye, target, up = (np.asarray(v, dtype=np.float64) for v in (eye, target, up))
    f = target - eye
    f = f / np.linalg.norm(f)
    s = np.cross(f, up)
    s = s / np.linalg.norm(s)
    u = np.cross(s, f)
    view = np.eye(4)
    view[0, :3], view[1, :3], view[2, :3] = s, u, -f
    view[:3, 3] = (-s @ eye, -u @ eye, f @ eye)
    return view


def _vector(x: Any, y: Any, z: Any) -> np.ndarray:
    return np.array([float(x), float(y), float(z)])


def _euler(v: np.ndarray) -> tuple[float, float]:
    v = v / np.linalg.norm(v)
    return math.atan2(v[0], v[2]), math.asin(max(-1.0, min(1.0, v[1])))


class Camera:
    """A camera: position, look-at point, up vector, field of view and clipping planes."""

    def __init__(self) -> None:
        self.curr_position = _vector(0, 0, 0)
        self.curr_lookat = _vector(0, 0, 1)
        self.curr_up = _vector(0, 1, 0)
        self.mode = ProjectionMode.Perspective
        self.fov_degrees = 45.0
        self.planes = {"left": -1.0, "right": 1.0, "top": -1.0, "bottom": 1.0}
        self.near, self.far = 0.1, 1000.0
        self.last_mouse_x: float | None = None
        self.last_mouse_y: float | None = None
        self.last_time: int | None = None

    def position(self, x: float, y: float, z: float) -> None:
        """Set the camera position."""
        self.curr_position = _vector(x, y, z)

    def lookat(self, x: float, y: float, z: float) -> None:
        """Set the point the camera looks at."""
        self.curr_lookat = _vector(x, y, z)

    def up(self, x: float, y: float, z: float) -> None:
        """Set the camera's up vector."""
        self.curr_up = _vector(x, y, z)

    def projection_mode(self, mode: int) -> None:
        """0 (ProjectionMode.Perspective) or 1 (ProjectionMode.Orthogonal)."""
        self.mode = int(mode)

    def fov(self, fov: float) -> None:
        """The vertical field of view, in degrees."""
        self.fov_degrees = float(fov)

    def left(self, left: float) -> None:
        self.planes["left"] = float(left)

    def right(self, right: float) -> None:
        self.planes["right"] = float(right)

    def top(self, top: float) -> None:
        self.planes["top"] = float(top)

    def bottom(self, bottom: float) -> None:
        self.planes["bottom"] = float(bottom)

    def z_near(self, z_near: float) -> None:
        self.near = float(z_near)

    def z_far(self, z_far: float) -> None:
        self.far = float(z_far)

    # --- matrices ------------------------------------------------------------------------

    def view_matrix(self) -> np.ndarray:
        """The view matrix as a math matrix (column vectors)."""
        return look_at(self.curr_position, self.curr_lookat, self.curr_up)

    def projection_matrix(self, aspect: float) -> np.ndarray:
        """The projection as a math matrix: depth 1 at the near plane, 0 at the far plane."""
        near, far = self.near, self.far
        proj = np.zeros((4, 4))
        if self.mode == ProjectionMode.Perspective:
            t = math.tan(math.radians(self.fov_degrees) / 2)
            proj[0, 0], proj[1, 1] = 1 / (aspect * t), 1 / t
            proj[2, 2] = near / (far - near)
            proj[2, 3] = far * near / (far - near)
            proj[3, 2] = -1.0
            return proj
        if self.mode != ProjectionMode.Orthogonal:
            raise RuntimeError("invalid camera projection mode")
        left, right = self.planes["left"], self.planes["right"]
        low, high = self.planes["top"], self.planes["bottom"]  # Taichi passes them swapped
        proj[0, 0], proj[1, 1] = 2 / (right - left), 2 / (high - low)
        proj[0, 3], proj[1, 3] = -(right + left) / (right - left), -(high + low) / (high - low)
        proj[2, 2] = 1 / (far - near)
        proj[2, 3] = far / (far - near)
        proj[3, 3] = 1.0
        return proj

    def get_view_matrix(self) -> np.ndarray:
        """The view matrix as Taichi returns it (column by column)."""
        return self.view_matrix().T.astype(np.float32)

    def get_projection_matrix(self, aspect: float) -> np.ndarray:
        """The projection matrix for `aspect` (width / height) as Taichi returns it."""
        return self.projection_matrix(aspect).T.astype(np.float32)

    # --- user input ----------------------------------------------------------------------

    def track_user_inputs(
        self,
        window: Any,
        movement_speed: float = 1.0,
        yaw_speed: float = 2.0,
        pitch_speed: float = 2.0,
        hold_key: Any = None,
    ) -> None:
        """Move with w/s (forward/back), a/d (left/right), e/q (up/down) and turn with the
        cursor while `hold_key` is held (always when None), scaled by the time since the
        last call (60 frames a second is a step of `movement_speed`)."""
        now = time.perf_counter_ns()
        elapsed = 0.0 if self.last_time is None else (now - self.last_time) * 1e-9
        self.last_time = now
        front = self.curr_lookat - self.curr_position
        front = front / np.linalg.norm(front)
        left = np.cross(self.curr_up, front)
        step = movement_speed * elapsed * 60.0
        moves = {"w": front, "s": -front, "a": left, "d": -left, "e": self.curr_up}
        moves["q"] = -self.curr_up
        for key, direction in moves.items():
            if window.is_pressed(key):
                self.curr_position = self.curr_position + direction * step
        x, y = window.get_cursor_pos()
        if hold_key is None or window.is_pressed(hold_key):
            if self.last_mouse_x is None or self.last_mouse_y is None:
                self.last_mouse_x, self.last_mouse_y = x, y
            yaw, pitch = _euler(front)
            yaw -= (x - self.last_mouse_x) * yaw_speed * elapsed * 60.0
            pitch += (y - self.last_mouse_y) * pitch_speed * elapsed * 60.0
            limit = math.pi / 2 * 0.99
            pitch = max(-limit, min(limit, pitch))
            front = np.array(
                [math.sin(yaw) * math.cos(pitch), math.sin(pitch), math.cos(yaw) * math.cos(pitch)]
            )
        self.curr_lookat = self.curr_position + front
        self.last_mouse_x, self.last_mouse_y = x, y
