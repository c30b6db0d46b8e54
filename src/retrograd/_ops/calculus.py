"""Diff, gradient, trapezoid/trapz, cumulative_trapezoid."""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ._out import declares_out
from ._common import wrap_dim
from ._composite import _R
from .copies import _tensor_arg

__all__ = ["diff", "trapezoid", "trapz", "cumulative_trapezoid", "gradient"]


# ================================================================ differences and integrals
@declares_out("cast", grad_name="sub")
def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """n-th forward difference along ``dim``.

    >>> import retrograd as torch
    >>> torch.diff(torch.tensor([1., 4., 9.]))
    tensor([3., 5.])
    """
    R = _R()
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, input.dim())
    if n == 0:  # PyTorch: a copy of input itself (prepend / append unused), node CopyBackwards
        return R.empty_like(input).copy_(input)
    parts = []
    for name, t in (("prepend", prepend), (None, input), ("append", append)):
        if t is None:
            continue
        if name is not None:
            if not isinstance(t, Tensor):
                t = R.tensor(t, dtype=input.dtype)
            if t.dim() == 0:
                shape = list(input.shape)
                shape[d] = 1
                t = t.expand(shape)
            elif t.dim() != input.dim():
                raise RuntimeError("diff expects prepend or append to be the same dimension as input")
            for k in range(input.dim()):
                if k != d and t.shape[k] != input.shape[k]:
                    raise RuntimeError(
                        "diff expects the shape of tensor to prepend or append to match that of input except "
                        f"along the differencing dimension; input.size({k}) = {input.shape[k]}, but got "
                        f"tensor.size({k}) = {t.shape[k]}")
        parts.append(t)
    x = R.cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        L = x.shape[d]
        if L == 0:
            break
        a, b = x.narrow(d, 1, L - 1), x.narrow(d, 0, L - 1)
        x = R.logical_xor(a, b) if x.dtype == D.bool else a - b
    return x


def _trap_dx(y: Tensor, d: int, dx) -> Tensor:
    return y.sum(d) * 0 if y.shape[d] == 0 else (y.sum(d) - (y.select(d, 0) + y.select(d, -1)) * 0.5) * dx


