"""Var/std/var_mean/std_mean, cov, corrcoef, quantile/nanquantile, bincount, histc, histogram,
histogramdd."""
from __future__ import annotations

import builtins as _b
import math

import numpy as np

from .. import _dtype as D, return_types as RT
from .._tensor import Tensor, _scalar_type_name
from ._common import wrap_dim
from ._composite import _R, _supports_out, _tname
from ._out import with_out
from ._registry import apply, primitive
from .copies import _const_contiguous, _tensor_arg
from .masked import masked_fill
from .reduction import _const, _errstate, _np_mean, _numel_of_dims, _red_dims, mean as _mean, unsqueeze_dims
from .shape import expand

__all__ = ["var", "std", "var_mean", "std_mean", "cov", "corrcoef", "quantile", "nanquantile", "bincount", "histc",
           "histogram", "histogramdd"]


# ---------------------------------------------------------------- var / std
def _var_np(a, dims, correction, keepdim):
    n = _numel_of_dims(a.shape, dims)
    with _errstate():
        m = _np_mean(a, dims, True) if dims else a  # (no "Mean of empty slice" warning)
        s = ((a - m) ** 2).sum(axis=dims, keepdims=keepdim)
        if dims and a.size and a.dtype in (np.float32, np.float64):
            if a.size <= n:  # one result: PyTorch's std_var_all_cpu, squares of (x - mean) summed in double
                d = a.astype(np.float64) - np.float64(_np_mean(a))
                return np.asarray(np.add.reduce(d * d, axis=dims, keepdims=keepdim) / np.float64(_b.max(n - correction, 0)),
                                  dtype=a.dtype, order="C")
            # several: PyTorch's Welford pass, which gives exactly 0 for a slice of equal finite values
            # (the two-pass formula above leaves the mean's rounding there, ~1e-16 relative)
            hi = np.maximum.reduce(a, axis=dims, keepdims=keepdim)
            s = np.where((hi == np.minimum.reduce(a, axis=dims, keepdims=keepdim)) & np.isfinite(hi), 0, s)
        # (reductions come out contiguous in PyTorch, whatever the input's layout)
        return np.asarray(s / np.float64(_b.max(n - correction, 0)), dtype=a.dtype, order="C")


def _var_bw(g: Tensor, a: Tensor, dims, correction, keepdim, full=False) -> Tensor:
    n = _numel_of_dims(a.shape, dims)
    if full and n - correction <= 0:
        # PyTorch's var_backward for a full reduction (dim None or a 0-d input) with no degrees of
        # freedom: infinity * (x - mean), written as NaN where x equals the mean and inf elsewhere.
        # (a constant, as PyTorch's where(self == mean, nan, inf): not differentiable again)
        from .masked import where

        m = _mean(a) if a.ndim else a
        return g * where(a == m, float("nan"), float("inf"))
    scale = 2.0 / (n - correction) if n != correction else float("inf")
    centered = a - _mean(a, dims, keepdim=True) if dims else a * 0
    return unsqueeze_dims(g, dims, keepdim, a.shape) * scale * centered


def _std_g(g: Tensor, std: Tensor) -> Tensor:
    return masked_fill(g / (std * 2), std == 0, 0)


_var = primitive("var", lambda a, *, dims, correction, keepdim, full: _var_np(a, dims, correction, keepdim),
                 node="VarBackward0",
                 a=lambda g, a, dims, correction, keepdim, full: _var_bw(g, a, dims, correction, keepdim, full), batch="reduce")
_std = primitive("std", lambda a, *, dims, correction, keepdim, full: np.sqrt(_var_np(a, dims, correction, keepdim)),
                 node="StdBackward0",
                 a=lambda g, a, out, dims, correction, keepdim, full: _var_bw(_std_g(g, out), a, dims, correction,
                                                                             keepdim, full), batch="reduce")


def _mean_np(a, dims, keepdim):
    m = np.asarray(_np_mean(a, dims, keepdim) if dims else a.copy(), dtype=a.dtype)
    if dims and a.dtype.kind == "f" and np.isinf(m).any():
        # PyTorch's var_mean takes the mean from its Welford pass: once the running mean is infinite,
        # the next element makes it NaN, so an infinity survives only as the slice's last element.
        rest = [i for i in range(a.ndim) if i not in dims]
        flat = np.transpose(a, rest + list(dims)).reshape([a.shape[i] for i in rest] + [-1])
        inf = np.isinf(flat)
        keep = (inf.sum(-1) == 1) & inf[..., -1]
        welford = np.where(inf.any(-1) & ~keep, np.nan, m.reshape(keep.shape)).astype(a.dtype)
        m = welford.reshape(m.shape)
    return m


def _mean_bw(g: Tensor, a: Tensor, dims, keepdim) -> Tensor:
    return expand(unsqueeze_dims(g, dims, keepdim, a.shape), a.shape) / _numel_of_dims(a.shape, dims)


def _var_mean_bw(var_part, g, a: Tensor, dims, correction, keepdim, full) -> Tensor:
    # PyTorch skips the part of an output that got no gradient (an all-zero g here); adding it would
    # turn inf / NaN inputs into NaN through 0 * (x - mean).
    gm = _mean_bw(g[1], a, dims, keepdim)
    if not g[0]._data.any():
        return gm
    return var_part(g[0], a, dims, correction, keepdim, full) + gm


