"""PyTorch and DLPack interop for fields, `ti.ndarray` and `ti.types.ndarray()` arguments.

PyTorch is optional: this module never imports it at import time. `torch` is imported inside
the functions that build tensors (`to_torch`), and a tensor is recognised only when `torch` is
already in `sys.modules` (an object cannot be a tensor otherwise), so `import tistudio` never
pulls in torch.

Kernel arguments (`convert_array_args`):

* a CPU, contiguous tensor that does not require grad is passed with zero copy (`t.numpy()`
  shares its memory), so the kernel reads and writes the tensor itself;
* any other tensor (non-contiguous, requiring grad, on another device) is copied into a
  contiguous CPU array, the kernel runs on that, and the result is copied back into the
  original tensor after the launch (`t.copy_(...)`, under `torch.no_grad()`);
* any other DLPack producer (`__dlpack__`) is viewed through `np.from_dlpack` (zero copy on
  the CPU); a non-contiguous view is copied in and written back after the launch;
* a NumPy array is passed as it is when C-contiguous (the common case costs nothing more); a
  Fortran-ordered one (a transpose, `np.asfortranarray`) is copied into a C-contiguous array and
  copied back into the caller's array after the launch, as Taichi 1.7.4 does; any other view (a
  strided slice, a reversed one) is refused with Taichi's ValueError, "Non contiguous numpy
  arrays are not supported". `strided_array_at` tells the fast path of a call that one of its
  arrays needs this (`Kernel.__call__` then takes the slow path, which converts).

Fields have no contiguous host array of their own that a consumer could keep, so their
`__dlpack__` exports a *copy* (`to_numpy()`); `ti.ndarray`'s `__dlpack__` exports its storage
itself (zero copy). So a field is not taken for an ndarray parameter: the kernel would write
the copy, and the writes would be lost (the argument check says to declare `ti.template()`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


def _torch() -> Any:
    try:
        import torch
    except ImportError as e:  # pragma: no cover - exercised only without torch installed
        raise ImportError(
            "this tistudio method needs PyTorch, which is not installed: pip install torch"
        ) from e
    return torch


def is_torch_tensor(obj: Any) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(obj, torch.Tensor)


def to_torch(arr: np.ndarray, device: Any = None) -> Any:
    """A tensor that owns `arr` (a fresh copy the caller made), moved to `device` if given."""
    torch = _torch()
    t = torch.from_numpy(np.ascontiguousarray(arr))
    return t if device is None else t.to(device)


def as_numpy(obj: Any) -> np.ndarray:
    """A NumPy array with the contents of a tensor, a DLPack producer or an array-like (a view
    where possible: callers copy it into their own storage)."""
    if is_torch_tensor(obj):
        t = obj.detach()
        if t.device.type == "meta":
            raise ValueError("a tensor on the 'meta' device has a shape but no data to read")
        if t.device.type != "cpu":
            t = t.cpu()  # CUDA and other devices: through a host copy
        return t.resolve_conj().resolve_neg().numpy()
    if isinstance(obj, np.ndarray):
        return obj
    if hasattr(obj, "__dlpack__"):
        return np.from_dlpack(obj)
    return np.asarray(obj)


def from_torch_checked(t: Any) -> np.ndarray:
    if not is_torch_tensor(t):
        raise TypeError(f"from_torch: expected a torch.Tensor, got {type(t).__name__}")
    return as_numpy(t)


def dlpack_device() -> tuple[int, int]:
    return (1, 0)  # kDLCPU, device 0: every host copy lives in CPU memory


def convert_array_args(
    args: tuple, positions: tuple[int, ...], names: Sequence[str] = ()
) -> tuple[tuple, Callable[[], None] | None]:
    """`args` with each tensor / DLPack producer / Fortran-ordered NumPy array at `positions`
    replaced by a C-contiguous NumPy array, and one callable running the write-backs after the
    launch (None if none). C-contiguous NumPy arrays and `ti.ndarray` containers pass through
    untouched. `names` (the parameters' names) only make the error messages name the argument."""
    out: list[Any] | None = None
    after: list[Callable[[], None]] | None = None
    for i in positions:
        converted = _converted(args[i], names[i] if i < len(names) else f"#{i}")
        if converted is None:
            continue
        arr, back = converted
        if out is None:
            out = list(args)
        out[i] = arr
        if back is not None:
            after = after or []
            after.append(back)
    if after is None:
        return (args if out is None else tuple(out)), None
    backs = after

    def write_back() -> None:  # run by the kernel after the launch
        for back in backs:
            back()

    return tuple(out), write_back


def _converted(a: Any, name: str) -> tuple[np.ndarray, Callable[[], None] | None] | None:
    """The C-contiguous array a kernel takes for `a` and its write-back, or None where `a`
    passes untouched (or is left for the kernel's own type check to report)."""
    if isinstance(a, np.ndarray):
        return None if a.flags.c_contiguous else _numpy_arg(a, name)
    # a field is left for the kernel's own check to refuse: its DLPack export is a copy, which
    # would take the kernel's writes and lose them
    if hasattr(a, "_ti_numpy_storage") or hasattr(a, "_ti_leaves"):
        return None
    if is_torch_tensor(a):
        return _tensor_arg(a)
    if hasattr(a, "__dlpack__"):
        return _dlpack_arg(a)
    return None


def _tensor_arg(t: Any) -> tuple[np.ndarray, Callable[[], None] | None]:
    if (
        t.device.type == "cpu"
        and t.is_contiguous()
        and not t.requires_grad
        and not t.is_conj()
        and not t.is_neg()
    ):
        return t.numpy(), None  # zero copy: the kernel writes the tensor's own memory
    arr = np.ascontiguousarray(as_numpy(t)).copy()

    def write_back() -> None:
        torch = _torch()
        with torch.no_grad():
            t.copy_(torch.from_numpy(arr))

    return arr, write_back


def _dlpack_arg(obj: Any) -> tuple[np.ndarray, Callable[[], None] | None]:
    view = np.from_dlpack(obj)
    if view.flags.c_contiguous:
        return view, None
    arr = np.ascontiguousarray(view)
    if not view.flags.writeable:  # the copy stays read-only: a kernel writing it is refused
        arr.setflags(write=False)
        return arr, None
    return arr, lambda: np.copyto(view, arr)


def strided_array_at(args: tuple, positions: tuple[int, ...]) -> bool:
    """Whether a NumPy array at `positions` is not C-contiguous: the executables take only
    C-contiguous arrays, so such a call goes through `convert_array_args`."""
    for i in positions:
        a = args[i]
        if isinstance(a, np.ndarray) and not a.flags.c_contiguous:
            return True
    return False


def _numpy_arg(a: np.ndarray, name: str) -> tuple[np.ndarray, Callable[[], None] | None]:
    """A Fortran-ordered array as a C-contiguous copy that goes back into `a` after the launch
    (Taichi copies it back whether or not the kernel wrote it). A read-only one stays read-only,
    so a kernel writing it is refused as for a C-contiguous one, and nothing goes back."""
    if not a.flags.f_contiguous:
        raise ValueError(
            f"argument '{name}' is a non-contiguous NumPy view with strides {a.strides} for "
            f"shape {a.shape} (a strided, reversed or partial slice), which a kernel cannot "
            "address: Non "
            "contiguous numpy arrays are not supported, please call np.ascontiguousarray(arr) "
            "before passing it into taichi kernel."
        )
    arr = np.ascontiguousarray(a)
    if not a.flags.writeable:
        arr.setflags(write=False)
        return arr, None
    return arr, lambda: np.copyto(a, arr)
