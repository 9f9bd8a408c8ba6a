"""Imports flow one way: the package's layers, declared here and in `docs/architecture.md`.

Every module's imports are read with `ast` (imports inside functions, `__import__` and
`importlib.import_module` of a constant name included), and each one is checked against the
layer order below: a module may import its own package and anything in a lower layer, never a
higher one. On top of that, the packages' import graph must have no cycle (a cycle inside one
package's own files is that package's business). A layer that needs to tell a higher one
something publishes an event (`tistudio.events`) or receives a callable or a name from it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tistudio"

# lowest first; a unit is a module or package path, the longest matching prefix decides
LAYERS: list[tuple[str, ...]] = [
    ("tistudio.arch", "tistudio.events"),  # constants and the event bus: import nothing of ours
    ("tistudio.ir",),  # statements, types, printer, parser, verifier, interpreter
    ("tistudio.frontend",),  # Python AST -> frontend IR
    ("tistudio.passes",),  # IR -> IR, the pipeline
    ("tistudio.backends",),  # final IR -> machine code (llvm) or WGSL (webgpu)
    ("tistudio.runtime",),  # Program: field memory, compile through a Backend, disk cache
    ("tistudio.lang",),  # the user's language: ti.init, fields, kernels
    ("tistudio.ad", "tistudio.graph"),  # Tape and grad entry points; compute graphs
    ("tistudio.aot",),  # AOT modules: save, archive, load
    ("tistudio.distributed",),  # sweeps of AOT modules on a Dask cluster (optional: `[dask]`)
    # notebook, GUIs (ui may import the studio's widget; never the other way), examples, ti.*
    # `_lib`: the names of Taichi's `taichi._lib` that programs and tests use
    (
        "tistudio.studio",
        "tistudio.ui",
        "tistudio.tour",
        "tistudio.lab",
        "tistudio._lib",
        "tistudio",
    ),
]

# the units of the cycle check: these packages, and each other module on its own
UNITS = (
    "tistudio.backends.llvm",
    "tistudio.backends.webgpu",
    *(name for layer in LAYERS for name in layer),
)

# (importer, imported) -> why this edge may run against the order; each must still exist
ALLOWED = {
    ("tistudio", "tistudio.studio.magic"): "IPython's `%load_ext tistudio` calls the package's "
    "`load_ipython_extension`, which imports the studio only when called",
    ("tistudio.aot.module", "tistudio"): "the package's `__version__`, written into a module",
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imported_names(path: Path, name: str) -> set[str]:
    """The modules of ours that `path` imports anywhere in its text."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.update(f"{base}.{alias.name}" for alias in node.names)
            found.add(base)
        elif isinstance(node, ast.Call) and _dynamic_import(node):
            found.add(node.args[0].value)
    return {_resolve(target) for target in found if target.split(".")[0] == "tistudio"} - {name}


def _dynamic_import(node: ast.Call) -> bool:
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    constant = bool(node.args) and isinstance(node.args[0], ast.Constant)
    return called in ("__import__", "import_module") and constant


def _resolve(target: str) -> str:
    """`from tistudio.lang import impl` names `tistudio.lang.impl`; `from x import name`, x."""
    while target not in MODULES and "." in target:
        target = target.rpartition(".")[0]
    return target


def unit_of(name: str, units: tuple[str, ...]) -> str:
    matches = [u for u in units if name == u or name.startswith(u + ".")]
    assert matches, f"{name} is in no layer: add it to LAYERS in tests/test_layers.py"
    return max(matches, key=len)


def layer_of(name: str) -> int:
    unit = unit_of(name, UNITS)
    while True:
        for index, layer in enumerate(LAYERS):
            if unit in layer:
                return index
        unit = unit.rpartition(".")[0]


