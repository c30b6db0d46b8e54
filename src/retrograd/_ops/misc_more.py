"""Assorted torch top-level functions: differences and integrals (diff, trapezoid), statistics
(cov, corrcoef, quantile, bincount, histc, histogram), index helpers (tril_indices, combinations,
unravel_index), integer and float bit ops (gcd, lcm, frexp, ldexp, nextafter, signbit), special
functions (i0, mvlgamma), splitting/scattering helpers and matrix_exp.

Differentiable ones are composites of existing ops (so every derivative is differentiable
again); only ``i0``/``frexp``/``heaviside``/``nextafter`` declare primitives here.
"""
from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from .. import _dtype as D
from ._special_kernels import _bessel_i_series
from .. import return_types as RT
from .._tensor import Tensor, _scalar_type_name
from ._common import tensor_args, wrap_dim
from ._out import with_out
from ._registry import apply, check_inplace_cast, primitive

__all__ = ["diff", "cov", "corrcoef", "quantile", "nanquantile", "bincount", "histc", "histogram",
           "tril_indices", "triu_indices", "cartesian_prod", "combinations", "block_diag", "isin", "dist",
           "renorm", "vander", "trapezoid", "trapz", "cumulative_trapezoid", "logcumsumexp", "signbit",
           "heaviside", "gcd", "lcm", "frexp", "ldexp", "nextafter", "i0", "mvlgamma", "dsplit", "hsplit",
           "vsplit", "select_scatter", "slice_scatter", "diagonal_scatter", "msort", "narrow_copy",
           "matrix_exp", "unravel_index", "poisson",
           "gcd_", "lcm_", "ldexp_", "i0_"]  # torch has these in-place forms at top level; the others are methods
METHODS = ["diff", "cov", "corrcoef", "quantile", "nanquantile", "bincount", "histc", "histogram", "dist",
           "renorm", "logcumsumexp", "signbit", "heaviside", "gcd", "lcm", "frexp", "ldexp", "nextafter", "i0",
           "mvlgamma", "dsplit", "hsplit", "vsplit", "select_scatter", "slice_scatter", "diagonal_scatter",
           "msort", "narrow_copy", "matrix_exp",
           "gcd_", "lcm_", "ldexp_", "heaviside_", "i0_", "nextafter_", "renorm_", "mvlgamma_"]

_wrap = Tensor._wrap


def _R():
    import retrograd

    return retrograd


def _const(a) -> Tensor:
    return _wrap(np.asarray(a), False, None, 0)


def _tname(t: Tensor) -> str:
    return _scalar_type_name(t.dtype)


def _supports_out(fn):
    """PyTorch's ``out=``: the result is copied into ``out`` (resized as PyTorch does)."""
    from .pointwise import _out

    @functools.wraps(fn)
    def wrapper(*args, out=None, **kwargs):
        res = fn(*args, **kwargs)
        if out is None:
            return res
        name = fn.__name__.rstrip("_")  # (the op's own name in PyTorch's messages, not "wrapper")
        inputs = tuple(a for a in args if isinstance(a, Tensor))
        if isinstance(res, tuple):
            for o, r in zip(out, res):
                _out(r, o, name, inputs=inputs)
            return type(res)(tuple(out))
        return _out(res, out, name, inputs=inputs)
    return wrapper


def _inplace(self: Tensor, compute, *others) -> Tensor:
    """Write ``compute(self)`` back into self as PyTorch's in-place kernel would (see _inplace.py)."""
    from ._inplace import inplace_via

    return inplace_via(self, compute, others)


# ================================================================ differences and integrals
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
                raise RuntimeError(f"diff expects prepend or append to be the same dimension as input")
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


# ================================================================ statistics
def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """Covariance matrix of the variables in the rows of ``input``.

    >>> import retrograd as torch
    >>> torch.cov(torch.tensor([[0., 1., 2.], [2., 1., 0.]]))
    tensor([[ 1., -1.],
            [-1.,  1.]])
    """
    if isinstance(input, Tensor) and input._data.dtype.kind == "b":
        raise RuntimeError("cov(): bool dtype is not supported for input")
    R = _R()
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    if not x.is_floating_point():
        x = x.to(R.get_default_dtype())
    n_obs = x.shape[1]
    from .._tensor import _scalar_type_name

    for name, wt, kind in (("fweights", fweights, "integral"), ("aweights", aweights, "floating point")):
        if wt is None:
            continue
        if wt.dim() > 1:
            raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
                               f"{wt.dim()} dimensions")
        k = wt._data.dtype.kind
        if (kind == "integral" and k not in "iu") or (kind != "integral" and k != "f"):
            raise RuntimeError(f"cov(): expected {name} to have {kind} dtype but got {name} with "
                               f"{_scalar_type_name(wt.dtype)} dtype")
        if wt.numel() != n_obs:
            raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the "
                               f"input but got {wt.numel()} != {n_obs}")
        if n_obs and (wt._data < 0).any():
            raise RuntimeError(f"cov(): {name} cannot be negative")
    w = None
    if fweights is not None:
        w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.mean(1)
        w_sum = n_obs
        norm = w_sum - correction
    else:
        # (the weights keep their own dtype, as in PyTorch: w_sum and the norm factor of float32
        # aweights are float32 numbers even for a float64 input)
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aweights).sum() / w_sum
    if isinstance(norm, Tensor):
        norm = R.clamp(norm, min=0)
    else:
        norm = max(norm, 0)
    xm = x - avg.unsqueeze(1)
    xw = xm if w is None else xm * w
    c = R.mm(xm, xw.t().conj() if xw.is_complex() else xw.t())
    return (c / norm).squeeze()


