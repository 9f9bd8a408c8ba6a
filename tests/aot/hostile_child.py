"""Load and run modules in a child process, so that a crash fails a test instead of pytest.

`python -m tests.aot.hostile_child CASES.json` reads a list of `[case name, module path]`,
and for each prints one JSON line before it starts (`{"start": name}`) and one with its
outcome: "refused" with the `AotModuleError`'s message, "ok" when every kernel, field and the
graph of `tests/aot/kernels.py`'s module gave the expected values, or "wrong"/"other" with
what happened. A process that dies leaves its last "start" line to name the culprit.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import numpy as np

import tistudio.aot
from tests.aot import kernels


def run_module(path: str) -> str:
    """Run everything the module of `kernels.build` has; "" when all of it is right."""
    m = tistudio.aot.load(path)
    m.get_kernel("init")(2.0)
    m.sync()
    problems = []
    if not np.array_equal(m.fields["x"].to_numpy(), kernels.expected_x(2.0)):
        problems.append("field x")
    if not np.array_equal(m.fields["v"].to_numpy(), kernels.expected_v()):
        problems.append("field v")
    if abs(m.get_kernel("total")() - float(kernels.expected_x(2.0).sum())) > 1e-3:
        problems.append("total")
    arr = np.zeros(5, np.float32)
    m.get_kernel("fill")(arr, 1.5)
    m.sync()
    if not np.array_equal(arr, 1.5 + np.arange(5, dtype=np.float32)):
        problems.append("fill")
    m.get_kernel("bump|f=v,")(-1)
    if not np.array_equal(m.fields["v"].to_numpy(), kernels.expected_v() - 1):
        problems.append("bump")
    m.get_graph("g").run({"arr": arr, "val": 10.0})
    m.sync()
    if not np.array_equal(arr, 10 + np.arange(5, dtype=np.float32)):
        problems.append("graph")
    return ", ".join(problems)


def outcome(path: str) -> dict[str, Any]:
    try:
        problems = run_module(path)
    except tistudio.aot.AotModuleError as e:
        return {"outcome": "refused", "message": str(e)}
    except Exception as e:  # noqa: BLE001 - any other error is a finding, reported as such
        return {"outcome": "other", "message": f"{type(e).__name__}: {e}"}
    return {"outcome": "wrong", "message": problems} if problems else {"outcome": "ok"}


def main(cases_file: str) -> None:
    with open(cases_file) as handle:
        cases = json.load(handle)
    for name, path in cases:
        print(json.dumps({"start": name}), flush=True)
        print(json.dumps({"case": name, **outcome(path)}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
