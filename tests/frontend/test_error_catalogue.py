"""A catalogue of bad inputs: each raises a named error that says what is wrong and where.

Every case asserts the exception type, the words a user needs to fix the mistake, and the user's
line: for compile errors, the `File ..., line N` header that points into the kernel; for bad
arguments at a call, the call's line in the traceback. See tests/frontend/test_errors.py for the
first few cases (unsupported `try`, undefined names, recursion ...), which this file extends.
"""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Callable

import numpy as np
import pytest

import tistudio as ti


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init(offline_cache=False)


def _line_of(fn: Callable, needle: str) -> int:
    fn = getattr(fn, "fn", None) or getattr(fn, "__wrapped__", None) or fn
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, ln in enumerate(lines) if needle in ln)


def compile_error(
    error: type[Exception], message: str, fn: Callable, needle: str, call: Callable[[], object]
) -> str:
    """Run `call`; it must raise `error` whose text matches `message` and names the line of
    `fn` that contains `needle`, with that source line quoted."""
    with pytest.raises(error, match=message) as info:
        call()
    text = str(info.value)
    line = _line_of(fn, needle)
    assert f"line {line}" in text, text
    assert needle in text, text
    return text


def call_error(error: type[Exception], message: str, call: Callable[[], object]) -> None:
    """`call` (one line of this file, a lambda) raises `error` matching `message`, and the
    traceback runs through the caller's line, so the user sees where the bad call is."""
    frame = sys._getframe(1)
    with pytest.raises(error, match=message) as info:
        call()
    lines = {(entry.path, entry.lineno + 1) for entry in info.traceback}
    assert (__file__, frame.f_lineno) in {(str(p), n) for p, n in lines} or any(
        str(p) == __file__ for p, _ in lines
    )


# --- unsupported Python syntax ------------------------------------------------------------


def test_with_statement() -> None:
    @ti.kernel
    def k():
        with open("x"):  # bad
            pass

    compile_error(ti.TaichiSyntaxError, "'With' statements are not supported", k, "# bad", k)


def test_lambda() -> None:
    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        f = lambda v: v + 1  # noqa: E731  # bad
        return f(a)

    compile_error(ti.TaichiSyntaxError, "lambda", k, "# bad", lambda: k(1))


def test_list_comprehension_over_a_runtime_range() -> None:
    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        values = [a * j for j in range(a)]  # bad
        return values[0]

    message = "comprehension is unrolled at compile time, so its range.* needs compile-time"
    compile_error(ti.TaichiTypeError, message, k, "# bad", lambda: k(1))


def test_set_comprehension() -> None:
    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        values = {a * j for j in range(3)}  # bad
        return len(values)

    compile_error(ti.TaichiSyntaxError, "SetComp expressions", k, "# bad", lambda: k(1))


def test_global_statement() -> None:
    @ti.kernel
    def k():
        global counter  # bad
        counter = 1

    compile_error(ti.TaichiSyntaxError, "'Global' statements are not supported", k, "# bad", k)


def test_del_statement() -> None:
    @ti.kernel
    def k(a: ti.i32):
        b = a
        del b  # bad

    compile_error(
        ti.TaichiSyntaxError, "'Delete' statements are not supported", k, "# bad", lambda: k(1)
    )


def test_raise_statement() -> None:
    @ti.kernel
    def k():
        raise ValueError("no")  # bad

    compile_error(ti.TaichiSyntaxError, "'Raise' statements are not supported", k, "# bad", k)


def test_import_in_kernel() -> None:
    @ti.kernel
    def k():
        import math  # noqa: F401  # bad

    compile_error(ti.TaichiSyntaxError, "'Import' statements are not supported", k, "# bad", k)


def test_nested_function_definition() -> None:
    @ti.kernel
    def k():
        def helper():  # bad
            pass

    compile_error(ti.TaichiSyntaxError, "FunctionDef", k, "# bad", k)


def test_class_definition_in_kernel() -> None:
    @ti.kernel
    def k():
        class Local:  # bad
            pass

    compile_error(ti.TaichiSyntaxError, "ClassDef", k, "# bad", k)


def test_walrus_operator_of_a_runtime_static() -> None:
    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        return (b := ti.static(a + 1)) * b  # bad

    message = "ti.static\\(\\) needs a compile-time value"
    compile_error(ti.TaichiSyntaxError, message, k, "# bad", lambda: k(1))


