"""`save_html`: one self-contained page (pass explorer, and for GPU programs the AOT runner),
opened from file:// in headless Chromium with no server: a pass clicked shows its diff, the CFG
tab draws, another instantiation brings its own passes, and a WebGPU kernel runs in the page
(SwiftShader's WebGPU here) or the runner says why it cannot."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import tistudio as ti
from tistudio.backends.webgpu.device import GpuDevice
from tistudio.lang import impl
from tistudio.studio import save_html
from tistudio.studio.share import page_html

CHROMIUM = "/usr/bin/chromium"
BROWSER_LACKS = frozenset(
    {"shader-f64", "shader-int64", "shader-float32-atomic", "shader-int64-atomic-all-ops"}
)
N = 32


def heat_kernels():
    u = ti.field(ti.f32, shape=(N, N))
    v = ti.field(ti.f32, shape=(N, N))

    @ti.kernel
    def seed():
        for i, j in u:
            u[i, j] = 0.0
            if (i - 16) * (i - 16) + (j - 16) * (j - 16) < 25:
                u[i, j] = 1.0

    @ti.kernel
    def heat(src: ti.template(), dst: ti.template(), k: ti.f32):
        for i, j in dst:
            if 0 < i < N - 1 and 0 < j < N - 1:
                c = src[i, j]
                lap = src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1] - 4.0 * c
                dst[i, j] = c + k * lap

    seed()
    heat(u, v, 0.2)
    heat(v, u, 0.2)
    return {"u": u, "v": v}, [heat, seed]


def open_page(playwright, path: Path, webgpu: bool = True):
    """Chromium on `path` from the file system, launched through pytest-playwright's session
    Playwright (a second sync Playwright in the same process refuses to start once that one
    runs); returns (browser, page, errors)."""
    args = ["--no-sandbox", "--enable-unsafe-webgpu"]
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=args)
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    if not webgpu:  # a browser without WebGPU: no navigator.gpu
        page.add_init_script("delete Navigator.prototype.gpu")
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("requestfailed", lambda r: errors.append(f"request {r.url}"))
    page.goto(path.resolve().as_uri())
    page.wait_for_function("document.body.dataset.ready", timeout=90_000)
    return browser, page, errors


def test_the_page_is_self_contained_and_refuses_uncompiled_kernels(tmp_path):
    ti.init(arch=ti.cpu)
    try:
        fields, kernels = heat_kernels()
        text = page_html(kernels, fields)
        assert not re.search(r"""<(script|link|img)[^>]+(src|href)=""", text)  # all inline
        assert "https://" not in text.split("ti-share-data")[0]  # no CDN in the page's head
        assert "compiled for the CPU" in text  # a CPU program gets no runner, and says why

        @ti.kernel
        def never():
            pass

        with pytest.raises(ValueError, match="'never' has not been compiled"):
            save_html(tmp_path / "x.html", [never], fields=fields)
    finally:
        ti.reset()


def test_shared_page_explorer_and_runner_from_file(tmp_path, playwright, artifacts):
    ti.init(arch=ti.gpu, offline_cache=False)
    impl.get_program().use_gpu(GpuDevice.open(disable=BROWSER_LACKS))
    try:
        fields, kernels = heat_kernels()
        want = fields["u"].to_numpy()  # after seed, heat(u, v), heat(v, u)
        path = save_html(tmp_path / "heat.html", kernels, fields=fields, title="heat stencil")
    finally:
        ti.reset()
    browser, page, errors = open_page(playwright, path)
    try:
        assert page.evaluate("document.body.dataset.ready") == "1", errors
        explorer = page.locator(".ti-share-explorer[data-kernel=heat]")
        rows = explorer.locator(".ti-pass")
        assert rows.count() > 10
        changed = explorer.locator(".ti-pass:not(.unchanged)")
        target = changed.nth(2)
        name = target.locator(".ti-pass-name").inner_text()
        target.click()
        explorer.locator(".ti-tab", has_text="Diff").click()
        page.wait_for_function(
            "document.querySelector('.ti-share-explorer[data-kernel=heat]').dataset.tab === 'diff'"
        )
        assert (
            explorer.locator(".ti-line.add").count() + explorer.locator(".ti-line.del").count() > 0
        ), f"no diff lines after clicking {name}"
        explorer.locator(".ti-tab", has_text="CFG").click()
        page.wait_for_selector(".ti-share-explorer[data-kernel=heat] svg")
        explorer.locator(".ti-tab", has_text="IR").first.click()
        explorer.locator("select").select_option(index=1)  # heat(v, u): its own passes
        page.wait_for_function(
            "document.querySelector('.ti-share-explorer[data-kernel=heat]')"
            ".textContent.includes('src=v')"
        )
        explorer.locator(".ti-tab", has_text="Diff").click()

        runner = page.locator("#ti-share-runner")
        state = runner.get_attribute("data-state")
        if state == "ready":  # WebGPU here: run seed, heat(u, v), heat(v, u) in the page
            steps = (("seed", "[]"), ("heat|src=u,dst=v,", "[0.2]"), ("heat|src=v,dst=u,", "[0.2]"))
            for count, (kernel, args) in enumerate(steps, 1):
                button = runner.locator(f".ti-share-run[data-kernel='{kernel}']")
                button.locator("xpath=preceding-sibling::input").fill(args)
                button.click()
                done = f"document.getElementById('ti-share-runner').dataset.runs === '{count}'"
                try:
                    page.wait_for_function(done, timeout=60_000)
                except Exception:
                    raise AssertionError(runner.inner_text()) from None
            shown = runner.inner_text()
            assert "heat|src=v,dst=u,: ran in" in shown, shown
            mean = float(re.search(r"u \[32,32\]: mean ([0-9.e-]+)", shown).group(1))
            assert mean == pytest.approx(float(want.mean()), rel=1e-4)
            assert runner.locator("canvas").count() == 2
            print(f"\nshared page ran heat in the browser's WebGPU: mean of u {mean:.6f}")
        else:
            message = runner.inner_text()
            assert "WebGPU" in message and state == "unavailable", message
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(artifacts / "share_page.png"), full_page=False)
        assert not errors, errors
    finally:
        browser.close()


def test_without_webgpu_the_runner_says_so_and_the_explorer_works(tmp_path, playwright):
    ti.init(arch=ti.gpu, offline_cache=False)
    impl.get_program().use_gpu(GpuDevice.open(disable=BROWSER_LACKS))
    try:
        fields, kernels = heat_kernels()
        path = save_html(tmp_path / "heat.html", kernels, fields=fields)
    finally:
        ti.reset()
    browser, page, errors = open_page(playwright, path, webgpu=False)
    try:
        assert not page.evaluate("'gpu' in navigator")
        runner = page.locator("#ti-share-runner")
        assert runner.get_attribute("data-state") == "unavailable"
        assert "This browser has no WebGPU" in runner.inner_text()
        assert page.locator(".ti-share-explorer[data-kernel=seed] .ti-pass").count() > 5
        assert not errors, errors
    finally:
        browser.close()


def test_the_runner_takes_the_callers_fields_by_default():
    """Without `fields`, a notebook's globals name the fields (as the signatures show them)."""
    ti.init(arch=ti.gpu, offline_cache=False)
    impl.get_program().use_gpu(GpuDevice.open(disable=BROWSER_LACKS))
    try:
        fields, kernels = heat_kernels()
        namespace = {"page_html": page_html, "kernels": kernels, **fields}
        exec("text = page_html(kernels)", namespace)  # noqa: S102 - a notebook cell's globals
        data = json.loads(re.search(r'id="ti-share-data">(.*?)</script>', namespace["text"])[1])
        assert [r.get("kernel") for r in data["runs"]] == [
            "heat|src=u,dst=v,",
            "heat|src=v,dst=u,",
            "seed",
        ]
        assert data["module"] and not data["cpu_only"]
    finally:
        ti.reset()