def import_graph() -> dict[str, set[str]]:
    return {name: imported_names(path, name) for name, path in MODULES.items()}


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    bad = []
    for importer, targets in graph.items():
        for target in sorted(targets):
            if (importer, target) in ALLOWED:
                continue
            if layer_of(target) > layer_of(importer):
                bad.append(f"{importer} imports {target}, a higher layer")
    return bad


def package_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected sets of more than one unit in the units' import graph."""
    edges: dict[str, set[str]] = {}
    for importer, targets in graph.items():
        a = unit_of(importer, UNITS)
        for target in targets:
            b = unit_of(target, UNITS)
            if a != b and (importer, target) not in ALLOWED:
                edges.setdefault(a, set()).add(b)
    return [sorted(c) for c in _components(edges) if len(c) > 1]


def _components(edges: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's strongly connected components (iterative enough for a few dozen units)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                component.add(top)
                if top == node:
                    break
            found.append(component)

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_upward_import() -> None:
    bad = upward_imports(import_graph())
    assert not bad, "\n".join(bad)


def test_no_cycle_between_packages() -> None:
    cycles = package_cycles(import_graph())
    assert not cycles, cycles


def test_back_ends_do_not_import_each_other() -> None:
    graph = import_graph()
    for importer, targets in graph.items():
        for first, second in (("llvm", "webgpu"), ("webgpu", "llvm")):
            if importer.startswith(f"tistudio.backends.{first}"):
                assert not any(t.startswith(f"tistudio.backends.{second}") for t in targets)


def test_the_language_reaches_back_ends_through_the_runtime() -> None:
    """`lang` and `ad` hold a `Program`; which back end runs it is `runtime`'s business."""
    graph = import_graph()
    for importer, targets in graph.items():
        if importer.startswith(("tistudio.lang", "tistudio.ad")):
            assert not [t for t in targets if t.startswith("tistudio.backends")], importer


def test_every_allowed_exception_is_still_needed() -> None:
    graph = import_graph()
    stale = [edge for edge in ALLOWED if edge[1] not in graph.get(edge[0], set())]
    assert not stale, f"remove from ALLOWED: {stale}"


@pytest.mark.parametrize(
    "line",
    [
        "from tistudio.lang import impl",
        "import tistudio.ad.kernels",
        "__import__('tistudio.studio.magic')",
    ],
)
def test_an_upward_import_inside_a_function_fails(tmp_path: Path, line: str) -> None:
    """The check itself: an upward import hidden in a function of `runtime/` is reported."""
    module = PACKAGE / "runtime" / "program.py"
    text = module.read_text(encoding="utf-8") + f"\n\ndef _probe():\n    {line}\n"
    probe = tmp_path / "program.py"
    probe.write_text(text, encoding="utf-8")
    graph = import_graph()
    graph["tistudio.runtime.program"] = imported_names(probe, "tistudio.runtime.program")
    assert any(b.startswith("tistudio.runtime.program imports") for b in upward_imports(graph))
    assert package_cycles(graph)


def picture(graph: dict[str, set[str]]) -> str:
    """The packages' import graph as a Mermaid flowchart (`ti` is the package's own
    `__init__`): the picture in `docs/architecture.md`, kept current by the test below."""

    def package(name: str) -> str:
        parts = name.split(".")
        return parts[1] if len(parts) > 1 else "ti"

    edges = sorted(
        {
            (package(a), package(b))
            for a, targets in graph.items()
            for b in targets
            if package(a) != package(b) and (a, b) not in ALLOWED
        }
    )
    return "\n".join(["flowchart TD", *(f"  {a} --> {b}" for a, b in edges)])


def test_the_picture_is_current() -> None:
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    expected = picture(import_graph())
    assert f"```mermaid\n{expected}\n```" in doc, (
        "docs/architecture.md's picture is stale; paste this between its ```mermaid fences:\n"
        + expected
    )
    for index, layer in enumerate(LAYERS):
        assert f"{index}. " + ", ".join(f"`{u}`" for u in layer) in doc, layer
