"""SNode trees built by hand: `ti.root.dense(ti.ij, shape).place(a, b)` (fields sharing one
node), nested `dense(...).dense(...)` blocks with non-power-of-two sizes, `dense(ti.i, n)
.dense(ti.j, m)`, axis order `dense(ti.j, ...).dense(ti.i, ...)`, fields placed at different
levels of one tree, `ti.root.place` for 0-D fields, vector/matrix/struct fields placed by hand;
struct-fors over all of them; `field.snode`, `snode.parent()`, `.shape`.

Memory layout (interleaving) is not visible through `to_numpy`, which is always the logical
index order; these cases pin down shapes and index mapping. Sparse SNodes (`pointer`,
`bitmasked`, `dynamic`) work in Taichi but not in tistudio yet; test_unsupported_snodes.py
checks that tistudio says so.
"""

import numpy as np


def case_dense_shared_node_place_two_fields(ti):
    """`ti.root.dense(ti.ij, (5, 3)).place(a, b)`: two fields of different dtypes share a node;
    a struct-for over one writes both."""
    ti.init(arch=ti.cpu)
    a = ti.field(ti.i32)
    b = ti.field(ti.f64)
    c = ti.field(ti.u8)
    ti.root.dense(ti.ij, (5, 3)).place(a, b, c)

    @ti.kernel
    def run():
        for i, j in a:
            a[i, j] = i * 10 + j
            b[i, j] = a[i, j] / 4
            c[i, j] = i + j * 100

    run()
    return {
        "a": a.to_numpy(),
        "b": b.to_numpy(),
        "c": c.to_numpy(),
        "shapes": (a.shape, b.shape, c.shape),
    }


def case_nested_dense_blocks(ti):
    """`ti.root.dense(ti.ij, (3, 5)).dense(ti.ij, (4, 2))`: a blocked 12x10 field (sizes not
    powers of two); struct-for indices are global; from_numpy/to_numpy in logical order."""
    ti.init(arch=ti.cpu)
    x = ti.field(ti.i32)
    y = ti.field(ti.f32)
    ti.root.dense(ti.ij, (3, 5)).dense(ti.ij, (4, 2)).place(x, y)
    count = ti.field(ti.i32, shape=())

    @ti.kernel
    def run():
        for i, j in x:
            x[i, j] = i * 100 + j
            count[None] += 1
        for I in ti.grouped(y):
            y[I] = x[I] * 0.5 + I[1]

    x.from_numpy(np.ones((12, 10), dtype=np.int32))
    run()
    return {"x": x.to_numpy(), "y": y.to_numpy(), "count": count[None], "shape": x.shape}


def case_dense_i_then_dense_j(ti):
    """`ti.root.dense(ti.i, 4).dense(ti.j, 3)` gives shape (4, 3); `dense(ti.j, 4).dense(ti.i,
    3)` gives (3, 4): the axis, not the nesting order, decides the index position."""
    ti.init(arch=ti.cpu)
    rows = ti.field(ti.i32)
    cols = ti.field(ti.i32)
    ti.root.dense(ti.i, 4).dense(ti.j, 3).place(rows)
    ti.root.dense(ti.j, 4).dense(ti.i, 3).place(cols)

    @ti.kernel
    def run():
        for i, j in rows:
            rows[i, j] = i * 10 + j
        for i, j in cols:
            cols[i, j] = i * 10 + j + rows[j % 4, i % 3]

    run()
    return {
        "rows": rows.to_numpy(),
        "cols": cols.to_numpy(),
        "shapes": (rows.shape, cols.shape),
    }


def case_fields_at_two_levels(ti):
    """`node = ti.root.dense(ti.i, 6); node.place(p); node.dense(ti.j, 5).place(q)`: p is 1-D,
    q is 2-D under the same rows; a struct-for over q reads p."""
    ti.init(arch=ti.cpu)
    p = ti.field(ti.f32)
    q = ti.field(ti.f32)
    node = ti.root.dense(ti.i, 6)
    node.place(p)
    node.dense(ti.j, 5).place(q)

    @ti.kernel
    def run():
        for i in p:
            p[i] = i * 1.5
        for i, j in q:
            q[i, j] = p[i] + j

    run()
    return {"p": p.to_numpy(), "q": q.to_numpy(), "shapes": (p.shape, q.shape)}