def test_a_kernels_gradient_is_on_its_page_with_every_pass():
    ti.init(arch=ti.cpu)
    try:
        x = ti.field(ti.f32, shape=8, needs_grad=True)
        loss = ti.field(ti.f32, shape=(), needs_grad=True)

        @ti.kernel
        def square_sum():
            for i in x:
                loss[None] += x[i] * x[i]

        with ti.ad.Tape(loss):
            square_sum()
        text = page_html([square_sum], {})
        data = json.loads(re.search(r'id="ti-share-data">(.*?)</script>', text)[1])
        (kernel,) = data["kernels"]
        assert kernel["instances"] == ["square_sum()", "square_sum.grad()"]
        for shown, cfgs in zip(kernel["data"], kernel["cfgs"], strict=True):
            assert shown["passes"][0]["name"] == "initial IR"
            assert len(cfgs) == len(shown["passes"]) and all(cfgs)
        assert "auto_diff" in [p["name"] for p in kernel["data"][1]["passes"]]
    finally:
        ti.reset()


def test_field_values_match_numpy_reference():
    """The kernels the page ships compute the stencil (checked on the CPU against NumPy)."""
    ti.init(arch=ti.cpu)
    try:
        fields, _ = heat_kernels()
        y, x = np.mgrid[0:N, 0:N]
        u = ((y - 16) ** 2 + (x - 16) ** 2 < 25).astype(np.float64)
        for _ in range(2):
            nxt = u.copy()
            lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
            nxt[1:-1, 1:-1] = u[1:-1, 1:-1] + 0.2 * lap
            u = nxt
        np.testing.assert_allclose(fields["u"].to_numpy(), u, rtol=1e-5, atol=1e-6)
    finally:
        ti.reset()
