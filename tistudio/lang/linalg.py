"""Decompositions of small matrices in kernels: `ti.svd`, `ti.polar_decompose`, `ti.sym_eig`,
`ti.eig`.

Taichi 1.7 offers these for 2x2 and 3x3 matrices (`ti.eig` for 2x2 only), inside kernels and
`ti.func`s. Like Taichi, we write them in the language itself, as `ti.func`s that our compiler
inlines, so both back ends run them; each takes an optional `dt`, the float type it computes in
and returns (the default float type when omitted). The methods are textbook ones:

- `sym_eig`: cyclic Jacobi. Each rotation of rows and columns p, q zeroes the entry (p, q) of a
  symmetric matrix; sweeping over all pairs drives the off-diagonal part to zero quadratically,
  and the product of the rotations holds the eigenvectors (Golub and Van Loan, section 8.5).
- `svd`: one-sided Jacobi (Hestenes, 1958). Rotating pairs of columns of B = A V until they are
  orthogonal gives B = U diag(s): the singular values to high relative accuracy, without
  forming AᵀA. U is then completed from B's columns by Gram-Schmidt (and a cross product in 3D),
  so that it is orthogonal even when A is singular.
- `polar_decompose`: from the SVD, R = U Vᵀ and P = V diag(s) Vᵀ.
- `eig` (2x2, any real matrix): the roots of the characteristic polynomial, which may be complex.

Conventions, as Taichi's: `svd` returns U, diag(s), V with A = U diag(s) Vᵀ, V a rotation and
s sorted by magnitude, largest first. In 2D all of s is >= 0 and det U carries the sign of det A;
in 3D U is a rotation too and the last singular value carries the sign. `polar_decompose`
returns R, P with A = R P, P symmetric (so R is a rotation in 3D; in 2D P is positive
semidefinite). `sym_eig` returns the eigenvalues (2x2: largest first; 3x3: smallest first) and
the eigenvectors as the columns of a rotation. `eig` returns the eigenvalues as a 2x2 matrix whose
rows are (real, imaginary) and the eigenvectors as a 4x2 matrix whose columns are eigenvectors,
the real and imaginary parts of each component on consecutive rows.
"""

from __future__ import annotations

from typing import Any

from tistudio.lang import impl, ops
from tistudio.lang.kernel import func
from tistudio.lang.matrix import Matrix, Vector
from tistudio.lang.types import f64

MAX_SWEEPS = 20  # Jacobi converges in 4 to 8 sweeps; the bound only guards against NaN input


def _fp(dt: Any) -> Any:
    """The type a decomposition computes in: `dt`, else the default float type."""
    return impl.current_config().default_fp if dt is None else dt


def _eps(dt: Any) -> float:
    """Half the spacing of floats at 1 (a power of two, exact in either float type)."""
    return 2.0**-53 if dt == f64 else 2.0**-24


def _tiny(dt: Any) -> float:
    """A squared norm below which a vector of a matrix scaled to entries <= 1 counts as zero."""
    return 2.0**-200 if dt == f64 else 2.0**-100


def _pairs(n: int) -> list[tuple[int, int]]:
    """The (p, q) pairs of one cyclic Jacobi sweep, p < q."""
    return [(p, q) for p in range(n) for q in range(p + 1, n)]


def _sorting_network(n: int) -> list[tuple[int, int]]:
    """Compare-and-swap steps that sort n = 2 or 3 values."""
    return [(0, 1)] if n == 2 else [(0, 1), (1, 2), (0, 1)]


def _square_of(what: str, sizes: tuple[int, ...]) -> str:
    dims = " and ".join(f"{n}D" for n in sizes)
    return f"{what} only supports {dims} matrices."


# --- public functions ------------------------------------------------------------------------


@func
def svd(A, dt=None):  # noqa: ANN001, ANN201, N803 - Taichi's names
    """A = U @ S @ V.transpose() for a 2x2 or 3x3 matrix: returns U, S (diagonal), V."""
    ops.static_assert(A.n == A.m and (A.n == 2 or A.n == 3), ops.static(_square_of("SVD", (2, 3))))
    t = ops.static(_fp(dt))
    return _svd(ops.cast(A, t), t)


@func
def polar_decompose(A, dt=None):  # noqa: ANN001, ANN201, N803 - Taichi's names
    """A = R @ P for a 2x2 or 3x3 matrix, R orthogonal and P symmetric: returns R, P."""
    ops.static_assert(
        A.n == A.m and (A.n == 2 or A.n == 3),
        ops.static(_square_of("Polar decomposition", (2, 3))),
    )
    t = ops.static(_fp(dt))
    U, S, V = _svd(ops.cast(A, t), t)
    return U @ V.transpose(), V @ S @ V.transpose()


