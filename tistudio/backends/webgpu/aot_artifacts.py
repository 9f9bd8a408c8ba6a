"""The GPU back end's half of an AOT module: each task's WGSL, bindings and dispatch size.

`WebGpuBackend.aot_artifacts` compiles the kernel as for a launch and describes what a loader
(ours, or the web runner) needs to run it without the compiler: per task its WGSL file, how
many workgroups to dispatch and its bind group in Taichi's buffer vocabulary; per kernel the
immediates it pushes, what it writes and its print formats, and the wgpu features its WGSL
uses. `aot/compile.py` merges this into the module's metadata (docs/aot-format.md). Kernels a
module cannot hold (arguments beyond the immediates, debug checks, a buffer larger than one
binding window) are refused with a ValueError that names the kernel.
"""

from __future__ import annotations

import re
from typing import Any

from tistudio.backends.protocol import AotArtifacts
from tistudio.backends.webgpu.executable import GpuExecutable
from tistudio.backends.webgpu.resources import Binding

# wgpu features a WGSL module needs, by what its text contains
_FEATURE_PATTERNS = (
    ("shader-float32-atomic", re.compile(r"atomic<f32>")),
    ("shader-int64-atomic-all-ops", re.compile(r"atomic<[iu]64>")),
    ("shader-f64", re.compile(r"\bf64\b")),
    ("shader-int64", re.compile(r"\b[iu]64\b")),
    ("immediates", re.compile(r"var<immediate>")),
)


def required_wgpu_features(wgsl_texts: list[str]) -> list[str]:
    """The wgpu features that the WGSL modules use (sorted)."""
    found = set()
    for text in wgsl_texts:
        for feature, pattern in _FEATURE_PATTERNS:
            if pattern.search(text):
                found.add(feature)
    return sorted(found)


def aot_artifacts(executable: GpuExecutable, stem: str, window_bytes: int) -> AotArtifacts:
    """The artifacts of the compiled `executable`, WGSL files named `<stem>_<i>_t<i>.wgsl`
    (`window_bytes`: the device's binding window, for the error message)."""
    name = executable.name
    _check(executable)
    files, tasks = {}, []
    for index, (shader, _, _) in enumerate(executable.tasks):
        if any(b.window for b in shader.bindings):
            raise ValueError(
                f"kernel {name!r} binds a buffer larger than one binding window "
                f"({window_bytes} bytes); AOT modules need smaller fields"
            )
        wgsl = f"{stem}_{index}_t{index:02d}.wgsl"
        files[wgsl] = shader.wgsl.encode()
        tasks.append(
            {
                "wgsl": wgsl,
                "dispatch_groups": shader.groups,
                "buffer_binds": [_binding(b) for b in shader.bindings],
            }
        )
    part = {
        "immediates_size": executable.args.size,
        "immediates": [list(m) for m in executable.args.members],
        "trees_written": list(executable.trees_written),
        "arrays_written": list(executable.arrays_written),
        "print_formats": [[f.template, list(map(str, f.dtypes))] for f in executable.print_formats],
    }
    entry = {
        "gpu": part,
        "required_caps": required_wgpu_features([t.decode() for t in files.values()]),
    }
    return AotArtifacts(files, list(executable.trees_used), tasks, entry)


def _check(executable: GpuExecutable) -> None:
    """Refuse what the web runner and the loader cannot run."""
    name = executable.name
    if executable.args.uniform:  # the web runner and loader pass arguments as immediates
        raise ValueError(
            f"kernel {name!r} has {executable.args.size} bytes of scalar arguments and "
            f"ndarray extents, more than the adapter's immediates; AOT modules need fewer"
        )
    if executable.failure.checks:
        raise ValueError(
            f"kernel {name!r} has debug checks (ti.init(debug=True)); GPU modules do not "
            "carry them: build the module without debug"
        )


def _binding(binding: Binding) -> dict[str, Any]:
    """A task's binding, with Taichi's buffer vocabulary (root buffer, global temporaries,
    returns, an ndarray argument) and our view (the WGSL element type of the binding)."""
    resource = binding.resource
    if resource.startswith("tree"):
        buffer: dict[str, Any] = {"type": "root", "root_id": int(resource[4:])}
    elif resource.startswith("arg"):
        buffer = {"type": "ndarray", "arg_id": int(resource[3:])}
    else:
        buffer = {"type": {"gtmp": "gtmp", "ret": "rets", "print": "print"}[resource]}
    return {
        "binding": binding.index,
        "buffer": buffer,
        "view": binding.view,
        "writable": binding.writable,
    }
