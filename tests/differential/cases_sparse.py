"""Sparse SNodes (issue #28) against Taichi 1.7.4 on the CPU (tistudio on its CPU and GPU back
ends): `pointer`, `bitmasked` and `dynamic` alone and mixed with `dense`; writes activate,
reads of inactive cells give 0 and activate nothing, struct-fors visit only active cells
(`for i in x` and `for i in node`),
`ti.activate`/`deactivate`/`is_active`/`append`/`length`/`rescale_index`/`no_activate`,
`deactivate_all`, Python-scope reads and writes, `to_numpy`/`from_numpy`/`fill`.

`_api(ti)` finds the sparse functions: `ti.activate` etc. in Taichi, and in tistudio until the
package exports them, `tistudio.lang.sparse` (the same builtins).
"""

import numpy as np


def _api(ti):
    if hasattr(ti, "is_active"):
        return ti
    from tistudio.lang import sparse

    return sparse


def case_pointer_write_read_and_struct_for(ti):
    """A 2-level pointer grid: writes activate their block, a read of an inactive element is 0
    and activates nothing; `for i, j in x` visits the elements of active blocks, `for i, j in
    block` the active blocks (with their own indices)."""
    ti.init(arch=ti.cpu)
    sp = _api(ti)
    x = ti.field(ti.i32)
    block = ti.root.pointer(ti.ij, (4, 3))
    block.dense(ti.ij, (2, 4)).place(x)
    out = ti.field(ti.i32, shape=8)

    @ti.kernel
    def write():
        for k in range(4):
            x[k * 2 + 1, k * 3] = k + 10

    @ti.kernel
    def read() -> ti.i32:
        return x[6, 11] + x[3, 3] * 100

    @ti.kernel
    def visit():
        for i, j in x:
            out[0] += 1
            out[1] += x[i, j]
        for i, j in block:
            out[2] += 1
            out[3] += i * 10 + j
        for i in range(4):
            for j in range(3):
                out[4] += sp.is_active(block, [i, j])

    write()
    before = read()
    visit()
    return {"x": x.to_numpy(), "out": out.to_numpy(), "read": before, "shape": x.shape}


def case_pointer_deactivate_then_reactivate_reads_zero(ti):
    """`ti.deactivate` frees a block: its elements read 0, the struct-for skips it, and writing
    one element again activates it with zeros around it; repeated, the values stay right."""
    ti.init(arch=ti.cpu)
    sp = _api(ti)
    x = ti.field(ti.f32)
    ptr = ti.root.pointer(ti.i, 8)
    ptr.dense(ti.i, 4).place(x)
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def fill_all():
        for i in range(32):
            x[i] = i + 0.5

    @ti.kernel
    def drop_odd_blocks():
        for b in range(8):
            if b % 2 == 1:
                sp.deactivate(ptr, [b])

    @ti.kernel
    def touch(i: ti.i32):
        x[i] += 1.0

    @ti.kernel
    def sum_active():
        for i in x:
            total[None] += x[i]

    results = {}
    for round_ in range(3):
        fill_all()
        drop_odd_blocks()
        touch(5 + round_)
        sum_active()
        results[f"x{round_}"] = x.to_numpy()
    results["total"] = total[None]
    return results


def case_bitmasked_deactivate_keeps_data(ti):
    """A bitmasked node: deactivation clears the bit only (a direct read still gives the old
    value), `to_numpy` and struct-fors see only active cells, `fill` writes only them."""
    ti.init(arch=ti.cpu)
    sp = _api(ti)
    x = ti.field(ti.i32)
    bm = ti.root.dense(ti.i, 3).bitmasked(ti.i, 4)
    bm.place(x)
    count = ti.field(ti.i32, shape=())

    @ti.kernel
    def write():
        for i in range(12):
            if i % 3 == 0:
                x[i] = i + 1

    @ti.kernel
    def drop(i: ti.i32):
        sp.deactivate(bm, [i])

    @ti.kernel
    def read(i: ti.i32) -> ti.i32:
        return x[i] * 10 + sp.is_active(bm, [i])

    @ti.kernel
    def visit():
        for i in x:
            count[None] += x[i]

    write()
    drop(6)
    x.fill(2)
    visit()
    return {
        "x": x.to_numpy(),
        "read6": read(6),
        "read9": read(9),
        "direct6": x[6],
        "count": count[None],
    }


def case_dynamic_append_length_and_struct_for(ti):
    """`dense(i).dynamic(j)` lists: `ti.append` gives the index it wrote, `ti.length` the
    length; a write at index k makes the length k + 1; deactivating a row empties it; the
    struct-for visits indices below each row's length; `to_numpy` has zeros past them."""
    ti.init(arch=ti.cpu)
    sp = _api(ti)
    x = ti.field(ti.i32)
    rows = ti.root.dense(ti.i, 4)
    lists = rows.dynamic(ti.j, 16, chunk_size=4)
    lists.place(x)
    lengths = ti.field(ti.i32, shape=4)
    seen = ti.field(ti.i32, shape=())

    @ti.kernel
    def build():
        for i in range(4):
            for k in range(i * 3):
                sp.append(lists, [i], k * 10 + i)

    @ti.kernel
    def edit():
        x[0, 5] = 7
        sp.deactivate(lists, [2])

    @ti.kernel
    def measure():
        for i in range(4):
            lengths[i] = sp.length(lists, [i])
        for i, j in x:
            seen[None] += x[i, j] + 1000

    build()
    edit()
    measure()
    return {"x": x.to_numpy(), "lengths": lengths.to_numpy(), "seen": seen[None]}