@func
def sym_eig(A, dt=None):  # noqa: ANN001, ANN201, N803 - Taichi's names
    """Eigenvalues (a vector) and eigenvectors (the columns of a matrix) of a symmetric 2x2 or
    3x3 matrix; of a matrix that is not symmetric, those of its symmetric part."""
    ops.static_assert(
        A.n == A.m and (A.n == 2 or A.n == 3),
        ops.static(_square_of("Symmetric eigen solver", (2, 3))),
    )
    t = ops.static(_fp(dt))
    B = ops.cast(A, t)
    return _sym_eig((B + B.transpose()) * 0.5, t)


@func
def eig(A, dt=None):  # noqa: ANN001, ANN201, N803 - Taichi's names
    """Eigenvalues (2x2: rows of real and imaginary parts) and eigenvectors (4x2: a column per
    eigenvector, real and imaginary parts of each component on consecutive rows) of a 2x2
    matrix."""
    ops.static_assert(A.n == 2 and A.m == 2, ops.static(_square_of("Eigen solver", (2,))))
    t = ops.static(_fp(dt))
    return _eig2x2(ops.cast(A, t), t)


# --- symmetric eigenproblem: two-sided Jacobi -------------------------------------------------


@func
def _max_abs(A):  # noqa: ANN001, ANN202, N803
    """The largest |entry| of A, or 1 where A is zero: what to divide A by to bring its entries
    into [-1, 1]."""
    scale = ops.abs(A).max()
    if scale == 0.0:
        scale = 1.0
    return scale


@func
def _rotation(app, aqq, apq):  # noqa: ANN001, ANN202
    """(c, s) of the rotation G with G[p,p] = G[q,q] = c, G[p,q] = -G[q,p] = s such that
    Gᵀ [[app, apq], [apq, aqq]] G is diagonal; the smaller of the two angles (|s| <= c)."""
    theta = (aqq - app) / (2.0 * apq)
    t = 1.0 / (ops.abs(theta) + ops.sqrt(theta * theta + 1.0))  # theta² may overflow: t = 0
    if theta < 0.0:
        t = -t
    c = 1.0 / ops.sqrt(t * t + 1.0)
    return c, t * c


@func
def _jacobi_sweep(S, Vt, dt: ops.template()):  # noqa: ANN001, ANN202
    """One sweep over the off-diagonal pairs of the symmetric S; Vt collects the rotations'
    columns as its rows."""
    for p, q in ops.static(_pairs(S.n)):
        if S[p, q] != 0.0:
            c, s = _rotation(S[p, p], S[q, q], S[p, q])
            G = Matrix.identity(dt, S.n)
            G[p, p], G[q, q], G[p, q], G[q, p] = c, c, s, -s
            S = G.transpose() @ S @ G
            S[p, q], S[q, p] = 0.0, 0.0
            Vt = G.transpose() @ Vt
    return S, Vt


@func
def _off_diagonal(S):  # noqa: ANN001, ANN202
    """The sum of the squares of S's entries above the diagonal."""
    total = S[0, 1] * S[0, 1]
    for p, q in ops.static(_pairs(S.n)[1:]):
        total += S[p, q] * S[p, q]
    return total


@func
def _sym_eig(S, dt: ops.template()):  # noqa: ANN001, ANN202
    scale = _max_abs(S)  # S's entries <= 1: no square of one underflows or overflows
    S = S / scale
    Vt = Matrix.identity(dt, S.n)
    sweep, off = 0, _off_diagonal(S)
    while sweep < MAX_SWEEPS and off > 0.0:
        S, Vt = _jacobi_sweep(S, Vt, dt)
        sweep, off = sweep + 1, _off_diagonal(S)
    w = Vector([S[i, i] * scale for i in ops.static(range(S.n))])
    # Taichi's orders: 2x2 largest first, 3x3 smallest first
    w, Vt, Vt = _sort(w, Vt, Vt, ops.static(1.0 if S.n == 3 else -1.0))
    return w, Vt.transpose()


@func
def _row(M, p: ops.template()):  # noqa: ANN001, ANN202, N803
    """Row p of M, as a vector (in a kernel a matrix takes two indices, as in Taichi)."""
    return Vector([M[p, j] for j in ops.static(range(M.m))])


