"""Quant fields in tistudio: NumPy in and out, `fill` (Taichi 1.7.4 has no `to_numpy` of a
quant field; here they run through kernels, so the bits are the compiler's), the IR that
`lower_quant` writes (a compare-and-swap loop per store), the errors of a bad layout, and the
extensions that let Taichi's quant tests run."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tistudio.frontend.errors import TaichiSyntaxError
from tistudio.lang.bitpacked import BitpackedFields
from tistudio.lang.misc import is_extension_supported

quant = ti.types.quant


@pytest.fixture(autouse=True)
def cpu() -> None:
    ti.init(arch=ti.cpu)


def test_numpy_round_trip_and_fill() -> None:
    x = ti.field(quant.fixed(bits=12, max_value=8.0))
    y = ti.field(quant.int(4, signed=True))
    pack = BitpackedFields(max_num_bits=16)
    pack.place(x, y)
    ti.root.dense(ti.ij, (3, 5)).place(pack)
    values = np.linspace(-7, 7, 15, dtype=np.float32).reshape(3, 5)
    x.from_numpy(values)
    y.fill(-9)  # wraps to 7 in four bits
    got = x.to_numpy()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, values, atol=8.0 / 2**11 / 2)
    assert got[1, 2] == x[1, 2]
    assert (y.to_numpy() == 7).all()
    np.testing.assert_allclose(x.to_numpy(), values, atol=8.0 / 2**11 / 2)  # y kept x's bits


def test_quant_array_packs_elements_into_words() -> None:
    bits = ti.field(quant.int(1, signed=False))
    ti.root.dense(ti.i, 4).quant_array(ti.i, 32, max_num_bits=32).place(bits)
    pattern = (np.arange(128) % 3 == 0).astype(np.int32)
    bits.from_numpy(pattern)
    assert bits.shape == (128,)
    assert (bits.to_numpy() == pattern).all()

    @ti.kernel
    def count() -> ti.i32:
        total = 0
        for i in bits:
            total += bits[i]
        return total

    assert count() == pattern.sum()


def test_store_is_a_cas_loop_in_the_ir() -> None:
    x = ti.field(quant.int(8, signed=True))
    pack = BitpackedFields(max_num_bits=32)
    pack.place(x)
    ti.root.dense(ti.i, 4).place(pack)

    @ti.kernel
    def bump():
        for i in range(4):
            x[i] += 1

    report = bump.compile_report()
    texts = [r.ir_text for r in report.passes if r.name == "lower_quant"]
    assert texts, "lower_quant did not run"
    assert "atomic cas(" in texts[0] and "while true" in texts[0]
    assert "bit_struct<u32>], index" in texts[0]  # the word, not the field, is what is accessed
    bump()
    assert x.to_numpy().tolist() == [1, 1, 1, 1]


def test_layout_errors() -> None:
    pack = BitpackedFields(max_num_bits=8)
    with pytest.raises(TaichiSyntaxError, match="overflows: 9 bits used out of 8"):
        pack.place(ti.field(quant.int(5)), ti.field(quant.int(4)))
    with pytest.raises(TaichiSyntaxError, match="At least 2 fields"):
        BitpackedFields(max_num_bits=32).place(
            ti.field(quant.float(exp=5, frac=10)), shared_exponent=True
        )
    with pytest.raises(TaichiSyntaxError, match="needs 35 bits"):
        ti.root.quant_array(ti.i, 5, max_num_bits=32).place(ti.field(quant.int(7)))


def test_quant_extensions_on_the_cpu() -> None:
    assert is_extension_supported(ti.cpu, ti.extension.quant)
    assert is_extension_supported(ti.cpu, ti.extension.quant_basic)


def test_a_64_bit_word_is_a_clear_error_on_the_gpu() -> None:
    from tistudio.backends.errors import UnsupportedOnBackend

    ti.init(arch=ti.vulkan)
    x = ti.field(quant.int(40, signed=True))
    pack = BitpackedFields(max_num_bits=64)
    pack.place(x)
    ti.root.place(pack)

    @ti.kernel
    def store():
        x[None] = 5

    with pytest.raises(UnsupportedOnBackend, match="WGSL atomics are 32-bit only"):
        store()
    assert is_extension_supported(ti.vulkan, ti.extension.quant)