_var_mean = primitive("var_mean", lambda a, *, dims, correction, keepdim, full: (
    _var_np(a, dims, correction, keepdim), _mean_np(a, dims, keepdim)), node="VarMeanBackward0", n_out=2,
    a=lambda g, a, dims, correction, keepdim, full: _var_mean_bw(_var_bw, g, a, dims, correction, keepdim, full), batch="reduce")
_std_mean = primitive("std_mean", lambda a, *, dims, correction, keepdim, full: (
    np.sqrt(_var_np(a, dims, correction, keepdim)), _mean_np(a, dims, keepdim)), node="StdMeanBackward0", n_out=2,
    a=lambda g, a, out, dims, correction, keepdim, full: _var_mean_bw(
        lambda g0, *r: _var_bw(_std_g(g0, out[0]), *r), g, a, dims, correction, keepdim, full), batch="reduce")


def _var_args(input: Tensor, dim, unbiased, correction, name: str = "var") -> dict:
    if input._data.dtype.kind not in "fc":
        raise RuntimeError(f"{name} only support floating point and complex dtypes" if name.endswith("_mean")
                           else "std and var only support floating point and complex dtypes")
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    dims = _red_dims(dim, input._data.ndim)
    if _numel_of_dims(input._data.shape, dims) - correction <= 0:
        import warnings

        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
                      "factor (input numel divided by output numel).", UserWarning, stacklevel=3)
    # (PyTorch's backward treats "no dim given" and a 0-d input apart when there are no degrees of freedom)
    full = dim is None or input._data.ndim == 0
    return {"dims": dims, "correction": correction, "full": full}


@with_out("var")
def var(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *, correction=None,
        out=None) -> Tensor:
    """Variance over ``dim`` with Bessel's ``correction`` (default 1; ``unbiased=False`` means 0).

    >>> import retrograd as torch
    >>> torch.tensor([1., 2., 3., 4.]).var()
    tensor(1.6667)
    """
    st = _var_args(input, dim, unbiased, correction, "var")
    return apply(_var, (input,), {**st, "keepdim": bool(keepdim)})


@with_out("std")
def std(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *, correction=None,
        out=None) -> Tensor:
    """Standard deviation over ``dim`` (see :func:`var` for the arguments)."""
    st = _var_args(input, dim, unbiased, correction, "std")
    return apply(_std, (input,), {**st, "keepdim": bool(keepdim)})


def var_mean(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *, correction=None):
    """``(var, mean)`` over ``dim`` in one op."""
    st = _var_args(input, dim, unbiased, correction, "var_mean")
    return tuple(apply(_var_mean, (input,), {**st, "keepdim": bool(keepdim)}))


def std_mean(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *, correction=None):
    """``(std, mean)`` over ``dim`` in one op."""
    st = _var_args(input, dim, unbiased, correction, "std_mean")
    return tuple(apply(_std_mean, (input,), {**st, "keepdim": bool(keepdim)}))


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
        res = R.lerp(vb, va, expand(rk - _const(below.astype(data.dtype)), ranks.shape))
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


# ------------------------------------------------------------------ histogramdd
def histogramdd(input: Tensor, bins=10, *, range=None, weight: Tensor | None = None,  # noqa: A002
                density: bool = False):
    """The histogram of the points ``input[..., :D]`` (the last dimension holds the coordinates)
    and each dimension's bin edges (``torch.return_types.histogramdd``).

    >>> import retrograd as torch
    >>> torch.histogramdd(torch.tensor([[0., 0.], [1., 1.]]), bins=[2, 2]).hist
    tensor([[1., 0.],
            [0., 1.]])
    """
    _tensor_arg("histogramdd", input)
    a = input._data
    if a.dtype.kind != "f":
        raise RuntimeError(f'"histogramdd" not implemented for \'{_scalar_type_name(input.dtype)}\'')
    if a.ndim < 2:
        raise RuntimeError(f"torch.histogramdd: input tensor should have at least 2 dimensions, but got {a.ndim}")
    nd = a.shape[-1]
    pts = a.reshape(-1, nd).astype(np.float64)
    if isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], Tensor):
        edges = [b._data.astype(np.float64) for b in bins]
    else:
        counts = [int(bins)] * nd if isinstance(bins, int) else [int(b) for b in bins]
        if len(counts) != nd:
            raise RuntimeError(f"torch.histogramdd: expected {nd} sequences of bin edges for each of the {nd} "
                               f"dimensions of the input tensor, but got {len(counts)}")
        edges = []
        for d, n in enumerate(counts):
            if range is not None:
                lo, hi = float(range[2 * d]), float(range[2 * d + 1])
            elif pts.shape[0]:
                lo, hi = float(pts[:, d].min()), float(pts[:, d].max())
            else:
                lo, hi = 0.0, 0.0
            if lo == hi:
                lo, hi = lo - 0.5, hi + 0.5
            # (edges computed in the input dtype, as torch's linspace does)
            edges.append(np.linspace(lo, hi, n + 1).astype(a.dtype).astype(np.float64))
    w = None if weight is None else weight._data.reshape(-1)
    h, _ = np.histogramdd(pts, bins=edges, weights=w, density=density)
    return RT.histogramdd((_const_contiguous(h.astype(a.dtype)), tuple(_const_contiguous(e.astype(a.dtype)) for e in edges)))
