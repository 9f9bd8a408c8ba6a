"""PyTorch interop on a CUDA device (issue #12): run on the lent GPU machine, which has a CUDA
build of torch. CI has none (its torch is the CPU wheel), so this is a manual check:

    run(carry=[".whl-interop"], command="python3 -m pip install -q --no-index --no-deps "
        "--target /tmp/site .whl-interop/*.whl && PYTHONPATH=/tmp/site:$PWD "
        "python3 scripts/device/interop_cuda.py")

with `.whl-interop/` holding llvmlite's cp312 wheel (`pip download --python-version 3.12 ...`).
Every value in the printed JSON must be true. Last run: H100, torch 2.11.0+cu130, all true.
"""

import json
import os

import torch

import tistudio as ti

out = {"torch": torch.__version__, "cuda": torch.cuda.is_available()}
ti.init(arch=ti.cpu, offline_cache=False)
n = 1000
x = ti.field(ti.f32, shape=n)
v = ti.Vector.field(3, ti.f32, shape=n)


@ti.kernel
def fill():
    for i in x:
        x[i] = i * 0.5
        v[i] = ti.Vector([i, 2 * i, 3 * i])


@ti.kernel
def bump(a: ti.types.ndarray(), s: ti.f32):
    for i in a:
        a[i] = a[i] * s + 1


fill()
t = x.to_torch(device="cuda")
out["to_torch_device"] = str(t.device)
out["to_torch_ok"] = bool(torch.equal(t.cpu(), torch.arange(n, dtype=torch.float32) * 0.5))
tv = v.to_torch(device="cuda:0")
out["vector_to_torch_ok"] = tv.shape == (n, 3) and float(tv[10, 2]) == 30.0
x.from_torch(torch.full((n,), 7.0, device="cuda"))
out["from_torch_ok"] = bool((x.to_numpy() == 7.0).all())
g = torch.arange(n, dtype=torch.float32, device="cuda")
bump(g, 2.0)
out["ndarray_arg_device"] = str(g.device)
out["ndarray_arg_written_back"] = bool(
    torch.equal(g.cpu(), torch.arange(n, dtype=torch.float32) * 2 + 1)
)
sl = torch.arange(2 * n, dtype=torch.float32, device="cuda")[::2]
bump(sl, 3.0)
out["non_contiguous_cuda_ok"] = bool(
    torch.equal(sl.cpu(), torch.arange(0, 2 * n, 2, dtype=torch.float32) * 3 + 1)
)
print(json.dumps(out))
json.dump(out, open(os.path.join(os.environ.get("OUT", "/tmp"), "interop_cuda.json"), "w"))
