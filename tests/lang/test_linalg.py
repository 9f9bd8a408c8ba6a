"""`svd`, `polar_decompose`, `sym_eig` and `eig` (tistudio/lang/linalg.py): the decompositions'
defining properties on hard matrices (zero, singular, repeated values, reflections, extreme
scales) on both back ends, and agreement with Taichi 1.7.4, run in a process of its own, on
random matrices."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tistudio as ti
from tistudio.frontend.errors import TaichiSyntaxError
from tistudio.lang import linalg

ROOT = Path(__file__).resolve().parents[2]
TOL = {"f32": 2e-5, "f64": 1e-12}  # relative to the matrix's largest entry
ARCHS = [pytest.param("cpu", id="cpu"), pytest.param("gpu", id="gpu")]
DTYPES = ["f32", "f64"]

SPECIAL_2 = [
    np.zeros((2, 2)),
    np.eye(2),
    -np.eye(2),
    np.diag([2.0, -3.0]),
    np.diag([2.0, 5.0]),
    [[0.0, 1.0], [1.0, 0.0]],  # a reflection
    [[1.0, 2.0], [2.0, 4.0]],  # rank 1
    [[3.0, 1.0], [0.0, 3.0]],  # defective: one eigenvector
    [[0.6, -0.8], [0.8, 0.6]],  # a rotation: equal singular values
    [[1.0, 1.0], [2.0, 3.0]],
    [[1.0, -1.0], [1.0, 1.0]],  # complex eigenvalues
    [[0.0, -2.0], [1.0, 0.0]],
    [[1e-30, 2e-30], [-3e-30, 4e-30]],
    [[1e30, -2e30], [3e30, 4e30]],
]
SPECIAL_3 = [
    np.zeros((3, 3)),
    np.eye(3),
    -np.eye(3),
    np.diag([1.0, 1.0, -1.0]),
    np.diag([2.0, 3.0, 1.0]),
    np.diag([1.0, 1e-4, 1e-8]),  # nearly singular
    [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],  # a reflection
    np.outer([1.0, -2.0, 3.0], [0.5, 1.0, -1.0]),  # rank 1
    [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],  # rank 2
    [[1.0, 1.0, 3.0], [9.0, -3.0, 2.0], [-3.0, 4.0, 2.0]],
    [[2.0, 0.0, 0.0], [0.0, 0.0, -2.0], [0.0, 2.0, 0.0]],  # 2 x a rotation
    [[4.0, 1.0, 1.0], [1.0, 2.0, 2.0], [1.0, 2.0, 2.0]],
    np.full((3, 3), 1e-30),
    [[1e30, 0.0, -2e30], [3e30, 1e30, 0.0], [0.0, 5e30, 1e30]],
]


def _random(n: int, count: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1.0, 1.0, (count, n, n))


def _decompose(arch: str, dt: str, mats: np.ndarray) -> dict[str, np.ndarray]:
    """Every decomposition of every matrix of `mats`, computed in `dt` in one parallel loop."""
    os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
    dtype = getattr(ti, dt)
    ti.init(arch=getattr(ti, arch), default_fp=dtype)
    count, n = len(mats), mats.shape[1]
    a = ti.Matrix.field(n, n, dtype, shape=count)
    a.from_numpy(mats.astype(np.float32 if dt == "f32" else np.float64))
    out = {k: ti.Matrix.field(n, n, dtype, shape=count) for k in ("U", "S", "V", "R", "P", "Q")}
    w = ti.Vector.field(n, dtype, shape=count)
    values = ti.Matrix.field(2, 2, dtype, shape=count)
    vectors = ti.Matrix.field(4, 2, dtype, shape=count)

    @ti.kernel
    def run():
        for i in a:
            out["U"][i], out["S"][i], out["V"][i] = linalg.svd(a[i])
            out["R"][i], out["P"][i] = linalg.polar_decompose(a[i], dtype)
            w[i], out["Q"][i] = linalg.sym_eig(a[i] + a[i].transpose(), dtype)
            if ti.static(n == 2):
                values[i], vectors[i] = linalg.eig(a[i])

    run()
    got = {k: f.to_numpy().astype(np.float64) for k, f in out.items()}
    got["w"] = w.to_numpy().astype(np.float64)
    if n == 2:
        got["values"] = values.to_numpy().astype(np.float64)
        got["vectors"] = vectors.to_numpy().astype(np.float64)
    return got


def _close(got: np.ndarray, want: np.ndarray, scale: np.ndarray, tol: float) -> None:
    """|got - want| <= tol * scale, one scale per matrix."""
    err = np.abs(got - want).reshape(len(got), -1).max(axis=1)
    worst = np.max(err / np.maximum(scale, 1e-300))
    assert (err <= tol * scale).all(), f"worst error {worst:.3g} x scale"


def _check_svd(mats: np.ndarray, got: dict, tol: float) -> None:
    n, scale = mats.shape[1], np.abs(mats).reshape(len(mats), -1).max(axis=1)
    one = np.ones(len(mats))
    U, S, V = got["U"], got["S"], got["V"]
    s = np.diagonal(S, axis1=1, axis2=2)
    assert (S == s[:, :, None] * np.eye(n)).all()  # exactly diagonal
    _close(U @ S @ np.swapaxes(V, 1, 2), mats, scale, tol)
    _close(np.swapaxes(U, 1, 2) @ U, np.eye(n), one, tol)
    _close(np.swapaxes(V, 1, 2) @ V, np.eye(n), one, tol)
    assert (s[:, :-1] >= 0).all()
    assert (s[:, :-1] >= np.abs(s[:, 1:]) - tol * scale[:, None]).all()  # sorted by magnitude
    _close(np.linalg.det(V)[:, None], one[:, None], one, tol)
    det_sign = np.where(np.linalg.det(mats) < 0, -1.0, 1.0)
    if n == 2:  # Taichi: s >= 0, det U has the sign of det A
        assert (s >= 0).all()
        nonsingular = np.abs(s[:, 1]) > tol * scale
        assert (np.sign(np.linalg.det(U)) == det_sign)[nonsingular].all()
    else:  # Taichi: U a rotation, the last singular value signed
        _close(np.linalg.det(U)[:, None], one[:, None], one, tol)
        nonsingular = np.abs(s[:, 2]) > tol * scale
        assert (np.sign(s[:, 2]) == det_sign)[nonsingular].all()


def _check_polar(mats: np.ndarray, got: dict, tol: float) -> None:
    n, scale = mats.shape[1], np.abs(mats).reshape(len(mats), -1).max(axis=1)
    R, P = got["R"], got["P"]
    _close(R @ P, mats, scale, tol)
    _close(np.swapaxes(R, 1, 2) @ R, np.eye(n), np.ones(len(mats)), tol)
    _close(P, np.swapaxes(P, 1, 2), scale, tol)
    if n == 2:  # Taichi: P positive semidefinite
        assert (np.linalg.eigvalsh(P) >= -tol * scale[:, None]).all()
    else:  # Taichi: R a rotation
        _close(np.linalg.det(R)[:, None], np.ones((len(mats), 1)), np.ones(len(mats)), tol)


def _check_sym_eig(mats: np.ndarray, got: dict, tol: float) -> None:
    sym = mats + np.swapaxes(mats, 1, 2)
    n, scale = mats.shape[1], np.abs(sym).reshape(len(mats), -1).max(axis=1)
    w, Q = got["w"], got["Q"]
    _close(Q @ (w[:, :, None] * np.swapaxes(Q, 1, 2)), sym, scale, tol)
    _close(np.swapaxes(Q, 1, 2) @ Q, np.eye(n), np.ones(len(mats)), tol)
    _close(np.linalg.det(Q)[:, None], np.ones((len(mats), 1)), np.ones(len(mats)), tol)
    step = np.diff(w, axis=1)  # Taichi's orders: 2x2 largest first, 3x3 smallest first
    assert (step <= 0).all() if n == 2 else (step >= 0).all()


def _complex_eig(got: dict) -> tuple[np.ndarray, np.ndarray]:
    values = got["values"][:, :, 0] + 1j * got["values"][:, :, 1]
    vectors = got["vectors"][:, 0::2, :] + 1j * got["vectors"][:, 1::2, :]
    return values, vectors


def _sorted(values: np.ndarray) -> np.ndarray:
    """Each row of complex values in a fixed order (rounded first, so that ties sort alike)."""
    return np.sort_complex(np.round(values, 6))


def _check_eig(mats: np.ndarray, got: dict, tol: float) -> None:
    scale = np.abs(mats).reshape(len(mats), -1).max(axis=1)
    values, vectors = _complex_eig(got)
    _close(mats @ vectors, vectors * values[:, None, :], scale, tol)
    _close(np.linalg.norm(vectors, axis=1), np.ones((len(mats), 2)), np.ones(len(mats)), tol)
    want = np.linalg.eigvals(mats)
    _close(_sorted(values), _sorted(want), scale, max(tol, 1e-6))
    real = values.imag == 0
    assert (values.real[:, 0] >= values.real[:, 1])[real.all(axis=1)].all()
    assert (values.imag[:, 0] > 0)[~real.all(axis=1)].all()


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n", [2, 3])
def test_decompositions_keep_their_defining_properties(arch: str, dt: str, n: int) -> None:
    special = np.array(SPECIAL_2 if n == 2 else SPECIAL_3, dtype=np.float64)
    mats = np.concatenate([special, _random(n, 32, seed=n)])
    mats = mats.astype(np.float32 if dt == "f32" else np.float64).astype(np.float64)
    got = _decompose(arch, dt, mats)
    _check_svd(mats, got, TOL[dt])
    _check_polar(mats, got, TOL[dt])
    _check_sym_eig(mats, got, TOL[dt])
    if n == 2:
        _check_eig(mats, got, TOL[dt])


def test_results_are_the_same_on_every_run() -> None:
    mats = np.concatenate([np.array(SPECIAL_3), _random(3, 16, seed=5)])
    first, second = _decompose("cpu", "f32", mats), _decompose("cpu", "f32", mats)
    for key in first:
        assert np.array_equal(first[key], second[key]), key


def test_dt_sets_the_type_computed_in_and_returned() -> None:
    ti.init(default_fp=ti.f32)
    a = ti.Matrix([[1.0, 1.0, 3.0], [9.0, -3.0, 2.0], [-3.0, 4.0, 2.0]], ti.f32)
    out = ti.Matrix.field(3, 3, ti.f64, shape=())

    @ti.func
    def residual(a):  # from a ti.func, at the kernel's top level (no parallel loop)
        U, S, V = linalg.svd(a, ti.f64)
        return U @ S @ V.transpose() - ti.cast(a, ti.f64)

    @ti.kernel
    def run(a: ti.types.matrix(3, 3, ti.f32)):
        out[None] = residual(a)

    run(a)
    assert np.abs(out.to_numpy()).max() < 1e-13  # f32 arithmetic leaves ~1e-6


@pytest.mark.parametrize(
    ("which", "message"),
    [
        ("svd", "SVD only supports 2D and 3D matrices."),
        ("polar_decompose", "Polar decomposition only supports 2D and 3D matrices."),
        ("sym_eig", "Symmetric eigen solver only supports 2D and 3D matrices."),
        ("eig", "Eigen solver only supports 2D matrices."),
    ],
)
def test_unsupported_sizes_are_compile_errors_with_taichis_messages(
    which: str, message: str
) -> None:
    ti.init()

    @ti.kernel
    def run():
        m = ti.Matrix.identity(ti.f32, 3 if ti.static(which == "eig") else 4)
        getattr(linalg, which)(m)

    with pytest.raises(TaichiSyntaxError, match=message.replace(".", r"\.")):
        run()


def test_python_scope_calls_are_errors_as_in_taichi() -> None:
    ti.init()
    with pytest.raises(TaichiSyntaxError, match="kernel or another ti.func"):
        linalg.svd(ti.Matrix([[1.0, 2.0], [3.0, 4.0]]))


# --- against Taichi 1.7.4 ------------------------------------------------------------------

ORACLE = """
import sys
import numpy as np
import taichi as ti