def case_root_place_zero_d(ti):
    """`ti.root.place(x)` makes 0-D fields (scalar and vector) read with `x[None]`."""
    ti.init(arch=ti.cpu)
    total = ti.field(ti.i64)
    best = ti.field(ti.f32)
    centre = ti.Vector.field(2, ti.f32)
    ti.root.place(total, best)
    ti.root.place(centre)

    @ti.kernel
    def run():
        for i in range(100):
            total[None] += i * i
            ti.atomic_max(best[None], i % 17 * 0.5)
        centre[None] = ti.Vector([1.0, 2.0]) * 3

    run()
    return {
        "total": total[None],
        "best": best[None],
        "centre": centre.to_numpy(),
        "shapes": (total.shape, centre.shape),
    }


def case_vector_matrix_struct_fields_placed_by_hand(ti):
    """Vector, matrix and struct fields declared without shape and placed into
    `dense` nodes; one node holds a scalar, a vector and a matrix field."""
    ti.init(arch=ti.cpu)
    s = ti.field(ti.i32)
    v = ti.Vector.field(3, ti.f32)
    m = ti.Matrix.field(2, 2, ti.f32)
    st = ti.Struct.field({"a": ti.i32, "w": ti.math.vec2})
    ti.root.dense(ti.i, 3).dense(ti.j, 2).place(s, v, m)
    ti.root.dense(ti.i, 5).place(st)

    @ti.kernel
    def run():
        for i, j in v:
            s[i, j] = i - j
            v[i, j] = ti.Vector([i, j, s[i, j]])
            m[i, j] = ti.Matrix([[i, j], [j, i]]) * 0.5
        for i in st:
            st[i].a = i * i
            st[i].w = ti.math.vec2(i, 1.0)

    run()
    return {
        "s": s.to_numpy(),
        "v": v.to_numpy(),
        "m": m.to_numpy(),
        "st.a": st.a.to_numpy(),
        "st.w": st.w.to_numpy(),
        "shapes": (v.shape, m.shape, st.shape),
    }


def case_snode_handles(ti):
    """`field.snode.shape`, `field.snode.parent().shape`, `parent(2)`, and `.shape` of the
    builder returned by `dense`, for flat and nested trees."""
    ti.init(arch=ti.cpu)
    a = ti.field(ti.i32)
    outer = ti.root.dense(ti.ij, (3, 5))
    inner = outer.dense(ti.ij, (4, 2))
    inner.place(a)
    b = ti.field(ti.f32, shape=(7, 2))
    return {
        "a_shape": a.shape,
        "a_snode": a.snode.shape,
        "a_parent": a.snode.parent().shape,
        "a_grandparent": a.snode.parent(2).shape,
        "builders": (outer.shape, inner.shape),
        "b_snode": b.snode.shape,
        "b_parent": b.snode.parent().shape,
    }


def case_struct_for_over_3d_blocks(ti):
    """A 3-D field in `dense(ti.ijk, (2, 3, 1)).dense(ti.ijk, (3, 2, 5))` blocks (6x6x5):
    struct-for, `ti.grouped`, and an integer reduction over it."""
    ti.init(arch=ti.cpu)
    g = ti.field(ti.i32)
    ti.root.dense(ti.ijk, (2, 3, 1)).dense(ti.ijk, (3, 2, 5)).place(g)
    total = ti.field(ti.i64, shape=())
    corner = ti.field(ti.i32, shape=3)

    @ti.kernel
    def run():
        for i, j, k in g:
            g[i, j, k] = i * 100 + j * 10 + k
        for I in ti.grouped(g):
            total[None] += g[I]
            ti.atomic_max(corner[0], I[0])
            ti.atomic_max(corner[1], I[1])
            ti.atomic_max(corner[2], I[2])

    run()
    return {"g": g.to_numpy(), "total": total[None], "corner": corner.to_numpy()}


