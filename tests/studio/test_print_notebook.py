"""`print` in kernels lands in the output of the notebook cell that launched the kernel, in
order with the cell's own prints, on the CPU and on the GPU (a real ipykernel run by nbclient).
Taichi's CPU `printf` would bypass ipykernel's `sys.stdout` and be lost to the notebook."""

from __future__ import annotations

import os

import nbformat
from nbclient import NotebookClient

KERNEL = """
@ti.kernel
def show(n: ti.i32):
    v = ti.Vector([n, 2 * n])
    for i in range(n):
        ti.loop_config(serialize=True)
        print(f"i = {i}, x = {i * 0.5:.2f}", v)
"""
CELLS = [
    "import tistudio as ti\nti.init(arch=ti.cpu)" + KERNEL,
    "print('before')\nshow(3)\nprint('after')",
    "ti.init(arch=ti.vulkan)" + KERNEL + "show(2)\nprint('gpu done')",
    "%load_ext tistudio",
    '%%ti_kernel\ndef hello(k: ti.i32):\n    print("hello from the cell", k)\n\nhello(5)',
]


def _stdout(cell: dict) -> str:
    return "".join(
        o["text"] for o in cell.outputs if o["output_type"] == "stream" and o["name"] == "stdout"
    )


def test_kernel_prints_are_in_the_launching_cells_output(tmp_path) -> None:  # noqa: ANN001
    os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in CELLS]
    client = NotebookClient(
        nb, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    assert _stdout(nb.cells[0]) == ""
    assert _stdout(nb.cells[1]) == (
        "before\ni = 0, x = 0.00 [3, 6]\ni = 1, x = 0.50 [3, 6]\ni = 2, x = 1.00 [3, 6]\nafter\n"
    )
    assert _stdout(nb.cells[2]) == "i = 0, x = 0.00 [2, 4]\ni = 1, x = 0.50 [2, 4]\ngpu done\n"
    assert _stdout(nb.cells[4]) == "hello from the cell 5\n"
