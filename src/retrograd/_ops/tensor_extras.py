"""Tensor methods PyTorch code calls that the other families lack: in-place random fills,
in-place view ops, in-place comparison / alias variants, clamp_min / clamp_max, put,
index_reduce, unfold, as_strided, and a few small top-level functions.

Random fills write through a primitive whose rule is zero (PyTorch's ``UniformBackward0``
... give a zero gradient to what was overwritten), so leaf / view checks and version
counting are the registry's in-place path.
"""
from __future__ import annotations

import builtins
import warnings

import numpy as np

from .. import _creation as C
from .. import _dtype as D
from .. import _rng as _R
from .._creation import bernoulli, multinomial  # noqa: F401  (bound as methods)
from .._tensor import Tensor, bump_version, check_inplace
from ..autograd import grad_mode
from ._common import tensor_args, to_tensor, wrap_dim
from ._out import same_dtype_found, with_out
from ._registry import _record, _wrap, apply, apply_inplace, primitive
from .pointwise import abs_, clamp, clamp_, div_, mul, mul_, neg_, pow_, sub_
from .shape import _as_view, reshape, squeeze, t, transpose, unsqueeze

_brange = builtins.range
_state = grad_mode.state

__all__ = [
    "uniform_", "normal_", "bernoulli_", "random_", "exponential_", "geometric_", "cauchy_", "log_normal_",
    "t_", "transpose_", "swapaxes_", "swapdims_", "squeeze_", "unsqueeze_", "as_strided", "as_strided_",
    "eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "greater_equal_", "less_", "less_equal_",
    "not_equal_", "divide_", "multiply_", "subtract_", "true_divide_", "negative_", "absolute_", "square_",
    "clamp_min", "clamp_max", "clamp_min_", "clamp_max_", "put", "put_", "index_reduce", "index_reduce_",
    "unfold", "is_same_size", "is_nonzero", "conj", "resolve_conj", "resolve_neg", "conj_physical", "real",
    "split_with_sizes", "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes", "nonzero_static", "asarray", "range",
    "resize_as_",
]
# (Tensor.resize_as_ itself lives in _tensor_methods.py with resize_)
METHODS = [n for n in __all__ if n not in ("asarray", "range", "real", "resize_as_")] + ["bernoulli", "multinomial"]


# ---------------------------------------------------------------------------- random fills
def _fill_prim(name: str, node: str):
    return primitive(name, lambda a, *, values: values, node=node, a=lambda g: mul(g, 0))


_FILLS = {k: _fill_prim(f"{k}_fill", node) for k, node in (
    ("uniform", "UniformBackward0"), ("normal", "NormalBackward0"), ("bernoulli", "BernoulliBackward0"),
    ("random", "RandomBackward0"), ("exponential", "ExponentialBackward0"), ("geometric", "GeometricBackward0"),
    ("cauchy", "CauchyBackward0"), ("log_normal", "LogNormalBackward0"))}


def _fill(self: Tensor, kind: str, values) -> Tensor:
    values = np.asarray(values).astype(self._data.dtype, copy=False)
    return apply_inplace(_FILLS[kind], self, (), {"values": values})


def _need_float(self: Tensor, check: str) -> None:
    if self._data.dtype.kind not in "fc":
        raise NotImplementedError(f'"{check}" not implemented for \'{_tname(self)}\'')


def _tname(self: Tensor) -> str:
    from .._tensor import _scalar_type_name

    return _scalar_type_name(self.dtype)


def uniform_(self: Tensor, from_: float = 0, to: float = 1, *, generator=None, **kw) -> Tensor:
    """Fill with samples uniform in [from, to).

    >>> import retrograd as torch
    >>> w = torch.empty(3).uniform_(-0.1, 0.1)
    >>> bool((w.abs() <= 0.1).all())
    True
    """
    from_ = kw.pop("from", from_)
    _need_float(self, "check_uniform_bounds")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={from_} > to={to}")
    d = self._data
    return _fill(self, "uniform", _R.arrange(C._eng(generator).uniform(d.size, d.dtype, from_, to), d))