def case_sparse_python_scope(ti):
    """Python scope: a write activates its path, a read of an inactive element is 0,
    `from_numpy` writes only active elements, `deactivate_all` clears the node."""
    ti.init(arch=ti.cpu)
    x = ti.field(ti.f32)
    ptr = ti.root.pointer(ti.ij, 3)
    ptr.bitmasked(ti.ij, 2).place(x)
    count = ti.field(ti.i32, shape=())

    @ti.kernel
    def visit():
        for i, j in x:
            count[None] += 1 + 0 * (i + j)

    x[1, 4] = 3.0
    x[5, 0] = 1.5
    first = x.to_numpy()
    inactive = x[0, 0]
    x.from_numpy(np.arange(36, dtype=np.float32).reshape(6, 6))
    visit()
    seen = count[None]
    ptr.deactivate_all()
    count[None] = 0
    visit()
    return {
        "first": first,
        "inactive": inactive,
        "after": x.to_numpy(),
        "seen": seen,
        "seen_after": count[None],
    }


def case_nested_pointers_rescale_and_no_activate(ti):
    """pointer -> pointer -> dense: writes activate both levels, `ti.rescale_index` maps an
    element to its block, and under `ti.no_activate` a kernel only writes active cells."""
    ti.init(arch=ti.cpu)
    sp = _api(ti)
    x = ti.field(ti.i32)
    outer = ti.root.pointer(ti.i, 4)
    inner = outer.pointer(ti.i, 4)
    inner.dense(ti.i, 2).place(x)
    flags = ti.field(ti.i32, shape=(2, 16))

    @ti.kernel
    def write():
        x[3] = 1
        x[20] = 2

    @ti.kernel
    def probe():
        for i in range(16):
            flags[0, i] = sp.is_active(inner, [i])
        for i in range(4):
            flags[1, i] = sp.is_active(outer, [i])
        for i in x:
            b = sp.rescale_index(x, inner, [i])
            flags[1, 8 + b[0] % 8] += 1

    @ti.kernel
    def quiet():
        sp.no_activate(x)
        for i in x:
            x[i] += 5

    write()
    quiet()
    probe()
    return {"x": x.to_numpy(), "flags": flags.to_numpy()}


def case_dynamic_rows_of_vectors_and_structs(ti):
    """`x[i].append(v)` and `x[i].length()` on vector and struct fields under
    `dense(i).dynamic(j)`, `x.parent()` as the dynamic node, `ti.root.deactivate_all()`."""
    ti.init(arch=ti.cpu)
    sp = _api(ti)
    v = ti.Vector.field(2, ti.i32)
    pair = ti.types.struct(a=ti.u8, b=ti.f32)
    s = pair.field()
    ti.root.dense(ti.i, 3).dynamic(ti.j, 8, chunk_size=2).place(v)
    ti.root.dense(ti.i, 3).dynamic(ti.j, 8, chunk_size=2).place(s)
    lengths = ti.field(ti.i32, shape=(3, 3))

    @ti.kernel
    def build():
        for i in range(3):
            for k in range(i + 2):
                v[i].append(ti.Vector([i, k * 3]))
                s[i].append(pair(a=k, b=k * 0.5 + i))

    @ti.kernel
    def measure():
        for i in range(3):
            lengths[0, i] = v[i].length()
            lengths[1, i] = s[i].length()
            lengths[2, i] = sp.length(v.parent(), [i])

    build()
    measure()
    first = {"v": v.to_numpy(), "a": s.a.to_numpy(), "b": s.b.to_numpy(), "l0": lengths.to_numpy()}
    ti.root.deactivate_all()
    measure()
    return {**first, "lengths": lengths.to_numpy(), "after": v.to_numpy()}


def case_get_addr_differences(ti):
    """`ti.get_addr` in a kernel: the distances between elements' addresses show the layout
    (row-major strides, fields placed side by side in one cell, a pointer node's slots taking
    Taichi's 16 bytes per cell)."""
    ti.init(arch=ti.cpu)
    sp = _api(ti)
    a = ti.field(ti.i32)
    b = ti.field(ti.f64)
    ti.root.dense(ti.ij, (4, 8)).place(a, b)
    out = ti.field(ti.i64, shape=5)
    beside = ti.field(ti.f32)
    cells = ti.root.dense(ti.i, 2)
    cells.pointer(ti.i, 8).place(ti.field(ti.f32))
    cells.place(beside)

    @ti.kernel
    def run():
        out[0] = ti.cast(sp.get_addr(a, [1, 3]) - sp.get_addr(a, [1, 2]), ti.i64)
        out[1] = ti.cast(sp.get_addr(a, [2, 0]) - sp.get_addr(a, [1, 0]), ti.i64)
        out[2] = ti.cast(sp.get_addr(b, [3, 5]) - sp.get_addr(a, [3, 5]), ti.i64)
        out[3] = ti.cast(sp.get_addr(b, [0, 1]) - sp.get_addr(b, [0, 0]), ti.i64)
        out[4] = ti.cast(sp.get_addr(beside, [1]) - sp.get_addr(beside, [0]), ti.i64)

    run()
    return {"out": out.to_numpy()}


case_get_addr_differences.gpu_refusal = ("TaichiCompilationError", "not supported on the GPU")
