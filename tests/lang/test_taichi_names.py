"""The names Taichi programs and Taichi's own tests import, with Taichi 1.7.4's meaning: arch
names for hardware tistudio cannot run (a CPU fallback, as Taichi's), `ti.extension` and the
honest answer to which ones tistudio supports, `taichi.lang.misc`, `taichi.lang.exception` (one
hierarchy, the classes tistudio raises), `taichi.lang.util`, `ti.types.primitive_types` and the
dtype predicates."""

from __future__ import annotations

import importlib
import os

import numpy as np
import pytest

import tistudio as ti
from tistudio.arch import Arch
from tistudio.lang import exception, misc, util

UNAVAILABLE = ["cuda", "metal", "opengl", "gles", "amdgpu", "dx11", "dx12"]


@pytest.mark.parametrize("name", UNAVAILABLE)
def test_an_arch_without_a_back_end_falls_back_to_the_cpu_with_a_warning(name: str) -> None:
    arch = getattr(ti, name)
    assert isinstance(arch, Arch)
    with pytest.warns(UserWarning, match=f"arch={name} is not available here; use ti.cpu or"):
        ti.init(arch=arch, offline_cache=False)
    assert ti.lang.impl.current_cfg().arch == ti.cpu
    assert ti.lang.impl.current_cfg().arch != arch
    x = ti.field(ti.i32, shape=3)

    @ti.kernel
    def fill():
        for i in x:
            x[i] = i * 2

    fill()
    assert x.to_numpy().tolist() == [0, 2, 4]


@pytest.mark.parametrize("name", UNAVAILABLE)
def test_an_arch_without_a_back_end_and_no_fallback_is_an_error(name: str) -> None:
    with pytest.raises(RuntimeError, match="not available here; use ti.cpu or ti.gpu"):
        ti.init(arch=getattr(ti, name), enable_fallback=False)


def test_a_list_of_arches_takes_the_first_that_runs_here() -> None:
    ti.init(arch=[ti.cuda, ti.cpu], offline_cache=False)  # Taichi's adaptive choice
    assert ti.lang.impl.current_cfg().arch == ti.cpu
    with pytest.warns(UserWarning, match="arch=metal is not available here"):
        ti.init(arch=[ti.metal, ti.dx12], offline_cache=False)
    with pytest.raises(RuntimeError, match="arch=metal is not available here"):
        ti.init(arch=[ti.metal, ti.dx12], enable_fallback=False)


def test_arches_equal_by_the_back_end_they_select() -> None:
    assert ti.x64 == ti.cpu and hash(ti.x64) == hash(ti.cpu)
    assert ti.vulkan == ti.gpu
    assert ti.cuda != ti.gpu and ti.dx12 != ti.cpu and ti.dx11 != ti.dx12
    # the config holds the back end's name; Taichi's tests compare it with arch values
    assert "cpu" == ti.cpu and "cpu" != ti.opengl and "gpu" == ti.vulkan
    assert hash("cpu") == hash(ti.arm64)


def test_host_arch_list_is_this_machines_cpu() -> None:
    arches = misc.get_host_arch_list()
    assert len(arches) == 1 and arches[0] == ti.cpu
    expected = "arm64" if os.uname().machine in ("aarch64", "arm64") else "x64"
    assert arches[0].name == expected
    assert misc.is_arch_supported(ti.cpu) and misc.is_arch_supported(arches[0])
    assert not misc.is_arch_supported(ti.cuda)


def test_extension_names_are_taichis() -> None:
    names = [e.name for e in ti.extension]
    assert names == ["sparse", "quant", "mesh", "quant_basic", "data64", "adstack", "bls"] + [
        "assertion",
        "extfunc",
    ]
    assert misc.extension is ti.extension and ti.extension.sparse.name == "sparse"


@pytest.mark.parametrize(
    "ext, supported",
    [
        ("data64", True),
        ("adstack", True),
        ("assertion", True),
        ("sparse", True),
        ("quant", True),
        ("quant_basic", True),
        ("mesh", False),
        ("bls", False),
        ("extfunc", False),
    ],
)
def test_extensions_supported_on_the_cpu(ext: str, supported: bool) -> None:
    assert misc.is_extension_supported(ti.cpu, getattr(ti.extension, ext)) is supported
    assert misc.is_extension_supported(ti.x64, getattr(ti.extension, ext)) is supported
    assert misc.is_extension_supported(ti.cuda, getattr(ti.extension, ext)) is False


