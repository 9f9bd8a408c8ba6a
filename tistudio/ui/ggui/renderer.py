"""GGUI's renderer: draws a frame's meshes, particles, lines and images with wgpu, offscreen.

A `Window` collects `Draw`s during a frame (canvas and scene calls); `Renderer.render` records
them in order into one render pass over an RGBA8 colour texture and a depth texture, copies the
colour out and returns it as a (height, width, 4) uint8 array, row 0 on top. Nothing is shown on
a screen here: the frame goes to a `FrameSink`. The device is the process's WebGPU device (the
one `ti.init(arch=ti.gpu)` computes on; lavapipe on a machine without a GPU); without an adapter,
`Renderer` raises `GGUINotAvailableException` saying so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tistudio.ui.ggui import shaders

COLOR_FORMAT = "rgba8unorm"
DEPTH_FORMAT = "depth32float"
MESH_STRIDE = 40  # position (3 f32), normal (3 f32), colour (4 f32)
INSTANCE_STRIDE = 64  # a model matrix, four columns
SPHERE_STRIDE = 32  # centre (3 f32), radius (f32), colour (4 f32)
LINE_STRIDE = 64  # two ends (2 x vec4) and their colours (2 x vec4)
UNIFORM_BYTES = 192


class GGUINotAvailableException(RuntimeError):
    """GGUI cannot render here: no WebGPU adapter (Taichi's name for the error)."""


@dataclass
class Draw:
    """One draw of a frame. kind: "mesh", "spheres", "discs", "lines" or "image". data: the
    vertex (mesh) or instance rows as float32; indices: uint32 for an indexed mesh; models: the
    mesh's instance matrices (k, 16) float32, column by column; uniforms: `pack_uniforms`;
    depth: tested and written against the scene's depth (3-D) or drawn over (2-D); image: (h, w,
    4) uint8, row 0 = Taichi's y = 0."""

    kind: str
    data: np.ndarray | None = None
    uniforms: bytes = b""
    depth: bool = False
    indices: np.ndarray | None = None
    models: np.ndarray | None = None
    image: np.ndarray | None = None


def pack_uniforms(
    view: np.ndarray,
    proj: np.ndarray,
    *,
    camera_pos: Any = (0.0, 0.0, 0.0),
    ambient: Any = (0.0, 0.0, 0.0),
    lit: bool = False,
    two_sided: bool = False,
    half_width: float = 0.0,
    aspect: float = 1.0,
    tan_half_fov: float = 1.0,
    lights: int = 0,
    disc: bool = False,
    wireframe: bool = False,
) -> bytes:
    """The `Frame` uniform of the shaders; `view` and `proj` are math matrices (column vectors)."""
    block = np.zeros(48, dtype=np.float32)
    block[0:16] = np.asarray(view, dtype=np.float32).T.ravel()
    block[16:32] = np.asarray(proj, dtype=np.float32).T.ravel()
    block[32:35] = camera_pos
    block[36:39] = ambient
    block[40:44] = (float(lit), float(two_sided), half_width, aspect)
    block[44:48] = (tan_half_fov, float(lights), float(disc), float(wireframe))
    return block.tobytes()


def _open_device() -> Any:
    from tistudio.backends.webgpu.device import NoAdapterError, default_device

    try:
        return default_device()
    except NoAdapterError as e:
        raise GGUINotAvailableException(
            f"GGUI is not available: it renders with WebGPU and there is no adapter here ({e})"
        ) from None


class Renderer:
    """Pipelines, targets and the render pass of one window's frames."""

    def __init__(self, width: int, height: int) -> None:
        gpu = _open_device()
        import wgpu

        self.wgpu, self.device, self.queue = wgpu, gpu.device, gpu.device.queue
        self.width, self.height = width, height
        usage = wgpu.TextureUsage
        self.color = self.device.create_texture(
            size=(width, height, 1),
            format=COLOR_FORMAT,
            usage=usage.RENDER_ATTACHMENT | usage.COPY_SRC,
        )
        self.depth = self.device.create_texture(
            size=(width, height, 1),
            format=DEPTH_FORMAT,
            usage=usage.RENDER_ATTACHMENT | usage.COPY_SRC,
        )
        self.row_bytes = (width * 4 + 255) // 256 * 256
        self.readback = self.device.create_buffer(
            size=self.row_bytes * height,
            usage=wgpu.BufferUsage.COPY_DST | wgpu.BufferUsage.MAP_READ,
        )
        self.sampler = self.device.create_sampler()
        self._pipelines: dict[tuple[str, bool], Any] = {}
        self._modules: dict[str, Any] = {}
        self._scene_layout = self.device.create_bind_group_layout(
            entries=[
                {"binding": 0, "visibility": 3, "buffer": {"type": "uniform"}},
                {"binding": 1, "visibility": 3, "buffer": {"type": "read-only-storage"}},
            ]
        )
        self._image_layout = self.device.create_bind_group_layout(
            entries=[
                {"binding": 0, "visibility": 2, "texture": {"sample_type": "float"}},
                {"binding": 1, "visibility": 2, "sampler": {"type": "filtering"}},
            ]
        )

    # --- pipelines -----------------------------------------------------------------------

    def _module(self, kind: str) -> Any:
        if kind not in self._modules:
            body = {
                "mesh": shaders.MESH,
                "spheres": shaders.SPHERES,
                "discs": shaders.SPHERES,
                "lines": shaders.LINES,
            }
            code = shaders.IMAGE if kind == "image" else shaders.COMMON + body[kind]
            self._modules[kind] = self.device.create_shader_module(code=code)
        return self._modules[kind]

    def _pipeline(self, kind: str, depth: bool) -> Any:
        key = (kind, depth)
        if key not in self._pipelines:
            self._pipelines[key] = self._create_pipeline(kind, depth)
        return self._pipelines[key]

    def _create_pipeline(self, kind: str, depth: bool) -> Any:
        entry, buffers, fragment = _STAGES[kind]
        layout = self._image_layout if kind == "image" else self._scene_layout
        module = self._module(kind)
        return self.device.create_render_pipeline(
            layout=self.device.create_pipeline_layout(bind_group_layouts=[layout]),
            vertex={"module": module, "entry_point": entry, "buffers": buffers},
            primitive={"topology": "triangle-list", "cull_mode": "none"},
            depth_stencil={
                "format": DEPTH_FORMAT,
                "depth_write_enabled": depth,
                "depth_compare": "greater" if depth else "always",
            },
            multisample={"count": 1},
            fragment={
                "module": module,
                "entry_point": fragment,
                "targets": [{"format": COLOR_FORMAT}],
            },
        )

    # --- a frame -------------------------------------------------------------------------

    def _buffer(self, data: np.ndarray | bytes, usage: int) -> Any:
        raw = data if isinstance(data, bytes) else np.ascontiguousarray(data).tobytes()
        size = max(16, (len(raw) + 15) // 16 * 16)
        buffer = self.device.create_buffer(size=size, usage=usage | self.wgpu.BufferUsage.COPY_DST)
        if raw:
            self.queue.write_buffer(buffer, 0, raw)
        return buffer

    def _record(self, rpass: Any, draw: Draw, lights: Any) -> None:
        usage = self.wgpu.BufferUsage
        rpass.set_pipeline(self._pipeline(draw.kind, draw.depth))
        if draw.kind == "image":
            rpass.set_bind_group(0, self._image_bind_group(draw.image))
            rpass.draw(3)
            return
        uniforms = self._buffer(draw.uniforms, usage.UNIFORM)
        group = self.device.create_bind_group(
            layout=self._scene_layout,
            entries=[
                {"binding": 0, "resource": {"buffer": uniforms}},
                {"binding": 1, "resource": {"buffer": lights}},
            ],
        )
        rpass.set_bind_group(0, group)
        rows = len(draw.data)
        rpass.set_vertex_buffer(0, self._buffer(draw.data, usage.VERTEX))
        if draw.kind != "mesh":
            rpass.draw(6, rows)
            return
        models = draw.models if draw.models is not None else np.eye(4, dtype=np.float32)
        models = models.reshape(-1, 16)
        rpass.set_vertex_buffer(1, self._buffer(models, usage.VERTEX))
        if draw.indices is None:
            rpass.draw(rows, len(models))
        else:
            rpass.set_index_buffer(self._buffer(draw.indices, usage.INDEX), "uint32")
            rpass.draw_indexed(len(draw.indices), len(models))

    def _image_bind_group(self, image: np.ndarray) -> Any:
        h, w = image.shape[:2]
        texture = self.device.create_texture(
            size=(w, h, 1),
            format=COLOR_FORMAT,
            usage=self.wgpu.TextureUsage.TEXTURE_BINDING | self.wgpu.TextureUsage.COPY_DST,
        )
        self.queue.write_texture(
            {"texture": texture},
            np.ascontiguousarray(image).tobytes(),
            {"bytes_per_row": w * 4, "rows_per_image": h},
            (w, h, 1),
        )
        return self.device.create_bind_group(
            layout=self._image_layout,
            entries=[
                {"binding": 0, "resource": texture.create_view()},
                {"binding": 1, "resource": self.sampler},
            ],
        )

    def render(self, draws: list[Draw], lights: np.ndarray, background: Any) -> np.ndarray:
        """Draw `draws` in order over `background` (r, g, b in [0, 1]) with `lights` ((k, 8)
        float32: position, pad, colour, pad); returns (height, width, 4) uint8, row 0 on top."""
        usage = self.wgpu.BufferUsage
        light_rows = lights if len(lights) else np.zeros((1, 8), dtype=np.float32)
        light_buffer = self._buffer(light_rows.astype(np.float32), usage.STORAGE)
        encoder = self.device.create_command_encoder()
        r, g, b = (float(c) for c in background)
        rpass = encoder.begin_render_pass(
            color_attachments=[
                {
                    "view": self.color.create_view(),
                    "load_op": "clear",
                    "store_op": "store",
                    "clear_value": (r, g, b, 1.0),
                }
            ],
            depth_stencil_attachment={
                "view": self.depth.create_view(),
                "depth_load_op": "clear",
                "depth_store_op": "store",
                "depth_clear_value": 0.0,
            },
        )
        for draw in draws:
            if draw.kind == "image" or len(draw.data):
                self._record(rpass, draw, light_buffer)
        rpass.end()
        encoder.copy_texture_to_buffer(
            {"texture": self.color},
            {
                "buffer": self.readback,
                "bytes_per_row": self.row_bytes,
                "rows_per_image": self.height,
            },
            (self.width, self.height, 1),
        )
        self.queue.submit([encoder.finish()])
        return self._read(np.uint8, 4)

    def _read(self, dtype: Any, channels: int) -> np.ndarray:
        self.readback.map_sync(self.wgpu.MapMode.READ)
        raw = np.frombuffer(self.readback.read_mapped(), dtype=np.uint8).copy()
        self.readback.unmap()
        rows = raw.reshape(self.height, self.row_bytes)[:, : self.width * 4]
        return rows.copy().view(dtype).reshape(self.height, self.width, channels)

    def read_depth(self) -> np.ndarray:
        """The last frame's depth buffer, (height, width) float32, row 0 on top (1 near, 0 far
        or nothing drawn)."""
        encoder = self.device.create_command_encoder()
        encoder.copy_texture_to_buffer(
            {"texture": self.depth, "aspect": "depth-only"},
            {
                "buffer": self.readback,
                "bytes_per_row": self.row_bytes,
                "rows_per_image": self.height,
            },
            (self.width, self.height, 1),
        )
        self.queue.submit([encoder.finish()])
        return self._read(np.float32, 1)[:, :, 0]


def _attributes(fmt: str, count: int, first: int, step: int = 16) -> list[dict[str, Any]]:
    return [{"format": fmt, "offset": i * step, "shader_location": first + i} for i in range(count)]


_MESH_VERTEX = {
    "array_stride": MESH_STRIDE,
    "step_mode": "vertex",
    "attributes": [
        {"format": "float32x3", "offset": 0, "shader_location": 0},
        {"format": "float32x3", "offset": 12, "shader_location": 1},
        {"format": "float32x4", "offset": 24, "shader_location": 2},
    ],
}
_MESH_MODEL = {
    "array_stride": INSTANCE_STRIDE,
    "step_mode": "instance",
    "attributes": _attributes("float32x4", 4, 3),
}
_SPHERE = {
    "array_stride": SPHERE_STRIDE,
    "step_mode": "instance",
    "attributes": [
        {"format": "float32x3", "offset": 0, "shader_location": 0},
        {"format": "float32", "offset": 12, "shader_location": 1},
        {"format": "float32x4", "offset": 16, "shader_location": 2},
    ],
}
_LINE = {
    "array_stride": LINE_STRIDE,
    "step_mode": "instance",
    "attributes": _attributes("float32x4", 4, 0),
}
_STAGES = {
    "mesh": ("vs_mesh", [_MESH_VERTEX, _MESH_MODEL], "fs_mesh"),
    "spheres": ("vs_sphere", [_SPHERE], "fs_sphere"),
    "discs": ("vs_sphere", [_SPHERE], "fs_disc"),
    "lines": ("vs_line", [_LINE], "fs_flat"),
    "image": ("vs_image", [], "fs_image"),
}


def check_ggui_availability() -> None:
    """Raise `GGUINotAvailableException` when GGUI cannot render here (no WebGPU adapter)."""
    _open_device()