def test_for_else() -> None:
    @ti.kernel
    def k():
        for _ in range(3):  # bad
            pass
        else:
            pass

    compile_error(ti.TaichiSyntaxError, "else", k, "# bad", k)


def test_while_else() -> None:
    @ti.kernel
    def k():
        c = 0
        while c < 3:  # bad
            c += 1
        else:
            pass

    compile_error(ti.TaichiSyntaxError, "else", k, "# bad", k)


def test_print_with_a_spec_that_does_not_suit_the_value() -> None:
    @ti.kernel
    def k(a: ti.f32):
        print(f"a = {a:d}")  # bad

    compile_error(ti.TaichiTypeError, "'d' doesn't match 'f32'", k, "# bad", lambda: k(1.0))


def test_string_stored_into_a_field() -> None:
    x = ti.field(ti.i32, shape=4)

    @ti.kernel
    def k():
        x[0] = "text"  # bad

    compile_error(ti.TaichiTypeError, "str", k, "# bad", k)


def test_starred_call_of_runtime_vector() -> None:
    @ti.func
    def add(p, q):
        return p + q

    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        return add(*a)  # bad

    compile_error(
        ti.TaichiSyntaxError, r"cannot unpack \(\*\) a scalar i32", k, "# bad", lambda: k(1)
    )


# --- parameters and annotations -----------------------------------------------------------


def test_unsupported_annotation() -> None:
    def k(a: str):  # bad
        pass

    kernel = ti.kernel(k)
    call_error(ti.TaichiSyntaxError, "unsupported annotation .* for 'a'", lambda: kernel("x"))


def test_parameter_with_default() -> None:
    def k(a: ti.i32 = 1):
        pass

    call_error(ti.TaichiSyntaxError, "without defaults \\('a'\\)", lambda: ti.kernel(k))


def test_star_args_parameter() -> None:
    def k(*a: ti.i32):
        pass

    call_error(ti.TaichiSyntaxError, "plain positional parameters", lambda: ti.kernel(k))


def test_return_annotation_without_return() -> None:
    @ti.kernel
    def k() -> ti.i32:  # bad
        pass

    compile_error(
        ti.TaichiSyntaxError, "annotated to return a value but has no return", k, "# bad", k
    )


def test_return_value_without_annotation() -> None:
    @ti.kernel
    def k(a: ti.i32):
        return a  # bad

    compile_error(ti.TaichiSyntaxError, "return", k, "# bad", lambda: k(1))


def test_return_inside_if() -> None:
    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        if a > 0:
            return 1  # bad
        return 0

    compile_error(ti.TaichiSyntaxError, "only return at its top level", k, "# bad", lambda: k(1))


# --- types --------------------------------------------------------------------------------


def test_integer_literal_too_big_for_i32() -> None:
    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        return a + 10_000_000_000  # bad

    compile_error(ti.TaichiTypeError, "does not fit in i32", k, "# bad", lambda: k(1))
    # the spelling the message suggests compiles (ti.cast of the literal is the same error in
    # Taichi 1.7.4 and here, so the message must not suggest it)
    suggestion = re.escape("write it as ti.u64(10000000000)")
    compile_error(ti.TaichiTypeError, suggestion, k, "# bad", lambda: k(1))

    @ti.kernel
    def fixed(a: ti.i32) -> ti.i64:
        return a + ti.u64(10_000_000_000)

    assert fixed(1) == 10_000_000_001


@pytest.mark.parametrize(
    ("literal", "message"),
    [
        ("ti.f64(1)", "Integer literals must be annotated with a integer type"),
        ("ti.i32(1.5)", "Floating-point literals must be annotated with a floating-point type"),
        ("ti.u8(300)", "Integer literal 300 exceeded the range of specified dtype: u8"),
    ],
)
def test_a_dtype_called_on_a_literal_of_the_wrong_kind(literal: str, message: str) -> None:
    dtype = {"ti.f64(1)": ti.f64, "ti.i32(1.5)": ti.i32, "ti.u8(300)": ti.u8}[literal]
    value = {"ti.f64(1)": 1, "ti.i32(1.5)": 1.5, "ti.u8(300)": 300}[literal]

    @ti.kernel
    def k() -> ti.f64:
        return dtype(value)  # bad

    compile_error(ti.TaichiTypeError, message, k, "# bad", k)