def test_the_supported_cpu_extensions_work() -> None:
    """What is_extension_supported says yes to runs: 64-bit types, an autodiff stack for a
    loop-carried local, and asserts in debug mode."""
    ti.init(arch=ti.cpu, debug=True, offline_cache=False)
    big = ti.field(ti.i64, shape=())
    wide = ti.field(ti.f64, shape=())
    x = ti.field(ti.f32, shape=(), needs_grad=True)
    y = ti.field(ti.f32, shape=(), needs_grad=True)

    @ti.kernel
    def data64():
        big[None] = ti.i64(1) << 40
        wide[None] = ti.f64(1.0) / 3.0

    @ti.kernel
    def power(n: ti.i32):  # n is at most 3: within the stack's default 32 values
        for _ in range(1):
            v = x[None]
            p = 1.0
            for _ in range(n):  # a dynamic loop over a mutable local needs the autodiff stack
                p = p * v
            y[None] = p

    @ti.kernel
    def check(i: ti.i32):
        assert i < 3, "too big"

    data64()
    assert big[None] == 1 << 40 and wide[None] == pytest.approx(1 / 3, rel=1e-15)
    x[None] = 2.0
    power(3)
    y.grad[None] = 1.0
    with pytest.warns(UserWarning, match="its stack holds 32 values"):  # n <= 32 here
        power.grad(3)
    assert y[None] == 8.0 and x.grad[None] == pytest.approx(12.0)
    with pytest.raises(ti.TaichiAssertionError, match="too big"):
        check(5)


def test_an_unsupported_extension_is_missing_for_real() -> None:
    ti.init(arch=ti.cpu, offline_cache=False)
    assert not misc.is_extension_supported(ti.cpu, ti.extension.mesh)
    assert not hasattr(ti, "Mesh")  # Taichi's mesh API, which needs ti.extension.mesh


def test_exception_module_names_the_classes_tistudio_raises() -> None:
    from tistudio.frontend import errors

    for name in exception.__all__:
        assert getattr(exception, name) is getattr(errors, name)
    ti.init(arch=ti.cpu, offline_cache=False)

    @ti.kernel
    def bad():
        undefined_name_here = missing  # noqa: F841, F821

    with pytest.raises(exception.TaichiNameError):
        bad()


@pytest.mark.parametrize(
    "name, bases",
    [
        ("TaichiCompilationError", (Exception,)),
        ("TaichiSyntaxError", ("TaichiCompilationError", SyntaxError)),
        ("TaichiNameError", ("TaichiCompilationError", NameError)),
        ("TaichiIndexError", ("TaichiCompilationError", IndexError)),
        ("TaichiTypeError", ("TaichiCompilationError", TypeError)),
        ("TaichiRuntimeError", (RuntimeError,)),
        ("TaichiAssertionError", ("TaichiRuntimeError", AssertionError)),
        ("TaichiRuntimeTypeError", ("TaichiRuntimeError", TypeError)),
    ],
)
def test_exception_hierarchy_is_taichis(name: str, bases: tuple) -> None:
    cls = getattr(exception, name)
    for base in bases:
        base = getattr(exception, base) if isinstance(base, str) else base
        assert issubclass(cls, base), (name, base)
    if not name.startswith("TaichiRuntime") and name != "TaichiAssertionError":
        assert not issubclass(cls, RuntimeError)


def test_runtime_type_error_messages_are_taichis() -> None:
    error = ti.TaichiRuntimeTypeError.get(0, "i32", "str")
    assert isinstance(error, exception.TaichiRuntimeTypeError)
    assert str(error) == "Argument 0 (type=str) cannot be converted into required type i32"
    assert "Return (type=f32)" in str(ti.TaichiRuntimeTypeError.get_ret("i32", "f32"))


def test_primitive_type_lists_are_taichis() -> None:
    pt = ti.types.primitive_types
    assert pt.real_types == [ti.f16, ti.f32, ti.f64, float]
    assert pt.integer_types[:8] == [ti.i8, ti.i16, ti.i32, ti.i64, ti.u1, ti.u8, ti.u16, ti.u32]
    assert pt.integer_types[8:] == [ti.u64, int, bool]
    assert pt.all_types == pt.real_types + pt.integer_types
    assert pt.uint1 is ti.u1 and pt.float64 is ti.f64
    assert importlib.import_module("tistudio.lang.primitive_types") is pt


def test_dtype_predicates() -> None:
    t = ti.types
    assert [t.is_integral(d) for d in (ti.i8, ti.u1, ti.u64, ti.f16, ti.f64)] == [
        True,
        True,
        True,
        False,
        False,
    ]
    assert [t.is_real(d) for d in (ti.f16, ti.f32, ti.f64, ti.i32, ti.u1)] == [1, 1, 1, 0, 0]
    assert [t.is_signed(d) for d in (ti.i8, ti.i64, ti.u1, ti.u8, ti.u32)] == [1, 1, 0, 0, 0]
    with pytest.raises(TypeError, match="integer type"):
        t.is_signed(ti.f32)  # as in Taichi, a float type has no signedness answer
    assert not t.is_tensor(ti.f32) and t.is_tensor(ti.types.vector(3, ti.f32))
    assert t.is_tensor(ti.types.matrix(2, 2, ti.i32))
    for predicate in (t.is_integral, t.is_real, t.is_signed, t.is_tensor):
        with pytest.raises(TypeError):
            predicate(int)
        with pytest.raises(TypeError):
            predicate(3)


