"""PyTorch and DLPack interop (issue #12), against real PyTorch (CPU build)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch

import tistudio as ti


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init()


DTYPES = [
    (ti.f32, torch.float32, np.float32),
    (ti.f64, torch.float64, np.float64),
    (ti.i32, torch.int32, np.int32),
    (ti.u8, torch.uint8, np.uint8),
]


@pytest.mark.parametrize("ti_dtype,torch_dtype,np_dtype", DTYPES)
def test_scalar_field_to_and_from_torch(ti_dtype, torch_dtype, np_dtype) -> None:
    x = ti.field(ti_dtype, shape=7)

    @ti.kernel
    def fill():
        for i in x:
            x[i] = i * 3

    fill()
    t = x.to_torch()
    assert t.dtype == torch_dtype and tuple(t.shape) == (7,)
    assert t.tolist() == [i * 3 for i in range(7)]
    t[2] = 100  # a copy: the field does not change
    assert x[2] == 6

    x.from_torch(torch.arange(7, dtype=torch_dtype) + 1)
    np.testing.assert_array_equal(x.to_numpy(), np.arange(1, 8, dtype=np_dtype))


def test_2d_field_round_trip_and_non_contiguous_source() -> None:
    x = ti.field(ti.f32, shape=(3, 5))
    src = torch.arange(15, dtype=torch.float32).reshape(5, 3)
    x.from_torch(src.T)  # a transposed (non-contiguous) tensor
    np.testing.assert_array_equal(x.to_numpy(), src.T.numpy())
    out = x.to_torch()
    assert tuple(out.shape) == (3, 5) and torch.equal(out, src.T)


def test_from_torch_checks_type_and_shape() -> None:
    x = ti.field(ti.f32, shape=4)
    with pytest.raises(TypeError):
        x.from_torch(np.zeros(4, np.float32))
    with pytest.raises(ValueError):
        x.from_torch(torch.zeros(5))


def test_tensor_requiring_grad_copies_into_a_field() -> None:
    x = ti.field(ti.f32, shape=3)
    x.from_torch(torch.tensor([1.0, 2.0, 3.0], requires_grad=True))
    assert x.to_numpy().tolist() == [1.0, 2.0, 3.0]


def test_vector_and_matrix_fields_to_and_from_torch() -> None:
    v = ti.Vector.field(3, ti.f32, shape=4)

    @ti.kernel
    def fill():
        for i in v:
            v[i] = ti.Vector([i, i * 10, i * 100])

    fill()
    t = v.to_torch()
    assert tuple(t.shape) == (4, 3) and t.dtype == torch.float32
    assert t[2].tolist() == [2.0, 20.0, 200.0]

    v.from_torch(torch.ones(4, 3) * 7)
    assert v[1].to_numpy().tolist() == [7.0, 7.0, 7.0]

    m = ti.Matrix.field(2, 2, ti.i32, shape=(2, 3))
    src = torch.arange(24, dtype=torch.int32).reshape(2, 3, 2, 2)
    m.from_torch(src)
    assert torch.equal(m.to_torch(), src)
    assert m[1, 2].to_numpy().tolist() == src[1, 2].tolist()


def test_struct_field_to_and_from_torch_as_a_dict_of_tensors() -> None:
    particle = ti.types.struct(pos=ti.types.vector(2, ti.f32), mass=ti.f32, id=ti.i32)
    p = particle.field(shape=3)

    @ti.kernel
    def fill():
        for i in p:
            p[i].pos = ti.Vector([i, -i])
            p[i].mass = 0.5 * i
            p[i].id = 10 + i

    fill()
    t = p.to_torch()
    assert sorted(t) == ["id", "mass", "pos"]
    assert t["pos"].shape == (3, 2) and t["pos"][2].tolist() == [2.0, -2.0]
    assert t["mass"].dtype == torch.float32 and t["id"].tolist() == [10, 11, 12]

    p.from_torch({"mass": torch.full((3,), 4.0), "id": torch.tensor([7, 8, 9], dtype=torch.int32)})
    assert p[1].mass == 4.0 and p[2].id == 9 and p[2].pos.to_numpy().tolist() == [2.0, -2.0]
    with pytest.raises(KeyError, match="no member 'velocity'"):
        p.from_torch({"velocity": torch.zeros(3, 2)})


def test_to_torch_device_argument() -> None:
    x = ti.field(ti.f64, shape=2)
    x.fill(1.5)
    t = x.to_torch(device="cpu")
    assert t.device.type == "cpu" and t.tolist() == [1.5, 1.5]


@pytest.mark.parametrize("torch_dtype", [torch.float32, torch.float64, torch.int32, torch.uint8])
def test_tensor_kernel_argument_written_in_place_zero_copy(torch_dtype) -> None:
    @ti.kernel
    def k(a: ti.types.ndarray()):
        for i in range(a.shape[0]):
            a[i] = a[i] + i

    t = torch.full((6,), 2, dtype=torch_dtype)
    ptr = t.data_ptr()
    k(t)
    assert t.data_ptr() == ptr
    assert t.tolist() == [2 + i for i in range(6)]


def test_tensor_and_numpy_arguments_share_a_kernel_but_key_by_dtype_and_ndim() -> None:
    @ti.kernel
    def k(a: ti.types.ndarray(), b: ti.types.ndarray()):
        for i in range(a.shape[0]):
            b[i] = a[i] * 2

    a32, b32 = torch.arange(4, dtype=torch.float32), torch.zeros(4, dtype=torch.float32)
    k(a32, b32)
    assert b32.tolist() == [0.0, 2.0, 4.0, 6.0]
    a64, b64 = torch.arange(4, dtype=torch.float64) + 0.5, torch.zeros(4, dtype=torch.float64)
    k(a64, b64)
    assert b64.tolist() == [1.0, 3.0, 5.0, 7.0]
    an, bn = np.arange(4, dtype=np.float32), np.zeros(4, np.float32)
    k(an, bn)
    assert bn.tolist() == [0.0, 2.0, 4.0, 6.0]
    ai, bi = torch.arange(4, dtype=torch.int32), torch.zeros(4, dtype=torch.int32)
    k(ai, bi)
    assert bi.tolist() == [0, 2, 4, 6]


def test_2d_tensor_argument_and_dtype_check() -> None:
    @ti.kernel
    def k(a: ti.types.ndarray(dtype=ti.f32, ndim=2)):
        for i, j in ti.ndrange(a.shape[0], a.shape[1]):
            a[i, j] = i * 10 + j

    t = torch.zeros(3, 4)
    k(t)
    assert torch.equal(t, torch.tensor([[i * 10 + j for j in range(4)] for i in range(3)]).float())
    with pytest.raises(ValueError):
        k(torch.zeros(3, 4, dtype=torch.float64))
    with pytest.raises(ValueError):
        k(torch.zeros(3))


@pytest.mark.parametrize("view", ["transpose", "strided", "column"])
def test_non_contiguous_tensor_argument_written_correctly(view) -> None:
    @ti.kernel
    def k(a: ti.types.ndarray(dtype=ti.f32, ndim=2)):
        for i, j in ti.ndrange(a.shape[0], a.shape[1]):
            a[i, j] = a[i, j] + i * 100 + j

    base = torch.arange(48, dtype=torch.float32).reshape(6, 8)
    want = base.clone()
    if view == "transpose":
        t, w = base.T, want.T
    elif view == "strided":
        t, w = base[:, ::2], want[:, ::2]
    else:
        t, w = base[1:5, 3:4], want[1:5, 3:4]
    assert not t.is_contiguous() or view == "column"
    rows, cols = w.shape
    w += torch.tensor([[i * 100 + j for j in range(cols)] for i in range(rows)]).float()
    k(t)
    assert torch.equal(base, want)  # the view's elements changed, nothing else did


def test_vector_ndarray_argument_from_torch() -> None:
    @ti.kernel
    def k(a: ti.types.ndarray(dtype=ti.math.vec3, ndim=1)):
        for i in range(a.shape[0]):
            a[i] = a[i] * 2 + ti.Vector([1.0, 2.0, 3.0])

    t = torch.ones(5, 3)
    k(t)
    assert torch.equal(t, torch.ones(5, 3) * 2 + torch.tensor([1.0, 2.0, 3.0]))


def test_tensor_requiring_grad_argument_is_read_and_written_back() -> None:
    @ti.kernel
    def k(a: ti.types.ndarray(), out: ti.types.ndarray()):
        for i in range(a.shape[0]):
            out[i] = a[i] * 3
            a[i] = 0.0

    a = torch.tensor([1.0, 2.0], requires_grad=True)
    out = torch.zeros(2)
    k(a, out)
    assert out.tolist() == [3.0, 6.0]
    assert a.detach().tolist() == [0.0, 0.0] and a.requires_grad


def test_ti_ndarray_and_torch() -> None:
    arr = ti.ndarray(ti.f32, (2, 3))
    arr.from_torch(torch.arange(6, dtype=torch.float32).reshape(2, 3))

    @ti.kernel
    def k(a: ti.types.ndarray()):
        for i, j in ti.ndrange(2, 3):
            a[i, j] += 1

    k(arr)
    t = arr.to_torch()
    assert torch.equal(t, torch.arange(1, 7, dtype=torch.float32).reshape(2, 3))
    vec = ti.Vector.ndarray(3, ti.i32, 4)
    vec.from_torch(torch.arange(12, dtype=torch.int32).reshape(4, 3))
    assert tuple(vec.to_torch().shape) == (4, 3) and vec.to_torch()[3].tolist() == [9, 10, 11]
    # DLPack export of a ti.ndarray is zero copy: torch sees later kernel writes
    shared = torch.from_dlpack(arr)
    k(arr)
    assert shared[0, 0].item() == 2.0


def test_dlpack_from_numpy_into_a_kernel() -> None:
    class Producer:  # a DLPack producer that is neither NumPy nor torch
        def __init__(self, arr):
            self.arr = arr

        def __dlpack__(self, **kwargs):
            return self.arr.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.arr.__dlpack_device__()

    @ti.kernel
    def k(a: ti.types.ndarray(dtype=ti.f64, ndim=1)):
        for i in range(a.shape[0]):
            a[i] = a[i] * 2

    data = np.arange(5, dtype=np.float64)
    k(Producer(data))
    assert data.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]  # zero copy through np.from_dlpack
    strided = np.arange(10, dtype=np.float64)
    k(Producer(strided[::2]))
    assert strided.tolist() == [0, 1, 4, 3, 8, 5, 12, 7, 16, 9]


def test_field_dlpack_export_and_import() -> None:
    x = ti.field(ti.f32, shape=4)
    x.from_dlpack(np.arange(4, dtype=np.float32))
    assert x.to_numpy().tolist() == [0.0, 1.0, 2.0, 3.0]
    x.from_dlpack(torch.full((4,), 5.0))
    t = torch.from_dlpack(x)  # a copy of the field
    assert t.tolist() == [5.0] * 4
    assert np.from_dlpack(x).tolist() == [5.0] * 4
    v = ti.Vector.field(2, ti.f64, shape=3)
    v.from_dlpack(np.ones((3, 2)))
    assert np.from_dlpack(v).shape == (3, 2)


def test_non_array_argument_error_mentions_torch() -> None:
    @ti.kernel
    def k(a: ti.types.ndarray()):
        pass

    with pytest.raises(TypeError, match="PyTorch tensor"):
        k([1, 2, 3])


def test_import_tistudio_does_not_import_torch(tmp_path) -> None:
    code = (
        "import sys, numpy as np, tistudio as ti\n"
        "ti.init()\n"
        "x = ti.field(ti.f32, shape=3)\n"
        "x.from_dlpack(np.ones(3, np.float32))\n"
        "@ti.kernel\n"
        "def k(a: ti.types.ndarray()):\n"
        "    for i in range(a.shape[0]):\n"
        "        a[i] = 1\n"
        "k(np.zeros(3, np.float32))\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
        "print('ok')\n"
    )
    script = tmp_path / "no_torch.py"  # kernels need a source file
    script.write_text(code)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_gradients_flow_between_torch_autograd_and_needs_grad_fields() -> None:
    """A tistudio kernel as a torch.autograd.Function: forward through fields, backward through
    kernel.grad() with the output's gradient from torch and the input's gradient back to it."""
    n = 16
    x = ti.field(ti.f32, shape=n, needs_grad=True)
    y = ti.field(ti.f32, shape=n, needs_grad=True)

    @ti.kernel
    def wave():
        for i in x:
            y[i] = ti.sin(x[i]) * x[i]

    class Wave(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            x.from_torch(t)
            wave()
            return y.to_torch()

        @staticmethod
        def backward(ctx, grad_out):
            x.grad.fill(0.0)
            y.grad.from_torch(grad_out)
            wave.grad()
            return x.grad.to_torch()

    t = torch.linspace(-2.0, 2.0, n, requires_grad=True)
    weights = torch.arange(n, dtype=torch.float32)
    (Wave.apply(t) * weights).sum().backward()
    ours = t.grad.clone()

    t.grad = None
    ((torch.sin(t) * t) * weights).sum().backward()  # the same function in torch itself
    torch.testing.assert_close(ours, t.grad, rtol=1e-5, atol=1e-5)


def test_other_torch_devices_go_through_a_host_copy_and_meta_is_refused() -> None:
    x = ti.field(ti.f32, shape=4)
    x.fill(2.0)
    t = x.to_torch(device="meta")  # this torch build has no CUDA; "meta" is a non-CPU device
    assert t.device.type == "meta" and tuple(t.shape) == (4,) and t.dtype == torch.float32
    with pytest.raises(ValueError, match="'meta' device has a shape but no data"):
        x.from_torch(torch.zeros(4, device="meta"))

    @ti.kernel
    def bump(a: ti.types.ndarray()):
        for i in a:
            a[i] += 1

    with pytest.raises(ValueError, match="'meta' device"):
        bump(torch.zeros(4, device="meta"))
    assert x.to_numpy().tolist() == [2.0] * 4


def test_a_field_for_an_ndarray_parameter_is_refused_not_copied() -> None:
    # A field's DLPack export is a copy: the kernel wrote the copy and the field stayed zero.
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def fill(a: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        for i in a:
            a[i] = 1

    fill(np.zeros(4, dtype=np.float32))  # the fast path knows the signature first
    with pytest.raises(TypeError, match=r"got Field; to pass a field, declare .*ti.template\(\)"):
        fill(x)
    assert x.to_numpy().tolist() == [0.0] * 4
