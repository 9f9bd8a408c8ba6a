"""Ctrl-C during a long CPU kernel: the process survives, catches KeyboardInterrupt once the
kernel returns (a ctypes call cannot be interrupted mid-flight), and the next launch works."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

CHILD = textwrap.dedent(
    """
    import sys, time
    import tistudio as ti

    ti.init(offline_cache=False)
    x = ti.field(ti.i64, shape=4)

    @ti.kernel
    def spin(n: ti.i64) -> ti.i64:
        acc = ti.cast(0, ti.i64)
        for _ in range(1):
            k = ti.cast(0, ti.i64)
            while k < n:
                acc = acc * 1103515245 + k
                k += 1
        return acc

    @ti.kernel
    def fill(v: ti.i64):
        for i in x:
            x[i] = v + i

    spin(10)  # compile both before the interrupt, so only the launch is interrupted
    fill(0)
    start = time.perf_counter()
    try:
        print("ready", flush=True)  # inside the try: a SIGINT from now on is caught below
        spin(1_500_000_000)
        print("not interrupted", flush=True)
    except KeyboardInterrupt:
        print(f"interrupted after {time.perf_counter() - start:.1f} s", flush=True)
    fill(40)
    spin(3)
    print("after:", x.to_numpy().tolist(), flush=True)
    """
)


def test_sigint_during_a_long_kernel_leaves_the_process_working(tmp_path: Path) -> None:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    child = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "ready"
    time.sleep(0.3)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    assert "interrupted after" in out, out + err
    assert "after: [40, 41, 42, 43]" in out, out + err