mats = np.load(sys.argv[1])
out = {}
for dt in ("f32", "f64"):
    for n in (2, 3):
        dtype = getattr(ti, dt)
        ti.init(arch=ti.cpu, default_fp=dtype, fast_math=False)
        m = mats[f"m{n}"]
        a = ti.Matrix.field(n, n, dtype, shape=len(m))
        a.from_numpy(m.astype(np.float32 if dt == "f32" else np.float64))
        f = {k: ti.Matrix.field(n, n, dtype, shape=len(m)) for k in "USVRPQ"}
        w = ti.Vector.field(n, dtype, shape=len(m))
        values = ti.Matrix.field(2, 2, dtype, shape=len(m))
        vectors = ti.Matrix.field(4, 2, dtype, shape=len(m))

        @ti.kernel
        def run():
            for i in a:
                f["U"][i], f["S"][i], f["V"][i] = ti.svd(a[i])
                f["R"][i], f["P"][i] = ti.polar_decompose(a[i], dtype)
                w[i], f["Q"][i] = ti.sym_eig(a[i] + a[i].transpose(), dtype)
                if ti.static(n == 2):
                    values[i], vectors[i] = ti.eig(a[i])

        run()
        for k, field in f.items():
            out[f"{dt}_{n}_{k}"] = field.to_numpy().astype(np.float64)
        out[f"{dt}_{n}_w"] = w.to_numpy().astype(np.float64)
        if n == 2:
            out[f"{dt}_{n}_values"] = values.to_numpy().astype(np.float64)
            out[f"{dt}_{n}_vectors"] = vectors.to_numpy().astype(np.float64)