def test_bit_cast_between_sizes() -> None:
    @ti.kernel
    def k(a: ti.f32) -> ti.i64:
        return ti.bit_cast(a, ti.i64)  # bad

    compile_error(
        ti.TaichiTypeError, "cannot bit-cast f32 to i64: sizes differ", k, "# bad", lambda: k(1.0)
    )


def test_invert_of_float() -> None:
    @ti.kernel
    def k(a: ti.f32) -> ti.f32:
        return ~a  # bad

    compile_error(ti.TaichiTypeError, "~|bit_not|invert", k, "# bad", lambda: k(1.0))


def test_shift_of_float() -> None:
    @ti.kernel
    def k(a: ti.f32) -> ti.f32:
        return a << 1  # bad

    compile_error(ti.TaichiTypeError, "<<", k, "# bad", lambda: k(1.0))


def test_cast_to_a_non_type() -> None:
    @ti.kernel
    def k(a: ti.f32) -> ti.i32:
        return ti.cast(a, "int32")  # bad

    compile_error(ti.TaichiTypeError, "not a Taichi data type", k, "# bad", lambda: k(1.0))


def test_vector_sizes_differ() -> None:
    @ti.kernel
    def k() -> ti.f32:
        v = ti.Vector([1.0, 2.0]) + ti.Vector([1.0, 2.0, 3.0])  # bad
        return v[0]

    compile_error(ti.TaichiTypeError, "shape|size", k, "# bad", k)


def test_vector_index_out_of_range() -> None:
    @ti.kernel
    def k() -> ti.f32:
        v = ti.Vector([1.0, 2.0])
        return v[5]  # bad

    compile_error(ti.TaichiSyntaxError, "out of range|index 5", k, "# bad", k)


def test_matrix_column_out_of_range_beside_a_run_time_row() -> None:
    @ti.kernel
    def k(i: ti.i32) -> ti.i32:
        m = ti.Matrix([[1, 2, 3], [4, 5, 6]])
        return m[i, 5]  # bad

    # each constant index against its own axis: 5 is no column of a 2x3 matrix, although
    # the flat offset i * 3 + 5 would fit for i = 0
    compile_error(ti.TaichiSyntaxError, "index 5 is out of range for 3", k, "# bad", lambda: k(0))


def test_indexing_a_scalar() -> None:
    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        return a[0]  # bad

    compile_error(
        ti.TaichiSyntaxError, "cannot be indexed|not subscriptable|index", k, "# bad", lambda: k(1)
    )


def test_string_as_a_number() -> None:
    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        return a + "1"  # bad

    compile_error(ti.TaichiTypeError, "str", k, "# bad", lambda: k(1))


# --- fields -------------------------------------------------------------------------------


def test_field_created_inside_a_kernel() -> None:
    @ti.kernel
    def k():
        y = ti.field(ti.f32, shape=4)  # bad
        y[0] = 1.0

    compile_error(
        ti.TaichiSyntaxError, "field\\(\\) cannot be called inside a kernel", k, "# bad", k
    )


def test_field_with_too_many_indices() -> None:
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def k():
        x[1, 2] = 0  # bad

    compile_error(ti.TaichiSyntaxError, r"1 dimension\(s\) but was accessed with 2", k, "# bad", k)


def test_field_element_of_float_index() -> None:
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def k(a: ti.f32):
        x[a] = 0  # bad

    compile_error(ti.TaichiTypeError, "index|integer", k, "# bad", lambda: k(1.0))


def test_python_scope_index_out_of_bounds() -> None:
    x = ti.field(ti.f32, shape=4)
    call_error(IndexError, "4", lambda: x.__setitem__(4, 1.0))


def test_from_numpy_of_wrong_shape() -> None:
    x = ti.field(ti.f32, shape=4)
    call_error(
        ValueError, r"array shape \(5,\) != field shape \(4,\)", lambda: x.from_numpy(np.zeros(5))
    )


# --- arguments at the call ----------------------------------------------------------------


def _scalar_kernel():  # noqa: ANN202
    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        return a

    return k


