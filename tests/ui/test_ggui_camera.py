"""`ti.ui.Camera`'s matrices against an independent NumPy model of a look-at camera and of
Taichi's reversed-depth projections, and the `ti.ui` namespace's names."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tistudio.ui as ui


def _reference_view(eye, target, up):
    """World to camera: the camera at the origin looking down -z, up along +y."""
    back = np.subtract(eye, target) / np.linalg.norm(np.subtract(eye, target))
    right = np.cross(up, back)
    right /= np.linalg.norm(right)
    true_up = np.cross(back, right)
    rotation = np.stack([right, true_up, back])
    view = np.eye(4)
    view[:3, :3], view[:3, 3] = rotation, -rotation @ np.asarray(eye)
    return view


@pytest.mark.parametrize("seed", range(5))
def test_the_view_matrix_is_a_look_at_in_taichis_column_order(seed):
    rng = np.random.default_rng(seed)
    eye, target = rng.normal(size=3) * 3, rng.normal(size=3)
    camera = ui.Camera()
    camera.position(*eye)
    camera.lookat(*target)
    camera.up(0.0, 1.0, 0.0)
    got = camera.get_view_matrix()
    assert got.shape == (4, 4)
    reference = _reference_view(eye, target, (0.0, 1.0, 0.0))
    assert np.allclose(got.T, reference, atol=1e-5)  # Taichi returns the columns as rows
    # the target lands on the camera's -z axis, at its distance
    seen = got.T @ np.append(target, 1.0)
    assert np.allclose(seen[:2], 0.0, atol=1e-5)
    assert seen[2] == pytest.approx(-np.linalg.norm(eye - target), rel=1e-5)


def test_the_perspective_maps_the_near_plane_to_1_and_the_far_plane_to_0():
    camera = ui.Camera()
    camera.fov(60)
    camera.z_near(0.5)
    camera.z_far(50.0)
    aspect = 1.5
    proj = camera.get_projection_matrix(aspect).T

    def ndc(point):
        clip = proj @ np.append(point, 1.0)
        return clip[:3] / clip[3]

    assert ndc((0, 0, -0.5))[2] == pytest.approx(1.0, abs=1e-6)
    assert ndc((0, 0, -50.0))[2] == pytest.approx(0.0, abs=1e-6)
    t = math.tan(math.radians(30))
    assert ndc((0, t * 4, -4))[1] == pytest.approx(1.0, abs=1e-6)  # the top of the frustum
    assert ndc((aspect * t * 4, 0, -4))[0] == pytest.approx(1.0, abs=1e-6)


def test_the_orthogonal_projection_uses_the_planes():
    camera = ui.Camera()
    camera.projection_mode(ui.ProjectionMode.Orthogonal)
    camera.left(-2.0)
    camera.right(2.0)
    camera.z_near(1.0)
    camera.z_far(11.0)
    proj = camera.get_projection_matrix(1.0).T
    assert proj @ np.array([2.0, 1.0, -1.0, 1.0]) == pytest.approx([1.0, 1.0, 1.0, 1.0], abs=1e-6)
    assert proj @ np.array([-2.0, -1.0, -11.0, 1.0]) == pytest.approx(
        [-1.0, -1.0, 0.0, 1.0], abs=1e-6
    )


def test_the_namespace_has_taichis_names():
    assert (ui.PRESS, ui.RELEASE, ui.LMB, ui.RMB, ui.ESCAPE, ui.SPACE) == (
        "Press", "Release", "LMB", "RMB", "Escape", " ",
    )  # fmt: skip
    assert (ui.SHIFT, ui.CTRL, ui.ALT, ui.UP, ui.BACKSPACE) == (
        "Shift", "Control", "Alt", "Up", "BackSpace",
    )  # fmt: skip
    with pytest.warns(DeprecationWarning):
        camera = ui.make_camera()
    assert isinstance(camera, ui.Camera)
    with pytest.warns(DeprecationWarning):
        scene = ui.Scene()
    assert hasattr(scene, "particles") and hasattr(scene, "mesh_instance")
    with pytest.raises(AttributeError):
        ui.NoSuchThing  # noqa: B018
