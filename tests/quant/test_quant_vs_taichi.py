"""Quantized types against real Taichi 1.7.4: the same program runs under both and must print
the same lines. Values print as `float.hex`, so every stored bit shows: quant ints (negative,
wrapping on overflow, 10.3 stored as 10), fixed-point rounding (halves, negatives), quant
floats (rounding that carries into the exponent, signed and unsigned, flush to zero), shared
exponents (storing one member re-encodes the others), atomics from a parallel loop where many
threads hit the same word, quant arrays, struct-fors, matrix fields and Python-scope access.
"""

from __future__ import annotations

import textwrap

import pytest

from tests.processes import printed_lines

PROGRAM = textwrap.dedent(
    """
    import sys
    import numpy as np
    import {module} as ti

    ti.init(arch=getattr(ti, sys.argv[1]))
    Bitpack = getattr(ti, "BitpackedFields", None)
    if Bitpack is None:  # tistudio until the package exports it
        from tistudio.lang.bitpacked import BitpackedFields as Bitpack
    quant = ti.types.quant

    def show(*values):
        print(" ".join(float(v).hex() for v in values))

    # ints and fixed, packed together; floats in a second word
    a = ti.field(quant.int(5, True))
    b = ti.field(quant.int(7, False))
    c = ti.field(quant.fixed(bits=10, max_value=4.0))
    d = ti.field(quant.fixed(bits=9, signed=False, scale=0.1))
    word = Bitpack(max_num_bits=32)
    word.place(a, b, c, d)
    ti.root.dense(ti.i, 8).place(word)
    e = ti.field(quant.float(exp=5, frac=4, signed=True))
    f = ti.field(quant.float(exp=4, frac=6, signed=False))
    floats = Bitpack(max_num_bits=32)
    floats.place(e, f)
    ti.root.dense(ti.i, 8).place(floats)

    @ti.kernel
    def store(i: ti.i32, v: ti.f32):
        a[i] = v
        b[i] = ti.abs(v)  # (a negative float into an unsigned int is undefined)
        c[i] = v
        d[i] = ti.abs(v)
        e[i] = v
        f[i] = v

    for v in [10.3, -3.7, 17.0, -17.0, 130.0, 0.0625, 0.15, -0.15, 1.0 / 3, 1.96875,
              1e-6, -2.5, 100000.0, 3.5]:
        store(3, v)
        show(a[3], b[3], c[3], d[3], e[3], f[3])

    # Python-scope stores go through the same encoding
    for v in [2.25, -1.1, 6.9]:
        a[5] = int(v * 3); c[5] = v; e[5] = v; f[5] = v
        show(a[5], c[5], e[5], f[5], b[5], d[5])

    # shared exponent: storing one re-encodes the other
    p = ti.field(quant.float(exp=6, frac=9, signed=False))
    q = ti.field(quant.float(exp=6, frac=12, signed=True))
    shared = Bitpack(max_num_bits=32)
    shared.place(p, q, shared_exponent=True)
    ti.root.place(shared)

    @ti.kernel
    def store_pq(x: ti.f32, y: ti.f32):
        p[None] = x
        q[None] = y

    for x, y in [(3.2, 0.25), (1000.0, 1e-3), (0.1, -7.5), (0.0, 5.0), (1e-20, 2.0)]:
        store_pq(x, y)
        show(p[None], q[None])
        p[None] = x * 3
        show(p[None], q[None])

    # atomics: 4096 iterations of a parallel loop on three words
    n = ti.field(quant.int(13, True))
    m = ti.field(quant.int(6, False))
    g = ti.field(quant.fixed(bits=13, scale=0.25))
    counters = Bitpack(max_num_bits=32)
    counters.place(n, m, g)
    ti.root.dense(ti.i, 3).place(counters)

    @ti.kernel
    def hammer():
        for i in range(4096):
            n[i % 3] += 1
            m[i % 3] += 3
            g[i % 3] -= 0.25
        for i in range(100):
            ti.atomic_add(n[0], -i)

    hammer()
    print([n[i] for i in range(3)], [m[i] for i in range(3)], [g[i] for i in range(3)])

    # a quant array: 4 seven-bit ints to a word, a struct-for over it
    r = ti.field(quant.int(7, True))
    ti.root.dense(ti.i, 3).quant_array(ti.i, 4, max_num_bits=32).place(r)

    @ti.kernel
    def fill_r():
        for i in r:
            r[i] = i * 13 - 60
        for i in range(12):
            r[i] += 1

    fill_r()
    print([r[i] for i in range(12)])

    # a matrix field of fixed-point components, two to a word; NumPy in and out
    mat = ti.Matrix.field(2, 2, dtype=quant.fixed(bits=16, max_value=2.0))
    for row in range(2):
        pack = Bitpack(max_num_bits=32)
        pack.place(mat.get_scalar_field(row, 0), mat.get_scalar_field(row, 1))
        ti.root.place(pack)
    mat[None] = [[0.3, -0.7], [1.2, -1.999]]
    print([float(v).hex() for v in mat[None].to_numpy().ravel()])
    for i, v in enumerate(np.linspace(-3, 3, 8)):
        c[i] = v
    show(*[c[i] for i in range(8)])
    print([b[i] for i in range(8)], [a[i] for i in range(8)])
    """
)


@pytest.fixture(scope="module")
def taichi_lines(tmp_path_factory) -> list[str]:  # noqa: ANN001
    script = tmp_path_factory.mktemp("taichi") / "quant.py"
    return printed_lines(script, PROGRAM.format(module="taichi"), "cpu")


@pytest.mark.parametrize("arch", ["cpu", "vulkan"])
def test_quant_program_prints_what_taichi_prints(taichi_lines, tmp_path, arch) -> None:  # noqa: ANN001
    lines = printed_lines(tmp_path / "quant.py", PROGRAM.format(module="tistudio"), arch)
    assert len(taichi_lines) == 14 + 3 + 10 + 5
    for number, (want, got) in enumerate(zip(taichi_lines, lines)):
        assert got == want, f"line {number}: tistudio {got!r}, Taichi {want!r}"
    assert len(lines) == len(taichi_lines)
