"""Householder reflectors: ``torch.geqrf`` (LAPACK's packed QR) and ``linalg.householder_product``
(``torch.orgqr``), which turns geqrf's output back into Q.

Q = H_1 H_2 ... H_k E  (E: the first n columns of the identity), H_i = I - tau_i v_i v_i^T, with
v_i the i-th column of the input below the diagonal and a 1 on it.  With the partial products
P_i = H_1 ... H_{i-1} and S_i = H_{i+1} ... H_k E, the gradient is
M_i = P_i^T gQ S_i^T,  g tau_i = -v_i^T M_i v_i,  g v_i = -tau_i (M_i + M_i^T) v_i,
written in retrograd ops so it differentiates again.  geqrf has no derivative (as in PyTorch).
"""
from __future__ import annotations

import math

import numpy as np

from ... import return_types as RT
from ..._tensor import Tensor
from .._registry import apply, primitive
from ..diagonal import tril
from ..joining import stack
from ..shape import select, slice_dim, unsqueeze
from ._checks import _const, _type_name, mT, out_arg
from .products import matmul

__all__ = ["geqrf", "orgqr", "ormqr"]


_wrap = Tensor._wrap


# ---------------------------------------------------------------- NumPy forwards
def _householder_np(A, tau):
    m, n = A.shape[-2:]
    k = tau.shape[-1]
    Q = np.broadcast_to(np.eye(m, n, dtype=A.dtype), A.shape[:-2] + (m, n)).copy()
    for i in range(k - 1, -1, -1):  # Q = H_1 (H_2 (... (H_k E)))
        v = np.zeros(A.shape[:-2] + (m,), A.dtype)
        v[..., i] = 1
        v[..., i + 1:] = A[..., i + 1:, i]
        w = np.einsum("...m,...mn->...n", v, Q)
        Q -= tau[..., i, None, None] * v[..., :, None] * w[..., None, :]
    return Q


