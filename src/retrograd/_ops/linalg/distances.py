"""Dist, cdist."""
from __future__ import annotations

import math

import numpy as np

from ..._tensor import Tensor, _scalar_type_name
from .._composite import _R
from .._registry import apply, primitive
from ..clamp import clamp
from ..comparison import eq
from ..masked import where
from ..reduction import sum
from ..shape import reshape, unsqueeze
from ..unary import abs, sign, sqrt
from .products import _tn, mT, matmul

__all__ = ["dist", "cdist"]


# ================================================================ norms
def _dist_fw(a, b, *, p):
    d = np.abs(a - b).astype(np.result_type(a, b))
    if p == 0:
        r = np.count_nonzero(d)
    elif p == math.inf:
        r = d.max() if d.size else 0.0
    elif p == -math.inf:
        r = d.min() if d.size else math.inf
    else:
        with np.errstate(divide="ignore", over="ignore"):
            r = np.sum(d ** p) ** (1.0 / p)
    return np.asarray(r, dtype=d.dtype)


def _dist_grad(g, a, b, out, p):
    """d dist / d a: PyTorch's norm_backward of ``a - b`` (None for p = 0, 0 where the norm is 0,
    NaN-safe masks for the inf-norms)."""
    from .norms import _vector_norm_backward

    return _vector_norm_backward(g, a - b, out, p, None, False)


def _neg_or_none(x):
    return None if x is None else -x


_dist = primitive("dist", _dist_fw, node="DistBackward0",
                  a=lambda g, a, b, out, p: _dist_grad(g, a, b, out, p),
                  b=lambda g, a, b, out, p: _neg_or_none(_dist_grad(g, a, b, out, p)))


def dist(input: Tensor, other: Tensor, p=2) -> Tensor:
    """p-norm of ``input - other``.

    >>> import retrograd as torch
    >>> torch.dist(torch.tensor([3., 0.]), torch.tensor([0., 4.]))
    tensor(5.)
    """
    R = _R()
    if not isinstance(other, Tensor):
        raise TypeError(f"dist(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    if input.dtype == R.bool and other.dtype == R.bool:  # PyTorch subtracts first
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if input.dtype == R.bool or other.dtype == R.bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    dt = R.result_type(input, other)
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. "
                           f"Got {_scalar_type_name(dt)} instead.")
    try:
        shape = np.broadcast_shapes(tuple(input.shape), tuple(other.shape))
    except ValueError:
        from .._common import broadcast_error

        raise broadcast_error(tuple(input.shape), tuple(other.shape)) from None
    p = float(p)
    if (p < 0 or p == math.inf) and math.prod(shape) == 0:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm on an empty tensor because the "
                           "operation does not have an identity")
    return apply(_dist, (input, other), {"p": p}, dt)


# ---------------------------------------------------------------- cdist
def _cdist_fw(x1, x2, *, p):
    diff = np.abs(x1[..., :, None, :] - x2[..., None, :, :])
    with np.errstate(over="ignore", invalid="ignore"):
        if p == 0:
            r = (diff != 0).sum(-1)
        elif p == 1:
            r = diff.sum(-1)
        elif p == 2:
            r = np.sqrt((diff * diff).sum(-1))
        elif p == math.inf:
            r = diff.max(-1) if diff.shape[-1] else diff.sum(-1)
        else:
            r = (diff ** p).sum(-1) ** (1.0 / p)
    return np.asarray(r, dtype=x1.dtype)


def _cdist_weight(x1, x2, out, p):
    """d dist[i, j] / d x1[i] for every pair: shape (..., P, R, M)."""
    diff = unsqueeze(x1, -2) - unsqueeze(x2, -3)
    d = unsqueeze(out, -1)
    if p == 1:
        return sign(diff)
    if p == 2:
        return where(d == 0, 0.0, diff / d)
    if p == math.inf:
        return sign(diff) * eq(abs(diff), d).to(diff.dtype)
    if p < 1:
        w = where(diff == 0, 0.0, sign(diff) * abs(diff) ** (p - 1))
        return where(d == 0, 0.0, w / d ** (p - 1))
    if p < 2:
        return where(d == 0, 0.0, sign(diff) * abs(diff) ** (p - 1) / d ** (p - 1))
    return where(d == 0, 0.0, diff * abs(diff) ** (p - 2) / d ** (p - 1))


def _cdist_grad(g, x1, x2, out, p, first: bool):
    if p == 0:  # PyTorch: zeros, not an undefined gradient
        return (x1 if first else x2) * 0.0
    w = unsqueeze(g, -1) * _cdist_weight(x1, x2, out, p)
    return sum(w, -2) if first else -sum(w, -3)


_cdist = primitive("cdist", _cdist_fw, node="CdistBackward0",
                   x1=lambda g, x1, x2, out, p: _cdist_grad(g, x1, x2, out, p, True),
                   x2=lambda g, x1, x2, out, p: _cdist_grad(g, x1, x2, out, p, False))


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """p-norm distances between each row of x1 and each row of x2 (batch dims broadcast).

    >>> import retrograd as torch
    >>> torch.cdist(torch.tensor([[0., 0.]]), torch.tensor([[3., 4.], [0., 1.]]))
    tensor([[5., 1.]])
    """
    for name, x in (("X1", x1), ("X2", x2)):
        if x._data.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x._data.ndim}D")
    if x1._data.shape[-1] != x2._data.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1._data.shape[-1]} "
                           f"X2: {x2._data.shape[-1]}")
    for name, x in (("X1", x1), ("X2", x2)):
        if x._data.dtype.kind != "f":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {_tn(x)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if x1._data.dtype != x2._data.dtype:
        raise RuntimeError(f"expected scalar type {_tn(x1)} but found {_tn(x2)}")
    P, R = x1._data.shape[-2], x2._data.shape[-2]
    use_mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode == "use_mm_for_euclid_dist_if_necessary" and (P > 25 or R > 25)))
    if use_mm:
        # PyTorch's matmul form: |a|^2 - 2 a.b + |b|^2 (fast, twice differentiable).
        x1n = sum(x1 * x1, -1, keepdim=True)
        x2n = sum(x2 * x2, -1, keepdim=True)
        res = sqrt(clamp(matmul(x1 * -2, mT(x2)) + x1n + mT(x2n), min=1e-30))
        return reshape(res, res._data.shape)
    return apply(_cdist, (x1, x2), {"p": float(p)})
