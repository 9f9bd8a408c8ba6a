"""Checks that a module's `metadata.json` and `graphs.json` fit the schema (docs/aot-format.md).

The loader lays NumPy views over field memory and allocates trees from the metadata, so the
numbers it uses before any code is loaded are checked here: tree ids are 0, 1, 2 ... and their
sizes within `MAX_TREE_BYTES`, a field's components lie inside their tree, a kernel uses only
trees the module has, file names stay inside the module, and the names that reach C (fields,
arguments, symbols, kernels) are identifiers. Whether the rest of a kernel's entry is the one
its code was built with is `binding.py`'s check. A violation raises `AotModuleError` naming
the entry.
"""

from __future__ import annotations

import math
from typing import Any

from tistudio.aot.format import (
    FORMAT_NAME,
    FORMAT_VERSION,
    PTYPE_NDARRAY,
    PTYPE_SCALAR,
    AotModuleError,
    check_member_name,
    is_identifier,
    is_kernel_name,
)
from tistudio.ir.types import TYPES_BY_NAME

MAX_TREE_BYTES = 1 << 36  # all SNode trees of a module together (64 GiB)


def _need(condition: bool, message: str) -> None:
    if not condition:
        raise AotModuleError(f"metadata.json: {message}")


def _is_int(value: Any, low: int = 0) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def _key_in(value: Any, table: dict) -> bool:
    """`value in table` for a JSON value, which may be unhashable (a list, an object)."""
    return isinstance(value, (str, int)) and not isinstance(value, bool) and value in table


def _int_list(value: Any) -> bool:
    return isinstance(value, list) and all(_is_int(v) for v in value)


def check_metadata(meta: Any) -> dict:
    """`meta` itself, once it is known to be a well-formed module description."""
    _need(isinstance(meta, dict), "the top level must be an object")
    _need(meta.get("format") == FORMAT_NAME, f"'format' must be {FORMAT_NAME!r}")
    version = meta.get("format_version")
    if version != FORMAT_VERSION:
        raise AotModuleError(
            f"metadata.json has format version {version!r}; this tistudio reads {FORMAT_VERSION}"
        )
    _need(meta.get("arch") in ("cpu", "gpu"), "'arch' must be 'cpu' or 'gpu'")
    for key in ("trees", "fields", "kernels", "required_caps"):
        _need(isinstance(meta.get(key), list), f"'{key}' must be a list")
    _need(all(isinstance(c, str) for c in meta["required_caps"]), "'required_caps' lists names")
    _need(isinstance(meta.get("target", {}), dict), "'target' must be an object")
    _need(isinstance(meta.get("artifacts", {}), dict), "'artifacts' must be an object")
    trees = _check_trees(meta["trees"])
    for field in meta["fields"]:
        _check_field(field, trees)
    names = set()
    for kernel in meta["kernels"]:
        _check_kernel(kernel, trees, meta["arch"])
        _need(kernel["name"] not in names, f"kernel {kernel['name']!r} appears twice")
        names.add(kernel["name"])
    for name in meta.get("artifacts", {}):
        check_member_name(name)
    return meta


def _check_trees(entries: list) -> dict[int, int]:
    """{id: size}, once the ids are 0, 1, 2 ... and the sizes fit `MAX_TREE_BYTES`."""
    trees: dict[int, int] = {}
    for index, tree in enumerate(entries):
        _need(isinstance(tree, dict) and tree.get("id") == index, "tree ids must be 0, 1, 2 ...")
        _need(_is_int(tree.get("size")), f"tree {index} needs a size")
        trees[index] = tree["size"]
    total = sum(trees.values())
    _need(total <= MAX_TREE_BYTES, f"the trees take {total} bytes, more than {MAX_TREE_BYTES}")
    return trees