@func
def _with_row(M, p: ops.template(), v):  # noqa: ANN001, ANN202, N803
    """M with its row p replaced by the vector v."""
    for j in ops.static(range(M.m)):
        M[p, j] = v[j]
    return M


@func
def _sort(w, Vt, Bt, sign: ops.template()):  # noqa: ANN001, ANN202, N803
    """Sort w (ascending for sign 1.0, descending for -1.0), and the rows of the rotation Vt
    and of Bt with it, keeping det Vt = 1: a swap of two rows negates one of them."""
    for p, q in ops.static(_sorting_network(w.n)):
        if sign * w[q] < sign * w[p]:
            w[p], w[q] = w[q], w[p]
            vp, bp = _row(Vt, p), _row(Bt, p)
            Vt, Bt = _with_row(Vt, p, _row(Vt, q)), _with_row(Bt, p, _row(Bt, q))
            Vt, Bt = _with_row(Vt, q, -vp), _with_row(Bt, q, -bp)
    return w, Vt, Bt


# --- SVD: one-sided Jacobi ---------------------------------------------------------------------


@func
def _orthogonalize_rows(Bt, Vt, dt: ops.template()):  # noqa: ANN001, ANN202
    """Rotate pairs of rows of Bt (and the same rows of Vt) until they are orthogonal to
    working precision, |bp . bq| <= eps |bp| |bq|."""
    sweep = 0
    rotated = 1
    while rotated != 0 and sweep < MAX_SWEEPS:
        rotated = 0
        for p, q in ops.static(_pairs(Bt.n)):
            bp, bq = _row(Bt, p), _row(Bt, q)
            gamma = bp.dot(bq)
            alpha, beta = bp.norm_sqr(), bq.norm_sqr()
            if ops.abs(gamma) > ops.static(_eps(dt)) * ops.sqrt(alpha) * ops.sqrt(beta):
                c, s = _rotation(alpha, beta, gamma)
                vp, vq = _row(Vt, p), _row(Vt, q)
                Bt = _with_row(_with_row(Bt, p, c * bp - s * bq), q, s * bp + c * bq)
                Vt = _with_row(_with_row(Vt, p, c * vp - s * vq), q, s * vp + c * vq)
                rotated = 1
        sweep += 1
    return Bt, Vt


@func
def _svd(A, dt: ops.template()):  # noqa: ANN001, N803, ANN202
    scale = _max_abs(A)  # Bt's entries <= 1: no squared norm overflows or underflows
    Bt, Vt = _orthogonalize_rows((A / scale).transpose(), Matrix.identity(dt, A.n), dt)
    norms = Vector([_row(Bt, i).norm_sqr() for i in ops.static(range(A.n))])
    norms, Vt, Bt = _sort(norms, Vt, Bt, -1.0)
    U = Matrix.identity(dt, A.n)
    s = norms
    if ops.static(A.n == 2):
        U, s = _complete_2d(Bt, dt)
    else:
        U, s = _complete_3d(Bt, dt)
    S = Matrix.zero(dt, A.n, A.n)
    for i in ops.static(range(A.n)):
        S[i, i] = s[i] * scale
    return U, S, Vt.transpose()


@func
def _unit_or(v, fallback):  # noqa: ANN001, ANN202
    """v normalized, or `fallback` (a unit vector) where v is zero."""
    result = fallback
    norm_sqr = v.norm_sqr()
    if norm_sqr > 0.0:
        result = v / ops.sqrt(norm_sqr)
    return result


@func
def _complete_2d(Bt, dt: ops.template()):  # noqa: ANN001, ANN202, N803
    """U's columns from the rows b0, b1 of Bt (orthogonal, |b0| >= |b1|) and the singular
    values, both >= 0 (det U then has the sign of det A)."""
    b0, b1 = _row(Bt, 0), _row(Bt, 1)
    u0 = _unit_or(b0, Vector([1.0, 0.0], dt=dt))
    u1 = Vector([-u0[1], u0[0]])
    s1 = u1.dot(b1)
    if s1 < 0.0:
        u1, s1 = -u1, -s1
    return Matrix.cols([u0, u1]), Vector([b0.dot(u0), s1])