def normal_(self: Tensor, mean: float = 0, std: float = 1, *, generator=None) -> Tensor:
    """Fill with normal samples N(mean, std**2).

    >>> import retrograd as torch
    >>> torch.zeros(2).normal_(0, 1).shape
    torch.Size([2])
    """
    _need_float(self, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    d = self._data
    vals = C._eng(generator).normal(d.size, d.dtype, float(mean), float(std), d.flags.c_contiguous)
    return _fill(self, "normal", _R.arrange(vals, d))


def bernoulli_(self: Tensor, p=0.5, *, generator=None) -> Tensor:
    """Fill with 1 with probability ``p`` (a number or a tensor of probabilities), else 0.

    >>> import retrograd as torch
    >>> torch.zeros(3).bernoulli_(1.0)
    tensor([1., 1., 1.])
    """
    d = self._data
    eng = C._eng(generator)
    if isinstance(p, Tensor):
        probs = np.broadcast_to(p._data, d.shape).transpose(_R.memory_axes(d))  # visited in self's order
        vals = _R.bernoulli_tensor(eng, np.ascontiguousarray(probs).reshape(-1))
    else:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        vals = _R.bernoulli_scalar(eng, d.size, float(p))
    return _fill(self, "bernoulli", _R.arrange(vals, d))


_UNSET = object()


def random_(self: Tensor, from_=0, to=_UNSET, *, generator=None, **kw) -> Tensor:
    """Fill with integers uniform in [from, to) (``random_(to)``: [0, to); ``random_()``: [0, 2**mantissa]).

    >>> import retrograd as torch
    >>> bool((torch.zeros(5).random_(3, 5) >= 3).all())
    True
    """
    from_ = kw.pop("from", from_)
    if to is _UNSET:  # random_(to) means [0, to); random_(from, None) means [from, max]
        from_, to = (0, from_) if from_ != 0 else (0, None)
    dt = self._data.dtype
    full = to is None and from_ == 0
    if to is None:
        if dt.kind == "f":
            to = 2 ** (np.finfo(dt).nmant + 1) + 1
        elif dt.kind == "b":
            to = 2
        else:
            to = int(np.iinfo(dt).max) + 1
    if from_ >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
    eng = C._eng(generator)
    d = self._data
    if full:  # random_() without bounds has its own kernel (64-bit draws for int64 / float64)
        vals = _R.random_full(eng, d.size, dt)
    else:
        vals = eng.randint(d.size, int(from_), int(to))
    return _fill(self, "random", _R.arrange(vals, d))


def exponential_(self: Tensor, lambd: float = 1, *, generator=None) -> Tensor:
    """Fill with exponential samples of rate ``lambd``.

    >>> import retrograd as torch
    >>> bool((torch.zeros(4).exponential_(2.0) >= 0).all())
    True
    """
    _need_float(self, "exponential_cpu")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    d = self._data
    return _fill(self, "exponential", _R.arrange(_R.exponential(C._eng(generator), d.size, float(lambd)), d))


def geometric_(self: Tensor, p: float, *, generator=None) -> Tensor:
    """Fill with geometric samples (trials until the first success, >= 1).

    >>> import retrograd as torch
    >>> bool((torch.zeros(4).geometric_(0.5) >= 1).all())
    True
    """
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    d = self._data
    return _fill(self, "geometric", _R.arrange(_R.geometric(C._eng(generator), d.size, float(p)), d))


def cauchy_(self: Tensor, median: float = 0, sigma: float = 1, *, generator=None) -> Tensor:
    """Fill with Cauchy samples.

    >>> import retrograd as torch
    >>> torch.zeros(2).cauchy_().shape
    torch.Size([2])
    """
    _need_float(self, "cauchy_cpu")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    d = self._data
    vals = _R.cauchy(C._eng(generator), d.size, float(median), float(sigma))
    return _fill(self, "cauchy", _R.arrange(vals, d))


def log_normal_(self: Tensor, mean: float = 1, std: float = 2, *, generator=None) -> Tensor:
    """Fill with samples whose log is N(mean, std**2).

    >>> import retrograd as torch
    >>> bool((torch.zeros(3).log_normal_() > 0).all())
    True
    """
    _need_float(self, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    d = self._data
    vals = _R.log_normal(C._eng(generator), d.size, float(mean), float(std))
    return _fill(self, "log_normal", _R.arrange(vals, d))


# ---------------------------------------------------------------------------- in-place view ops
def _restride(self: Tensor, res: Tensor) -> Tensor:
    """Make ``self`` take ``res``'s geometry and history (``res`` is a view op applied to self)."""
    check_inplace(self)
    self._data = res._data
    if res._grad_fn is not None:
        self._grad_fn = res._grad_fn
        self._output_nr = res._output_nr
    bump_version(self)  # (torch counts t_/transpose_/squeeze_/unsqueeze_ as in-place writes)
    root = self if self._base is None else self._base
    if res._grad_fn is not None and "_views" in root.__dict__:
        # as after any recorded in-place change: the family's other live views read their
        # region of the root's history (and views made under no_grad / inference mode refuse)
        from .._views import _regenerate, live_views

        for v in live_views(root):
            if v is not self:
                _regenerate(v, root)
    return self


def t_(self: Tensor) -> Tensor:
    """In-place ``t()``: self's dims are swapped (same memory).

    >>> import retrograd as torch
    >>> torch.zeros(2, 3).t_().shape
    torch.Size([3, 2])
    """
    if self._data.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self._data.ndim}D")
    return _restride(self, t(self))


def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """In-place ``transpose``.

    >>> import retrograd as torch
    >>> torch.zeros(2, 3).transpose_(0, 1).shape
    torch.Size([3, 2])
    """
    return _restride(self, transpose(self, dim0, dim1))


swapaxes_ = swapdims_ = transpose_


def squeeze_(self: Tensor, dim=None) -> Tensor:
    """In-place ``squeeze``.

    >>> import retrograd as torch
    >>> torch.zeros(2, 1).squeeze_().shape
    torch.Size([2])
    """
    return _restride(self, squeeze(self, dim))


def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    """In-place ``unsqueeze``.

    >>> import retrograd as torch
    >>> torch.zeros(2).unsqueeze_(0).shape
    torch.Size([1, 2])
    """
    return _restride(self, unsqueeze(self, dim))


def _root(x: Tensor) -> Tensor:
    return x if x._base is None else x._base


def _storage_array(root: Tensor) -> np.ndarray:
    """The flat memory ``as_strided`` and ``storage_offset`` address for ``root``.

    A tensor without an autograd base may still view a larger NumPy array (``x[:4].detach()``):
    its storage is that whole array, as in PyTorch.  When ``root`` requires grad the graph
    records indices into ``root`` itself, so its own data is used.
    """
    from .._storage import _root as _np_root

    rd = root._data
    if root._requires_grad or not isinstance(rd, np.ndarray):
        return rd
    r = _np_root(rd)
    if r is rd or r.dtype != rd.dtype or not r.flags.c_contiguous:
        return rd
    return r


def _strided_view(self: Tensor, size, stride, storage_offset):
    root = _root(self)
    rd = _storage_array(root)
    if not isinstance(rd, np.ndarray) or not rd.flags.c_contiguous:
        raise RuntimeError("as_strided: retrograd needs a contiguous base tensor")
    size = tuple(int(s) for s in size)
    stride = tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if storage_offset is None:
        storage_offset = _offset(self, rd)
    if any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got strides: "
                           f"[{', '.join(map(str, stride))}]")
    need = storage_offset + 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    if need > rd.size:
        raise RuntimeError(f"setStorage: sizes [{', '.join(map(str, size))}], strides [{', '.join(map(str, stride))}],"
                           f" storage offset {storage_offset}, and itemsize {rd.itemsize} requiring a storage size of "
                           f"{need * rd.itemsize} are out of bounds for storage of size {rd.size * rd.itemsize}")
    flat = rd.reshape(-1)[storage_offset:]
    data = np.lib.stride_tricks.as_strided(flat, size, tuple(s * rd.itemsize for s in stride))
    idx = storage_offset + sum(np.arange(n).reshape([-1 if i == k else 1 for i in _brange(len(size))]) * s
                               for k, (n, s) in enumerate(zip(size, stride))) if size else np.array(storage_offset)
    return root, data, np.broadcast_to(idx, size).astype(np.int64)


