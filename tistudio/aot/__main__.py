"""`python -m tistudio.aot`: build a module from a script, or describe a module.

    python -m tistudio.aot build script.py -o out.tcm    # or -o folder/
    python -m tistudio.aot inspect out.tcm
    python -m tistudio.aot cheader out.tcm -o module.h    # C functions for a CPU module
    python -m tistudio.aot webrunner -o runner.html       # the browser runner for GPU modules

`build` runs the script (as Taichi's `ti module build` does: `runpy`, so its
`if __name__ == "__main__":` block does not run), takes the kernels it marked with
`@ti.aot.export` / `@ti.aot.export_as(name, template_types=...)` and its optional
`REQUIRED_CAPS` list, and writes a module for the arch the script's `ti.init` chose. Errors are
one line on stderr and exit status 1, never a traceback of ours.
"""

from __future__ import annotations

import argparse
import runpy
import sys
from pathlib import Path
from typing import Any

import numpy as np

WEB_RUNNER = Path(__file__).parent / "static" / "runner.html"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tistudio.aot", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    build = commands.add_parser("build", help="build a module from a script's exported kernels")
    build.add_argument("script", help="a Python script using @ti.aot.export")
    build.add_argument("-o", "--output", required=True, help="out.tcm, or a folder")
    inspect = commands.add_parser("inspect", help="list a module's kernels, graphs and fields")
    inspect.add_argument("module", help="a .tcm archive or a module folder")
    header = commands.add_parser("cheader", help="write a C header for a CPU module")
    header.add_argument("module", help="a .tcm archive or a module folder")
    header.add_argument("-o", "--output", required=True, help="the header file to write")
    web = commands.add_parser("webrunner", help="write the browser runner for GPU modules")
    web.add_argument("-o", "--output", required=True, help="the HTML file to write")
    args = parser.parse_args(argv)
    try:
        if args.command == "build":
            lines = build_module(Path(args.script), args.output)
        elif args.command == "webrunner":
            Path(args.output).write_bytes(WEB_RUNNER.read_bytes())
            lines = [f"wrote {args.output}"]
        elif args.command == "cheader":
            lines = write_header(args.module, Path(args.output))
        else:
            lines = describe(args.module)
    except Exception as e:  # noqa: BLE001 - the command reports every failure as one line
        print(f"error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


def build_module(script: Path, output: str) -> list[str]:
    """Run `script`, add its exported kernels to a module, write it to `output`."""
    from tistudio.aot.exports import exported_kernels
    from tistudio.aot.module import Module

    if not script.is_file():
        raise FileNotFoundError(f"no script at {str(script)!r}")
    namespace = runpy.run_path(str(script))
    exports = exported_kernels(namespace)
    if not exports:
        raise ValueError(f"{script} exports no kernel (mark them with @ti.aot.export)")
    module = Module(caps=list(namespace.get("REQUIRED_CAPS", [])))
    for name, kernel, template_types in exports:
        template_args = {k: _sample(v) for k, v in template_types.items()}
        module.add_kernel(kernel, template_args=template_args, name=name)
    if output.endswith(".tcm"):
        module.archive(output)
    else:
        module.save(output)
    lines = [f"exported kernel {name} ({kernel.__name__})" for name, kernel, _ in exports]
    return [*lines, f"wrote {output} ({module.arch})"]


def _sample(value: Any) -> Any:
    """A template type as a value to compile with: an ndarray type becomes a small zero
    array, a dtype a zero; fields and numbers stay as they are."""
    from tistudio.lang.types import NdarrayType

    if isinstance(value, NdarrayType):
        dtype, element_shape = value.dtype, ()
        if hasattr(dtype, "_ti_matrix_type"):
            element_shape, dtype = dtype._ti_matrix_type
        if dtype is None or not value.ndim:
            raise ValueError(f"template type {value!r} needs a dtype and ndim")
        return np.zeros((1,) * value.ndim + tuple(element_shape), dtype.numpy_name)
    if hasattr(value, "numpy_name"):  # a dtype: any value of it will do
        return 0
    return value


def write_header(module: str, output: Path) -> list[str]:
    """Write the C header of the CPU module at `module` (see `cheader.py`)."""
    from tistudio.aot import binding
    from tistudio.aot.archive import read_module
    from tistudio.aot.cheader import c_header
    from tistudio.aot.format import GRAPHS, METADATA, VERSION, check_version, loads
    from tistudio.aot.schema import check_graphs, check_metadata

    files = read_module(module)
    check_version(files[VERSION].decode("utf-8", "replace"))
    meta = check_metadata(loads(METADATA, files[METADATA]))
    graphs = check_graphs(loads(GRAPHS, files[GRAPHS]), meta)
    binding.check_module(meta, graphs, files)  # the header must fit the objects it calls
    module_digest = binding.module_digest(meta, graphs)
    for kernel in meta["kernels"]:
        binding.check_kernel(module_digest, meta["arch"], kernel, files)
    output.write_text(c_header(meta))
    return [f"wrote {output} ({len(meta['kernels'])} kernels)"]


def describe(path: str) -> list[str]:
    from tistudio.aot.gfx import GfxRuntime140

    runtime = GfxRuntime140.from_module(path)
    meta = runtime.to_metadata_json()
    lines = [f"{path}: {meta['arch']} module, caps {meta['required_caps'] or 'none'}"]
    for field in meta["fields"]:
        shape = field["shape"] + field["element_shape"]
        lines.append(f"  field  {field['field_name']}: {field['dtype']}{shape}")
    for kernel in meta["kernels"]:
        args = ", ".join(f"{a['name']}: {a['dtype']}{'[]' * a['ndim']}" for a in kernel["args"])
        rets = ", ".join(r["dtype"] for r in kernel["rets"])
        lines.append(
            f"  kernel {kernel['name']}({args}) -> ({rets}), {len(kernel['tasks'])} task(s)"
        )
    for graph in runtime.to_graphs_json():
        names = [d["kernel_name"] for d in graph["value"]["dispatches"]]
        lines.append(f"  graph  {graph['key']}: {' -> '.join(names)}")
    return lines


if __name__ == "__main__":
    sys.exit(main())
