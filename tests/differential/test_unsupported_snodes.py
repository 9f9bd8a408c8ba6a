"""Sparse SNodes run on the CPU only so far (issue #28; tests/sparse): on the GPU, `pointer`,
`bitmasked` and `dynamic` must fail with an error that names the SNode kind and says it is not
supported yet (issue #4), rather than crash later or silently act as `dense`.

Not a differential case: Taichi supports all three, so there is no oracle to compare with.
The test accepts the error when the SNode is declared, when the field is placed, or at the
latest when a kernel first touches it.
"""

from __future__ import annotations

import re

import pytest

KINDS = {
    "pointer": lambda root, ti: root.pointer(ti.i, 4).dense(ti.i, 4),
    "bitmasked": lambda root, ti: root.bitmasked(ti.i, 16),
    "dynamic": lambda root, ti: root.dynamic(ti.i, 16, chunk_size=4),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_sparse_snode_is_rejected_with_a_clear_error(kind: str) -> None:
    import tistudio as ti

    ti.init(arch=ti.gpu)
    x = ti.field(ti.i32)

    @ti.kernel
    def touch():
        for i in range(4):
            x[i] = i

    try:
        with pytest.raises(Exception) as caught:
            KINDS[kind](ti.root, ti).place(x)
            touch()
    finally:
        ti.reset()
    message = str(caught.value)
    assert kind in message, f"the error does not name the SNode kind {kind!r}: {message!r}"
    assert re.search(r"not (yet )?supported", message), (
        f"the error does not say {kind} is not supported yet: {message!r}"
    )
