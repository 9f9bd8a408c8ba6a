"""Kernel arguments and return values between Python and a compiled kernel: checking ndarray
arguments, spreading vector/matrix/struct arguments into the scalars the back end takes, and
packing returned scalars back into numbers, `ti.Matrix` values, structs and lists (Taichi's
rules). Also the readable text of a template signature that the cache view shows."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from tistudio.frontend.errors import (
    TaichiRuntimeTypeError,
    element_type_text,
    matrix_type_text,
)
from tistudio.frontend.kernel_builder import ParamSpec
from tistudio.ir.types import PrimitiveType
from tistudio.lang import recompile_why
from tistudio.lang.types import NdarrayType, OpenElementType, to_dtype

if TYPE_CHECKING:
    from tistudio.lang.kernel import CacheEntry


def as_array(arg: Any, spec: ParamSpec, kernel_name: str) -> np.ndarray:
    """The NumPy storage behind an ndarray argument, checked against its annotation. The
    messages carry Taichi's words too ("Invalid value for argument a - required ndim=1, ..."),
    which Taichi programs' tests look for."""
    container = arg
    arg = getattr(arg, "_ti_numpy_storage", arg)  # a ti.ndarray container
    if not isinstance(arg, np.ndarray):
        hint = ""
        if hasattr(arg, "_ti_leaves"):  # its DLPack copy would not receive the kernel's writes
            hint = "; to pass a field, declare the parameter ti.template()"
        raise TypeError(
            f"kernel '{kernel_name}': argument '{spec.name}' must be a NumPy array, a "
            "ti.ndarray, a PyTorch tensor or a DLPack producer (ti.types.ndarray), "
            f"got {type(arg).__name__}{hint}"
        )
    if container is arg and spec.element_shape:
        _check_external_elements(arg, spec, kernel_name)
        return arg
    if container is arg and spec.dtype is not None:
        _check_dtype(arg, container, spec, kernel_name)  # Taichi checks a dtype before ndim
    _check_element_shape(arg, container, spec, kernel_name)
    # an annotation without an element type takes a ti.ndarray's own elements
    element_shape = spec.element_shape or tuple(getattr(container, "element_shape", ()))
    if spec.ndim and arg.ndim - len(element_shape) != spec.ndim:
        ndim = arg.ndim - len(element_shape)
        if container is arg:  # a NumPy array: Taichi's words for external arrays
            taichi = f"required array has ndim={spec.ndim}, array with {ndim} dimensions is"
        else:
            taichi = f"required ndim={spec.ndim}, but {ndim}d ndarray with shape "
            taichi += f"{arg.shape[:ndim]} is"
        raise ValueError(
            f"kernel '{kernel_name}': argument '{spec.name}' must have "
            f"{spec.ndim} dimension(s), got {arg.ndim}: Invalid value for argument "
            f"{spec.name} - {taichi} provided"
        )
    _check_dtype(arg, container, spec, kernel_name)
    return arg


class ElementTypeError(TypeError, ValueError):
    """An ndarray argument of the wrong element type: Taichi raises a TypeError, tistudio
    raised a ValueError before, and both kinds of handler catch it."""


def _element_text(arg: np.ndarray, container: Any) -> str:
    """What a kernel was given, in Taichi's words: `i32` or `[Tensor (3) i32]`."""
    return element_type_text(to_dtype(arg.dtype), getattr(container, "element_shape", ()))


def ndarray_spec(name: str, annotation: NdarrayType) -> ParamSpec:
    """The parameter `ti.types.ndarray(dtype, ndim)` declares. A vector/matrix element type
    gives the element shape; an open one (`ti.types.matrix()`) leaves sizes and dtype None,
    which each call's argument fills in (`element_shape_of`); so does a vector/matrix type
    without a dtype (`ti.types.vector(3)`; `ti.math.vec3` has `float`, the default f32)."""
    dtype, ndim = annotation.dtype, annotation.ndim or 0
    if isinstance(dtype, OpenElementType):
        shape, elem = dtype.shape, dtype.dtype
    elif hasattr(dtype, "_ti_matrix_type"):  # an ndarray of vectors or matrices
        shape, elem = dtype._ti_matrix_type
    else:
        return ParamSpec(name, "ndarray", dtype, ndim, boundary=annotation.boundary)
    elem = to_dtype(elem) if elem is not None else None
    return ParamSpec(name, "ndarray", elem, ndim, shape, boundary=annotation.boundary)


def element_shape_of(arg: Any, arr: np.ndarray, spec: ParamSpec) -> tuple[int, ...]:
    """The element shape an ndarray argument brings (checked by `as_array`): a ti.ndarray's
    own, or a NumPy array's last axes where the parameter declares vector/matrix elements."""
    given = getattr(arg, "element_shape", None)
    if given is not None:
        return tuple(given)
    edim = len(spec.element_shape)
    return tuple(arr.shape[arr.ndim - edim :]) if edim else ()