def test_util_checks_and_conversions() -> None:
    assert util.to_numpy_type(ti.f32) is np.float32 and util.to_numpy_type(ti.u1) is np.bool_
    assert util.to_numpy_type(ti.i8) is np.int8
    with pytest.raises(TypeError):
        util.to_numpy_type(int)
    assert util.to_taichi_type(np.float64) is ti.f64 and util.to_taichi_type(np.bool_) is ti.u1
    assert util.has_pytorch() is (importlib.util.find_spec("torch") is not None)
    assert util.has_paddle() is False and util.has_clangpp() is False


def test_taichi_names_resolve_through_the_package() -> None:
    assert ti.lang.misc is misc and ti.lang.exception is exception and ti.lang.util is util
    for name in UNAVAILABLE + ["cpu", "x64", "arm64", "gpu", "vulkan", "extension"]:
        assert name in ti.__all__
    assert "TaichiRuntimeTypeError" in ti.__all__


def test_get_runtime_reads_and_sets_the_default_types() -> None:
    from tistudio.lang import impl

    ti.init(arch=ti.cpu, default_fp=ti.f64, offline_cache=False)
    runtime = impl.get_runtime()
    assert runtime.default_fp == ti.f64 and runtime.default_ip == ti.i32
    assert runtime.prog.config().arch == ti.cpu
    runtime.default_ip = ti.u64
    assert impl.get_runtime().default_ip == ti.u64
    x = ti.field(int, shape=2)
    assert x.dtype == ti.u64

    @ti.kernel
    def top():
        for i in x:
            x[i] = 0xFFFFFFFFFFFFFFFF

    top()
    assert x.to_numpy().tolist() == [2**64 - 1] * 2


def test_get_runtime_materializes_pending_fields() -> None:
    from tistudio.lang import impl

    ti.init(arch=ti.cpu, offline_cache=False)
    ti.field(ti.f32, shape=4)
    program = impl.get_program()
    assert program.has_pending_fields
    impl.get_runtime().materialize()
    assert not program.has_pending_fields and len(program.trees) == 1


def test_language_names_of_other_modules_are_exported() -> None:
    from tistudio.lang import data_oriented, ops, real_func

    assert ti.real_func is real_func.real_func and ti.ref is real_func.ref
    assert ti.data_oriented is data_oriented.data_oriented
    assert ti.random is ops.random and ti.randn is ops.randn
    assert {"real_func", "ref", "data_oriented", "random", "randn"} <= set(ti.__all__)
    names = "svd polar_decompose sym_eig eig zero one frexp rgb_to_hex hex_to_rgb".split()
    for name in names:  # Taichi's top-level names that live in other modules here
        assert callable(getattr(ti, name)) and name in ti.__all__, name


def test_math_and_types_import_as_modules() -> None:
    """Taichi programs write `import taichi.math as tm`, `from taichi.math import vec3` and
    `from taichi.types import ndarray`: the same objects as `ti.math` and `ti.types`."""
    import tistudio.math as tm
    import tistudio.types as tt
    from tistudio.math import vec3
    from tistudio.types import f32, ndarray

    assert tm is ti.math and tt is ti.types and vec3 is ti.math.vec3
    assert f32 is ti.f32 and ndarray is ti.types.ndarray


def test_get_runtime_counts_kernel_instances_not_calls() -> None:
    from tistudio.lang import impl

    ti.init(arch=ti.cpu, offline_cache=False)
    a = ti.field(ti.f32, shape=3)
    b = ti.field(ti.f32, shape=3)

    @ti.kernel
    def fill(x: ti.template(), arr: ti.types.ndarray(), v: ti.f32):
        for i in x:
            x[i] = v + arr[i]

    runtime = impl.get_runtime()
    assert runtime.get_num_compiled_functions() == 0
    fill(a, np.zeros(3, np.float32), 1.0)
    fill(a, np.zeros(5, np.float32), 2.0)  # another shape, same instance
    assert runtime.get_num_compiled_functions() == 1
    fill(b, np.zeros(3, np.float32), 1.0)  # another field: a new instance
    assert runtime.get_num_compiled_functions() == 2
    assert a.to_numpy().tolist() == [2.0] * 3
