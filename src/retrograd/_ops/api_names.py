"""Top-level torch functions that were missing from retrograd's namespace and are thin
compositions of existing ops: more view-copy variants (``as_strided_copy``, ``detach_copy``),
``as_strided_scatter``, ``slice_inverse``, ``norm_except_dim``, ``empty_permuted``,
``is_conj``/``is_neg`` (always False: no complex or lazy-negation tensors here),
``binomial`` (PyTorch's CPU sampler and draws) and ``histogramdd``.  No gradients are defined here.
"""
from __future__ import annotations

import math

import numpy as np

from .. import return_types as RT
from .._tensor import Tensor, _scalar_type_name

__all__ = ["as_strided_copy", "detach_copy", "as_strided_scatter", "slice_inverse", "norm_except_dim",
           "empty_permuted", "is_conj", "is_neg", "binomial", "histogramdd"]
METHODS = ["as_strided_scatter", "slice_inverse"]  # (torch has these two as Tensor methods too)


def _tensor_arg(fn: str, input, pos: int = 1, name: str = "input") -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not {type(input).__name__}")


def _const(a: np.ndarray) -> Tensor:
    return Tensor._wrap(np.ascontiguousarray(a), False, None, 0)


def as_strided_copy(input: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    """``torch.as_strided`` as a fresh contiguous tensor (differentiable).

    >>> import retrograd as torch
    >>> torch.as_strided_copy(torch.arange(6.), (2, 2), (1, 2))
    tensor([[0., 2.],
            [1., 3.]])
    """
    _tensor_arg("as_strided_copy", input)
    return input.as_strided(size, stride, storage_offset).clone(memory_format=_contig())


def _contig():
    from .._layout import contiguous_format

    return contiguous_format


def detach_copy(input: Tensor) -> Tensor:
    """A copy of ``input`` outside the graph (``torch.detach`` without aliasing).

    >>> import retrograd as torch
    >>> torch.detach_copy(torch.ones(2, requires_grad=True))
    tensor([1., 1.])
    """
    _tensor_arg("detach_copy", input)
    return input.detach().clone()


def as_strided_scatter(input: Tensor, src: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    """A copy of ``input`` whose ``as_strided(size, stride, storage_offset)`` window holds ``src``.

    Differentiable in both: ``input``'s gradient is zero where the window overwrote it.

    >>> import retrograd as torch
    >>> torch.as_strided_scatter(torch.zeros(4), torch.ones(2), (2,), (2,), 1)
    tensor([0., 1., 0., 1.])
    """
    _tensor_arg("as_strided_scatter", input)
    _tensor_arg("as_strided_scatter", src, 2, "src")
    size = tuple(size)
    if tuple(src.shape) != size:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(size)}")
    out = input.clone(memory_format=_contig())
    out.as_strided(size, stride, storage_offset).copy_(src)
    return out


def slice_inverse(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
                  step: int = 1) -> Tensor:
    """Undo a slice: a view of ``input``'s storage with ``src``'s geometry (``src`` is the base the
    slice ``input`` was taken from; ``dim``/``start``/``end``/``step`` describe that slice).

    >>> import retrograd as torch
    >>> base = torch.arange(6.)
    >>> torch.slice_inverse(base[1:4], base, 0, 1, 4)
    tensor([0., 1., 2., 3., 4., 5.])
    """
    _tensor_arg("slice_inverse", input)
    _tensor_arg("slice_inverse", src, 2, "src")
    return input.as_strided(tuple(src.shape), src.stride(), src.storage_offset())


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:  # noqa: A002
    """The ``pow``-norm of ``v`` over every dimension but ``dim`` (kept, the others size 1);
    ``dim=-1`` gives the norm of the whole tensor (weight normalisation's helper).

    >>> import retrograd as torch
    >>> torch.norm_except_dim(torch.tensor([[3., 4.], [6., 8.]]), 2, 0)
    tensor([[ 5.],
            [10.]])
    """
    _tensor_arg("norm_except_dim", v, name="v")
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        shape = [v.shape[0]] + [1] * (v.dim() - 1)
        return v.contiguous().view(v.shape[0], -1).norm(pow, 1).view(shape)
    if dim == v.dim() - 1:
        shape = [1] * (v.dim() - 1) + [v.shape[-1]]
        return v.contiguous().view(-1, v.shape[-1]).norm(pow, 0).view(shape)
    # (any other dim: move it to the front, take dim-0's norm, move it back)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
                   pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor of logical shape ``size`` whose memory holds the dimensions in the
    order ``physical_layout`` (outermost first).

    >>> import retrograd as torch
    >>> torch.empty_permuted((2, 3, 4), (0, 2, 1)).stride()
    (12, 1, 3)
    """
    from .._creation import empty

    size, perm = tuple(size), tuple(physical_layout)
    if len(size) != len(perm):
        raise RuntimeError("Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(perm)}")
    if sorted(perm) != list(range(len(perm))):
        raise RuntimeError(f"physical_layout must be a permutation of the dimensions, got {list(perm)}")
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    t = empty(*[size[p] for p in perm], dtype=dtype, device=device).permute(*inverse)
    return t.requires_grad_(True) if requires_grad else t


def is_conj(input: Tensor) -> bool:
    """False: retrograd has no lazily conjugated (complex) tensors.

    >>> import retrograd as torch
    >>> torch.is_conj(torch.ones(1))
    False
    """
    _tensor_arg("is_conj", input)
    return False


def is_neg(input: Tensor) -> bool:
    """False: retrograd has no lazily negated (complex) tensors.

    >>> import retrograd as torch
    >>> torch.is_neg(torch.ones(1))
    False
    """
    _tensor_arg("is_neg", input)
    return False


# ------------------------------------------------------------------ binomial (PyTorch's CPU sampler)
# Stirling-series tails log(k!) - [(k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2] for k < 10.
_TAILS = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
          0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
          0.00925546218271273, 0.00833056343336287)


def _tail(k: float) -> float:
    if k <= 9:
        return _TAILS[int(k)]
    sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / sq) / sq) / (k + 1)


def _inversion(count: float, prob: float, uni) -> float:
    # counts the geometric waiting times that fit into ``count`` trials (small count * prob)
    total, n, logq = 0.0, 0, math.log1p(-prob)
    while True:
        total += math.ceil(math.log(uni()) / logq)
        if total > count:
            return float(n)
        n += 1


def _btrs(count: float, prob: float, uni) -> float:
    # Hormann's transformed rejection with squeeze (count * prob >= 10)
    sd = math.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * sd
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    vr = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * sd
    m = math.floor((count + 1) * prob)
    while True:
        u = uni() - 0.5
        v = uni()
        us = 0.5 - abs(u)
        k = math.floor((2 * a / us + b) * u + c)
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= vr:
            return float(k)
        v = math.log(v * alpha / (a / (us * us) + b))
        bound = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
                 + (count + 1) * math.log((count - m + 1) / (count - k + 1))
                 + (k + 0.5) * math.log(r * (count - k + 1) / (k + 1))
                 + _tail(m) + _tail(count - m) - _tail(k) - _tail(count - k))
        if v <= bound:
            return float(k)


def _binomial_one(count: float, prob: float, uni) -> float:
    if count <= 0 or prob <= 0:
        return 0.0
    if prob >= 1:
        return count
    if prob <= 0.5:
        return _btrs(count, prob, uni) if count * prob >= 10 else _inversion(count, prob, uni)
    if prob > 0.5:
        q = 1 - prob
        return count - (_btrs(count, q, uni) if count * q >= 10 else _inversion(count, q, uni))
    return math.nan


def binomial(count: Tensor, prob: Tensor, generator=None) -> Tensor:
    """Samples from Binomial(count, prob), elementwise (broadcast), by PyTorch's CPU algorithm
    (inversion below 10 expected successes, BTRS from there); no gradient.

    >>> import retrograd as torch
    >>> torch.binomial(torch.tensor([0., 4.]), torch.tensor([0.5, 1.]))
    tensor([0., 4.])
    """
    from .. import _rng
    from .._creation import _eng

    _tensor_arg("binomial", count, name="count")
    _tensor_arg("binomial", prob, 2, "prob")
    if count.dtype.np.kind != "f":
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: "
                         f"{_scalar_type_name(count.dtype)}")
    if prob.dtype.np.kind != "f":
        raise ValueError(f"binomial only supports floating-point dtypes for prob, got: "
                         f"{_scalar_type_name(prob.dtype)}")
    c, p = np.broadcast_arrays(count._data, prob._data)
    out = np.empty(c.shape, np.float64)
    flat = out.reshape(-1)
    uni = _rng._DoubleStream(_eng(generator))
    try:
        for i, (n, q) in enumerate(zip(c.reshape(-1).tolist(), p.reshape(-1).tolist())):
            flat[i] = _binomial_one(n, q, uni)
    finally:
        uni.close()
    return _const(out.astype(count._data.dtype))


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
    return RT.histogramdd((_const(h.astype(a.dtype)), tuple(_const(e.astype(a.dtype)) for e in edges)))