def _array_kernel():  # noqa: ANN202
    @ti.kernel
    def k(arr: ti.types.ndarray(dtype=ti.f32, ndim=1)) -> ti.f32:
        return arr[0]

    return k


def test_wrong_number_of_arguments() -> None:
    k = _scalar_kernel()
    call_error(TypeError, r"kernel 'k' takes 1 argument\(s\), 2 given", lambda: k(1, 2))


def test_float_for_an_integer_parameter() -> None:
    k = _scalar_kernel()
    call_error(TypeError, "argument 'a' must be an integer for i32, not float", lambda: k(1.5))


def test_string_for_an_integer_parameter() -> None:
    k = _scalar_kernel()
    call_error(TypeError, "argument 'a' must be an integer for i32, not str", lambda: k("1"))


def test_non_numbers_for_a_float_parameter() -> None:
    @ti.kernel
    def half(v: ti.f32) -> ti.f32:
        return v * 0.5

    assert half(3) == 1.5
    call_error(TypeError, "argument 'v' must be a number for f32, not NoneType", lambda: half(None))
    call_error(
        TypeError, "argument 'v' must be a number for f32, not ndarray", lambda: half(np.ones(3))
    )


def test_list_for_an_ndarray_parameter() -> None:
    k = _array_kernel()
    message = (
        "argument 'arr' must be a NumPy array, a ti.ndarray, a PyTorch tensor or a DLPack "
        "producer .* got list"
    )
    call_error(TypeError, message, lambda: k([1.0]))


def test_ndarray_of_wrong_dtype() -> None:
    k = _array_kernel()
    arr = np.zeros(4, dtype=np.int32)
    call_error(ValueError, "argument 'arr' must have dtype f32, got int32", lambda: k(arr))


def test_ndarray_of_wrong_ndim() -> None:
    k = _array_kernel()
    arr = np.zeros((2, 2), dtype=np.float32)
    call_error(ValueError, r"argument 'arr' must have 1 dimension\(s\), got 2", lambda: k(arr))


def test_non_contiguous_ndarray() -> None:
    k = _array_kernel()
    arr = np.zeros(8, dtype=np.float32)[::2]
    call_error(ValueError, "non-contiguous", lambda: k(arr))


def test_vector_argument_of_wrong_shape() -> None:
    @ti.kernel
    def k(v: ti.math.vec3) -> ti.f32:
        return v[0]

    call_error(ValueError, r"argument 'v' must have shape \(3,\)", lambda: k(ti.Vector([1.0, 2.0])))


def test_unknown_keyword_argument() -> None:
    k = _scalar_kernel()
    call_error(TypeError, "unexpected keyword argument 'b'", lambda: k(a=1, b=2))


# --- Python objects captured by a kernel --------------------------------------------------


def test_python_list_indexed_at_run_time() -> None:
    table = [1, 2, 3]

    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        return table[a]  # bad

    compile_error(ti.TaichiSyntaxError, "list|index", k, "# bad", lambda: k(1))


def test_numpy_array_indexed_at_run_time() -> None:
    table = np.arange(4)

    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        return table[a]  # bad

    compile_error(ti.TaichiSyntaxError, "ndarray|NumPy|index", k, "# bad", lambda: k(1))


def test_object_used_as_a_number() -> None:
    class Settings:
        pass

    settings = Settings()

    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        return a + settings  # bad

    compile_error(ti.TaichiTypeError, "Settings", k, "# bad", lambda: k(1))


def test_module_used_as_a_number() -> None:
    @ti.kernel
    def k(a: ti.f32) -> ti.f32:
        return a * np  # bad

    compile_error(ti.TaichiTypeError, "module", k, "# bad", lambda: k(1.0))


def test_missing_attribute_of_a_captured_object() -> None:
    @ti.kernel
    def k(a: ti.f32) -> ti.f32:
        return a * np.no_such_thing  # bad

    compile_error(ti.TaichiSyntaxError, "no_such_thing", k, "# bad", lambda: k(1.0))


# --- funcs, kernels and ti.static ---------------------------------------------------------


def test_mutual_recursion() -> None:
    @ti.func
    def ping(n):
        return pong(n)

    @ti.func
    def pong(n):
        return ping(n)  # bad

    @ti.kernel
    def k() -> ti.i32:
        return ping(3)

    compile_error(ti.TaichiSyntaxError, "'ping' calls itself; recursion", pong, "# bad", k)