@func
def _complete_3d(Bt, dt: ops.template()):  # noqa: ANN001, ANN202, N803
    """U's columns from the rows b0, b1, b2 of Bt (orthogonal, |b0| >= |b1| >= |b2|), made a
    rotation, and the singular values, the last one signed."""
    b0, b1, b2 = _row(Bt, 0), _row(Bt, 1), _row(Bt, 2)
    u0 = _unit_or(b0, Vector([1.0, 0.0, 0.0], dt=dt))
    w = b1 - u0.dot(b1) * u0
    w = w - u0.dot(w) * u0  # twice is enough (Kahan): w is orthogonal to u0 to rounding
    u1 = _perpendicular(u0, dt)
    if w.norm_sqr() > dt(ops.static(_tiny(dt))):
        u1 = w / w.norm()
    if u1.dot(b1) < 0.0:
        u1 = -u1
    u2 = u0.cross(u1)
    return Matrix.cols([u0, u1, u2]), Vector([b0.dot(u0), b1.dot(u1), b2.dot(u2)])


@func
def _perpendicular(u, dt: ops.template()):  # noqa: ANN001, ANN202
    """A unit vector perpendicular to the unit vector u: u's cross product with the axis it
    is least aligned with."""
    axis = Vector([1.0, 0.0, 0.0], dt=dt)
    a = ops.abs(u)
    if a[1] < a[0] and a[1] <= a[2]:
        axis = Vector([0.0, 1.0, 0.0], dt=dt)
    elif a[2] < a[0] and a[2] < a[1]:
        axis = Vector([0.0, 0.0, 1.0], dt=dt)
    return u.cross(axis).normalized()


# --- general 2x2 eigenproblem --------------------------------------------------------------


@func
def _eig2x2(A, dt: ops.template()):  # noqa: ANN001, ANN202, N803
    """lambda = tr/2 +- sqrt(disc), disc = ((a - d) / 2)² + b c: two real roots (the larger
    first; the smaller one as det / larger, which does not cancel) or a conjugate pair (positive
    imaginary part first)."""
    scale = _max_abs(A)  # entries <= 1: their products neither underflow nor overflow
    A = A / scale
    a, b, c, d = A[0, 0], A[0, 1], A[1, 0], A[1, 1]
    half_tr, half_diff = (a + d) * 0.5, (a - d) * 0.5
    disc = half_diff * half_diff + b * c
    values = Matrix.zero(dt, 2, 2)
    vectors = Matrix.zero(dt, 4, 2)
    if disc >= 0.0:
        root = ops.sqrt(disc)
        big = half_tr + root if half_tr >= 0.0 else half_tr - root
        small = 0.0 * big
        if big != 0.0:
            small = (a * d - b * c) / big
        values[0, 0], values[1, 0] = ops.max(big, small), ops.min(big, small)
        for k in ops.static(range(2)):
            v = _real_eigenvector(A, values[k, 0], k, dt)
            vectors[0, k], vectors[2, k] = v[0], v[1]
    else:
        imag = ops.sqrt(-disc)
        values[0, 0], values[0, 1] = half_tr, imag
        values[1, 0], values[1, 1] = half_tr, -imag
        for k in ops.static(range(2)):
            v = _complex_eigenvector(A, half_tr, imag * (1.0 - 2.0 * k))
            for i in ops.static(range(4)):
                vectors[i, k] = v[i]
    return values * scale, vectors


@func
def _real_eigenvector(A, lam, k: ops.template(), dt: ops.template()):  # noqa: ANN001, ANN202, N803
    """A unit vector in the kernel of A - lam I: the longer of (lam - d, c) and (b, lam - a),
    each of which is in it; the k-th axis where A - lam I is zero."""
    v = Vector([lam - A[1, 1], A[1, 0]])
    other = Vector([A[0, 1], lam - A[0, 0]])
    if other.norm_sqr() > v.norm_sqr():
        v = other
    return _unit_or(v, Vector([1.0 - k, 0.0 + k], dt=dt))


@func
def _complex_eigenvector(A, re, im):  # noqa: ANN001, ANN202, N803
    """The eigenvector (lam - d, c) for lam = re + i im (c != 0 when lam is not real), of unit
    length, multiplied by a phase that makes its larger component real and positive (LAPACK's
    convention, so it matches NumPy's up to sign); as (re x, im x, re y, im y)."""
    x_re, x_im, y = re - A[1, 1], im, A[1, 0]
    x_abs = ops.sqrt(x_re * x_re + x_im * x_im)
    result = Vector([x_re, x_im, y, 0.0 * y])
    if y < 0.0:  # the phase -1
        result = -result
    if x_abs > ops.abs(y):  # the phase conj(x) / |x|
        result = Vector([x_abs, 0.0 * y, y * x_re / x_abs, -y * x_im / x_abs])
    return result / ops.sqrt(x_abs * x_abs + y * y)
