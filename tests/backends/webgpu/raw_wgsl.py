"""Run one WGSL function over NumPy arrays on the test adapter: `apply(device, helpers, call,
inputs, dtype)` evaluates `call` (an expression of `a0`, `a1`, ...) for every element, so a
helper of the WGSL back end can be checked value by value against NumPy."""

from __future__ import annotations

import numpy as np

from tistudio.backends.webgpu.device import GpuDevice
from tistudio.backends.webgpu.resources import Binding

_TYPES = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}
_GROUP = 64


def apply(device: GpuDevice, helpers: list[str], call: str, inputs: list[np.ndarray]) -> np.ndarray:
    """`call` over `inputs` (1-D, one dtype) on `device`: the array of its results."""
    dtype = inputs[0].dtype
    t = _TYPES[dtype]
    n = len(inputs[0])
    declared = [
        f"@group(0) @binding({k}) var<storage, read> a{k}_: array<{t}>;" for k in range(len(inputs))
    ]
    out = len(inputs)
    loads = "".join(f"    let a{k} = a{k}_[i];\n" for k in range(len(inputs)))
    text = "\n".join(
        [
            *declared,
            f"@group(0) @binding({out}) var<storage, read_write> o: array<{t}>;",
            *helpers,
            f"@compute @workgroup_size({_GROUP})",
            "fn main(@builtin(global_invocation_id) g: vec3<u32>) {",
            "    let i = g.x;",
            f"    if (i >= {n}u) {{ return; }}",
            loads + f"    o[i] = {call};",
            "}",
        ]
    )
    bindings = [Binding(k, f"a{k}", t, 0, False) for k in range(len(inputs))]
    bindings.append(Binding(out, "o", t, 0, True))
    pipeline, layout = device.pipeline(text, bindings, 0)
    buffers = []
    for x in inputs:
        buffer = device.create_buffer(x.nbytes)
        device.write(buffer, np.ascontiguousarray(x).tobytes())
        buffers.append(buffer)
    result = device.create_buffer(n * dtype.itemsize)
    buffers.append(result)
    group = device.bind_group(
        layout, [(k, b, 0, n * dtype.itemsize) for k, b in enumerate(buffers)]
    )
    device.dispatch(pipeline, group, b"", -(-n // _GROUP))
    return np.frombuffer(device.read(result, n * dtype.itemsize), dtype).copy()