def test_func_called_from_python() -> None:
    @ti.func
    def f(a):
        return a

    call_error(ti.TaichiSyntaxError, "ti.func 'f' can only be called from a kernel", lambda: f(1))


def test_func_with_too_many_arguments() -> None:
    @ti.func
    def f(a):
        return a

    @ti.kernel
    def k() -> ti.i32:
        return f(1, 2)  # bad

    compile_error(ti.TaichiSyntaxError, "argument", k, "# bad", k)


def test_func_with_missing_argument() -> None:
    @ti.func
    def f(a, b):
        return a + b

    @ti.kernel
    def k() -> ti.i32:
        return f(1)  # bad

    compile_error(ti.TaichiSyntaxError, "b", k, "# bad", k)


def test_static_range_of_runtime_bound() -> None:
    @ti.kernel
    def k(n: ti.i32) -> ti.i32:
        s = 0
        for i in ti.static(range(n)):  # bad
            s += i
        return s

    message = r"ti.static\(\) of range\(...\) .* needs compile-time bounds"
    compile_error(ti.TaichiSyntaxError, message, k, "# bad", lambda: k(3))


def test_static_without_argument() -> None:
    @ti.kernel
    def k():
        if ti.static():  # bad
            pass

    compile_error(ti.TaichiSyntaxError, "ti.static\\(\\): missing .* argument", k, "# bad", k)


def test_kernel_called_inside_a_func() -> None:
    @ti.kernel
    def inner():
        pass

    @ti.func
    def f():
        inner()  # bad

    @ti.kernel
    def outer():
        f()

    compile_error(ti.TaichiSyntaxError, "a kernel cannot call another kernel", f, "# bad", outer)


def test_break_in_struct_for() -> None:
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def k():
        for _ in x:
            break  # bad

    compile_error(ti.TaichiSyntaxError, "'break' is not allowed in a parallel", k, "# bad", k)


def test_atomic_on_a_constant() -> None:
    @ti.kernel
    def k(a: ti.i32):
        ti.atomic_add(3, a)  # bad

    compile_error(ti.TaichiSyntaxError, "atomic", k, "# bad", lambda: k(1))


# --- run-time checks in debug mode (tests/lang/test_debug.py has them on the GPU too) -------


def run_time_error(message: str, fn: Callable, needle: str, call: Callable[[], object]) -> None:
    """`call` fails a debug-mode check: `TaichiAssertionError` matching `message`, naming the
    kernel's line that contains `needle` and quoting it."""
    compile_error(ti.TaichiAssertionError, message, fn, needle, call)


def test_vector_index_out_of_range_at_run_time() -> None:
    ti.init(debug=True, offline_cache=False)

    @ti.kernel
    def k(i: ti.i32) -> ti.f32:
        v = ti.Vector([1.0, 2.0])
        return v[i]  # bad

    run_time_error("Accessing vector 'v' of size 2 with index 2", k, "# bad", lambda: k(2))
    assert k(1) == 2.0


def test_autodiff_stack_overflow_at_run_time() -> None:
    ti.init(debug=True, ad_stack_size=4, offline_cache=False)
    x = ti.field(ti.f32, shape=2, needs_grad=True)
    y = ti.field(ti.f32, shape=2, needs_grad=True)

    @ti.kernel
    def k(n: ti.i32):
        for i in x:
            v = x[i]
            for _ in range(n):
                v = ti.sin(v)  # bad
            y[i] = v

    y.grad.fill(1.0)
    message = r"stack overflow: .* \(4 values per thread; .* ti.init\(ad_stack_size=N\)"
    with pytest.warns(UserWarning, match="4 values per thread"):
        run_time_error(message, k, "# bad", lambda: k.grad(5))
    k.grad(4)