np.savez(sys.argv[2], **out)
"""
ORACLE_TOL = {"f32": 2e-4, "f64": 1e-10}  # Taichi's f32 SVD runs a fixed number of sweeps


@pytest.fixture(scope="module")
def taichi_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, np.ndarray]:
    folder = tmp_path_factory.mktemp("taichi_linalg")
    (folder / "oracle.py").write_text(ORACLE)
    np.savez(folder / "mats.npz", m2=_random(2, 48, seed=11), m3=_random(3, 48, seed=13))
    done = subprocess.run(
        [sys.executable, "oracle.py", "mats.npz", "out.npz"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "TI_LOG_LEVEL": "error"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    with np.load(folder / "out.npz") as data:
        return {"m2": _random(2, 48, seed=11), "m3": _random(3, 48, seed=13), **data}


def _separated(values: np.ndarray, gap: float = 0.05) -> np.ndarray:
    """The matrices whose values are pairwise at least `gap` apart (and from zero): there the
    vectors are determined up to sign and may be compared."""
    v = values.reshape(len(values), -1)
    pairs = np.abs(v[:, :, None] - v[:, None, :]) + np.eye(v.shape[1]) * 1e9
    return (pairs.reshape(len(v), -1).min(axis=1) > gap) & (np.abs(v).min(axis=1) > gap)


def _same_columns_up_to_sign(a: np.ndarray, b: np.ndarray, tol: float) -> np.ndarray:
    """The sign of each column of a against b's (dot products), after checking they agree."""
    dots = np.einsum("kij,kij->kj", a, b)
    assert (np.abs(np.abs(dots) - 1.0) < tol).all(), np.abs(np.abs(dots) - 1.0).max()
    return np.sign(dots)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n", [2, 3])
