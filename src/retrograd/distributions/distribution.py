"""The ``Distribution`` base class: shapes, validation, sampling protocol and repr.

>>> import retrograd as torch
>>> from retrograd.distributions import Normal
>>> Normal(0.0, 1.0)
Normal(loc: 0.0, scale: 1.0)
"""
from __future__ import annotations

import warnings
from typing import Any, Sequence

import retrograd as torch
from retrograd import Size, Tensor

from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


def _all_true(valid: Any) -> bool:
    return bool(valid.all()) if isinstance(valid, Tensor) else bool(valid)


class Distribution:
    """Abstract base class of probability distributions.

    Subclasses set ``arg_constraints``, ``support`` and implement ``log_prob``, ``rsample``
    or ``sample``, ``mean``, ``variance``... Argument validation (``validate_args``) is on by
    default, as in torch (off under ``python -O``).

    >>> import retrograd as torch
    >>> from retrograd.distributions import Bernoulli
    >>> d = Bernoulli(probs=torch.tensor([0.25, 0.5]))
    >>> d.batch_shape, d.event_shape
    (torch.Size([2]), torch.Size([]))
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument validation on or off for every distribution made afterwards.

        >>> from retrograd.distributions import Distribution
        >>> Distribution.set_default_validate_args(True)
        """
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape: Sequence[int] = Size(), event_shape: Sequence[int] = Size(),
                 validate_args: bool | None = None) -> None:
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set "
                              "`arg_constraints = {}` or initialize the distribution with "
                              "`validate_args=False` to turn off validation.", stacklevel=2)
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                # A parameter the user did not give (probs when built from logits) is derived,
                # hence valid; computing it here would also be wasted work.
                if param not in self.__dict__ and isinstance(getattr(type(self), param, None), lazy_property):
                    continue
                value = getattr(self, param)
                if not _all_true(constraint.check(value)):
                    raise ValueError(f"Expected parameter {param} ({type(value).__name__} of shape "
                                     f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                                     f"constraint {constraint!r}, but found invalid values:\n{value}")

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> "Distribution":
        """A new distribution whose parameters are expanded (not copied) to ``batch_shape``.

        >>> import retrograd as torch
        >>> from retrograd.distributions import Normal
        >>> Normal(0.0, 1.0).expand([2]).batch_shape
        torch.Size([2])
        """
        raise NotImplementedError

    @property
    def batch_shape(self) -> Size:
        """The shape over which the parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        """The shape of one sample, without batching."""
        return self._event_shape

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        """Maps each tensor argument's name to the constraint it must satisfy."""
        raise NotImplementedError

    @property
    def support(self) -> constraints.Constraint | None:
        """The constraint that describes where samples lie."""
        raise NotImplementedError

    @property
    def mean(self) -> Tensor:
        """Mean of the distribution."""
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        """Mode of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        """Variance of the distribution."""
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        """Standard deviation (square root of the variance)."""
        return self.variance.sqrt()

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """Draw ``sample_shape`` samples (no gradient flows back to the parameters)."""
        with torch.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """Draw reparameterised samples: gradients flow back to the parameters."""
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        """Deprecated: ``sample((n,))``."""
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.", FutureWarning,
                      stacklevel=2)
        return self.sample(Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        """Log of the density (or mass) function at ``value``."""
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        """Cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        """Inverse cumulative distribution function at ``value``."""
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """All values of a discrete distribution, enumerated along dim 0."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """Entropy, batched over ``batch_shape``."""
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        """``exp(entropy())``."""
        return torch.exp(self.entropy())

    def _extended_shape(self, sample_shape: Sequence[int] = Size()) -> Size:
        if isinstance(sample_shape, int):
            raise TypeError("'int' object is not iterable")
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_start = value.dim() - len(self._event_shape)
        if value.size()[event_start:] != self._event_shape:
            raise ValueError("The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        actual = value.size()
        expected = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError("Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual} vs {expected}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample validation. "
                          "Please initialize the distribution with `validate_args=False` to turn off "
                          "validation.", stacklevel=2)
            return
        if not _all_true(support.check(value)):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape "
                             f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                             f"distribution {self!r}, but found invalid values:\n{value}")

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {self.__class__.__name__} of {cls.__name__} that defines "
                                      "a custom __init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def _expand_params(self, cls: type, batch_shape: Sequence[int], _instance: Any,
                       names: Sequence[str], param_tail: Sequence[int] = ()) -> Any:
        """The usual ``expand`` body: a ``cls`` (or ``_instance``) whose tensor parameters ``names``
        are this one's, expanded (not copied) to ``batch_shape + param_tail``.

        A lazy parameter not computed yet (``probs`` of a Bernoulli built from logits) stays lazy.
        """
        new = self._get_checked_instance(cls, _instance)
        shape = Size(batch_shape) + tuple(param_tail)
        for name in names:
            if name in self.__dict__ or not isinstance(getattr(type(self), name, None), lazy_property):
                setattr(new, name, getattr(self, name).expand(shape))
        return self._finish_expand(cls, new, batch_shape)

    def _finish_expand(self, cls: type, new: Any, batch_shape: Sequence[int]) -> Any:
        """Initialise the expanded ``new`` as the base of ``cls`` does, keeping this event shape.

        No validation: the parameters were checked when this instance was built; ``new`` keeps
        this instance's ``validate_args`` for its samples.
        """
        super(cls, new).__init__(Size(batch_shape), self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def __repr__(self) -> str:
        # Scalar parameters print their value, others their size, as torch does.
        parts = []
        for name in self.arg_constraints:
            if name in self.__dict__:
                v = self.__dict__[name]
                parts.append(f"{name}: {v if v.numel() == 1 else v.size()}")
        return f"{self.__class__.__name__}({', '.join(parts)})"
