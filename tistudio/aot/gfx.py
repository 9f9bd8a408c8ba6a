"""`ti.aot.GfxRuntime140`: a module's metadata and graphs as JSON data.

In Taichi this class parses the GfxRuntime140 convention (the JSON of gfx back ends' modules)
for tools such as `ti module cppgen`. Our modules use one JSON schema for both arches
(docs/aot-format.md), so this reads `metadata.json` and `graphs.json` of a module folder or
`.tcm` and hands them back unchanged, after the same checks the loader applies.
"""

from __future__ import annotations

from typing import Any

from tistudio.aot.archive import read_module
from tistudio.aot.format import GRAPHS, METADATA, VERSION, check_version, loads
from tistudio.aot.schema import check_graphs, check_metadata


class GfxRuntime140:
    """Parsed `metadata.json` and `graphs.json` of one module."""

    def __init__(self, metadata_json: Any, graphs_json: Any) -> None:
        self.metadata = check_metadata(metadata_json)
        self.graphs = check_graphs(graphs_json, self.metadata)

    @staticmethod
    def from_module(module_path: str) -> GfxRuntime140:
        """Read the module at `module_path` (a folder or a `.tcm` archive)."""
        files = read_module(module_path)
        check_version(files[VERSION].decode("utf-8", "replace"))
        return GfxRuntime140(loads(METADATA, files[METADATA]), loads(GRAPHS, files[GRAPHS]))

    def to_metadata_json(self) -> Any:
        return self.metadata

    def to_graphs_json(self) -> list[Any]:
        return self.graphs

    @property
    def kernel_names(self) -> list[str]:
        return [k["name"] for k in self.metadata["kernels"]]

    @property
    def graph_names(self) -> list[str]:
        return [g["key"] for g in self.graphs]
