"""The WebGPU back end: final IR -> WGSL compute shaders, run through wgpu-py.

`emitter.py` writes one task's WGSL (values, control flow), `memory.py` its loads, stores and
atomics, `wgsl.py` holds the operator tables, `shader.py` assembles the modules, `device.py`
owns the adapter, buffers, pipelines and the batch of dispatches, and `executable.py` launches.
Only `device.py` imports wgpu, and only when a device is opened, so `import tistudio` never does.
"""
