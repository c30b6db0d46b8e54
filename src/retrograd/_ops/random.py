"""In-place samplers (uniform_, normal_, bernoulli_, random_, ...), binomial, poisson."""
from __future__ import annotations

import builtins
import math

import numpy as np

from .. import _creation as C, _rng as _R
from .._creation import bernoulli, multinomial  # noqa: F401 (re-exported: the random subject's ops)
from .._tensor import Tensor, _scalar_type_name
from ..autograd import grad_mode
from ._composite import _tname
from ._registry import apply_inplace, primitive
from .binary import mul
from .copies import _const_contiguous, _tensor_arg
from .reduction import _const

__all__ = ["poisson", "uniform_", "normal_", "bernoulli_", "random_", "exponential_", "geometric_", "cauchy_",
           "log_normal_", "binomial"]


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


_brange = builtins.range
_state = grad_mode.state


# ---------------------------------------------------------------------------- random fills
def _fill_prim(name: str, node: str):
    return primitive(name, lambda a, *, values: values, node=node, a=lambda g: mul(g, 0))


_FILLS = {op.name.removesuffix("_fill"): op for op in (
    _fill_prim("uniform_fill", "UniformBackward0"),
    _fill_prim("normal_fill", "NormalBackward0"),
    _fill_prim("bernoulli_fill", "BernoulliBackward0"),
    _fill_prim("random_fill", "RandomBackward0"),
    _fill_prim("exponential_fill", "ExponentialBackward0"),
    _fill_prim("geometric_fill", "GeometricBackward0"),
    _fill_prim("cauchy_fill", "CauchyBackward0"),
    _fill_prim("log_normal_fill", "LogNormalBackward0"),
)}


_NORMAL_OPS: dict = {}


def _normal_op(kind: int):
    """The recorded op of ``normal`` with tensor mean (1), std (2) or both (3): zero rules."""
    if kind not in _NORMAL_OPS:
        def zero(g):
            return mul(g, 0)
        if kind == 3:
            op = primitive("normal_tensor_tensor", lambda mean, std, *, values: values, node="NormalBackward3",
                           mean=zero, std=zero)
        elif kind == 1:
            op = primitive("normal_tensor_1", lambda a, *, values: values, node="NormalBackward1", a=zero)
        else:
            op = primitive("normal_tensor_2", lambda a, *, values: values, node="NormalBackward2", a=zero)
        _NORMAL_OPS[kind] = op
    return _NORMAL_OPS[kind]


def _fill(self: Tensor, kind: str, values) -> Tensor:
    values = np.asarray(values).astype(self._data.dtype, copy=False)
    return apply_inplace(_FILLS[kind], self, (), {"values": values})


def _need_float(self: Tensor, check: str) -> None:
    if self._data.dtype.kind not in "fc":
        raise NotImplementedError(f'"{check}" not implemented for \'{_tname(self)}\'')


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
    return _const_contiguous(out.astype(count._data.dtype))