def _check_field(field: Any, trees: dict[int, int]) -> None:
    _need(isinstance(field, dict) and isinstance(field.get("field_name"), str), "bad field")
    name = field["field_name"]
    _need(is_identifier(name), f"field name {name!r} is not an identifier")
    _need(_key_in(field.get("dtype"), TYPES_BY_NAME), f"field {name!r}: unknown dtype")
    _need(_int_list(field.get("shape")), f"field {name!r}: 'shape' must list sizes")
    _need(_int_list(field.get("element_shape")), f"field {name!r}: bad 'element_shape'")
    _need(_key_in(field.get("tree"), trees), f"field {name!r}: unknown tree {field.get('tree')!r}")
    components = field.get("components")
    count = math.prod(field["element_shape"])
    _need(
        isinstance(components, list) and len(components) == count,
        f"field {name!r}: needs {count} component(s)",
    )
    itemsize = TYPES_BY_NAME[field["dtype"]].bits // 8 or 1
    size = trees[field["tree"]]
    for component in components:
        _need(isinstance(component, dict), f"field {name!r}: bad component")
        offset, strides = component.get("offset"), component.get("strides")
        _need(_is_int(offset) and _int_list(strides), f"field {name!r}: bad offset or strides")
        _need(len(strides) == len(field["shape"]), f"field {name!r}: one stride per axis")
        if all(field["shape"]):
            end = offset + sum((n - 1) * s for n, s in zip(field["shape"], strides)) + itemsize
            _need(end <= size, f"field {name!r} reaches past the end of tree {field['tree']}")


def _check_kernel(kernel: Any, trees: dict[int, int], arch: str) -> None:
    _need(isinstance(kernel, dict) and isinstance(kernel.get("name"), str), "bad kernel entry")
    name = kernel["name"]
    _need(is_kernel_name(name), f"kernel name {name!r} is not an identifier (with a template key)")
    _need(isinstance(kernel.get("args"), list), f"kernel {name!r}: 'args' must be a list")
    for arg in kernel["args"]:
        _need(isinstance(arg, dict) and is_identifier(arg.get("name")), f"{name!r}: bad arg name")
        _need(arg.get("ptype") in (PTYPE_SCALAR, PTYPE_NDARRAY), f"{name!r}: bad arg ptype")
        _need(_key_in(arg.get("dtype"), TYPES_BY_NAME), f"kernel {name!r}: unknown arg dtype")
        _need(_is_int(arg.get("ndim")), f"kernel {name!r}: bad arg ndim")
    rets = kernel.get("rets")
    _need(isinstance(rets, list), f"kernel {name!r}: 'rets' must be a list")
    for ret in rets:
        ok = isinstance(ret, dict) and _key_in(ret.get("dtype"), TYPES_BY_NAME)
        _need(ok, f"kernel {name!r}: bad ret")
    _need(_is_int(kernel.get("gtmp_size")), f"kernel {name!r}: bad gtmp_size")
    seed = kernel.get("random_seed", 0)
    _need(_is_int(seed) and seed < 1 << 32, f"kernel {name!r}: bad random_seed")
    _need(_int_list(kernel.get("trees")), f"kernel {name!r}: bad 'trees'")
    for tree in kernel["trees"]:
        _need(tree in trees, f"kernel {name!r} uses tree {tree}, which the module lacks")
    _need(isinstance(kernel.get("tasks"), list), f"kernel {name!r}: 'tasks' must be a list")
    _need(isinstance(kernel.get(arch), dict), f"kernel {name!r} has no {arch} artifacts")
    if arch == "cpu":
        _check_cpu(kernel)
    else:
        _check_gpu(kernel, trees)


