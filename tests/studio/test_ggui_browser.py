"""A `ti.ui` (GGUI) program in the real JupyterLab: a 3-D scene rendered through wgpu each
frame, drawn live under the cell, a sub-window slider that reaches the program, a key press
that moves the camera, and the close button that ends `window.running`."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.studio.lab_page import run_all

PROGRAM = """import tistudio as ti
ti.init(arch=ti.cpu)
M = 512
balls = ti.Vector.field(3, ti.f32, shape=M)
colors = ti.Vector.field(3, ti.f32, shape=M)


@ti.kernel
def ring(t: ti.f32):
    for i in balls:
        a = i * 6.2831853 / M + t
        balls[i] = ti.Vector([0.5 * ti.cos(a), 0.5 * ti.sin(a), 0.3 * ti.sin(3 * a)])
        colors[i] = ti.Vector([0.9, 0.5 + 0.4 * ti.sin(2 * a), 0.1])  # orange to yellow


window = ti.ui.Window("ring", res=(320, 320))
canvas, scene, gui = window.get_canvas(), window.get_scene(), window.get_gui()
camera = ti.ui.Camera()
camera.position(0.0, 0.0, 2.0)
camera.lookat(0.0, 0.0, 0.0)
size, last, t = 0.02, None, 0.0
while window.running:
    with gui.sub_window("Controls", 0.02, 0.02, 0.4, 0.2):
        size = gui.slider_float("size", size, 0.005, 0.08)
    if size != last:
        print("SIZE", round(size, 3), flush=True)
        last = size
    for e in window.get_events(ti.ui.PRESS):
        print("KEY", e.key, flush=True)
    camera.track_user_inputs(window, movement_speed=0.03, hold_key=ti.ui.RMB)
    t += 0.02
    ring(t)
    scene.set_camera(camera)
    scene.ambient_light((0.4, 0.4, 0.4))
    scene.point_light(pos=(0.0, 0.0, 3.0), color=(1.0, 1.0, 1.0))
    scene.particles(balls, radius=size, per_vertex_color=colors)
    canvas.scene(scene)
    window.show()
print("LOOP ENDED camera z", round(camera.curr_position[2], 2))"""

WIDGET = ".tistudio-gui"

# how many of the canvas's pixels are orange (the particles), and the first frame's size
ORANGE = f"""() => {{
  const c = document.querySelector('{WIDGET} canvas');
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let k = 0; k < d.length; k += 4) if (d[k] > 90 && d[k] > 2 * d[k + 2]) n++;
  return [c.width, c.height, n];
}}"""


def test_ggui_scene_runs_live_with_controls_keys_and_close(lab, page: Page, artifacts):
    run_all(page, lab.notebook("ggui.ipynb", [PROGRAM]))
    widget = page.locator(WIDGET)
    expect(widget).to_have_attribute("data-ready", "1", timeout=90_000)
    page.wait_for_function(
        f"document.querySelector('{WIDGET}').dataset.frames >= 5", timeout=90_000
    )
    width, height, small = page.evaluate(ORANGE)
    assert (width, height) == (320, 320)
    assert small > 200, small  # the ring of particles is drawn

    out = page.locator(".jp-Cell").first.locator(".jp-OutputArea")
    expect(out).to_contain_text("SIZE 0.02", timeout=30_000)
    slider = widget.locator(".ti-gui-control[data-label='size'] input[type=range]")
    slider.fill("0.06")
    expect(out).to_contain_text("SIZE 0.06", timeout=30_000)
    # bigger particles cover more of the picture a few frames later
    page.wait_for_function(f"({ORANGE})()[2] > {small} * 1.5", timeout=30_000)
    widget.screenshot(path=artifacts / "ggui_view.png")

    canvas = widget.locator("canvas")
    canvas.click()
    page.keyboard.down("s")  # track_user_inputs: "s" moves the camera backwards
    page.wait_for_timeout(400)
    page.keyboard.up("s")
    expect(out).to_contain_text("KEY s", timeout=30_000)

    widget.locator(".ti-gui-close").click()
    expect(out).to_contain_text("LOOP ENDED camera z", timeout=30_000)
    z = float(out.inner_text().split("LOOP ENDED camera z")[1].split()[0])
    assert z > 2.0, z  # the camera moved back while "s" was held
