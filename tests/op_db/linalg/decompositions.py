"""Specs for the ops of ``retrograd._ops.linalg.decompositions``: cholesky(_ex), qr, eigh/eigvalsh,
eig/eigvals, svd/svdvals, matrix_rank (+ legacy forms)."""
from .._spec import OpSpec, S, T


def _spd(lib, A):
    n = A.shape[-1]
    return A @ A.mT + n * lib.eye(n, dtype=A.dtype)


def _sym(lib, A):
    return A + A.mT


def _gauge(lib, V, rows=False):
    """Vectors with a sign convention: columns (or rows) made positive at their first entry."""
    if rows:
        return V * V[..., :, :1].sign()
    return V * V[..., :1, :].sign()


def _svd(lib, A, *args, **kwargs):
    U, S_, Vh = lib.linalg.svd(A, *args, **kwargs)
    k = S_.shape[-1]
    s = U[..., :1, :k].sign()
    Uk = U[..., :, :k] * s
    Vk = Vh[..., :k, :] * s.mT
    return Uk, S_, Vk


def _svd_legacy(lib, A, *args, **kwargs):
    U, S_, V = lib.svd(A, *args, **kwargs)
    k = S_.shape[-1]
    s = U[..., :1, :k].sign() + (U[..., :1, :k] == 0).to(A.dtype)
    return U[..., :, :k] * s, S_, V[..., :, :k] * s


def _eigh(lib, A, *args, **kwargs):
    L, V = lib.linalg.eigh(_sym(lib, A), *args, **kwargs)
    return L, _gauge(lib, V)


SPECS = [
    OpSpec("cholesky", [S(T((3, 3))), S(T((3, 3)), True)], call=lambda lib, A, *a: lib.cholesky(_spd(lib, A), *a)),
    OpSpec("qr", [S(T((3, 2))), S(T((3, 3)), False), S(T((2, 3)))], method=True),
    OpSpec("svd", [S(T((3, 2))), S(T((2, 3))), S(T((3, 2)), False), S(T((2, 3, 3)))], call=_svd_legacy),
    OpSpec("svd_no_uv", [S(T((3, 2)))], torch_name="svd", call=lambda lib, A: lib.svd(A, compute_uv=False),
           note="alias of svd"),
    OpSpec("linalg.cholesky", [S(T((3, 3))), S(T((2, 3, 3))), S(T((3, 3)), upper=True)],
           call=lambda lib, A, **k: lib.linalg.cholesky(_spd(lib, A), **k)),
    OpSpec("linalg.qr", [S(T((3, 2))), S(T((3, 3))), S(T((2, 3))), S(T((3, 3)), mode="complete"), S(T((2, 3, 2)))]),
    OpSpec("linalg_qr_r", [S(T((3, 2)), mode="r")], torch_name="linalg.qr",
           call=lambda lib, A, **k: lib.linalg.qr(A, **k), grad=False, note="alias of qr"),
    OpSpec("linalg.eigh", [S(T((3, 3))), S(T((2, 3, 3))), S(T((3, 3)), UPLO="U")], call=_eigh),
    OpSpec("linalg.eigvalsh", [S(T((3, 3))), S(T((2, 3, 3)))], call=lambda lib, A: lib.linalg.eigvalsh(_sym(lib, A))),
    OpSpec("linalg.svd", [S(T((3, 2))), S(T((2, 3))), S(T((3, 3))), S(T((3, 2)), full_matrices=False),
                          S(T((2, 3, 2)), full_matrices=False)], call=_svd),
    OpSpec("linalg.svdvals", [S(T((3, 2))), S(T((2, 3, 3)))]),
    OpSpec("linalg.cholesky_ex", [S(T((3, 3))), S(T((2, 3, 3))), S(T((3, 3)), upper=True)],
           call=lambda lib, A, **k: lib.linalg.cholesky_ex(_spd(lib, A), **k)),
]
