"""A loaded module runs in a process where the frontend and the passes cannot be imported.

The child process installs a meta-path finder that raises ImportError for `tistudio.frontend`
and `tistudio.passes` (and anything below them) before it imports tistudio, then loads the
CPU and the GPU module, runs kernels, a graph and field reads, and prints the results; the
test compares them with NumPy. The child also checks that the block works and that neither
package (nor `tistudio.lang.kernel`) ended up in `sys.modules`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

import tistudio as ti
from tests.aot import kernels

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import json, sys

BLOCKED = ("tistudio.frontend", "tistudio.passes")


class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name in BLOCKED or name.startswith(tuple(b + "." for b in BLOCKED)):
            raise ImportError(f"{name} is blocked in this process")
        return None


sys.meta_path.insert(0, Blocker())
import numpy as np
import tistudio as ti
import tistudio.aot

try:
    import tistudio.frontend.errors
except ImportError:
    pass
else:
    raise SystemExit("the blocker does not block")

results = {}
for arch, path in zip((ti.cpu, ti.vulkan), sys.argv[1:]):
    m = tistudio.aot.load(path, arch=arch)
    m.get_kernel("init")(2.0)
    arr = np.zeros(4, np.float32)
    m.get_graph("g").run({"arr": arr, "val": 5.0})
    results[arch.name] = {
        "total": m.get_kernel("total")(),
        "arr": arr.tolist(),
        "x": m.fields["x"].to_numpy().tolist(),
        "v": m.fields["v"].to_numpy().tolist(),
    }
    ti.sync()  # waits for the module's launches; imports nothing of the compiler
loaded = [n for n in sys.modules if n.startswith(BLOCKED + ("tistudio.lang.kernel",))]
results["loaded"] = loaded
print(json.dumps(results))
"""


def test_modules_run_without_frontend_or_passes(tmp_path):
    paths = []
    for arch in (ti.cpu, ti.vulkan):
        module, *_ = kernels.build(arch)
        paths.append(str(tmp_path / f"{arch.name}.tcm"))
        module.archive(paths[-1])
    ti.reset()
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, str(script), *paths], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    results = json.loads(out.stdout.strip().splitlines()[-1])
    assert results.pop("loaded") == []
    x = kernels.expected_x(2.0) + 3
    for arch in ("cpu", "vulkan"):
        got = results[arch]
        assert got["total"] == float(x.sum())
        np.testing.assert_array_equal(got["arr"], 5 + np.arange(4))
        np.testing.assert_array_equal(got["x"], x)
        np.testing.assert_array_equal(got["v"], kernels.expected_v())