def as_strided(input: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    """A view of ``input``'s storage with the given size, stride and offset (differentiable).

    >>> import retrograd as torch
    >>> torch.arange(6.).as_strided((2, 2), (1, 2))
    tensor([[0., 2.],
            [1., 3.]])
    """
    from .._views import register_view
    from .views_inplace import _as_strided

    root, data, idx = _strided_view(input, size, stride, storage_offset)
    if _state.enabled and root._requires_grad:
        out = _record(_as_strided, (root,), {"idx": idx}, data)
    else:
        out = _wrap(data, False, None, 0)
    register_view(out, root)
    return out


def as_strided_(self: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    """In-place ``as_strided``: self takes the new geometry."""
    return _restride(self, as_strided(self, size, stride, storage_offset))


def _offset(x: Tensor, rd: np.ndarray | None = None) -> int:
    """``x``'s storage offset in elements, from the start of ``rd`` (default: its storage)."""
    if rd is None:
        rd = _storage_array(_root(x))
    if not isinstance(x._data, np.ndarray) or rd is x._data:
        return 0
    ptr = x._data.__array_interface__["data"][0] - rd.__array_interface__["data"][0]
    return int(ptr // x._data.itemsize)


# ---------------------------------------------------------------------------- in-place comparisons, aliases
def _cmp_inplace(name: str):
    def f(self: Tensor, other) -> Tensor:
        from .. import _ops as O

        from ._inplace import inplace_via

        return inplace_via(self, lambda x: getattr(O, name)(x, other), (other,))
    f.__name__ = name + "_"
    f.__doc__ = f"In-place ``{name}``: self becomes 1 where the comparison holds, else 0."
    return f


(eq_, ne_, lt_, le_, gt_, ge_, greater_, greater_equal_, less_, less_equal_, not_equal_) = (
    _cmp_inplace(n) for n in ("eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less",
                              "less_equal", "not_equal"))
divide_ = true_divide_ = div_
multiply_ = mul_
subtract_ = sub_
negative_ = neg_
absolute_ = abs_


def square_(self: Tensor) -> Tensor:
    """In-place ``square``."""
    return pow_(self, 2)


def _clamp_bound_fw(a, *, bound, upper):
    r = np.minimum(a, bound) if upper else np.maximum(a, bound)  # NaN propagates, as in PyTorch
    return np.asarray(r).astype(a.dtype, copy=False)


# PyTorch's own nodes for a Python-number bound: the gradient passes where the bound is not active
_clamp_min = primitive("clamp_min", _clamp_bound_fw, node="ClampMinBackward0",
                       a=lambda g, a, bound: g * (a >= bound).to(g.dtype))
_clamp_max = primitive("clamp_max", _clamp_bound_fw, node="ClampMaxBackward0",
                       a=lambda g, a, bound: g * (a <= bound).to(g.dtype))


_clamp_min_t = primitive("clamp_min_tensor_bound", lambda a, b: np.asarray(np.maximum(a, b)), node="ClampMinBackward1",
                         a=lambda g, a, b: g * (a >= b).to(g.dtype),
                         b=lambda g, a, b: g * (a < b).to(g.dtype))
_clamp_max_t = primitive("clamp_max_tensor_bound", lambda a, b: np.asarray(np.minimum(a, b)), node="ClampMaxBackward1",
                         a=lambda g, a, b: g * (a <= b).to(g.dtype),
                         b=lambda g, a, b: g * (a > b).to(g.dtype))


def _tensor_bound(input: Tensor, v) -> bool:
    return isinstance(v, Tensor) and v._data.dtype == input._data.dtype and input._data.dtype.kind == "f"


def _scalar_bound(input: Tensor, v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and input._data.dtype.kind == "f"


def clamp_min(input: Tensor, min) -> Tensor:
    """``clamp(input, min=min)``.

    >>> import retrograd as torch
    >>> torch.tensor([-1., 2.]).clamp_min(0)
    tensor([0., 2.])
    """
    if _scalar_bound(input, min):
        return apply(_clamp_min, (input,), {"bound": float(min), "upper": False})
    if _tensor_bound(input, min):
        return apply(_clamp_min_t, (input, min))
    return clamp(input, min=min)


def clamp_max(input: Tensor, max) -> Tensor:
    """``clamp(input, max=max)``."""
    if _scalar_bound(input, max):
        return apply(_clamp_max, (input,), {"bound": float(max), "upper": True})
    if _tensor_bound(input, max):
        return apply(_clamp_max_t, (input, max))
    return clamp(input, max=max)


def clamp_min_(self: Tensor, min) -> Tensor:
    """In-place :func:`clamp_min` (its own node, ClampMinBackward0/1, as in PyTorch)."""
    from ._inplace import inplace_via

    if not isinstance(min, Tensor) and self._data.dtype.kind in "iub":
        return clamp_(self, min=min)  # (integer self: clamp_'s own bound checks; no grad to record)
    return inplace_via(self, lambda x: clamp_min(x, min), (min,))


def clamp_max_(self: Tensor, max) -> Tensor:
    """In-place :func:`clamp_max`."""
    from ._inplace import inplace_via

    if not isinstance(max, Tensor) and self._data.dtype.kind in "iub":
        return clamp_(self, max=max)  # (integer self: clamp_'s own bound checks; no grad to record)
    return inplace_via(self, lambda x: clamp_max(x, max), (max,))


# ---------------------------------------------------------------------------- put, index_reduce
def _flat_index(input: Tensor, index) -> np.ndarray:
    idx = np.asarray(index._data if isinstance(index, Tensor) else index).reshape(-1)
    n = input._data.size
    if idx.dtype.kind not in "iu":
        raise RuntimeError("put_(): Expected a long tensor for index, but got "
                           f"{_tname(to_tensor(index))}")
    bad = (idx < -n) | (idx >= n)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {int(idx[bad][0])} on a tensor of {n} elements.")
    return np.where(idx < 0, idx + n, idx)


@tensor_args("put", index=2, source=3)
def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """``input`` with ``source`` written at flat indices ``index`` (summed when ``accumulate``).

    >>> import retrograd as torch
    >>> torch.zeros(2, 2).put(torch.tensor([0, 3]), torch.tensor([1., 2.]))
    tensor([[1., 0.],
            [0., 2.]])
    """
    from .indexing_more import index_put

    idx = _flat_index(input, index)
    src = reshape(to_tensor(source, dtype=input.dtype), -1)
    flat = reshape(input, -1)
    return reshape(index_put(flat, (_wrap(idx, False, None, 0),), src, accumulate), input._data.shape)


@tensor_args("put_", True, index=1, source=2)
def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """In-place ``put``."""
    from ._inplace import inplace_via

    return inplace_via(self, lambda x: put(x, index, source, accumulate), (source,))


_REDUCE = {"prod": np.multiply, "amax": np.maximum, "amin": np.minimum, "mean": np.add}


def _index_reduce_fw(a, s, *, dim, index, reduce, include_self):
    if a.ndim == 0:  # a 0-d self (and source) count as one slice
        return _index_reduce_fw(a.reshape(1), s.reshape(-1), dim=0, index=index, reduce=reduce,
                                include_self=include_self).reshape(())
    out = np.moveaxis(a.copy(), dim, 0)
    src = np.moveaxis(s, dim, 0)
    ufunc = _REDUCE[reduce]
    if not include_self:
        ident = {"prod": 1, "mean": 0, "amax": -np.inf, "amin": np.inf}[reduce]
        if a.dtype.kind != "f" and reduce in ("amax", "amin"):
            info = np.iinfo(a.dtype)
            ident = info.min if reduce == "amax" else info.max
        out[index] = ident
    ufunc.at(out, index, src)
    if reduce == "mean":
        counts = np.bincount(index, minlength=out.shape[0]).astype(np.float64) + (1 if include_self else 0)
        counts = np.maximum(counts, 1).reshape((-1,) + (1,) * (out.ndim - 1))
        out = out / counts if a.dtype.kind == "f" else out // counts.astype(a.dtype)
    return np.moveaxis(out.astype(a.dtype), 0, dim)


def _row_consts(a_shape, dim, index, include_self):
    """(weight of self's slices, count per row) as constants shaped to broadcast along ``dim``."""
    n = a_shape[dim]
    counts = np.bincount(index, minlength=n).astype(np.float64)
    hit = counts > 0
    self_w = np.ones(n) if include_self else (~hit).astype(np.float64)
    shape = [1] * len(a_shape)
    shape[dim] = n
    return self_w.reshape(shape), (counts + self_w).reshape(shape)


def _const(x, like: Tensor) -> Tensor:
    return _wrap(np.asarray(x, dtype=like._data.dtype), False, None, 0)


def _ir_grads(g, a, s, out, dim, index, reduce, include_self):
    """(grad of self, grad of source) of index_reduce, in retrograd ops (differentiable again)."""
    from .indexing_more import index_add, index_select, masked_fill
    from .. import _ops as O

    if a.ndim == 0:  # as one slice of a 1-d self
        ga, gs = _ir_grads(reshape(g, (1,)), reshape(a, (1,)), reshape(s, (-1,)), reshape(out, (1,)), 0, index,
                           reduce, include_self)
        return reshape(ga, ()), reshape(gs, s.shape)
    idx = _wrap(index, False, None, 0)
    self_w, count = _row_consts(tuple(a.shape), dim, index, include_self)
    if reduce == "mean":
        gm = g / _const(count, g)
        return gm * _const(self_w, g), index_select(gm, dim, idx)
    if reduce == "prod":
        # PyTorch's rule, exact with zeros: a zero of self gets the product of the others (self's
        # zeros masked to one); a source zero alone in its slot gets the product of the rest
        masked_a = masked_fill(a, a == 0, 1)
        ga = g * index_reduce(masked_a, dim, idx, s, "prod", include_self=include_self) / masked_a
        s_zero = s == 0
        n_zero = index_select(index_add(C.zeros_like(a), dim, idx, s_zero.to(a.dtype)), dim, idx)
        single = O.logical_and(s_zero, n_zero == 1)
        with_one = index_reduce(a, dim, idx, masked_fill(s, single, 1), "prod", include_self=include_self)
        gs = O.where(single, index_select(g * with_one, dim, idx),
                     index_select(g * out, dim, idx) / masked_fill(s, s_zero, 1))
        return ga * _const(self_w, g), gs
    # amax / amin: the gradient is shared evenly between the tied extremes
    out_s = index_select(out, dim, idx)
    eq_a = O.eq(a, out).to(g.dtype).detach()
    eq_s = O.eq(s, out_s).to(g.dtype).detach()
    # As PyTorch, ties with self count in the share even when include_self=False.
    n = eq_a + index_add(C.zeros_like(eq_a), dim, idx, eq_s)
    n = O.where(n > 0, n, C.ones_like(n)).detach()
    return g * (eq_a * _const(self_w, g) / n), index_select(g / n, dim, idx) * eq_s


_index_reduce = primitive(
    "index_reduce", _index_reduce_fw, node="IndexReduceBackward0",
    a=lambda g, a, s, out, dim, index, reduce, include_self: _ir_grads(g, a, s, out, dim, index, reduce,
                                                                       include_self)[0],
    s=lambda g, a, s, out, dim, index, reduce, include_self: _ir_grads(g, a, s, out, dim, index, reduce,
                                                                       include_self)[1])


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    """Reduce ``source``'s slices into ``input`` at ``index`` along ``dim`` (prod, mean, amax, amin).

    Gradients as PyTorch's (ties of amax/amin share it evenly; prod's is exact with zeros).

    >>> import retrograd as torch
    >>> torch.ones(3).index_reduce(0, torch.tensor([0, 0]), torch.tensor([2., 3.]), 'prod')
    tensor([6., 1., 1.])
    """
    if reduce not in _REDUCE:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d = wrap_dim(dim, input._data.ndim)
    idx = np.asarray(index._data).reshape(-1).astype(np.int64)
    return apply(_index_reduce, (input, to_tensor(source, dtype=input.dtype)),
                 {"dim": d, "index": idx, "reduce": reduce, "include_self": bool(include_self)})


def index_reduce_(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:
    """In-place ``index_reduce``."""
    from ._inplace import inplace_via

    return inplace_via(self, lambda x: index_reduce(x, dim, index, source, reduce, include_self=include_self),
                       (source,))


def resize_as_(input: Tensor, the_template: Tensor, *, memory_format=None) -> Tensor:
    """``torch.resize_as_(x, t)``: ``x.resize_as_(t)`` (x takes t's shape in place; kept data first).

    >>> import retrograd as torch
    >>> tuple(torch.resize_as_(torch.zeros(2, 3), torch.ones(3)).shape)
    (3,)
    """
    return input.resize_as_(the_template, memory_format=memory_format)


# ---------------------------------------------------------------------------- unfold
def _unfold_fw(a, *, dim, size, step):
    if a.ndim == 0:  # a 0-d tensor unfolds into a 1-d one of ``size`` (0 or 1) elements
        return np.lib.stride_tricks.as_strided(np.asarray(a).reshape(1), (size,), (a.itemsize,))
    n = (a.shape[dim] - size) // step + 1
    shape = a.shape[:dim] + (n,) + a.shape[dim + 1:] + (size,)
    strides = a.strides[:dim] + (a.strides[dim] * step,) + a.strides[dim + 1:] + (a.strides[dim],)
    return np.lib.stride_tricks.as_strided(a, shape, strides)


def _unfold_bw_fw(g, *, shape, dim, size, step):
    out = np.zeros(shape, dtype=g.dtype)
    if len(shape) == 0:
        return g.reshape(())
    view = _unfold_fw(out, dim=dim, size=size, step=step)
    n = view.shape[dim]
    for j in _brange(n):  # windows may overlap: add one window position at a time
        sl = [slice(None)] * len(shape)
        sl[dim] = slice(j * step, j * step + size)
        out[tuple(sl)] += np.moveaxis(np.take(g, j, axis=dim), -1, dim)
    return out


_unfold_backward = primitive(
    "unfold_backward", _unfold_bw_fw, node="UnfoldBackwardBackward0",
    g=lambda g, dim, size, step: apply(_unfold, (g,), {"dim": dim, "size": size, "step": step}))
_unfold = primitive(
    "unfold", _unfold_fw, node="UnfoldBackward0",
    a=lambda g, a_shape, dim, size, step: apply(_unfold_backward, (g,),
                                                {"shape": a_shape, "dim": dim, "size": size, "step": step}))


def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """All windows of ``size`` along ``dimension`` taken every ``step`` (a view; new last dim).

    >>> import retrograd as torch
    >>> torch.arange(5.).unfold(0, 2, 2)
    tensor([[0., 1.],
            [2., 3.]])
    """
    nd = self._data.ndim
    d = wrap_dim(dimension, max(nd, 1))
    length = self._data.shape[d] if nd else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    return _as_view(apply(_unfold, (self,), {"dim": d, "size": int(size), "step": int(step)}), self)


# ---------------------------------------------------------------------------- small ones
def is_same_size(input: Tensor, other: Tensor) -> bool:
    """Whether the two shapes are equal."""
    return tuple(input._data.shape) == tuple(other._data.shape)


def is_nonzero(input: Tensor) -> bool:
    """The truth value of a one-element tensor (PyTorch's errors otherwise).

    >>> import retrograd as torch
    >>> torch.is_nonzero(torch.tensor([1.]))
    True
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"is_nonzero(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    n = input._data.size
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(np.asarray(input._data).reshape(-1)[0])


def conj(input: Tensor) -> Tensor:
    """Complex conjugate; real tensors are returned as is (as PyTorch)."""
    return conj_physical(input)


def resolve_conj(input: Tensor) -> Tensor:
    """No lazy conjugation in retrograd: returns ``input``."""
    return input


def resolve_neg(input: Tensor) -> Tensor:
    """No lazy negation in retrograd: returns ``input``."""
    return input


@with_out("conj_physical", same_dtype_found)
def conj_physical(input: Tensor) -> Tensor:
    """Conjugate (a copy for complex tensors; real tensors returned as is, as PyTorch)."""
    if input._data.dtype.kind == "c":
        return _wrap(np.conj(input._data), False, None, 0)
    return input


def real(input: Tensor) -> Tensor:
    """Real part; real tensors are returned as is (as PyTorch)."""
    if input._data.dtype.kind == "c":
        return _wrap(input._data.real, False, None, 0)
    return input


def split_with_sizes(self: Tensor, split_sizes, dim: int = 0) -> tuple:
    """Split into pieces of the listed sizes along ``dim`` (views)."""
    from .shape_more import split

    sizes = [int(s) for s in split_sizes]
    n = self._data.shape[wrap_dim(dim, self._data.ndim)]
    if sum(sizes) != n:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                           f"dimension {dim}), but got split_sizes=[{', '.join(map(str, sizes))}]")
    return split(self, sizes, dim)


def unsafe_split(tensor: Tensor, split_size: int, dim: int = 0) -> tuple:
    """``split`` into copies, not views (node UnsafeSplitBackward0, as PyTorch's)."""
    from .shape_more import _unsafe_split

    if not isinstance(split_size, (int, np.integer)) or isinstance(split_size, bool):
        raise TypeError(f"unsafe_split(): argument 'split_size' (position 2) must be int, not "
                        f"{type(split_size).__name__}")
    return _unsafe_split(tensor, int(split_size), dim)


def unsafe_split_with_sizes(tensor: Tensor, split_sizes, dim: int = 0) -> tuple:
    """``split`` with a list of sizes, into copies (node UnsafeSplitWithSizesBackward0)."""
    from .shape_more import _unsafe_split

    return _unsafe_split(tensor, 0, dim, [int(s) for s in split_sizes])


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """``chunk`` into copies, not views (node UnsafeSplitBackward0, as PyTorch's)."""
    from .shape_more import _unsafe_split, chunk

    pieces = chunk(input, chunks, dim)  # (the checks, and the piece sizes)
    d = dim % input._data.ndim
    if len({p._data.shape[d] for p in pieces[:-1]}) > 1 or input._data.shape[d] == 0:
        return pieces
    return _unsafe_split(input, pieces[0]._data.shape[d], dim)


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """``nonzero`` padded with ``fill_value`` (or truncated) to exactly ``size`` rows.

    >>> import retrograd as torch
    >>> torch.tensor([0, 3, 0]).nonzero_static(size=2)
    tensor([[ 1],
            [-1]])
    """
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got size: {size}")
    nz = np.argwhere(np.asarray(input._data)).astype(np.int64)[:size]
    out = np.full((size, input._data.ndim), fill_value, dtype=np.int64)
    out[:len(nz)] = nz
    return _wrap(out, False, None, 0)


def asarray(obj, *, dtype=None, device=None, copy: bool | None = None, requires_grad: bool = False) -> Tensor:
    """``torch.asarray``: share memory with tensors / arrays when possible, else copy.

    >>> import retrograd as torch, numpy as np
    >>> a = np.zeros(2, dtype=np.float32); t = torch.asarray(a); a[0] = 1; t
    tensor([1., 0.])
    """
    if isinstance(obj, Tensor):
        out = obj
        if dtype is not None and dtype != obj.dtype:
            if copy is False:
                raise ValueError("can't alias tensor with a different dtype")
            out = obj.to(dtype)
        elif copy:
            out = obj.clone()
    elif isinstance(obj, np.ndarray) and copy is not True and (dtype is None or D.from_numpy_dtype(obj.dtype) == dtype):
        out = C.from_numpy(obj)
    else:
        if copy is False and not isinstance(obj, np.ndarray):
            arr = np.asarray(obj)
            if arr is not obj:
                raise ValueError(f"can't alias {type(obj).__name__} without copying")
        out = C.tensor(np.array(obj._data if isinstance(obj, Tensor) else obj) if isinstance(obj, np.ndarray)
                       else obj, dtype=dtype)
    if requires_grad:
        out = out.detach().requires_grad_(True) if out is obj else out.requires_grad_(True)
    return out


def range(start, end, step=1, *, dtype=None, device=None, requires_grad: bool = False,  # noqa: A001
          out=None) -> Tensor:
    """Deprecated ``torch.range``: floats from start to end *inclusive*.

    >>> import retrograd as torch, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore"); torch.range(0, 1, 0.5)
    tensor([0.0000, 0.5000, 1.0000])
    """
    if out is not None:  # (a creation op: it computes in ``out``'s dtype)
        from ._out import write_out

        return write_out("range", _range(start, end, step, dtype=dtype or out.dtype), out, "same")
    return _range(start, end, step, dtype=dtype, device=device, requires_grad=requires_grad)


def _range(start, end, step=1, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """The work of :func:`range` (without ``out=``)."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values "
                  "in [start, end).", UserWarning, stacklevel=3)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    n = int(np.floor((end - start) / step)) + 1
    dt = dtype or D.get_default_dtype()
    data = (start + np.arange(n, dtype=np.float64) * step).astype(dt.np)
    return C._finish(data, requires_grad)
