"""Specs for linear algebra (issue 4): products, einsum, add*mm, decompositions, norms, linalg.*.

Decompositions need well-posed inputs for gradcheck to mean anything, so their ``call``
builds them from the random T input: ``_spd`` (A A^T + n I, for cholesky / logdet),
``_sym`` (A + A^T, for eigh), ``_dd`` (diagonally dominant, for solve).  Eigen- and
singular vectors are defined up to sign, so ``_gauge`` fixes each column's sign from its
first row before comparing with torch (the loss stays sign-invariant, as torch requires).
"""
import math

from ._spec import OpSpec, S, T

INF = math.inf


def _spd(lib, A):
    n = A.shape[-1]
    return A @ A.mT + n * lib.eye(n, dtype=A.dtype)


def _sym(lib, A):
    return A + A.mT


def _dd(lib, A):
    return A + 2 * lib.eye(A.shape[-1], dtype=A.dtype)


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


M = dict(low=-0.5, high=0.5)  # entries for diagonally dominant matrices (with _dd)

SPECS = [
    # ------------------------------------------------------------ products
    OpSpec("vdot", [S(T((3,)), T((3,)))], method=True),
    OpSpec("inner", [S(T((3,)), T((3,))), S(T((2, 3)), T((4, 3))), S(T((2,)), T(()))], method=True),
    OpSpec("einsum", [S("ij,jk->ik", T((2, 3)), T((3, 4))), S("ii->i", T((3, 3))), S("ii", T((3, 3))),
                      S("ij->", T((2, 3))), S("i,j->ij", T((2,)), T((3,))),
                      S("bij,bjk->bik", T((2, 2, 3)), T((2, 3, 2))),
                      S("...ij,...jk", T((2, 2, 3)), T((3, 2))), S("ij,jk,kl->il", T((2, 3)), T((3, 2)), T((2, 2))),
                      S("ij,ij->i", T((2, 3)), T((2, 3))), S("bn,anm,bm->ba", T((2, 3)), T((2, 3, 2)), T((2, 2))),
                      S("ij,jk->ik", T((2, 1)), T((3, 4))), S("iij->j", T((2, 2, 3))), S("ji", T((2, 3)))],
           call=lambda lib, eq, *ops: lib.einsum(eq, *ops), check_grad_fn=False,
           note="grad_fn differs: PyTorch lowers einsum to permute/bmm/sum; ours is one EinsumBackward0"),
    OpSpec("einsum_sublist", [S(T((2, 3)), T((3, 4)))], torch_name="einsum",
           call=lambda lib, a, b: lib.einsum(a, [0, 1], b, [1, 2], [0, 2]), check_grad_fn=False,
           note="alias of einsum"),
    OpSpec("tensordot", [S(T((2, 3)), T((3, 4)), 1), S(T((2, 3, 4)), T((3, 4, 2))), S(T((2, 3)), T((2, 4)), ([0], [0])),
                         S(T((3, 2)), T((2, 3)), dims=([0, 1], [1, 0])), S(T((2, 1)), T((3, 4)), ([1], [0]))]),
    OpSpec("addmm", [S(T((2, 4)), T((2, 3)), T((3, 4))), S(T((4,)), T((2, 3)), T((3, 4)), beta=0.5, alpha=2)],
           method=True, inplace="addmm_"),
    # (no broadcast input: torch's addbmm_ resizes it instead of raising)
    OpSpec("addbmm", [S(T((2, 4)), T((3, 2, 3)), T((3, 3, 4))),
                      S(T((2, 4)), T((3, 2, 3)), T((3, 3, 4)), beta=2, alpha=0.5)],
           method=True, inplace="addbmm_"),
    OpSpec("baddbmm", [S(T((3, 2, 4)), T((3, 2, 3)), T((3, 3, 4))),
                       S(T((4,)), T((3, 2, 3)), T((3, 3, 4)), beta=0.5, alpha=3)],
           method=True, inplace="baddbmm_"),
    OpSpec("addmv", [S(T((2,)), T((2, 3)), T((3,))), S(T(()), T((2, 3)), T((3,)), beta=2, alpha=-1)],
           method=True, inplace="addmv_"),
    OpSpec("addr", [S(T((2, 3)), T((2,)), T((3,))), S(T((3,)), T((2,)), T((3,)), beta=0.5, alpha=2)],
           method=True, inplace="addr_"),
    OpSpec("kron", [S(T((2, 2)), T((2, 3))), S(T((3,)), T((2,))), S(T((2,)), T((2, 3)))], method=True),
    OpSpec("cross", [S(T((3,)), T((3,)), 0), S(T((2, 3)), T((2, 3)), 1), S(T((3, 2)), T((3, 2)), dim=0),
                     S(T((3, 4)), T((3, 4)))],
           method=True),
    OpSpec("trace", [S(T((3, 3))), S(T((2, 4)))], method=True),
    OpSpec("trace_int", [S(T((3, 3), kind="int", low=-3, high=3))], torch_name="trace",
           call=lambda lib, x: lib.trace(x), grad=False, note="alias of trace"),
    OpSpec("cdist", [S(T((3, 2)), T((4, 2))), S(T((3, 2)), T((4, 2)), 1.0), S(T((3, 2)), T((4, 2)), 3.0),
                     S(T((3, 2)), T((4, 2)), 0.5), S(T((3, 2)), T((4, 2)), 1.5), S(T((2, 3, 2)), T((2, 4, 2)), INF),
                     S(T((3, 2)), T((4, 2)), 0.0), S(T((2, 1, 3, 2)), T((2, 4, 2)))],
           gradgrad=False, note="torch cannot differentiate _cdist_backward; ours can"),
    OpSpec("cdist_mm", [S(T((26, 2)), T((3, 2))), S(T((3, 2)), T((4, 2)), compute_mode="use_mm_for_euclid_dist")],
           torch_name="cdist", call=lambda lib, a, b, **k: lib.cdist(a, b, **k), note="alias of cdist"),
    OpSpec("chain_matmul", [S(T((2, 3)), T((3, 4)), T((4, 2))), S(T((2, 2)))]),
    OpSpec("ger", [S(T((2,)), T((3,)))], method=True),
    # ------------------------------------------------------------ top-level matrix functions
    OpSpec("det", [S(T((3, 3))), S(T((2, 2, 2)))], method=True),
    OpSpec("inverse", [S(T((3, 3))), S(T((2, 3, 3)))], method=True),
    OpSpec("logdet", [S(T((3, 3))), S(T((2, 3, 3)))], call=lambda lib, A: lib.logdet(_spd(lib, A))),
    OpSpec("slogdet", [S(T((3, 3))), S(T((2, 3, 3)))], method=True),
    OpSpec("cholesky", [S(T((3, 3))), S(T((3, 3)), True)], call=lambda lib, A, *a: lib.cholesky(_spd(lib, A), *a)),
    OpSpec("cholesky_solve", [S(T((3, 2)), T((3, 3))), S(T((3,)), T((3, 3)), True), S(T((2, 3, 1)), T((3, 3)))],
           call=lambda lib, B, A, upper=False: lib.cholesky_solve(
               B.unsqueeze(-1) if B.ndim == 1 else B,
               lib.linalg.cholesky(_spd(lib, A)).mT if upper else lib.linalg.cholesky(_spd(lib, A)), upper)),
    OpSpec("cholesky_inverse", [S(T((3, 3))), S(T((3, 3)), True)],
           call=lambda lib, A, upper=False: lib.cholesky_inverse(
               lib.linalg.cholesky(_spd(lib, A)).mT if upper else lib.linalg.cholesky(_spd(lib, A)), upper)),
    OpSpec("qr", [S(T((3, 2))), S(T((3, 3)), False), S(T((2, 3)))], method=True),
    OpSpec("svd", [S(T((3, 2))), S(T((2, 3))), S(T((3, 2)), False), S(T((2, 3, 3)))], call=_svd_legacy),
    OpSpec("svd_no_uv", [S(T((3, 2)))], torch_name="svd", call=lambda lib, A: lib.svd(A, compute_uv=False),
           note="alias of svd"),
    OpSpec("pinverse", [S(T((3, 2))), S(T((2, 3))), S(T((3, 3)), 0.05)], method=True),
    OpSpec("matrix_power", [S(T((3, 3)), 0), S(T((3, 3)), 1), S(T((3, 3)), 2), S(T((2, 3, 3)), 3), S(T((3, 3)), 5),
                            S(T((3, 3), **M), -1), S(T((3, 3), **M), -2)], method=True),
    OpSpec("matrix_power_int", [S(T((2, 2), kind="int", low=-2, high=3), 3)], torch_name="matrix_power",
           call=lambda lib, A, n: lib.matrix_power(A, n), grad=False, note="alias of matrix_power"),
    # torch.norm is the reductions' op; these are its paths into linalg (matrix norms)
    OpSpec("norm_matrix", [S(T((3, 4)), "nuc"), S(T((3, 4)), "fro", (0, 1)), S(T((2, 3, 4)), "nuc", (0, 2))],
           torch_name="norm", call=lambda lib, x, *a: lib.norm(x, *a), note="alias of norm"),
    # ------------------------------------------------------------ torch.linalg
    OpSpec("linalg.inv", [S(T((3, 3))), S(T((2, 3, 3)))]),
    OpSpec("linalg.det", [S(T((3, 3))), S(T((2, 2, 2))), S(T((1, 1))), S(T((0, 0)))]),
    OpSpec("linalg.slogdet", [S(T((3, 3))), S(T((2, 3, 3)))]),
    OpSpec("linalg.solve", [S(T((3, 3), **M), T((3,))), S(T((3, 3), **M), T((3, 2))), S(T((2, 3, 3), **M), T((2, 3))),
                            S(T((2, 3, 3), **M), T((3, 2))), S(T((3, 3), **M), T((2, 3)), left=False)],
           call=lambda lib, A, B, **k: lib.linalg.solve(_dd(lib, A), B, **k)),
    OpSpec("linalg.solve_triangular", [S(T((3, 3), **M), T((3, 2)), upper=True),
                                       S(T((3, 3), **M), T((3, 2)), upper=False),
                                       S(T((3, 3), **M), T((2, 3)), upper=True, left=False),
                                       S(T((2, 3, 3), **M), T((3, 1)), upper=False, unitriangular=True)],
           call=lambda lib, A, B, **k: lib.linalg.solve_triangular(_dd(lib, A), B, **k)),
    OpSpec("linalg.matrix_rank", [S(T((3, 3))), S(T((4, 3)), atol=1.0), S(T((2, 3, 3)), rtol=0.5)], grad=False,
           call=lambda lib, A, **k: lib.linalg.matrix_rank(A @ A.mT if A.shape[-2] == 4 else A, **k)),
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
    OpSpec("linalg.pinv", [S(T((3, 2))), S(T((2, 3))), S(T((3, 2)), rtol=0.1), S(T((2, 2, 3)))]),
    OpSpec("linalg_pinv_hermitian", [S(T((3, 3)))], torch_name="linalg.pinv",
           call=lambda lib, A: lib.linalg.pinv(_sym(lib, A), hermitian=True), note="alias of pinv"),
    OpSpec("linalg.matrix_power", [S(T((3, 3)), 2), S(T((2, 3, 3)), 3), S(T((3, 3), **M), -1), S(T((3, 3)), 0)]),
    OpSpec("linalg.lstsq", [S(T((4, 2)), T((4, 3))), S(T((4, 2)), T((4,))), S(T((2, 4, 2)), T((2, 4, 1))),
                            S(T((4, 2)), T((4, 3)), driver="gelsd"), S(T((4, 2)), T((4, 3)), driver="gels"),
                            S(T((2, 4)), T((2, 1)))]),
    OpSpec("linalg.norm", [S(T((3, 4))), S(T((4,))), S(T((3, 4)), "nuc"), S(T((3, 4)), 2), S(T((3, 4)), -2),
                           S(T((3, 4)), 1), S(T((3, 4)), INF), S(T((2, 3, 4)), None, (1, 2)), S(T((3, 4)), 3, 1),
                           S(T((4,)), 0.5), S(T((4,)), 0), S(T((3, 4)), "fro", (0, 1), True)]),
    OpSpec("linalg.vector_norm", [S(T((3, 4))), S(T((3, 4)), 1, 1), S(T((3, 4)), INF, (0, 1)), S(T((3, 4)), -INF),
                                  S(T((3, 4)), 3.5, 0, True), S(T((3, 4)), 0.5), S(T((3, 4)), 0), S(T((3, 4)), 1.5, -1),
                                  S(T(())), S(T((2, 3)), -1)]),
    OpSpec("linalg_vector_norm_dtype", [S(T((3,)))], torch_name="linalg.vector_norm",
           call=lambda lib, x: lib.linalg.vector_norm(x, dtype=lib.float64), note="alias of vector_norm"),
    OpSpec("linalg.matrix_norm", [S(T((3, 4))), S(T((3, 4)), "nuc"), S(T((3, 4)), 1), S(T((3, 4)), -1), S(T((3, 4)), 2),
                                  S(T((3, 4)), -2), S(T((3, 4)), INF), S(T((3, 4)), -INF), S(T((2, 3, 4)), "nuc"),
                                  S(T((3, 4)), 2, (1, 0)), S(T((2, 3, 4)), 1, (0, 2)),
                                  S(T((2, 3, 4)), -1, (0, 2), True),
                                  S(T((2, 3, 4)), INF, (2, 0), True), S(T((2, 3, 4)), -2, (0, 2), True)]),
    OpSpec("linalg.cross", [S(T((3,)), T((3,))), S(T((2, 3)), T((1, 3))), S(T((3, 2)), T((3, 2)), dim=0)]),
    OpSpec("linalg.vecdot", [S(T((2, 3)), T((3,))), S(T((3, 2)), T((3, 2)), dim=0)]),
    OpSpec("linalg.diagonal", [S(T((3, 3))), S(T((2, 3, 4)), offset=1), S(T((3, 4, 2)), offset=-1, dim1=0, dim2=1)]),
    OpSpec("linalg.matmul", [S(T((2, 3)), T((3, 2)))]),
    OpSpec("linalg.multi_dot", [S([T((2, 3)), T((3, 4))]), S([T((2, 3)), T((3, 4)), T((4, 2))]),
                                S([T((3, 2)), T((2, 4)), T((4, 3)), T((3, 2))]), S([T((3,)), T((3, 4)), T((4,))]),
                                S([T((3,)), T((3,))])]),
]