def test_agrees_with_taichi_on_random_matrices(
    taichi_results: dict[str, np.ndarray], dt: str, n: int
) -> None:
    mats = taichi_results[f"m{n}"]
    theirs = {k.split("_")[2]: v for k, v in taichi_results.items() if k.startswith(f"{dt}_{n}_")}
    ours = _decompose("cpu", dt, mats)
    tol = ORACLE_TOL[dt]
    np.testing.assert_allclose(ours["S"], theirs["S"], atol=tol)
    np.testing.assert_allclose(np.linalg.det(ours["U"]), np.linalg.det(theirs["U"]), atol=tol)
    np.testing.assert_allclose(np.linalg.det(ours["V"]), np.linalg.det(theirs["V"]), atol=tol)
    s = np.diagonal(ours["S"], axis1=1, axis2=2)
    ok = _separated(s)
    assert ok.sum() >= 16  # enough of them to mean something
    sign_u = _same_columns_up_to_sign(ours["U"][ok], theirs["U"][ok], tol)
    sign_v = _same_columns_up_to_sign(ours["V"][ok], theirs["V"][ok], tol)
    assert (sign_u == sign_v).all()  # a singular pair flips as a whole
    np.testing.assert_allclose(ours["R"][ok], theirs["R"][ok], atol=tol)
    np.testing.assert_allclose(ours["P"][ok], theirs["P"][ok], atol=tol)
    np.testing.assert_allclose(ours["w"], theirs["w"], atol=tol)
    ok = _separated(ours["w"])
    _same_columns_up_to_sign(ours["Q"][ok], theirs["Q"][ok], tol)
    if n == 2:
        np.testing.assert_allclose(ours["values"], theirs["values"], atol=tol)
        values, ours_v = _complex_eig(ours)
        _, theirs_v = _complex_eig(theirs)
        ok = np.abs(values[:, 0] - values[:, 1]) > 0.05
        phases = np.abs(np.einsum("kij,kij->kj", ours_v.conj(), theirs_v))[ok]
        np.testing.assert_allclose(phases, 1.0, atol=tol)  # equal up to a complex phase