def _fits(want: tuple[int | None, ...], given: tuple[int, ...]) -> bool:
    return len(want) == len(given) and all(w is None or w == g for w, g in zip(want, given))


def _check_element_shape(
    arg: np.ndarray, container: Any, spec: ParamSpec, kernel_name: str
) -> None:
    want = spec.element_shape
    if not want:
        return
    given = getattr(container, "element_shape", None)  # a ti.ndarray knows its elements
    if given is None:
        fits = _fits(want, tuple(arg.shape[arg.ndim - len(want) :]))
    else:
        fits = _fits(want, tuple(given))
    if fits:
        return
    required = matrix_type_text(want, spec.dtype or "")
    provided = _element_text(arg, container) if given else f"an array of shape {arg.shape}"
    raise ValueError(
        f"kernel '{kernel_name}': argument '{spec.name}' must end with axes {want} (its "
        f"vector/matrix elements), got shape {arg.shape}: Invalid value for argument "
        f"{spec.name} - required element type: {required}, but {provided} is provided"
    )


def _check_dtype(arg: np.ndarray, container: Any, spec: ParamSpec, kernel_name: str) -> None:
    if spec.dtype is None:
        return
    vector_for_scalar = not spec.element_shape and getattr(container, "element_shape", ())
    if to_dtype(arg.dtype) == spec.dtype and not vector_for_scalar:
        return
    got = f"elements of shape {vector_for_scalar}" if vector_for_scalar else arg.dtype
    if container is arg:  # a NumPy array: Taichi's words for external arrays
        taichi = (
            f"Invalid value for argument {spec.name} - required array has dtype={spec.dtype}, "
            f"array with dtype={to_dtype(arg.dtype)} is provided"
        )
    else:
        taichi = (
            f"Expect element type {spec.dtype} for argument {spec.name}, but get "
            f"{_element_text(arg, container)}"
        )
    raise ElementTypeError(
        f"kernel '{kernel_name}': argument '{spec.name}' must have dtype {spec.dtype}, got "
        f"{got}: {taichi}"
    )


def _check_external_elements(arg: np.ndarray, spec: ParamSpec, kernel_name: str) -> None:
    """A NumPy array for a parameter of vector/matrix elements, checked as Taichi checks one:
    its last axes are the elements (an axis the annotation leaves open, `ti.types.matrix()`,
    takes any size), and its dtype is not checked: the kernel compiles for the array's own."""
    want = spec.element_shape
    edim = len(want)
    prefix = f"kernel '{kernel_name}': argument '{spec.name}'"
    if spec.ndim and arg.ndim != spec.ndim + edim:
        raise ValueError(
            f"{prefix} must have {spec.ndim} array axes and {edim} element axes, got shape "
            f"{arg.shape}: Invalid value for argument {spec.name} - required array has "
            f"ndim={spec.ndim} element_dim={edim}, array with {arg.ndim} dimensions is provided"
        )
    if arg.ndim < edim:
        raise ValueError(
            f"{prefix} must have {edim} element axes, got shape {arg.shape}: Invalid value for "
            f"argument {spec.name} - required element_dim={edim}, array with {arg.ndim} "
            "dimensions is provided"
        )
    given = tuple(arg.shape[arg.ndim - edim :])
    if any(w is not None and w != g for w, g in zip(want, given)):
        raise ValueError(
            f"{prefix} must end with axes {want} (its vector/matrix elements), got shape "
            f"{arg.shape}: Invalid value for argument {spec.name} - required "
            f"element_shape={want}, array with element shape of {given} is provided"
        )


def flatten_args(args: tuple, specs: list[ParamSpec], positions: tuple[int, ...]) -> list[Any]:
    """Runtime arguments with every vector/matrix argument spread into its elements."""
    out: list[Any] = []
    for i in positions:
        spec, arg = specs[i], args[i]
        if spec.kind == "struct":
            out.extend(struct_scalars(spec.struct_type, arg))
        elif spec.kind == "matrix":
            values = np.asarray(arg.to_numpy() if hasattr(arg, "to_numpy") else arg)
            if values.shape != spec.element_shape:
                raise ValueError(
                    f"argument '{spec.name}' must have shape {spec.element_shape}, "
                    f"got {values.shape}"
                )
            out.extend(v.item() for v in values.reshape(-1))
        else:
            out.append(runtime_arg(arg, spec))
    return out


def struct_scalars(struct_type: Any, value: Any) -> list[Any]:
    """A struct argument (a `Struct` or a dict) as its scalars, in member order."""
    items = value.to_dict() if hasattr(value, "to_dict") else dict(value)
    out: list[Any] = []
    for n, t in struct_type.members.items():
        v = items.get(n, 0)
        if hasattr(t, "_ti_struct_type"):
            out.extend(struct_scalars(t._ti_struct_type, v))
        elif hasattr(t, "_ti_matrix_type"):
            data = v.to_numpy() if hasattr(v, "to_numpy") else v
            out.extend(np.asarray(data).reshape(-1).tolist())
        else:
            out.append(v)
    return out


