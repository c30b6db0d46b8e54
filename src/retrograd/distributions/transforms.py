"""Invertible transforms with log-abs-det-Jacobians, for ``TransformedDistribution``.

Defined here: ``Transform`` (base), ``ComposeTransform`` and ``identity_transform``; the elementwise
transforms (``ExpTransform``, ``AffineTransform``, ``SigmoidTransform``, ``TanhTransform``,
``SoftplusTransform``, ``AbsTransform``, ``PowerTransform``, ``CumulativeDistributionTransform``);
simplex maps and Cholesky factors (``SoftmaxTransform``, ``StickBreakingTransform``,
``LowerCholeskyTransform``, ``PositiveDefiniteTransform``, ``CorrCholeskyTransform``); and the
shape transforms ``ReshapeTransform`` and ``IndependentTransform``.  ``CatTransform`` and
``StackTransform`` (a list of transforms applied to slices) live in ``_cat_stack_transforms`` and are
re-exported at the end of this module, as torch has them here.

>>> import retrograd as torch
>>> from retrograd.distributions.transforms import ExpTransform
>>> t = ExpTransform()
>>> t.inv(t(torch.tensor([0.5])))
tensor([0.5000])
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import retrograd as torch
from retrograd import Size, Tensor
from retrograd.nn.functional import logsigmoid, pad, softplus

from . import constraints
from .utils import _is_number, _sum_rightmost, broadcast_all, tril_matrix_to_vec, vec_to_tril_matrix

__all__ = ["Transform", "ComposeTransform", "ExpTransform", "AffineTransform", "SigmoidTransform",
           "TanhTransform", "SoftplusTransform", "identity_transform", "AbsTransform", "PowerTransform",
           "SoftmaxTransform", "StickBreakingTransform", "LowerCholeskyTransform",
           "PositiveDefiniteTransform", "CorrCholeskyTransform", "CatTransform", "StackTransform",
           "ReshapeTransform", "IndependentTransform", "CumulativeDistributionTransform"]


class Transform:
    """Base class: an invertible map with ``domain``, ``codomain`` and ``log_abs_det_jacobian``.

    ``cache_size=1`` remembers the last ``(x, y)`` pair, so ``t.inv(t(x))`` returns ``x`` itself.

    >>> import retrograd as torch
    >>> from retrograd.distributions.transforms import AffineTransform
    >>> AffineTransform(1.0, 2.0)(torch.tensor(3.0))
    tensor(7.)
    """

    bijective = False
    domain: constraints.Constraint
    codomain: constraints.Constraint

    def __init__(self, cache_size: int = 0) -> None:
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._inv: Transform | None = None
        self._cached_x_y = (None, None)

    @property
    def event_dim(self) -> int:
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self) -> "Transform":
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    @property
    def sign(self) -> int:
        raise NotImplementedError

    def with_cache(self, cache_size: int = 1) -> "Transform":
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = (x, y)
        return y

    def _inv_call(self, y: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = (x, y)
        return x

    def _call(self, x: Tensor) -> Tensor:
        raise NotImplementedError

    def _inverse(self, y: Tensor) -> Tensor:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__ + "()"

    def forward_shape(self, shape: Sequence[int]) -> Sequence[int]:
        return shape

    def inverse_shape(self, shape: Sequence[int]) -> Sequence[int]:
        return shape


class _InverseTransform(Transform):
    """The inverse of a transform (what ``t.inv`` returns); shares its cache."""

    def __init__(self, transform: Transform) -> None:
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> constraints.Constraint:
        return self._inv.codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> constraints.Constraint:
        return self._inv.domain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self._inv.bijective

    @property
    def sign(self) -> int:
        return self._inv.sign

    @property
    def inv(self) -> Transform:
        return self._inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._inv!r})"

    def __call__(self, x: Tensor) -> Tensor:
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """Apply ``parts`` in order; Jacobian terms are summed over the right event dims.

    >>> import retrograd as torch
    >>> from retrograd.distributions.transforms import AffineTransform, ComposeTransform, ExpTransform
    >>> ComposeTransform([AffineTransform(0.0, 2.0), ExpTransform()])(torch.tensor(0.0))
    tensor(1.)
    """

    def __init__(self, parts: list[Transform], cache_size: int = 0) -> None:
        if cache_size:
            parts = [p.with_cache(cache_size) for p in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> constraints.Constraint:
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        # Event dims of the whole chain, pushed back from the last codomain.
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> constraints.Constraint:
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(p.bijective for p in self.parts)

    @property
    def sign(self) -> int:
        s = 1
        for p in self.parts:
            s = s * p.sign
        return s

    @property
    def inv(self) -> Transform:
        if self._inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = inv
            inv._inv = self
        return self._inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x: Tensor) -> Tensor:
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        if not self.parts:
            return torch.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        total = None
        event_dim = self.domain.event_dim
        for part, a, b in zip(self.parts, xs[:-1], xs[1:]):
            term = _sum_rightmost(part.log_abs_det_jacobian(a, b), event_dim - part.domain.event_dim)
            total = term if total is None else total + term
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return total

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self) -> str:
        return type(self).__name__ + "(\n    " + ",\n    ".join(repr(p) for p in self.parts) + "\n)"


identity_transform = ComposeTransform([])


class ExpTransform(Transform):
    """``y = exp(x)``.

    >>> import retrograd as torch
    >>> from retrograd.distributions.transforms import ExpTransform
    >>> ExpTransform().log_abs_det_jacobian(torch.tensor(2.0), torch.tensor(7.389))
    tensor(2.)
    """

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExpTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.exp()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return x


def _clipped_sigmoid(x: Tensor) -> Tensor:
    # Keep the image inside the open interval so the inverse stays finite.
    finfo = torch.finfo(x.dtype)
    return torch.clamp(torch.sigmoid(x), min=finfo.tiny, max=1.0 - finfo.eps)


class SigmoidTransform(Transform):
    """``y = sigmoid(x)`` (clipped into ``(0, 1)``).

    >>> import retrograd as torch
    >>> from retrograd.distributions.transforms import SigmoidTransform
    >>> SigmoidTransform()(torch.tensor(0.0))
    tensor(0.5000)
    """

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SigmoidTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return _clipped_sigmoid(x)

    def _inverse(self, y: Tensor) -> Tensor:
        finfo = torch.finfo(y.dtype)
        y = y.clamp(min=finfo.tiny, max=1.0 - finfo.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -softplus(-x) - softplus(x)


class SoftplusTransform(Transform):
    """``y = log(1 + exp(x))``.

    >>> import retrograd as torch
    >>> from retrograd.distributions.transforms import SoftplusTransform
    >>> SoftplusTransform().inv(torch.tensor(1.0))
    tensor(0.5413)
    """

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SoftplusTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return softplus(x)

    def _inverse(self, y: Tensor) -> Tensor:
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -softplus(-x)


class TanhTransform(Transform):
    """``y = tanh(x)``; the Jacobian term is written stably as ``2 (log 2 - x - softplus(-2x))``.

    >>> import retrograd as torch
    >>> from retrograd.distributions.transforms import TanhTransform
    >>> TanhTransform().log_abs_det_jacobian(torch.tensor(0.0), torch.tensor(0.0))
    tensor(0.)
    """

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TanhTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.tanh()

    def _inverse(self, y: Tensor) -> Tensor:
        return torch.atanh(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


class AffineTransform(Transform):
    """``y = loc + scale * x``; ``event_dim`` sums the Jacobian over that many right dims.

    >>> import retrograd as torch
    >>> from retrograd.distributions.transforms import AffineTransform
    >>> AffineTransform(0.0, 3.0).log_abs_det_jacobian(torch.zeros(2), torch.zeros(2))
    tensor([1.0986, 1.0986])
    """

    bijective = True

    def __init__(self, loc: Tensor | float, scale: Tensor | float, event_dim: int = 0,
                 cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self) -> int:
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> constraints.Constraint:
        return constraints.real if self.event_dim == 0 else constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> constraints.Constraint:
        return constraints.real if self.event_dim == 0 else constraints.independent(constraints.real, self.event_dim)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AffineTransform):
            return False
        for a, b in ((self.loc, other.loc), (self.scale, other.scale)):
            if _is_number(a) and _is_number(b):
                if a != b:
                    return False
            elif not bool((a == b).all()):
                return False
        return True

    __hash__ = object.__hash__

    @property
    def sign(self) -> Tensor | int:
        if _is_number(self.scale):
            s = float(self.scale)
            return 1 if s > 0 else -1 if s < 0 else 0
        return self.scale.sign()

    def _call(self, x: Tensor) -> Tensor:
        return self.loc + self.scale * x

    def _inverse(self, y: Tensor) -> Tensor:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        shape = x.shape
        if _is_number(self.scale):
            result = torch.full_like(x, math.log(abs(self.scale)))
        else:
            result = torch.abs(self.scale).log()
        if self.event_dim:
            result = result.reshape(tuple(result.shape[:result.dim() - self.event_dim]) + (-1,)).sum(-1)
            shape = shape[:len(shape) - self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        return torch.broadcast_shapes(tuple(shape), tuple(getattr(self.loc, "shape", ())),
                                      tuple(getattr(self.scale, "shape", ())))

    def inverse_shape(self, shape):
        return self.forward_shape(shape)


class AbsTransform(Transform):
    """``y = |x|`` (not bijective: the inverse returns the positive root).

    >>> import retrograd as torch
    >>> from retrograd.distributions.transforms import AbsTransform
    >>> AbsTransform()(torch.tensor(-2.0))
    tensor(2.)
    """

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AbsTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.abs()

    def _inverse(self, y: Tensor) -> Tensor:
        return y


class PowerTransform(Transform):
    """``y = x ** exponent`` on the positive reals.

    >>> import retrograd as torch
    >>> from retrograd.distributions.transforms import PowerTransform
    >>> PowerTransform(2.0)(torch.tensor(3.0))
    tensor(9.)
    """

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent: Tensor | float, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self) -> Tensor:
        return self.exponent.sign()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PowerTransform):
            return False
        return bool(self.exponent.eq(other.exponent).all().item())

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.pow(self.exponent)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return torch.broadcast_shapes(tuple(shape), tuple(self.exponent.shape))

    def inverse_shape(self, shape):
        return torch.broadcast_shapes(tuple(shape), tuple(self.exponent.shape))


class SoftmaxTransform(Transform):
    """Real vectors to the simplex by ``softmax`` over the last dim (not bijective).

    >>> import retrograd as torch
    >>> from retrograd.distributions.transforms import SoftmaxTransform
    >>> SoftmaxTransform()(torch.zeros(2))
    tensor([0.5000, 0.5000])
    """

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SoftmaxTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape


def _stick_offset(x: Tensor) -> Tensor:
    # K, K-1, ..., 1 for a K-vector: centres the sigmoid so x = 0 maps to the simplex centre.
    k = x.shape[-1]
    return (k + 1) - torch.ones(k, dtype=x.dtype).cumsum(-1)


class StickBreakingTransform(Transform):
    """Bijection from ``R^K`` to the ``K+1`` simplex by stick breaking.

    >>> import retrograd as torch
    >>> from retrograd.distributions.transforms import StickBreakingTransform
    >>> StickBreakingTransform()(torch.zeros(2))
    tensor([0.3333, 0.3333, 0.3333])
    """

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StickBreakingTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        z = _clipped_sigmoid(x - _stick_offset(x).log())
        z_cumprod = (1 - z).cumprod(-1)
        return pad(z, [0, 1], value=1) * pad(z_cumprod, [1, 0], value=1)

    def _inverse(self, y: Tensor) -> Tensor:
        y_crop = y[..., :-1]
        k = y_crop.shape[-1]
        offset = (k + 1) - torch.ones(k, dtype=y.dtype).cumsum(-1)
        sf = (1 - y_crop.cumsum(-1)).clamp(min=torch.finfo(y.dtype).tiny)
        return y_crop.log() - sf.log() + offset.log()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        x = x - _stick_offset(x).log()
        return (-x + logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class LowerCholeskyTransform(Transform):
    """Square matrices to lower-triangular ones with a positive diagonal (``exp`` of the diagonal).

    >>> import retrograd as torch
    >>> from retrograd.distributions.transforms import LowerCholeskyTransform
    >>> LowerCholeskyTransform()(torch.zeros(2, 2))
    tensor([[1., 0.],
            [0., 1.]])
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """Square matrices to positive-definite ones: ``L L^T`` with ``L`` from LowerCholeskyTransform.

    >>> import retrograd as torch
    >>> from retrograd.distributions.transforms import PositiveDefiniteTransform
    >>> PositiveDefiniteTransform()(torch.zeros(2, 2))
    tensor([[1., 0.],
            [0., 1.]])
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        lower = LowerCholeskyTransform()(x)
        return lower @ lower.mT

    def _inverse(self, y: Tensor) -> Tensor:
        return LowerCholeskyTransform().inv(torch.linalg.cholesky(y))


class CorrCholeskyTransform(Transform):
    """Unconstrained vectors of length ``D(D-1)/2`` to Cholesky factors of ``D x D`` correlation
    matrices (tanh, then stick breaking along each row).

    >>> import retrograd as torch
    >>> from retrograd.distributions.transforms import CorrCholeskyTransform
    >>> CorrCholeskyTransform()(torch.zeros(1))
    tensor([[1., 0.],
            [0., 1.]])
    """

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x: Tensor) -> Tensor:
        eps = torch.finfo(x.dtype).eps
        x = torch.tanh(x).clamp(min=-1 + eps, max=1 - eps)
        r = vec_to_tril_matrix(x, diag=-1)
        z1m_cumprod_sqrt = (1 - r ** 2).sqrt().cumprod(-1)
        r = r + torch.eye(r.shape[-1], dtype=r.dtype)
        return r * pad(z1m_cumprod_sqrt[..., :-1], [1, 0], value=1)

    def _inverse(self, y: Tensor) -> Tensor:
        y_cumsum = 1 - torch.cumsum(y * y, dim=-1)
        y_cumsum_shifted = pad(y_cumsum[..., :-1], [1, 0], value=1)
        y_vec = tril_matrix_to_vec(y, diag=-1)
        y_cumsum_vec = tril_matrix_to_vec(y_cumsum_shifted, diag=-1)
        t = y_vec / y_cumsum_vec.sqrt()
        return (t.log1p() - t.neg().log1p()) / 2

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor, intermediates: Any = None) -> Tensor:
        y1m_cumsum = 1 - (y * y).cumsum(dim=-1)
        stick_breaking_logdet = 0.5 * tril_matrix_to_vec(y1m_cumsum, diag=-2).log().sum(-1)
        tanh_logdet = -2 * (x + softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattend lower-diagonal number")
        return tuple(shape[:-1]) + (d, d)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return tuple(shape[:-2]) + (d * (d - 1) // 2,)


class ReshapeTransform(Transform):
    """Reshape the rightmost ``in_shape`` dims to ``out_shape`` (unit Jacobian).

    >>> import retrograd as torch
    >>> from retrograd.distributions.transforms import ReshapeTransform
    >>> ReshapeTransform((4,), (2, 2))(torch.zeros(3, 4)).shape
    torch.Size([3, 2, 2])
    """

    bijective = True

    def __init__(self, in_shape: Sequence[int], out_shape: Sequence[int], cache_size: int = 0) -> None:
        self.in_shape = Size(in_shape)
        self.out_shape = Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self) -> constraints.Constraint:
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self) -> constraints.Constraint:
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x: Tensor) -> Tensor:
        batch_shape = x.shape[:x.dim() - len(self.in_shape)]
        return x.reshape(batch_shape + self.out_shape)

    def _inverse(self, y: Tensor) -> Tensor:
        batch_shape = y.shape[:y.dim() - len(self.out_shape)]
        return y.reshape(batch_shape + self.in_shape)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        batch_shape = x.shape[:x.dim() - len(self.in_shape)]
        return torch.zeros(batch_shape, dtype=x.dtype)

    @staticmethod
    def _swap(shape, old: Size, new: Size):
        if len(shape) < len(old):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(old)
        if tuple(shape[cut:]) != tuple(old):
            raise ValueError(f"Shape mismatch: expected {Size(shape[cut:])} but got {old}")
        return Size(shape[:cut]) + new

    def forward_shape(self, shape):
        return self._swap(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return self._swap(shape, self.out_shape, self.in_shape)


class IndependentTransform(Transform):
    """Treat ``reinterpreted_batch_ndims`` more rightmost dims of ``base_transform`` as event
    dims (its Jacobian term is summed over them).

    >>> import retrograd as torch
    >>> from retrograd.distributions.transforms import ExpTransform, IndependentTransform
    >>> t = IndependentTransform(ExpTransform(), 1)
    >>> t.log_abs_det_jacobian(torch.ones(2), torch.ones(2))
    tensor(2.)
    """

    def __init__(self, base_transform: Transform, reinterpreted_batch_ndims: int, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> constraints.Constraint:
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> constraints.Constraint:
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self.base_transform.bijective

    @property
    def sign(self) -> int:
        return self.base_transform.sign

    def _call(self, x: Tensor) -> Tensor:
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y: Tensor) -> Tensor:
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)``: maps the distribution's support onto the unit interval.

    >>> import retrograd as torch
    >>> from retrograd.distributions import Normal
    >>> from retrograd.distributions.transforms import CumulativeDistributionTransform
    >>> CumulativeDistributionTransform(Normal(0.0, 1.0))(torch.tensor(0.0))
    tensor(0.5000)
    """

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return self.distribution.support

    def _call(self, x: Tensor) -> Tensor:
        return self.distribution.cdf(x)

    def _inverse(self, y: Tensor) -> Tensor:
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return type(self)(self.distribution, cache_size=cache_size)


# Defined in their own module (which needs the base classes above), exported from here as in torch.
from ._cat_stack_transforms import CatTransform, StackTransform  # noqa: E402