def trapezoid(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """Trapezoidal rule along ``dim`` (sample points ``x`` or spacing ``dx``).

    >>> import retrograd as torch
    >>> torch.trapezoid(torch.tensor([1., 2., 3.]))
    tensor(4.)
    """
    d = wrap_dim(dim, y.dim())
    if x is not None and dx is not None:
        raise TypeError("trapezoid() received an invalid combination of arguments")
    if y.shape[d] == 0:  # PyTorch: zeros without a graph (numpy's answer for no samples)
        shape = [s for k, s in enumerate(y.shape) if k != d]
        return Tensor._wrap(np.zeros(shape, dtype=y._data.dtype), False, None, 0)
    if isinstance(x, Tensor):
        L = y.shape[d]
        if x.dim() == 1 and x.shape[0] != L:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        if x.dim() == 1:
            shape = [1] * y.dim()
            shape[d] = x.shape[0]
            x = x.reshape(shape)
            spacing = diff(x, dim=d)
        else:
            spacing = diff(x, dim=d)
        return (spacing * (y.narrow(d, 1, L - 1) + y.narrow(d, 0, L - 1))).sum(d) / 2.0
    if x is not None:
        dx = x
    return _trap_dx(y, d, 1.0 if dx is None else dx)


def trapz(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """Alias of :func:`trapezoid`.

    >>> import retrograd as torch
    >>> torch.trapz(torch.tensor([1., 2., 3.]), dx=2.)
    tensor(8.)
    """
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """Cumulative trapezoidal rule along ``dim``.

    >>> import retrograd as torch
    >>> torch.cumulative_trapezoid(torch.tensor([1., 2., 3.]))
    tensor([1.5000, 4.0000])
    """
    R = _R()
    d = wrap_dim(dim, y.dim())
    L = y.shape[d]
    pair = y.narrow(d, min(1, L), max(L - 1, 0)) + y.narrow(d, 0, max(L - 1, 0))
    if isinstance(x, Tensor):
        if x.dim() == 1:
            if x.shape[0] != L:
                raise RuntimeError("cumulative_trapezoid: There must be one `x` value for each sample point")
            shape = [1] * y.dim()
            shape[d] = x.shape[0]
            x = x.reshape(shape)
        return R.cumsum(diff(x, dim=d) * pair, d) / 2.0  # PyTorch's order: cumsum, then halve
    step = dx if dx is not None else (x if x is not None else 1.0)
    return R.cumsum(pair * (step / 2.0), d)


# ------------------------------------------------------------------ torch.gradient
def _sl(f: Tensor, dim: int, start, stop) -> Tensor:
    from .shape import slice_dim

    return slice_dim(f, dim, start, stop, 1)


def _coord_view(c: Tensor, dim: int, ndim: int) -> Tensor:
    shape = [1] * ndim
    shape[dim] = -1
    return c.reshape(shape)


def _grad_one(f: Tensor, dim: int, h, edge_order: int) -> Tensor:
    R = _R()
    if not isinstance(h, Tensor):  # uniform spacing
        interior = (_sl(f, dim, 2, None) - _sl(f, dim, None, -2)) / (2 * h)
        if edge_order == 1:
            first = (_sl(f, dim, 1, 2) - _sl(f, dim, 0, 1)) / h
            last = (_sl(f, dim, -1, None) - _sl(f, dim, -2, -1)) / h
        else:
            first = (-1.5 * _sl(f, dim, 0, 1) + 2 * _sl(f, dim, 1, 2) - 0.5 * _sl(f, dim, 2, 3)) / h
            last = (0.5 * _sl(f, dim, -3, -2) - 2 * _sl(f, dim, -2, -1) + 1.5 * _sl(f, dim, -1, None)) / h
        return R.cat([first, interior, last], dim)
    nd = f.ndim
    dx = h[1:] - h[:-1]
    dx1, dx2 = _coord_view(dx[:-1], dim, nd), _coord_view(dx[1:], dim, nd)
    a = -dx2 / (dx1 * (dx1 + dx2))
    b = (dx2 - dx1) / (dx1 * dx2)
    c = dx1 / (dx2 * (dx1 + dx2))
    interior = a * _sl(f, dim, None, -2) + b * _sl(f, dim, 1, -1) + c * _sl(f, dim, 2, None)
    if edge_order == 1:
        first = (_sl(f, dim, 1, 2) - _sl(f, dim, 0, 1)) / dx[0]
        last = (_sl(f, dim, -1, None) - _sl(f, dim, -2, -1)) / dx[-1]
    else:
        d1, d2 = dx[0], dx[1]
        first = (-(2 * d1 + d2) / (d1 * (d1 + d2)) * _sl(f, dim, 0, 1) + (d1 + d2) / (d1 * d2) * _sl(f, dim, 1, 2)
                 - d1 / (d2 * (d1 + d2)) * _sl(f, dim, 2, 3))
        d1, d2 = dx[-2], dx[-1]
        last = (d2 / (d1 * (d1 + d2)) * _sl(f, dim, -3, -2) - (d2 + d1) / (d1 * d2) * _sl(f, dim, -2, -1)
                + (2 * d2 + d1) / (d2 * (d1 + d2)) * _sl(f, dim, -1, None))
    return R.cat([first, interior, last], dim)


def gradient(input: Tensor, *, spacing=1, dim=None, edge_order: int = 1) -> tuple:
    """Central-difference estimate of the gradient of ``input`` along each of ``dim``
    (all dims by default); one tensor per dim.

    >>> import retrograd as torch
    >>> torch.gradient(torch.tensor([1., 2., 4., 8.]))
    (tensor([1.0000, 1.5000, 3.0000, 4.0000]),)
    """
    from ._common import wrap_dim

    _tensor_arg("gradient", input)
    if input._data.dtype.kind == "b":  # (PyTorch's differences are subtractions: refused for bool)
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    nd = input.ndim
    dims = list(range(nd)) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    dims = [wrap_dim(d, nd) for d in dims]
    if spacing is None:  # (PyTorch's default, spelled out)
        spacing = 1
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            if dim is None:
                raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or a list of "
                                   f"length equal to 'self.dim() = {nd}', since dim argument was not given, but "
                                   f"got a list of length {len(spacing)}")
            raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
                               "dim arguments to have the same length, but got a spacing argument of length "
                               f"{len(spacing)} and a dim argument of length {len(dims)}.")
        hs = list(spacing)
    else:
        hs = [spacing] * len(dims)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    f = input if input.is_floating_point() else input.to(D.get_default_dtype())
    return tuple(_grad_one(f, d, h, edge_order) for d, h in zip(dims, hs))