def ret_item(annotation: Any) -> tuple[str, Any]:
    if hasattr(annotation, "_ti_struct_type"):
        return ("struct", annotation._ti_struct_type)
    if hasattr(annotation, "_ti_matrix_type"):
        shape, elem = annotation._ti_matrix_type
        return ("matrix", (tuple(shape), to_dtype(elem or float)))
    return ("scalar", to_dtype(annotation))


def scalar_types(item: tuple[str, Any]) -> list[PrimitiveType]:
    kind, payload = item
    if kind == "scalar":
        return [payload]
    if kind == "matrix":
        shape, dtype = payload
        return [dtype] * int(np.prod(shape, dtype=int))
    from tistudio.lang.struct import leaf_types

    return [t for _, leaf in leaf_types(payload) for t in scalar_types(ret_item(leaf))]


def pack_returns(values: tuple, layout: list[tuple[str, Any]]) -> Any:
    from tistudio.lang.matrix import Matrix
    from tistudio.lang.struct import pack_struct

    out: list[Any] = []
    pos = 0
    for item in layout:
        count = len(scalar_types(item))
        chunk = list(values[pos : pos + count])
        pos += count
        kind, payload = item
        if kind == "scalar":
            out.append(chunk[0])
        elif kind == "matrix":
            shape, dtype = payload
            out.append(Matrix(np.array(chunk).reshape(shape), dtype))
        else:
            out.append(pack_struct(payload, chunk))
    return out[0] if len(out) == 1 else out  # several values come back as a list, as in Taichi


def returned_values(returned: Any, entry: CacheEntry) -> Any:
    if not returned:
        return None
    if entry.ret_layout is not None:
        return pack_returns(returned, entry.ret_layout)
    return returned[0] if len(returned) == 1 else list(returned)  # Taichi returns a list


def runtime_args(entry: CacheEntry, args: tuple, specs: list[ParamSpec]) -> Any:
    if entry.flat_args:
        return [runtime_arg(args[i], specs[i]) for i in entry.runtime_positions]
    return flatten_args(args, specs, entry.runtime_positions)


def runtime_arg(arg: Any, spec: ParamSpec) -> Any:
    if spec.kind == "ndarray":
        arg = getattr(arg, "_ti_numpy_storage", arg)
    if spec.kind == "ndarray" and not arg.flags.c_contiguous:
        raise ValueError(
            f"argument '{spec.name}': non-contiguous arrays are not supported yet; "
            "pass np.ascontiguousarray(a)"
        )
    return arg


def signature_text(
    names: list[str], specs: list[ParamSpec], args: tuple, labels: dict[int, str] | None = None
) -> str:
    """The signature as the cache view shows it: `src=u: f32[128, 128], k: f32 (runtime)`;
    `labels` names the fields and objects passed (`arg_names.Namer`), by position."""
    return ", ".join(f.text for f in recompile_why.describe(names, specs, args, labels or {}))


def template_key(arg: Any) -> Any:
    """What tells one template argument from another in a kernel's cache: a field by identity, a
    hashable value by type and value, a list, tuple, dict or NumPy array by its contents (a list
    is typically built anew for each call), and any other object by identity, kept alive by the
    key. Keying lists by `id` reused the first list's compile for a later list that took its
    id: `k([5.0, 6.0])` returned what `k([1.0, 2.0])` had. A `@ti.data_oriented` instance
    counts by identity even where its class compares by value: its fields are its own."""
    if hasattr(arg, "_ti_place_snode"):  # an SNode handle (x.parent()) is new on each call
        return ("field", id(getattr(arg, "ptr", arg)))
    if hasattr(arg, "_ti_numpy_storage"):  # a ti.ndarray: a run-time argument, as in Taichi
        raise TaichiRuntimeTypeError(
            "a ti.ndarray cannot be a compile-time (ti.template()) argument: Ndarray shouldn't "
            "be passed in via `ti.template()`, please annotate your kernel using "
            "`ti.types.ndarray(...)` instead"
        )
    if getattr(type(arg), "_data_oriented", False):
        return ("object", _Identity(arg))
    if isinstance(arg, (list, tuple)):
        return (type(arg).__name__, tuple(template_key(a) for a in arg))
    if isinstance(arg, dict):
        return ("dict", tuple((template_key(k), template_key(v)) for k, v in arg.items()))
    if isinstance(arg, np.ndarray):
        return ("ndarray", arg.dtype.str, arg.shape, arg.tobytes())
    try:
        hash(arg)
    except TypeError:
        return ("object", _Identity(arg))
    return ("value", type(arg).__name__, arg)


class _Identity:
    """An unhashable object in a cache key, equal only to itself; the key holds it, so its id
    is not reused by another object while the compiled kernel stays cached."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any) -> None:
        self.obj = obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Identity) and other.obj is self.obj
