"""GGUI renders known scenes offscreen (lavapipe here) and the pixels are what they must be:
a particle's disc, colour and Lambert falloff; the nearer of two triangles; canvas triangles,
circles and lines covering their areas; an image round trip; fields from `ti.init(arch=ti.cpu)`."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")

import tistudio as ti  # noqa: E402
from tistudio.ui.ggui.camera import Camera  # noqa: E402
from tistudio.ui.ggui.window import Window  # noqa: E402


@pytest.fixture(autouse=True)
def _cpu():
    ti.init(arch=ti.cpu)


def _camera(position=(0.0, 0.0, 3.0)) -> Camera:
    camera = Camera()
    camera.position(*position)
    camera.lookat(0.0, 0.0, 0.0)
    camera.up(0.0, 1.0, 0.0)
    return camera


def _covered(image: np.ndarray, background=(0.0, 0.0, 0.0)) -> np.ndarray:
    return np.abs(image[:, :, :3] - np.asarray(background)).max(axis=2) > 0.01


def test_a_particle_is_a_lit_sphere_of_the_projected_radius():
    size, radius, base, ambient = 128, 0.5, np.array([0.8, 0.6, 0.4]), 0.1
    window = Window("particle", (size, size), show_window=False)
    scene = window.get_scene()
    scene.set_camera(_camera())
    centers = ti.Vector.field(3, ti.f32, 1)
    centers[0] = [0.0, 0.0, 0.0]
    scene.particles(centers, radius, color=tuple(base))
    scene.point_light((0.0, 0.0, 3.0), (1.0, 1.0, 1.0))
    scene.ambient_light((ambient,) * 3)
    window.get_canvas().scene(scene)
    image = window.get_image_buffer_as_numpy()  # [x, y], y up
    # Taichi's impostor: half-size radius / (tan(fov / 2) * distance) in clip units
    half = radius / (math.tan(math.radians(45) / 2) * 3.0)
    ndc = (np.arange(size) + 0.5) / size * 2 - 1
    qx, qy = np.meshgrid(ndc / half, ndc / half, indexing="ij")
    r2 = qx**2 + qy**2
    inside, outside = r2 < (1 - 2 / (half * size)) ** 2, r2 > (1 + 2 / (half * size)) ** 2
    covered = _covered(image)
    assert covered[inside].all() and not covered[outside].any()
    # the shading: camera space, the light at the eye, normal (qx, qy, z) on the sphere
    z = np.sqrt(np.clip(1 - r2, 0, 1))
    pos = np.stack([qx * radius, qy * radius, -3 + z * radius], axis=-1)
    to_light = -pos / np.linalg.norm(pos, axis=-1, keepdims=True)
    cosine = np.clip((to_light * np.stack([qx, qy, z], axis=-1)).sum(-1), 0, None)
    expected = np.clip((ambient + cosine)[..., None] * base, 0, 1)
    error = np.abs(image[:, :, :3] - expected)[inside]
    assert error.max() < 2.5 / 255
    centre = image[size // 2, size // 2, :3]
    assert np.allclose(centre, np.floor(np.clip(base * 1.1, 0, 1) * 255 + 0.5) / 255, atol=2 / 255)
    edge = image[size // 2 + int(half * size / 2 * 0.9), size // 2, :3]
    assert edge[0] < centre[0] - 0.2  # darker towards the rim


def _triangle(z: float, scale: float = 1.0) -> np.ndarray:
    return np.array([[-1, -1, z], [1, -1, z], [0, 1, z]], dtype=np.float32) * (scale, scale, 1)


@pytest.mark.parametrize("near_first", [True, False])
def test_the_nearer_triangle_wins_whatever_the_order(near_first):
    window = Window("depth", (64, 64), show_window=False)
    scene = window.get_scene()
    scene.set_camera(_camera())
    scene.ambient_light((1.0, 1.0, 1.0))  # no point light: the colour is the base colour
    near = (_triangle(0.5), (1.0, 0.0, 0.0))
    far = (_triangle(-0.5, scale=3.0), (0.0, 1.0, 0.0))
    for vertices, color in [near, far] if near_first else [far, near]:
        scene.mesh(vertices, color=color, two_sided=True)
    window.get_canvas().scene(scene)
    image = window.get_image_buffer_as_numpy()
    assert np.allclose(image[32, 30, :3], (1.0, 0.0, 0.0))
    # where only the far (larger) triangle reaches, it shows
    assert np.allclose(image[4, 32, :3], (0.0, 1.0, 0.0))


def test_a_particle_in_front_of_a_mesh_hides_it_and_one_behind_does_not():
    window = Window("depth", (64, 64), show_window=False)
    scene = window.get_scene()
    scene.set_camera(_camera())
    scene.ambient_light((1.0, 1.0, 1.0))
    scene.mesh(_triangle(0.0), color=(0.0, 0.0, 1.0))
    scene.particles(np.array([[0.0, 0.0, 0.5], [0.5, -0.5, -1.0]], np.float32), 0.1)
    window.get_canvas().scene(scene)
    image = window.get_image_buffer_as_numpy()
    assert np.allclose(image[32, 32, :3], (0.5, 0.5, 0.5), atol=1 / 255)
    assert np.allclose(image[38, 25, :3], (0.0, 0.0, 1.0))  # the hidden particle's place


def test_canvas_triangles_circles_and_lines_cover_their_areas():
    window = Window("canvas", (200, 100), show_window=False)
    canvas = window.get_canvas()
    canvas.set_background_color((0.0, 0.0, 0.0))
    triangle = ti.Vector.field(2, ti.f32, 3)
    triangle.from_numpy(np.array([[0, 0], [0.25, 0], [0, 0.5]], np.float32))
    canvas.triangles(triangle, color=(1.0, 0.0, 0.0))
    canvas.circles(np.array([[0.75, 0.5]], np.float32), 0.1, color=(0.0, 1.0, 0.0))
    canvas.lines(np.array([[0.3, 0.8], [0.6, 0.8]], np.float32), 0.1, color=(0.0, 0.0, 1.0))
    image = window.get_image_buffer_as_numpy()
    red, green, blue = (np.isclose(image[:, :, k], 1.0) for k in range(3))
    assert abs(red.sum() - 0.5 * 50 * 50) < 50  # a right triangle of 50 x 50 px
    assert red[0, 0] and red[5, 40] and not red[40, 40]
    xs, ys = np.nonzero(green)
    assert abs(green.sum() - math.pi * 10**2) < 40  # radius 0.1 of the height: 10 px, round
    assert xs.max() - xs.min() == ys.max() - ys.min()
    assert abs(xs.mean() - 149.5) < 0.5 and abs(ys.mean() - 49.5) < 0.5
    assert abs(blue.sum() - 60 * 10) < 30  # 60 px long, 0.1 of the height (10 px) wide
    assert blue[100, 80] and not blue[100, 70]


def test_canvas_per_vertex_colours_and_indices():
    window = Window("canvas", (64, 64), show_window=False)
    points = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], np.float32)
    colors = np.array([[1, 0, 0], [1, 0, 0], [0, 0, 1], [0, 0, 1]], np.float32)
    window.get_canvas().triangles(
        points, indices=np.array([0, 1, 2, 1, 3, 2]), per_vertex_color=colors
    )
    image = window.get_image_buffer_as_numpy()
    assert image[32, 1, 0] > 0.9 and image[32, 62, 2] > 0.9
    assert _covered(image).all()


def test_set_image_round_trips_through_the_image_buffer():
    rng = np.random.default_rng(29)
    pixels = rng.integers(0, 256, size=(48, 32, 3), dtype=np.uint8)
    window = Window("image", (48, 32), show_window=False)
    window.get_canvas().set_image(pixels)
    image = window.get_image_buffer_as_numpy()
    assert image.shape == (48, 32, 4) and image.dtype == np.float32
    assert np.array_equal(np.rint(image[:, :, :3] * 255).astype(np.uint8), pixels)
    field = ti.field(ti.f32, (48, 32))
    grey = rng.random((48, 32), dtype=np.float32)
    field.from_numpy(grey)
    window.get_canvas().set_image(field)
    got = window.get_image_buffer_as_numpy()
    assert np.allclose(got[:, :, 0], np.floor(grey * 255) / 255, atol=1e-6)
    assert np.array_equal(got[:, :, 0], got[:, :, 2])


def test_show_presents_the_frame_with_row_zero_on_top():
    window = Window("image", (8, 4), show_window=False)
    frames = []
    window.sink.present = lambda frame, controls=None: frames.append(frame)
    pixels = np.zeros((8, 4, 3), np.uint8)
    pixels[:, 0] = (255, 0, 0)  # the bottom row (y = 0)
    window.get_canvas().set_image(pixels)
    window.show()
    (frame,) = frames
    assert frame.shape == (4, 8, 3) and frame.dtype == np.uint8
    assert (frame[3] == (255, 0, 0)).all() and (frame[:3] == 0).all()


def test_a_wireframe_draws_the_lit_edges_only():
    window = Window("wireframe", (64, 64), show_window=False)
    scene = window.get_scene()
    scene.set_camera(_camera())
    scene.ambient_light((1.0, 1.0, 1.0))
    quad = np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], np.float32)
    scene.mesh(
        quad, indices=np.array([0, 1, 2, 0, 2, 3]), color=(0.0, 1.0, 0.0), show_wireframe=True
    )
    window.get_canvas().scene(scene)
    covered = _covered(window.get_image_buffer_as_numpy())
    # the square spans about 24 px around the centre; its diagonal is an edge too
    assert not covered[32, 20] and not covered[20, 44]
    assert covered[40, 40] or covered[41, 40] or covered[40, 41]
    edge = int(round(32 - 1 / (math.tan(math.radians(22.5)) * 3) * 32))
    assert covered[edge - 1 : edge + 2, 32].any() and covered[32, edge - 1 : edge + 2].any()
    assert covered.sum() < 4 * 48 * 2 + 48 * 2


def test_the_depth_buffer_holds_the_sphere_surface_and_the_mesh_behind_it():
    window = Window("depth", (64, 48), show_window=False)
    scene = window.get_scene()
    camera = _camera()
    scene.set_camera(camera)
    scene.particles(np.array([[0.0, 0.0, 0.0]], np.float32), 0.5)
    scene.mesh(np.array([[-9, -9, -1], [9, -9, -1], [0, 9, -1]], np.float32))
    window.get_canvas().scene(scene)
    depth = window.get_depth_buffer_as_numpy()
    assert depth.shape == (64, 48) and depth.dtype == np.float32
    proj = camera.projection_matrix(64 / 48)

    def ndc_depth(view_z: float) -> float:
        clip = proj @ np.array([0.0, 0.0, view_z, 1.0])
        return clip[2] / clip[3]

    # the sphere's front point (at view z = -2.5) in the middle, the plane (-4) at the corner
    assert depth.max() == pytest.approx(ndc_depth(-2.5), rel=1e-3)
    assert depth[32, 24] == pytest.approx(ndc_depth(-2.5), rel=1e-2)
    assert depth[2, 2] == pytest.approx(ndc_depth(-4.0), rel=1e-4)
    assert ndc_depth(-4.0) < depth[32, 24]  # reversed depth: nearer is larger