def case_blocked_stencil(ti):
    """A 5-point stencil between two fields that live in the same blocked node (9x6 in
    3x3 blocks): neighbour reads cross block boundaries."""
    ti.init(arch=ti.cpu)
    u = ti.field(ti.f32)
    lap = ti.field(ti.f32)
    ti.root.dense(ti.ij, (3, 2)).dense(ti.ij, (3, 3)).place(u, lap)

    @ti.kernel
    def init():
        for i, j in u:
            u[i, j] = (i * 7 + j * 3) % 5

    @ti.kernel
    def stencil():
        for i, j in u:
            if 0 < i < 8 and 0 < j < 5:
                lap[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4 * u[i, j]

    init()
    stencil()
    return {"u": u.to_numpy(), "lap": lap.to_numpy()}


def case_skipped_axes_shapes_and_struct_for(ti):
    """SNode paths that skip an axis: a field's indices are its path's active axes in ascending
    order, so `dense(ti.k, 8)` is one index (not three), `dense(ti.j, 4).dense(ti.i, 3)` and
    `dense(ti.k, 3).dense(ti.i, 2)` are (i, j) with the lower axis first, `ti.ik` and
    `ti.axes(0, 2)` take two. Struct-fors, element access and to_numpy all use that order."""
    ti.init(arch=ti.cpu)
    k_only = ti.field(ti.i32)
    ti.root.dense(ti.k, 8).place(k_only)
    j_then_i = ti.field(ti.i32)
    ti.root.dense(ti.j, 4).dense(ti.i, 3).place(j_then_i)
    ik = ti.field(ti.i32)
    ti.root.dense(ti.ik, (2, 5)).place(ik)
    axes02 = ti.field(ti.f32)
    ti.root.dense(ti.axes(0, 2), (3, 4)).place(axes02)
    k_then_i = ti.field(ti.i32)
    ti.root.dense(ti.k, 3).dense(ti.i, 2).place(k_then_i)

    @ti.kernel
    def run():
        for i in k_only:
            k_only[i] = i * 10
        for i, j in j_then_i:
            j_then_i[i, j] = i * 100 + j
        for i, j in ik:
            ik[i, j] = i * 100 + j
        for i, j in axes02:
            axes02[i, j] = i + j * 0.5
        for i, j in k_then_i:
            k_then_i[i, j] = i * 100 + j + k_only[j]

    run()
    fields = {"k_only": k_only, "j_then_i": j_then_i, "ik": ik, "axes02": axes02}
    fields["k_then_i"] = k_then_i
    out = {name: f.to_numpy() for name, f in fields.items()}
    out["shapes"] = tuple(f.shape for f in fields.values())
    out["snode_shapes"] = tuple(f.snode.shape for f in fields.values())
    out["elements"] = (k_only[3], j_then_i[2, 1], ik[1, 4], k_then_i[1, 2])
    return out


def case_skipped_axes_vectors_offsets_ndrange(ti):
    """More paths that skip axes: a vector field on `dense(ti.j, 5)`, a field on `dense(ti.k,
    6)` placed with `offset=(-2,)`, a node shared by a field on `ti.j` and one a level deeper
    on `ti.l` (one index and two), ndrange over `x.shape`, range-for over `x.shape[0]`, and
    from_numpy / Python-scope writes."""
    ti.init(arch=ti.cpu)
    v = ti.Vector.field(2, ti.f32)
    ti.root.dense(ti.j, 5).place(v)
    o = ti.field(ti.i32)
    ti.root.dense(ti.k, 6).place(o, offset=(-2,))
    a = ti.field(ti.i32)
    b = ti.field(ti.i32)
    block = ti.root.dense(ti.j, 3)
    block.place(a)
    block.dense(ti.l, 2).place(b)
    y = ti.field(ti.i32)
    ti.root.dense(ti.j, 4).dense(ti.i, 3).place(y)

    @ti.kernel
    def run() -> ti.i32:
        for i in v:
            v[i] = [i, 2 * i]
        for i in o:
            o[i] += i
        for i in a:
            a[i] = i + 1
        for i, j in b:
            b[i, j] = i * 10 + j + a[i]
        total = 0
        for I in ti.grouped(ti.ndrange(*y.shape)):
            total += y[I] * (I[0] + 1)
        for i in range(o.shape[0]):
            total += o[i - 2] * 1000
        return total

    o.from_numpy(np.arange(6, dtype=np.int32) * 7)
    y.from_numpy(np.arange(12, dtype=np.int32).reshape(3, 4))
    y[2, 3] = 50
    total = run()
    return {
        "v": v.to_numpy(),
        "o": o.to_numpy(),
        "a": a.to_numpy(),
        "b": b.to_numpy(),
        "total": total,
        "shapes": (v.shape, o.shape, a.shape, b.shape, block.shape, b.snode.parent().shape),
        "python_reads": (o[-2], o[3], b[2, 1], v[4][1]),
    }