def test_loop_beyond_a_32_bit_index() -> None:
    # The cells of the field were counted in an i32: 2**31 became negative and the loop ran
    # no iteration, silently (Taichi 1.7.4 aborts the process here). 2 GiB of u8, never
    # touched: the kernel is refused before it runs.
    big = ti.field(ti.u8, shape=(2**16, 2**15))

    @ti.kernel
    def fill():
        for i, j in big:  # bad
            big[i, j] = 1

    compile_error(
        ti.TaichiSyntaxError, r"2,147,483,648 iterations, more than a 32-bit", fill, "# bad", fill
    )

    @ti.kernel
    def rows(out: ti.types.ndarray(dtype=ti.i32, ndim=1)):
        for _i, _j, k in ti.ndrange(2**16, 2**16, 2):  # bad
            out[0] = k

    out = np.zeros(1, dtype=np.int32)
    message = r"leading axes have 4,294,967,296 elements"
    compile_error(ti.TaichiSyntaxError, message, rows, "# bad", lambda: rows(out))

    @ti.kernel
    def tail_ok(out: ti.types.ndarray(dtype=ti.i32, ndim=1)):
        for i, j in ti.ndrange(2**16, 2**15 + 1):  # 2**31 + 2**16 elements, in rows
            if i == 2**16 - 1 and j == 2**15:
                out[0] = 7

    tail_ok(out)
    assert out[0] == 7


def test_flat_ndrange_beyond_a_32_bit_index() -> None:
    # Kept flat (fewer than 64 rows, or a break out of it), the ndrange counted its 2**31 + 2
    # elements in one i32, which wrapped around: the loop ran no iteration, silently.
    @ti.kernel
    def few_rows(out: ti.types.ndarray(dtype=ti.i32, ndim=1)):
        for _i, j in ti.ndrange(2, 2**30 + 1):  # bad
            if j == 2**30:
                out[0] += 1

    out = np.zeros(1, dtype=np.int32)
    message = r"ndrange of 2,147,483,650 elements .* fewer than 64 rows"
    compile_error(ti.TaichiSyntaxError, message, few_rows, "# bad", lambda: few_rows(out))

    @ti.kernel
    def breaks(out: ti.types.ndarray(dtype=ti.i32, ndim=1)):
        ti.loop_config(serialize=True)
        for i, j in ti.ndrange(2**16, 2**15 + 1):  # bad
            if i == 2**16 - 1 and j == 2**15:
                out[0] = 9
                break

    message = r"ndrange of 2,147,549,184 elements .* a `break` leaves it"
    compile_error(ti.TaichiSyntaxError, message, breaks, "# bad", lambda: breaks(out))


def test_loop_count_beyond_a_32_bit_index_at_launch() -> None:
    # Axes known only at launch, flattened into one i32 count: 50000 x 50000 wrapped around to
    # a smaller count, and the loop ran 2**31-odd fewer iterations, silently. Now the launch
    # stops before the loop (in any mode, on the CPU), and smaller counts still run.
    @ti.kernel
    def count(n: ti.i32, m: ti.i32, k: ti.i32) -> ti.i32:
        c = 0
        for _i, _j, _k in ti.ndrange(n, m, k):  # bad
            c += 1
        return c

    message = r"this loop counts 50000 x 50000 elements in one 32-bit index"
    run_time_error(message, count, "# bad", lambda: count(50000, 50000, 2))
    assert count(300, 70, 2) == 42000
    assert count(2**16, 2**15 - 1, 1) == 2**31 - 2**16  # rows that fit the index: they run

    @ti.kernel
    def cells(a: ti.types.ndarray(dtype=ti.u8, ndim=3)) -> ti.i32:
        c = 0
        for _i, _j, _k in a:  # bad
            c += 1
        return c

    huge = np.zeros((2**16, 2**15 + 1, 1), np.uint8)  # 2 GiB NumPy never touches
    message = r"65536 x 32769 elements in one 32-bit index"
    run_time_error(message, cells, "# bad", lambda: cells(huge))
    assert cells(np.zeros((3, 4, 5), np.uint8)) == 60


def test_ndarray_axis_beyond_a_32_bit_index() -> None:
    # A loop over 2**31 + 8 elements ran none: the extent was read as an i32. (2 GiB of zeros
    # NumPy never touches: the call is refused before the kernel runs.)
    @ti.kernel
    def count(a: ti.types.ndarray(dtype=ti.u8, ndim=1)) -> ti.i64:
        n = 0
        for _ in a:
            n += 1
        return n

    huge = np.zeros(2**31 + 8, np.uint8)
    call_error(ValueError, r"axis holds at most 2,147,483,647 elements", lambda: count(huge))
    assert count(np.zeros(5, np.uint8)) == 5