def _geqrf_np(A):
    """LAPACK geqr2: reflectors with beta = -sign(alpha) |x|, tau = (beta - alpha) / beta."""
    m, n = A.shape[-2:]
    k = min(m, n)
    a = np.array(A, copy=True).reshape((math.prod(A.shape[:-2]), m, n))
    tau = np.zeros((a.shape[0], k), A.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        for j in range(k):
            alpha = a[:, j, j].copy()
            xnorm = np.sqrt((a[:, j + 1:, j] ** 2).sum(-1))
            skip = xnorm == 0  # H = I (LAPACK leaves the column as it is)
            beta = -np.where(alpha >= 0, 1, -1) * np.hypot(alpha, xnorm)
            t = np.where(skip, 0, (beta - alpha) / beta)
            scale = np.where(skip, 1, 1 / (alpha - beta))
            a[:, j + 1:, j] *= scale[:, None]
            a[:, j, j] = np.where(skip, alpha, beta)
            tau[:, j] = t
            v = np.concatenate([np.ones((a.shape[0], 1), A.dtype), a[:, j + 1:, j]], axis=1)
            w = np.einsum("bm,bmn->bn", v, a[:, j:, j + 1:])
            a[:, j:, j + 1:] -= t[:, None, None] * v[:, :, None] * w[:, None, :]
    return a.reshape(A.shape), tau.reshape(A.shape[:-2] + (k,))


# ---------------------------------------------------------------- backward (retrograd ops)
def _reflectors(A: Tensor, k: int) -> Tensor:
    """V (..., m, k): the reflector vectors as columns (unit diagonal, zeros above)."""
    m = A._data.shape[-2]
    return tril(slice_dim(A, -1, 0, k), -1) + _const(np.eye(m, k), A)


def _householder_grads(g: Tensor, A: Tensor, tau: Tensor):
    m, n = A._data.shape[-2:]
    k = tau._data.shape[-1]
    if k == 0:  # no reflectors: the product is the constant identity
        return _const(np.zeros(A._data.shape), A), _const(np.zeros(tau._data.shape), tau)
    V = _reflectors(A, k)
    eye = _const(np.eye(m), A)
    H = []
    for i in range(k):
        v = select(V, -1, i)
        t = unsqueeze(unsqueeze(select(tau, -1, i), -1), -1)
        H.append(eye - t * (unsqueeze(v, -1) * unsqueeze(v, -2)))
    prefix = [None] * k  # P_i = H_1 ... H_{i-1}
    acc = None
    for i in range(k):
        prefix[i] = acc
        acc = H[i] if acc is None else matmul(acc, H[i])
    suffix = [None] * k  # S_i = H_{i+1} ... H_k E
    acc = _const(np.eye(m, n), A)
    for i in range(k - 1, -1, -1):
        suffix[i] = acc
        acc = matmul(H[i], acc)
    gv, gt = [], []
    for i in range(k):
        Mi = matmul(g if prefix[i] is None else matmul(mT(prefix[i]), g), mT(suffix[i]))
        v = unsqueeze(select(V, -1, i), -1)
        Mv = matmul(Mi, v)
        gt.append(-(mT(v) @ Mv)[..., 0, 0])
        t = unsqueeze(unsqueeze(select(tau, -1, i), -1), -1)
        gv.append((-(Mv + matmul(mT(Mi), v)) * t)[..., 0])
    gV = stack(gv, -1)  # (..., m, k); only the part below the diagonal is A's
    gA = tril(gV, -1)
    if n > k:
        from ..joining import cat

        gA = cat([gA, _const(np.zeros(gA._data.shape[:-1] + (n - k,)), gA)], -1)
    return gA, stack(gt, -1)


_householder = primitive("linalg_householder_product", _householder_np, node="LinalgHouseholderProductBackward0",
                         A=lambda g, A, tau: _householder_grads(g, A, tau)[0],
                         tau=lambda g, A, tau: _householder_grads(g, A, tau)[1])


def _no_geqrf_grad(g):
    raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


_geqrf = primitive("geqrf", _geqrf_np, node="GeqrfBackward0", n_out=2, A=lambda g: _no_geqrf_grad(g))


# ---------------------------------------------------------------- public API
@out_arg
def householder_product(A: Tensor, tau: Tensor, *, out=None) -> Tensor:
    """First n columns of the product of Householder reflectors I - tau_i v_i v_i^T (``orgqr``).

    >>> import retrograd as torch
    >>> a, tau = torch.geqrf(torch.tensor([[3., 1.], [4., 2.]]))
    >>> torch.linalg.householder_product(a, tau)
    tensor([[-0.6000, -0.8000],
            [-0.8000,  0.6000]])
    """
    fn = "torch.linalg.householder_product"
    if A._data.ndim < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if A._data.shape[-2] < A._data.shape[-1]:
        raise RuntimeError(f"{fn}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if A._data.shape[-1] < tau._data.shape[-1]:
        raise RuntimeError(f"{fn}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if tau._data.ndim != A._data.ndim - 1:
        raise RuntimeError(f"{fn}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau._data.ndim} and input.ndim is equal to {A._data.ndim}")
    if A._data.ndim > 2 and tau._data.shape[:-1] != A._data.shape[:-2]:
        raise RuntimeError(f"{fn}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau._data.shape[:-1])}")
    if tau._data.dtype != A._data.dtype:
        raise RuntimeError(f"{fn}: tau dtype {_type_name(tau)} does not match input dtype {_type_name(A)}")
    if A._data.dtype.kind != "f" or A._data.dtype == np.float16:
        raise NotImplementedError(f"\"orgqr_cpu\" not implemented for '{_type_name(A)}'")
    return apply(_householder, (A, tau))


@out_arg
def orgqr(input: Tensor, tau: Tensor, *, out=None) -> Tensor:
    """``torch.orgqr``: alias of ``linalg.householder_product``.

    >>> import retrograd as torch
    >>> torch.orgqr(*torch.geqrf(torch.eye(2))).shape
    torch.Size([2, 2])
    """
    return householder_product(input, tau)


@out_arg
def geqrf(input: Tensor, *, out=None):
    """LAPACK's packed QR: ``(a, tau)``, R above the diagonal of a, reflectors below (no gradient).

    >>> import retrograd as torch
    >>> torch.geqrf(torch.tensor([[3., 1.], [4., 2.]])).tau
    tensor([1.6000, 0.0000])
    """
    if input._data.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if input._data.dtype.kind != "f" or input._data.dtype == np.float16:
        raise NotImplementedError(f"\"geqrf_cpu\" not implemented for '{_type_name(input)}'")
    a, tau = apply(_geqrf, (input,))
    return RT.geqrf((a, tau))


def _ormqr_checks(input: Tensor, tau: Tensor, other: Tensor, left: bool) -> None:
    fn = "torch.ormqr"
    a, t, c = input._data, tau._data, other._data
    if a.ndim < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if c.ndim < 2:
        raise RuntimeError(f"{fn}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if c.shape[side] != a.shape[-2]:
        raise RuntimeError(f"{fn}: other.shape[{side}] must be equal to input.shape[-2]")
    if t.ndim < 1 or t.shape[-1] != min(c.shape[side], a.shape[-1]):
        raise RuntimeError(f"{fn}: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])")
    if t.ndim != a.ndim - 1:
        raise RuntimeError(f"{fn}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{t.ndim} and input.ndim is equal to {a.ndim}")
    if c.ndim != a.ndim:
        raise RuntimeError(f"{fn}: Expected other to have the same number of dimensions as input, but got "
                           f"other.ndim equal to {c.ndim} and input.ndim is equal to {a.ndim}")
    if a.ndim > 2:
        if t.shape[:-1] != a.shape[:-2]:
            raise RuntimeError(f"{fn}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                               f"{list(t.shape[:-1])}")
        if c.shape[:-2] != a.shape[:-2]:
            raise RuntimeError(f"{fn}: Expected batch dimensions of other to be equal to input.shape[:-2], but got "
                               f"{list(c.shape[:-2])}")
    for name, x in (("other", other), ("tau", tau)):
        if x._data.dtype != a.dtype:
            raise RuntimeError(f"{fn}: Expected input and {name} to have the same dtype, but input has dtype"
                               f"{_type_name(input)} and {name} has dtype {_type_name(x)}")


@out_arg
def ormqr(input: Tensor, tau: Tensor, other: Tensor, left: bool = True, transpose: bool = False, *,
          out=None) -> Tensor:
    """``other`` multiplied by the Q of geqrf's ``(input, tau)``: Q C, Q^T C (``transpose``), or
    C Q / C Q^T (``left=False``), with the full square Q (LAPACK's ormqr).

    Composed from householder_product (so differentiable in all three inputs, twice).

    >>> import retrograd as torch
    >>> a, tau = torch.geqrf(torch.tensor([[3., 1.], [4., 2.]]))
    >>> torch.ormqr(a, tau, torch.eye(2))
    tensor([[-0.6000, -0.8000],
            [-0.8000,  0.6000]])
    """
    _ormqr_checks(input, tau, other, left)
    from ..joining import cat

    m, k = input._data.shape[-2], tau._data.shape[-1]
    # the first k reflector columns, padded with zero columns to m x m: householder_product
    # then gives all m columns of Q = H_1 ... H_k
    refl = slice_dim(input, -1, 0, k)
    if m > k:
        refl = cat([refl, _const(np.zeros(refl._data.shape[:-1] + (m - k,)), refl)], -1)
    q = householder_product(refl, tau) if k else _const(np.broadcast_to(np.eye(m), input._data.shape[:-2] + (m, m))
                                                        .copy(), input)
    if transpose:
        q = mT(q)
    return matmul(q, other) if left else matmul(other, q)
