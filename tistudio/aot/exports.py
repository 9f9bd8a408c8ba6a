"""`ti.aot.export_as` / `ti.aot.export`: mark kernels for `python -m tistudio.aot build`.

Taichi keeps exported kernels in a module-global list; here the mark is an attribute of the
kernel itself (`__ti_aot_exports__`), and the build command collects the marked kernels from
the script's globals, so importing a script twice never exports its kernels twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MARK = "__ti_aot_exports__"


def export_as(name: str, *, template_types: dict[str, Any] | None = None) -> Callable[[Any], Any]:
    """Export the decorated `@ti.kernel` as `name`, instantiated with `template_types`
    (parameter -> field, number, dtype or `ti.types.ndarray(dtype, ndim)`)."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"ti.aot.export_as: the name must be a non-empty string, got {name!r}")

    def mark(kernel: Any) -> Any:
        if not getattr(kernel, "__ti_kernel__", False):
            raise TypeError(
                f"ti.aot.export_as({name!r}) decorates a @ti.kernel (put it above @ti.kernel)"
            )
        exports = list(getattr(kernel, MARK, ()))
        exports.append((name, dict(template_types or {})))
        setattr(kernel, MARK, tuple(exports))
        return kernel

    return mark


def export(kernel: Any) -> Any:
    """Export the decorated `@ti.kernel` under its own name."""
    return export_as(getattr(kernel, "__name__", ""))(kernel)


def exported_kernels(namespace: dict[str, Any]) -> list[tuple[str, Any, dict[str, Any]]]:
    """(export name, kernel, template types) of every marked kernel in `namespace`."""
    found: list[tuple[str, Any, dict[str, Any]]] = []
    seen: set[int] = set()
    for value in namespace.values():
        if id(value) in seen or not getattr(value, "__ti_kernel__", False):
            continue
        seen.add(id(value))
        for name, template_types in getattr(value, MARK, ()):
            found.append((name, value, template_types))
    return sorted(found, key=lambda item: item[0])