def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of the rows of ``input``.

    >>> import retrograd as torch
    >>> torch.corrcoef(torch.tensor([[0., 1., 2.], [2., 1., 0.]]))
    tensor([[ 1., -1.],
            [-1.,  1.]])
    """
    R = _R()
    if input.dim() > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    c = cov(input)
    if c.dim() == 0:
        return c / c
    std = R.sqrt(R.diagonal(c))
    c = c / std.unsqueeze(1)
    c = c / std.unsqueeze(0)
    return R.clamp(c, -1, 1)


_INTERP = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name: str, input: Tensor, q, dim, keepdim: bool, interpolation: str, ignore_nan: bool) -> Tensor:
    R = _R()
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if input.dtype not in (D.float32, D.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if interpolation not in _INTERP:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    q_scalar = not isinstance(q, Tensor) or q.dim() == 0
    qv = np.atleast_1d(np.asarray(q._data if isinstance(q, Tensor) else q, dtype=np.float64))
    if isinstance(q, Tensor):
        if q.dim() > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q.dtype != input.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
    if np.any((qv < 0) | (qv > 1)):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]" if isinstance(q, Tensor)
                           else f"{name}() q must be in the range [0, 1] but got {float(qv[0])}")
    if dim is None:
        x = input.reshape(-1)
        d = 0
        out_shape = [1] * input.dim() if keepdim else []
    else:
        d = wrap_dim(dim, max(input.dim(), 1))
        x = input.reshape(1) if input.dim() == 0 else input
        out_shape = list(x.shape)
        if keepdim:
            out_shape[d] = 1
        else:
            del out_shape[d]
        if input.dim() == 0:
            out_shape = []
        x = x.movedim(d, -1)
    srt = R.sort(x, -1).values  # NaN sorts last
    data = x._data
    n = data.shape[-1]
    nan = np.isnan(data)
    if ignore_nan:
        valid = (n - nan.sum(-1)).astype(np.float64)
        last = valid - 1
    else:
        valid = np.full(data.shape[:-1], n, dtype=np.float64)
        last = np.where(nan.any(-1), n - 1, n - 1).astype(np.float64)
    # in the input dtype, as PyTorch computes them: float32 ranks round differently from float64
    ranks = qv.astype(data.dtype).reshape((1,) * (data.ndim - 1) + (-1,)) * (valid[..., None] - 1).astype(data.dtype)
    if not ignore_nan:
        ranks = np.where(nan.any(-1)[..., None], n - 1, ranks)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)
    all_nan = (valid[..., None] <= 0) if ignore_nan else np.zeros(ranks.shape, bool)
    ranks = np.clip(ranks, 0, n - 1)
    below = np.floor(ranks).astype(np.int64)
    above = np.minimum(np.ceil(ranks).astype(np.int64), np.maximum(last[..., None], 0).astype(np.int64))
    above = np.maximum(above, below)
    vb = R.gather(srt, -1, R.from_numpy(below))
    va = R.gather(srt, -1, R.from_numpy(above))
    if interpolation == "linear" and isinstance(q, Tensor) and q.requires_grad:
        # the weight is q * (count - 1) - below: differentiable in q, as in PyTorch (and the
        # gradient of ``input`` then depends on q too)
        rk = q.reshape((1,) * (data.ndim - 1) + (-1,)) * _const((valid[..., None] - 1).astype(data.dtype))
        if not ignore_nan:
            rk = R.where(_const(nan.any(-1)[..., None]), _const(np.array(n - 1, data.dtype)), rk)
        res = R.lerp(vb, va, R.expand(rk - _const(below.astype(data.dtype)), ranks.shape))
    elif interpolation in ("linear", "midpoint"):
        wt = 0.5 if interpolation == "midpoint" else ranks - below
        res = R.lerp(vb, va, _const(np.asarray(wt, dtype=data.dtype) * np.ones(ranks.shape, data.dtype)))
    else:
        res = vb
    if all_nan.any():
        res = R.where(_const(all_nan), _const(np.array(np.nan, data.dtype)), res)
    # res: (..., nq) -> (nq, *out_shape)
    res = res.movedim(-1, 0).reshape([len(qv)] + out_shape)
    return res[0] if q_scalar else res


@_supports_out
def quantile(input: Tensor, q, dim: int | None = None, keepdim: bool = False, *,
             interpolation: str = "linear", out=None) -> Tensor:
    """q-th quantiles of ``input`` (along ``dim``), PyTorch's interpolation modes.

    >>> import retrograd as torch
    >>> torch.quantile(torch.tensor([0., 1., 2., 3.]), 0.5)
    tensor(1.5000)
    """
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


@_supports_out
def nanquantile(input: Tensor, q, dim: int | None = None, keepdim: bool = False, *,
                interpolation: str = "linear", out=None) -> Tensor:
    """:func:`quantile` ignoring NaN.

    >>> import retrograd as torch
    >>> torch.nanquantile(torch.tensor([0., float('nan'), 2.]), 0.5)
    tensor(1.)
    """
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """Count of each non-negative integer value (optionally weighted).

    >>> import retrograd as torch
    >>> torch.bincount(torch.tensor([0, 1, 1, 3]))
    tensor([1, 2, 0, 1])
    """
    a = input._data
    if a.dtype.kind not in "iu":
        raise NotImplementedError(f'"bincount_cpu" not implemented for \'{_tname(input)}\'')
    if a.ndim != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if a.size and a.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None or a.size == 0:  # (PyTorch: an empty input counts in int64 even with weights)
        return _const(np.bincount(a, minlength=minlength).astype(np.int64))
    w = weights._data
    if w.ndim != 1 or w.shape[0] != a.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    # PyTorch accumulates float32 weights in float32, one element after another (np.add.at keeps that
    # order and rounding), and every other weight dtype in float64
    dt = np.float32 if w.dtype == np.float32 else np.float64
    out = np.zeros(int(a.max()) + 1 if a.size and int(a.max()) >= minlength else minlength, dtype=dt)
    np.add.at(out, a, w.astype(dt))
    return _const(out)


@_supports_out
def histc(input: Tensor, bins: int = 100, min=0, max=0, *, out=None) -> Tensor:  # noqa: A002
    """Histogram with ``bins`` equal bins over [min, max] (data range when both are 0).

    >>> import retrograd as torch
    >>> torch.histc(torch.tensor([1., 2., 1.]), bins=4, min=0, max=3)
    tensor([0., 2., 1., 0.])
    """
    a = input._data
    if bins <= 0:
        raise RuntimeError("torch.histogram(): bins must be > 0, but got %d for dimension 0" % bins)
    lo, hi = float(min), float(max)
    if lo > hi:  # (checked before the dtype: integer inputs get this error too)
        raise RuntimeError("torch.histc: max must be larger than min")
    if a.dtype.kind != "f":
        raise NotImplementedError(f'"histogram_cpu" not implemented for \'{_tname(input)}\'')
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())  # NaN data gives a NaN range (an error below)
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite")
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    # PyTorch's kernel: bin edges from linspace in the input dtype, then a bin position computed from
    # the outer edges in that dtype (so an element on an inner edge lands where float rounding says)
    dt = a.dtype.type
    steps = np.arange(bins + 1)
    step = (dt(hi) - dt(lo)) / dt(bins)
    edges = np.where(steps < (bins + 1) // 2, dt(lo) + step * steps.astype(a.dtype),
                     dt(hi) - step * (bins - steps).astype(a.dtype)).astype(a.dtype)
    left, right = edges[0], edges[-1]
    flat = a.reshape(-1)
    flat = flat[(flat >= left) & (flat <= right)]
    with np.errstate(over="ignore", invalid="ignore"):
        pos = ((flat - left) / (right - left) * dt(bins)).astype(np.int64)
    pos = np.minimum(pos, bins - 1)  # (the last edge belongs to the last bin)
    return _const(np.bincount(pos, minlength=bins).astype(a.dtype))


@_supports_out
def histogram(input: Tensor, bins=100, *, range=None, weight: Tensor | None = None,  # noqa: A002
              density: bool = False, out=None):
    """Histogram and bin edges (``torch.return_types.histogram``).

    >>> import retrograd as torch
    >>> torch.histogram(torch.tensor([1., 2., 1.]), bins=4).hist
    tensor([2., 0., 0., 1.])
    """
    a = input._data
    if a.dtype.kind != "f":
        raise RuntimeError(f'"histogram_cpu" not implemented for \'{_tname(input)}\'')
    edges = bins._data if isinstance(bins, Tensor) else bins
    if range is None and not isinstance(bins, Tensor):
        if a.size:
            lo, hi = float(a.min()), float(a.max())
        else:
            lo, hi = 0.0, 0.0
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5  # numpy's widening; PyTorch matches it
        rng = (lo, hi)
    else:
        rng = range
    if isinstance(bins, Tensor) and bins.dtype != input.dtype:
        raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, but got "
                           f"input with dtype {_tname(input).lower()} and bins for dimension 0 with dtype "
                           f"{_tname(bins).lower()}")
    w = None if weight is None else weight._data.reshape(-1)
    if isinstance(edges, np.ndarray):
        h, e = np.histogram(a.reshape(-1), bins=edges.astype(np.float64), weights=w, density=density)
    else:
        e = np.linspace(rng[0], rng[1], int(edges) + 1).astype(a.dtype).astype(np.float64)
        h, e = np.histogram(a.reshape(-1), bins=e, weights=w, density=density)
    return RT.histogram((_const(h.astype(a.dtype)), _const(e.astype(a.dtype))))


# ================================================================ index helpers
def _tri_indices(fn, row: int, col: int, offset: int, dtype) -> Tensor:
    dt = (dtype or D.int64)
    if dt.np.kind not in "iu":
        from .._tensor import _scalar_type_name

        name = "tril_indices" if fn is np.tril_indices else "triu_indices"
        raise NotImplementedError(f'"{name}" not implemented for \'{_scalar_type_name(dt)}\'')
    for what, n in (("row", row), ("col", col)):
        if n < 0:
            raise RuntimeError(f"{what} must be non-negative, got{n}")  # (sic: PyTorch's text has no space)
    r, c = fn(row, offset, col)
    return _const(np.stack([r, c]).reshape(2, -1).astype(dt.np))


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None,
                 pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """Indices of the lower triangle of a row x col matrix (2 x N).

    >>> import retrograd as torch
    >>> torch.tril_indices(2, 2)
    tensor([[0, 1, 1],
            [0, 0, 1]])
    """
    return _tri_indices(np.tril_indices, row, col, offset, dtype)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None,
                 pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """Indices of the upper triangle of a row x col matrix (2 x N).

    >>> import retrograd as torch
    >>> torch.triu_indices(2, 2)
    tensor([[0, 0, 1],
            [0, 1, 1]])
    """
    return _tri_indices(np.triu_indices, row, col, offset, dtype)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Cartesian product of 1-D tensors (rows of combinations).

    >>> import retrograd as torch
    >>> torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4]))
    tensor([[1, 3],
            [1, 4],
            [2, 3],
            [2, 4]])
    """
    R = _R()
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    if len({t.dtype for t in tensors}) > 1:
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    grids = R.meshgrid(*tensors, indexing="ij")
    return R.stack([g.flatten() for g in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """Length-``r`` combinations of a 1-D tensor's elements (rows).

    >>> import retrograd as torch
    >>> torch.combinations(torch.tensor([1, 2, 3]))
    tensor([[1, 2],
            [1, 3],
            [2, 3]])
    """
    R = _R()
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return R.empty(0, dtype=input.dtype)
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(gen(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return R.stack([input[R.from_numpy(idx[:, k].copy())] for k in range(r)], 1)


def _block_diag_fw(arrays, *, blocks, size, dtype):
    out = np.zeros(size, dtype=dtype)
    for a, (r0, c0, h, w, _) in zip(arrays, blocks):
        out[r0:r0 + h, c0:c0 + w] = np.reshape(a, (h, w))
    return out


def _block_diag_rule(i: int):
    def rule(g, blocks):
        r0, c0, h, w, shape = blocks[i]
        return g[r0:r0 + h, c0:c0 + w].reshape(shape)
    return rule


def block_diag(*tensors: Tensor) -> Tensor:
    """Block-diagonal matrix from the given tensors (0-D, 1-D or 2-D).

    >>> import retrograd as torch
    >>> torch.block_diag(torch.tensor([[1, 2]]), torch.tensor([[3]]))
    tensor([[1, 2, 0],
            [0, 0, 3]])
    """
    from .shape_more import _variadic

    R = _R()
    blocks, r0, c0 = [], 0, 0
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
        h, w = (1, 1) if t.dim() == 0 else ((1, t.shape[0]) if t.dim() == 1 else tuple(t.shape))
        blocks.append((r0, c0, h, w, tuple(t.shape)))
        r0, c0 = r0 + h, c0 + w
    if not tensors:
        return R.empty(1, 0)
    dt = tensors[0].dtype
    for t in tensors[1:]:
        dt = R.promote_types(dt, t.dtype)
    op = _variadic("block_diag", len(tensors), _block_diag_fw, _block_diag_rule, "BlockDiagBackward0",
                   ("blocks", "size", "dtype"))
    return apply(op, tuple(tensors), {"blocks": tuple(blocks), "size": (r0, c0), "dtype": dt.np}, dt)


def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """Whether each element of ``elements`` is in ``test_elements``.

    >>> import retrograd as torch
    >>> torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2, 5]))
    tensor([False,  True, False])
    """
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments")
    e = elements._data if isinstance(elements, Tensor) else np.asarray(elements)
    t = test_elements._data if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    return _const(np.isin(e, t, invert=invert).reshape(np.shape(e)))


def unravel_index(indices, shape) -> tuple:
    """Coordinates of flat ``indices`` in an array of ``shape`` (a tuple of tensors).

    >>> import retrograd as torch
    >>> torch.unravel_index(torch.tensor(4), (3, 2))
    (tensor(2), tensor(0))
    """
    if not isinstance(indices, Tensor):
        raise TypeError(f"expected 'indices' to be integer dtype, but got {type(indices).__name__}")
    a = indices._data
    if a.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, Tensor) or not isinstance(shape, (int, np.integer, list, tuple)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if not isinstance(shape, (int, np.integer)):
        for s in shape:
            if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
                raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(s)}")
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError("'shape' cannot have negative values, but got " + str(tuple(shape)))
    # PyTorch divides with floor semantics and wraps out-of-range indices (no bounds check)
    rest = a.astype(np.int64)
    coords = []
    for s in reversed(shape):
        if s == 0:
            coords.append(np.zeros_like(rest))
            continue
        coords.append(np.mod(rest, s))
        rest = np.floor_divide(rest, s)
    return tuple(_const(c) for c in reversed(coords))


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
    from ._linalg_norms import _vector_norm_backward

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
        from ._common import broadcast_error

        raise broadcast_error(tuple(input.shape), tuple(other.shape)) from None
    p = float(p)
    if (p < 0 or p == math.inf) and math.prod(shape) == 0:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm on an empty tensor because the "
                           "operation does not have an identity")
    return apply(_dist, (input, other), {"p": p}, dt)


def _renorm_norm_np(a, p, dims):
    from ._linalg_norms import _vector_norm_fw

    # PyTorch computes the norm in the accumulate type (double for float on CPU)
    acc = a.astype(np.float64) if a.dtype == np.float32 else a
    return _vector_norm_fw(acc, ord=p, dims=dims, keepdim=True)


def _renorm_fw(a, *, p, dims, maxnorm):
    norm = _renorm_norm_np(a, p, dims)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        factor = np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
    return (a * factor).astype(a.dtype)


def _renorm_rule(g, a, p, dims, maxnorm):
    # PyTorch's renorm_backward: out = a * maxnorm / (n + 1e-7) where n > maxnorm, with n's
    # gradient from norm_backward (0 at zero slices, NaN-safe), else out = a.
    from ._linalg_norms import _vector_norm_backward

    R = _R()
    norm = R.linalg.vector_norm(a, p, dim=list(dims), keepdim=True)
    nb = _vector_norm_backward((a * g).sum(list(dims), keepdim=True), a, norm, float(p), tuple(dims), True)
    invnorm = 1.0 / (norm + 1e-7)
    factor = invnorm * maxnorm
    return R.where(norm > maxnorm, factor * g - factor * invnorm * nb, g)


_renorm = primitive("renorm", _renorm_fw, node="RenormBackward0", a=_renorm_rule)


@with_out("renorm", "same")
def renorm(input: Tensor, p, dim: int, maxnorm) -> Tensor:
    """Rescale each slice along ``dim`` whose p-norm exceeds ``maxnorm`` to norm ``maxnorm``.

    >>> import retrograd as torch
    >>> torch.renorm(torch.tensor([[3., 4.], [0.3, 0.4]]), 2, 0, 1.)
    tensor([[0.6000, 0.8000],
            [0.3000, 0.4000]])
    """
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {float(maxnorm):g}")
    if input.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions")
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {_tname(input)}")
    d = wrap_dim(dim, input.dim())
    others = tuple(k for k in range(input.dim()) if k != d)
    return apply(_renorm, (input,), {"p": float(p), "dims": others, "maxnorm": float(maxnorm)})


def renorm_(self: Tensor, p, dim: int, maxnorm) -> Tensor:
    """In-place :func:`renorm`."""
    return _inplace(self, lambda x: renorm(x, p, dim, maxnorm))


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """Vandermonde matrix of a 1-D tensor.

    >>> import retrograd as torch
    >>> torch.vander(torch.tensor([1, 2, 3]), N=3)
    tensor([[1, 1, 1],
            [4, 2, 1],
            [9, 3, 1]])
    """
    R = _R()
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dt = x.dtype if x.dtype != D.bool else D.int64
    if x.dtype in (D.int8, D.int16, D.int32, D.uint8, D.bool):
        dt = D.int64
    xx = x.to(dt)
    if n == 0:
        res = R.empty(x.shape[0], 0, dtype=dt)
    elif n == 1:
        res = R.ones(x.shape[0], 1, dtype=dt)
    else:
        res = R.cumprod(R.cat([R.ones(x.shape[0], 1, dtype=dt), xx.unsqueeze(1).expand(-1, n - 1)], 1), 1)
    return res if increasing else R.flip(res, (1,))


def _lcse_fw(a, *, dim):
    with np.errstate(invalid="ignore"):
        return np.logaddexp.accumulate(a, axis=dim) if a.size and a.ndim else a.copy()


def _lcse_rule(g, a, out, dim):
    # d out_k / d a_j = exp(a_j - out_k) for j <= k (each exponent <= 0, so no overflow).  The
    # (n, n) pairing along ``dim`` keeps every term finite, so the rule differentiates again
    # without the NaNs that a log-space form produces for all -inf sums.
    R = _R()
    if a.dim() == 0:
        return g
    n = a.shape[dim]
    am, om, gm = R.movedim(a, dim, -1), R.movedim(out, dim, -1), R.movedim(g, dim, -1)
    diff_kj = am.unsqueeze(-2) - om.unsqueeze(-1)
    mask = _const(np.tril(np.ones((n, n), dtype=bool)))
    w = R.exp(R.where(mask, diff_kj, _const(np.array(-math.inf, dtype=a._data.dtype))))
    return R.movedim((gm.unsqueeze(-1) * w).sum(-2), -1, dim)


_logcumsumexp = primitive("logcumsumexp", _lcse_fw, node="LogcumsumexpBackward0", a=_lcse_rule)


@_supports_out
def logcumsumexp(input: Tensor, dim: int, *, out=None) -> Tensor:
    """log(cumsum(exp(input))) along ``dim``, computed stably.

    >>> import retrograd as torch
    >>> torch.logcumsumexp(torch.tensor([0., 0.]), 0)
    tensor([0.0000, 0.6931])
    """
    if not (input.is_floating_point() or input.is_complex()):
        raise NotImplementedError(f'"logcumsumexp_out_cpu" not implemented for \'{_tname(input)}\'')
    d = wrap_dim(dim, max(input.dim(), 1))
    return apply(_logcumsumexp, (input,), {"dim": d})


# ================================================================ elementwise
@_supports_out
def signbit(input: Tensor, *, out=None) -> Tensor:
    """Whether the sign bit is set (True for -0.0).

    >>> import retrograd as torch
    >>> torch.signbit(torch.tensor([-1., 0., -0.]))
    tensor([ True, False,  True])
    """
    a = input._data
    if a.dtype.kind == "c":
        raise RuntimeError("signbit is not implemented for complex tensors.")
    return _const(np.signbit(a) if a.dtype.kind != "b" else np.zeros(a.shape, bool))


def _nie(name: str):
    def rule(g):
        raise RuntimeError(f"the derivative for '{name}' is not implemented.")
    return rule


def _nie_heaviside(g):
    raise RuntimeError("derivative for aten::heaviside is not implemented")


def _heaviside_fw(a, b):
    # PyTorch: a == 0 ? b : a > 0, so NaN gives 0 (np.heaviside gives NaN)
    return np.where(a == 0, b, a > 0).astype(np.result_type(a, b))


_heaviside = primitive("heaviside", _heaviside_fw,
                       node="NotImplemented", a=_nie_heaviside, b=_nie_heaviside)
# PyTorch's rule: the step is locally constant, so self gets g (0 where self == other), other 0
_nextafter = primitive("nextafter", lambda a, b: np.nextafter(a, b), node="NextafterBackward0",
                       a=lambda g, a, b: g * (a != b).to(g.dtype),
                       b=lambda g: g * 0)


def _same_dtype_operands(name: str, input, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return input, other


@_supports_out
def heaviside(input: Tensor, values: Tensor, *, out=None) -> Tensor:
    """Heaviside step: 0 below zero, 1 above, ``values`` at zero.

    >>> import retrograd as torch
    >>> torch.heaviside(torch.tensor([-1., 0., 2.]), torch.tensor([0.5]))
    tensor([0.0000, 0.5000, 1.0000])
    """
    if not isinstance(values, Tensor):
        raise TypeError(f"heaviside(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    if input._data.dtype.kind == "c":
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    return apply(_heaviside, (input, values))


def heaviside_(self: Tensor, values: Tensor) -> Tensor:
    """In-place :func:`heaviside`."""
    return _inplace(self, lambda x: heaviside(x, values), values)


@_supports_out
def nextafter(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The next float after ``input`` towards ``other``.

    >>> import retrograd as torch
    >>> torch.nextafter(torch.tensor([1.]), torch.tensor([2.])) > 1
    tensor([True])
    """
    input, other = _same_dtype_operands("nextafter", input, other)
    for t in (input, other):
        if t._data.dtype.kind != "f":
            raise NotImplementedError(f'"nextafter_cpu" not implemented for \'{_tname(t)}\'')
    if input.dtype != other.dtype:
        raise RuntimeError(f"expected scalar type {_tname(input)} but found {_tname(other)}")
    return apply(_nextafter, (input, other))


def nextafter_(self: Tensor, other: Tensor) -> Tensor:
    """In-place :func:`nextafter`."""
    return _inplace(self, lambda x: nextafter(x, other), other)


def _int_binary(name: str, npf):
    @tensor_args(name, input=1, other=2)
    def fn(input: Tensor, other: Tensor, *, out=None) -> Tensor:
        R = _R()
        dt = R.result_type(input, other)
        if dt.np.kind not in "iu":  # (PyTorch dispatches on the promoted type: no kernel for it)
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{_scalar_type_name(dt)}\'')
        return _const(np.asarray(npf(input._data, other._data)).astype(dt.np))

    @tensor_args(name + "_", other=2)
    def fn_(self: Tensor, other: Tensor) -> Tensor:
        from ._inplace import check_inplace_shape

        check_inplace_shape(self, np.broadcast_shapes(self._data.shape, other._data.shape))
        check_inplace_cast(_R().result_type(self, other), self)
        return _inplace(self, lambda x: fn(x, other), other)

    fn = _supports_out(fn)
    fn.__name__ = fn.__qualname__ = name
    fn_.__name__ = fn_.__qualname__ = name + "_"
    fn.__doc__ = (f"Elementwise ``{name}`` of integer tensors.\n\n>>> import retrograd as torch\n"
                  f">>> torch.{name}(torch.tensor([4, 6]), torch.tensor([6, 4]))\n"
                  f"tensor([{', '.join(str(int(v)) for v in npf(np.array([4, 6]), np.array([6, 4])))}])\n")
    fn_.__doc__ = f"In-place :func:`{name}`."
    return fn, fn_


gcd, gcd_ = _int_binary("gcd", np.gcd)
lcm, lcm_ = _int_binary("lcm", np.lcm)


def _frexp_fw(a):
    m, e = np.frexp(a)
    return m.astype(a.dtype), e.astype(np.int32)


_frexp = primitive("frexp", _frexp_fw, node="FrexpBackward0", n_out=2,
                   # the exponent is an integer output: a constant here (detached, so the
                   # gradient has no graph through it, as in PyTorch)
                   a=lambda g, out: g[0] / _R().exp2(out[1].detach().to(g[0].dtype)))


@_supports_out
def frexp(input: Tensor, *, out=None):
    """Mantissa in [0.5, 1) and integer exponent (``torch.return_types.frexp``).

    >>> import retrograd as torch
    >>> torch.frexp(torch.tensor([8.])).exponent
    tensor([4], dtype=torch.int32)
    """
    if input._data.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    m, e = apply(_frexp, (input,))
    return RT.frexp((m, Tensor._wrap(e._data, False, None, 0)))  # the int exponent has no grad_fn


_ldexp = primitive("ldexp", lambda a, b: a * np.exp2(b), node="LdexpBackward0",
                   a=lambda g, b: g * _R().exp2(b),
                   b=lambda g, a, b: g * a * _R().exp2(b) * math.log(2.0))


@_supports_out
@tensor_args("ldexp", other=2)
def ldexp(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """input * 2**other.

    >>> import retrograd as torch
    >>> torch.ldexp(torch.tensor([1.]), torch.tensor([3]))
    tensor([8.])
    """
    R = _R()
    if not isinstance(other, Tensor):
        other = R.tensor(other)
    # the operands' promoted type, integral results computed in the default float dtype
    # (float16 with int64 exponents stays float16; int with int is float32)
    dt = R.result_type(input, other)
    if not dt.is_floating_point:
        dt = R.get_default_dtype()
    return apply(_ldexp, (input, other), None, dt)


@tensor_args("ldexp_", other=2)
def ldexp_(self: Tensor, other: Tensor) -> Tensor:
    """In-place :func:`ldexp`."""
    def compute(x: Tensor) -> Tensor:
        res = ldexp(x, other)
        if not self.is_floating_point():
            raise RuntimeError(f"ldexp can't be cast to the desired output type {_tname(self)}")
        return res
    return _inplace(self, compute, other)


def _i0_fw(a):
    return np.i0(a.astype(np.float64)).astype(a.dtype)


def _i1_fw(a):
    r = _bessel_i_series(np.asarray(a, dtype=np.float64), 1).astype(a.dtype)  # (power series, float64)
    return np.where(np.isinf(a), np.nan, r).astype(a.dtype)  # PyTorch's i1 (Cephes) is NaN at +-inf


def _i1_rule(g, a, out):
    R = _R()
    safe = R.where(a == 0, R.ones_like(a), a)
    return g * R.where(a == 0, R.full_like(a, 0.5), i0(a) - out / safe)


_i0 = primitive("i0", _i0_fw, node="I0Backward0", a=lambda g, a: g * _i1(a))
_i1_op = primitive("special_i1", _i1_fw, node="SpecialI1Backward0", a=_i1_rule)


def _i1(a: Tensor) -> Tensor:
    return apply(_i1_op, (a,))


@_supports_out
def i0(input: Tensor, *, out=None) -> Tensor:
    """Modified Bessel function of the first kind, order 0.

    >>> import retrograd as torch
    >>> torch.i0(torch.tensor([0.]))
    tensor([1.])
    """
    R = _R()
    cast = None if input.is_floating_point() else R.get_default_dtype()
    return apply(_i0, (input,), None, cast)


def i0_(self: Tensor) -> Tensor:
    """In-place :func:`i0`."""
    return _inplace(self, i0)


def _mvlgamma_fw(a, *, p):
    from . import _special

    total = sum(np.asarray(_special.lgamma(a.astype(np.float64) - i / 2.0)) for i in range(p))
    return (total + p * (p - 1) / 4 * math.log(math.pi)).astype(a.dtype)


def _mvlgamma_rule(g, a, p):
    R = _R()
    offs = _const(-np.arange(p, dtype=a._data.dtype) / 2)
    return g * R.digamma(a.unsqueeze(-1) + offs).sum(-1)


_mvlgamma = primitive("mvlgamma", _mvlgamma_fw, node="MvlgammaBackward0", a=_mvlgamma_rule)


@_supports_out
def mvlgamma(input: Tensor, p: int, *, out=None) -> Tensor:
    """Multivariate log-gamma of dimension ``p``.

    >>> import retrograd as torch
    >>> torch.mvlgamma(torch.tensor([2.5]), 1)
    tensor([0.2847])
    """
    R = _R()
    if input._data.dtype.kind == "b":
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if not isinstance(p, (int, np.integer)) or isinstance(p, bool):
        raise TypeError(f"mvlgamma(): argument 'p' (position 2) must be int, not {type(p).__name__}")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    cast = None if input.is_floating_point() else R.get_default_dtype()
    return apply(_mvlgamma, (input,), {"p": int(p)}, cast)


def mvlgamma_(self: Tensor, p: int) -> Tensor:
    """In-place :func:`mvlgamma`."""
    return _inplace(self, lambda x: mvlgamma(x, p))


# ================================================================ split / scatter / copy helpers
def _split_along(name: str, input: Tensor, indices_or_sections, d: int, need: int) -> tuple:
    R = _R()
    if input.dim() < need:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {need} dimension, but got a tensor "
                           f"with {input.dim()} dimensions!")
    if isinstance(indices_or_sections, int):
        s = indices_or_sections
        if s == 0 or input.shape[d] % s != 0:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the size of the "
                               f"dimension {input.shape[d]} is not divisible by the split_size {s}!")
    return R.tensor_split(input, indices_or_sections, d)


def hsplit(input: Tensor, indices_or_sections) -> tuple:
    """Split along dim 1 (dim 0 for 1-D tensors).

    >>> import retrograd as torch
    >>> [t.tolist() for t in torch.hsplit(torch.arange(4), 2)]
    [[0, 1], [2, 3]]
    """
    return _split_along("hsplit", input, indices_or_sections, 1 if input.dim() > 1 else 0, 1)


def vsplit(input: Tensor, indices_or_sections) -> tuple:
    """Split along dim 0 (tensors of 2 or more dims).

    >>> import retrograd as torch
    >>> [t.shape[0] for t in torch.vsplit(torch.zeros(4, 2), 2)]
    [2, 2]
    """
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input: Tensor, indices_or_sections) -> tuple:
    """Split along dim 2 (tensors of 3 or more dims).

    >>> import retrograd as torch
    >>> [t.shape[2] for t in torch.dsplit(torch.zeros(1, 1, 4), [1])]
    [1, 3]
    """
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


# A region of a tensor: ("select", dim, index), ("slice", dim, start, end, step) or
# ("diagonal", offset, dim1, dim2); dims already wrapped.
def _np_region(a: np.ndarray, region: tuple) -> np.ndarray:
    from .shape_more import _diag_view

    if region[0] == "diagonal":
        return _diag_view(a, *region[1:])
    if region[0] == "select":
        return a[(slice(None),) * region[1] + (region[2],)]
    return a[(slice(None),) * region[1] + (slice(*region[2:]),)]


def _region(t: Tensor, region: tuple) -> Tensor:
    if region[0] == "diagonal":
        return t.diagonal(*region[1:])
    if region[0] == "select":
        return t.select(region[1], region[2])
    return t[(slice(None),) * region[1] + (slice(*region[2:]),)]


def _scatter_fw(a, src, *, region):
    out = a.copy()
    if region[0] == "select":  # (an item assignment: selecting from a 1-d array gives no view)
        out[(slice(None),) * region[1] + (region[2],)] = src
    else:
        _np_region(out, region)[...] = src
    return out


def _scatter_op(name: str, node: str):
    op = None

    def rule_a(g, region):
        return apply(op, (g, _R().zeros_like(_region(g, region))), {"region": region})

    op = primitive(name, _scatter_fw, node=node, a=rule_a, src=lambda g, region: _region(g, region))
    return op


_select_scatter = _scatter_op("select_scatter", "SelectScatterBackward0")
_slice_scatter = _scatter_op("slice_scatter", "SliceScatterBackward0")
_diagonal_scatter = _scatter_op("diagonal_scatter", "DiagonalScatterBackward0")


def _scatter_into(op, input: Tensor, src: Tensor, region: tuple) -> Tensor:
    if not isinstance(src, Tensor):
        raise TypeError(f"{op.name}(): argument 'src' (position 2) must be Tensor, not {type(src).__name__}")
    target = _region(input.detach(), region)
    if tuple(target.shape) != tuple(src.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(target.shape)}")
    dt = input.dtype
    return apply(op, (input, src if src.dtype == dt else src.to(dt)), {"region": region})


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """Copy of ``input`` with ``input.select(dim, index)`` replaced by ``src``.

    >>> import retrograd as torch
    >>> torch.select_scatter(torch.zeros(2, 2), torch.ones(2), 0, 0)
    tensor([[1., 1.],
            [0., 0.]])
    """
    d = wrap_dim(dim, input.dim())
    n = input.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
                         f"dimension {d}")
    return _scatter_into(_select_scatter, input, src, ("select", d, index % n))


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
                  step: int = 1) -> Tensor:
    """Copy of ``input`` with the slice ``start:end:step`` along ``dim`` replaced by ``src``.

    >>> import retrograd as torch
    >>> torch.slice_scatter(torch.zeros(3), torch.ones(1), 0, 1, 2)
    tensor([0., 1., 0.])
    """
    d = wrap_dim(dim, input.dim())
    return _scatter_into(_slice_scatter, input, src, ("slice", d, start, end, step))


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """Copy of ``input`` with its diagonal replaced by ``src``.

    >>> import retrograd as torch
    >>> torch.diagonal_scatter(torch.zeros(2, 2), torch.ones(2))
    tensor([[1., 0.],
            [0., 1.]])
    """
    d1, d2 = wrap_dim(dim1, input.dim()), wrap_dim(dim2, input.dim())
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _scatter_into(_diagonal_scatter, input, src, ("diagonal", offset, d1, d2))


@_supports_out
def msort(input: Tensor, *, out=None) -> Tensor:
    """Sort along the first dimension.

    >>> import retrograd as torch
    >>> torch.msort(torch.tensor([3., 1., 2.]))
    tensor([1., 2., 3.])
    """
    return _R().sort(input, 0).values


def _narrow_copy_rule(g, a_shape, dim, start, length):
    R = _R()
    return slice_scatter(R.zeros(a_shape, dtype=g.dtype), g, dim, start, start + length)


_narrow_copy = primitive("narrow_copy", lambda a, *, dim, start, length: np.array(
    a[(slice(None),) * dim + (slice(start, start + length),)]), node="NarrowCopyBackward0", a=_narrow_copy_rule)


@_supports_out
def narrow_copy(input: Tensor, dim: int, start: int, length: int, *, out=None) -> Tensor:
    """A copy (not a view) of ``input.narrow(dim, start, length)``.

    >>> import retrograd as torch
    >>> torch.narrow_copy(torch.arange(4), 0, 1, 2)
    tensor([1, 2])
    """
    view = input.detach().narrow(dim, start, length)  # PyTorch's argument checks and errors
    d = wrap_dim(dim, input.dim())
    st = start + input.shape[d] if start < 0 else start
    assert view.shape[d] == length
    return apply(_narrow_copy, (input,), {"dim": d, "start": st, "length": length})


# ================================================================ matrix exponential
def _expm_np(A: np.ndarray) -> np.ndarray:
    """Scaling and squaring of a degree-18 Taylor polynomial (batched, per-matrix scaling)."""
    a = A
    if a.size == 0:
        return a.copy()
    n = a.shape[-1]
    out = np.empty_like(a)
    flat, res = a.reshape(-1, n, n), out.reshape(-1, n, n)
    # narrower floats are computed in float64 and rounded once: the squarings of a large-norm
    # matrix amplify float32 rounding (entries that cancel lose most of their digits)
    work = np.float64 if a.dtype.kind == "f" and a.dtype.itemsize < 8 else a.dtype
    eye = np.eye(n, dtype=work)
    for i, m in enumerate(flat):
        m = m.astype(work, copy=False)
        if not np.isfinite(m).all():  # PyTorch: any inf / NaN entry gives an all-NaN exponential
            res[i] = np.nan
            continue
        norm = float(np.abs(m).sum(-2).max()) if n else 0.0
        s = max(0, int(math.ceil(math.log2(norm / 0.25)))) if norm > 0.25 else 0
        x = m / (2.0 ** s)
        r = eye + x / 18.0
        for k in range(17, 0, -1):  # Horner: I + X/1 (I + X/2 (... ))
            r = eye + (x @ r) / k
        for _ in range(s):
            r = r @ r
        res[i] = r
    return out


def _matrix_exp_rule(g, A):
    # d exp(A)^H-adjoint: the upper-right block of exp([[A^H, G], [0, A^H]]) (Mathias' identity);
    # it is itself a matrix_exp, so the rule differentiates again.
    R = _R()
    n = A.shape[-1]
    ah = A.transpose(-2, -1)
    ah = ah.conj() if A.is_complex() else ah
    zeros = R.zeros_like(ah)
    big = R.cat([R.cat([ah, g], -1), R.cat([zeros, ah], -1)], -2)
    return matrix_exp(big)[..., :n, n:]


_matrix_exp = primitive("linalg_matrix_exp", _expm_np, node="LinalgMatrixExpBackward0", A=_matrix_exp_rule)


def matrix_exp(A: Tensor) -> Tensor:
    """exp of square matrices (batched); ``torch.linalg.matrix_exp`` too.

    >>> import retrograd as torch
    >>> torch.matrix_exp(torch.zeros(2, 2))
    tensor([[1., 0.],
            [0., 1.]])
    """
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.matrix_exp: A must be batches of square matrices, but they are "
                           f"{A.shape[-2] if A.dim() >= 2 else 1} by {A.shape[-1] if A.dim() else 1} matrices")
    if not (A.is_floating_point() or A.is_complex()):
        raise RuntimeError(f"linalg.matrix_exp: Expected a floating point or complex tensor as input. Got "
                           f"{_tname(A)}")
    return apply(_matrix_exp, (A,))


def poisson(input: Tensor, generator=None) -> Tensor:
    """Samples from Poisson(rate=input) by PyTorch's CPU algorithm and draws (no gradient).

    >>> import retrograd as torch
    >>> torch.poisson(torch.zeros(2))
    tensor([0., 0.])
    """
    from .. import _rng
    from .._creation import _eng

    a = input._data
    if a.dtype.kind != "f":
        raise RuntimeError(f'"poisson_cpu" not implemented for \'{_tname(input)}\'')
    if a.size and (np.isnan(a).any() or a.min() < 0):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return _const(_rng.poisson(_eng(generator), a).astype(a.dtype))
