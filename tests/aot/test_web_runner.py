"""The single-file browser runner (`tistudio/aot/static/runner.html`) running a GPU module in
headless Chromium, whose WebGPU adapter here is SwiftShader (Chromium needs a secure context:
the page and the module are served from https://tistudio.test through Playwright routes).

The module is built on a device without the features browsers lack (f64, i64, float atomics),
so its WGSL is what a browser can compile; the runner turns immediates into a uniform buffer.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import sync_playwright

import tistudio as ti
import tistudio.aot
from tests.aot import kernels
from tistudio.aot.archive import write_tcm
from tistudio.backends.webgpu.device import GpuDevice
from tistudio.lang import impl

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
BROWSER_LACKS = frozenset(
    {"shader-f64", "shader-int64", "shader-float32-atomic", "shader-int64-atomic-all-ops"}
)
SITE = "https://tistudio.test"

RUN = """async () => Promise.race([new Promise((_, fail) => setTimeout(() => fail(
    new Error("the runner did not finish within 60 s")), 60000)), (async () => {
  console.log("step: load");
  const m = await tistudio.load("%s/m.tcm");
  console.log("step: init");
  await m.kernel("init").run([2.0]);
  const arr = new Float32Array(5);
  console.log("step: graph");
  await m.runGraph("g", {arr, val: 10});
  console.log("step: fields");
  const x = await m.readField("x"), v = await m.readField("v");
  console.log("step: total");
  const total = await m.kernel("total").run([]);
  console.log("step: errors");
  const errors = [];
  for (const bad of [() => m.kernel("fill").run([new Float64Array(3), 1]),
                     () => m.kernel("fill").run([arr]),
                     () => m.runGraph("g", {val: 1}),
                     () => tistudio.load("%s/v7.tcm"),
                     () => tistudio.load("%s/crc.tcm")]) {
    console.log("step: error " + errors.length);
    try { await bad(); errors.push("no error"); } catch (e) { errors.push(String(e)); }
  }
  return {arr: Array.from(arr), x: Array.from(x.data), xs: x.shape, v: Array.from(v.data),
          vs: v.shape, total, errors, kernels: m.kernelNames, graphs: m.graphNames};
})()])"""


@pytest.fixture(scope="module")
def runner_html(tmp_path_factory) -> bytes:
    """The runner as `python -m tistudio.aot webrunner` writes it."""
    target = tmp_path_factory.mktemp("web") / "runner.html"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-m", "tistudio.aot", "webrunner", "-o", str(target)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    return target.read_bytes()


@contextlib.contextmanager
def served_page(bodies: dict[str, bytes]) -> Iterator[tuple[Any, list[str]]]:
    """Headless Chromium on `SITE/runner.html`, `bodies` served by path; yields the page and
    the list its console messages go to."""

    def serve(route):
        path = route.request.url[len(SITE) :].split("?")[0]
        kind = "text/html" if path.endswith(".html") else "application/zip"
        route.fulfill(status=200, content_type=kind, body=bodies[path])

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--enable-unsafe-webgpu"]
        )
        try:
            page = browser.new_page()
            steps: list[str] = []
            page.on("console", lambda message: steps.append(message.text))
            page.route(f"{SITE}/**", serve)
            page.goto(f"{SITE}/runner.html")
            yield page, steps
        finally:
            browser.close()


def test_browser_runs_a_gpu_module(runner_html, tmp_path):
    module, *_ = kernels.build(ti.vulkan, GpuDevice.open(disable=BROWSER_LACKS))
    module.archive(str(tmp_path / "m.tcm"))
    write_tcm({**module.files(), "__version__": b"tistudio-aot 7\n"}, tmp_path / "v7.tcm")
    ti.reset()
    tcm = (tmp_path / "m.tcm").read_bytes()
    bodies = {
        "/runner.html": runner_html,
        "/m.tcm": tcm,
        "/v7.tcm": (tmp_path / "v7.tcm").read_bytes(),
        "/crc.tcm": tcm.replace(b"tistudio-aot 1", b"tistudio-aot 7"),  # CRC no longer fits
    }

    with served_page(bodies) as (page, steps):
        try:
            result = page.evaluate(RUN % (SITE, SITE, SITE))
        except Exception as e:
            raise AssertionError(f"{e}; the page logged {steps}") from None
        page.goto(f"{SITE}/runner.html?module={SITE}/m.tcm")  # the page's own controls
        page.wait_for_function("document.getElementById('run').disabled === false")
        page.fill("#args", '{"arr": [0, 0, 0], "val": 1.5}')
        page.click("#run")
        page.wait_for_function("document.getElementById('out').textContent.includes('arr =')")
        shown = page.inner_text("#out")
    x = kernels.expected_x(2.0) + 3
    assert result["kernels"] == ["bump|f=v,", "bump|f=x,", "fill", "init", "total"]
    assert result["graphs"] == ["g"]
    assert result["arr"] == [10, 11, 12, 13, 14]
    assert result["xs"] == [4, 4] and result["vs"] == [8, 3]
    np.testing.assert_array_equal(np.reshape(result["x"], (4, 4)), x)
    np.testing.assert_array_equal(np.reshape(result["v"], (8, 3)), kernels.expected_v())
    assert result["total"] == float(x.sum())
    assert result["errors"] == [
        "TypeError: kernel fill: argument arr must be a 1-d f32 typed array",
        "TypeError: kernel fill takes 2 argument(s), 1 given",
        "TypeError: graph g needs argument arr",
        "Error: unknown module format version",
        "Error: __version__ is corrupted",
    ]
    assert shown.splitlines()[0] == "arr = [1.5, 2.5, 3.5]"


DRAW = """async () => {
  const m = await tistudio.load("%s/r.tcm");
  const out = [];
  for (let launch = 0; launch < 2; launch++) {
    const a = new Uint32Array(8);
    await m.kernel("draw").run([a]);
    out.push(Array.from(a));
  }
  return out;
}"""


def test_browser_draws_what_the_python_loader_draws(runner_html, tmp_path):
    """A kernel calling `ti.random`: the page computes each launch's key (the module's seed,
    the kernel's name, the launch's number) as `backends/random_keys.py` does."""
    from tests.aot.test_random_module import draw

    device = GpuDevice.open(disable=BROWSER_LACKS)
    ti.init(arch=ti.vulkan, offline_cache=False, random_seed=9)
    impl.get_program().use_gpu(device)
    module = ti.aot.Module(ti.vulkan)
    module.add_kernel(draw)
    module.archive(str(tmp_path / "r.tcm"))
    ti.reset()
    loaded = tistudio.aot.load(tmp_path / "r.tcm", arch=ti.vulkan).get_kernel("draw")
    want = []
    for _ in range(2):
        a = np.zeros(8, np.uint32)
        loaded(a)
        want.append(a.tolist())
    ti.reset()
    bodies = {"/runner.html": runner_html, "/r.tcm": (tmp_path / "r.tcm").read_bytes()}

    with served_page(bodies) as (page, _):
        got = page.evaluate(DRAW % SITE)
    assert got == want and want[0] != want[1]