def _check_cpu(kernel: dict) -> None:
    cpu, name = kernel["cpu"], kernel["name"]
    for key in ("object", "llvm_ir"):
        _need(isinstance(cpu.get(key), str), f"kernel {name!r}: 'cpu.{key}' must name a file")
        check_member_name(cpu[key])
    _need(isinstance(cpu.get("spec"), dict), f"kernel {name!r}: 'cpu.spec' is missing")
    threads = cpu.get("threads")
    _need(_is_int(threads, 1) and threads <= 4096, f"kernel {name!r}: bad 'cpu.threads'")
    functions = cpu["spec"].get("functions")
    _need(
        isinstance(functions, list) and all(map(is_identifier, functions)),
        f"kernel {name!r}: 'cpu.spec.functions' must list identifiers",
    )
    _need(
        cpu.get("launcher") is None or is_identifier(cpu["launcher"]),
        f"kernel {name!r}: 'cpu.launcher' must be an identifier",
    )


def _check_gpu(kernel: dict, trees: dict[int, int]) -> None:
    name = kernel["name"]
    _need(_is_int(kernel["gpu"].get("immediates_size")), f"kernel {name!r}: bad immediates")
    for task in kernel["tasks"]:
        _need(isinstance(task, dict) and isinstance(task.get("wgsl"), str), f"{name!r}: task")
        check_member_name(task["wgsl"])
        _need(_is_int(task.get("dispatch_groups")), f"kernel {name!r}: bad dispatch_groups")
        binds = task.get("buffer_binds")
        _need(isinstance(binds, list), f"kernel {name!r}: 'buffer_binds' must be a list")
        for bind in binds:
            _check_binding(bind, name, trees, len(kernel["args"]))


def _check_binding(bind: Any, name: str, trees: dict[int, int], num_args: int) -> None:
    _need(isinstance(bind, dict) and _is_int(bind.get("binding")), f"{name!r}: bad binding")
    buffer = bind.get("buffer")
    _need(isinstance(buffer, dict), f"kernel {name!r}: a binding needs a buffer")
    kind = buffer.get("type")
    if kind == "root":
        _need(_key_in(buffer.get("root_id"), trees), f"kernel {name!r} binds an unknown tree")
    elif kind == "ndarray":
        arg = buffer.get("arg_id")
        _need(_is_int(arg) and arg < num_args, f"kernel {name!r} binds an unknown argument")
    else:
        _need(kind in ("gtmp", "rets", "print"), f"kernel {name!r}: unknown buffer type {kind!r}")
    _need(isinstance(bind.get("view"), str), f"kernel {name!r}: a binding needs a view")
    _need(isinstance(bind.get("writable"), bool), f"kernel {name!r}: bad 'writable'")


def check_graphs(graphs: Any, meta: dict) -> list:
    """`graphs` itself, once every dispatch names a kernel of the module."""
    kernels = {k["name"]: k for k in meta["kernels"]}
    if not isinstance(graphs, list):
        raise AotModuleError("graphs.json: the top level must be a list")
    for graph in graphs:
        ok = isinstance(graph, dict) and isinstance(graph.get("key"), str)
        value = graph.get("value") if ok else None
        if not ok or not isinstance(value, dict) or not isinstance(value.get("dispatches"), list):
            raise AotModuleError("graphs.json: each graph needs a key and a dispatch list")
        for dispatch in value["dispatches"]:
            _check_dispatch(graph["key"], dispatch, kernels)
    return graphs


def _check_dispatch(graph: str, dispatch: Any, kernels: dict[str, dict]) -> None:
    name = dispatch.get("kernel_name") if isinstance(dispatch, dict) else None
    kernel = kernels.get(name) if isinstance(name, str) else None
    if kernel is None:
        raise AotModuleError(f"graphs.json: graph {graph!r} dispatches an unknown kernel")
    symbolic = dispatch.get("symbolic_args")
    if not isinstance(symbolic, list) or len(symbolic) != len(kernel["args"]):
        raise AotModuleError(
            f"graphs.json: graph {graph!r} gives {kernel['name']!r} the wrong number of arguments"
        )
    for arg in symbolic:
        if not isinstance(arg, dict) or not (isinstance(arg.get("name"), str) or "value" in arg):
            raise AotModuleError(f"graphs.json: graph {graph!r}: an argument needs a name or value")
