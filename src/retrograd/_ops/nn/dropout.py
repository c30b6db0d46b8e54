"""Native_dropout, alpha_dropout, feature_alpha_dropout, feature_dropout."""
from __future__ import annotations

from ..._tensor import Tensor
from ..copies import _F

__all__ = ["alpha_dropout", "feature_alpha_dropout", "feature_dropout"]


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.alpha_dropout(input, p, train)``.

    >>> import retrograd as torch
    >>> torch.alpha_dropout(torch.ones(2), 0.5, False)
    tensor([1., 1.])
    """
    return _F().alpha_dropout(input, p, train)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.feature_alpha_dropout(input, p, train)``.

    >>> import retrograd as torch
    >>> torch.feature_alpha_dropout(torch.ones(1, 2), 0.5, False)
    tensor([[1., 1.]])
    """
    return _F().feature_alpha_dropout(input, p, train)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.feature_dropout(input, p, train)``: zero whole channels (dim 1) with probability p.

    >>> import retrograd as torch
    >>> torch.feature_dropout(torch.ones(1, 2), 0.5, False)
    tensor([[1., 1.]])
    """
    F = _F()
    F._check_p(p)
    if not train or p == 0.0:
        return input
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    return input * F._keep_mask(shape, p, input.dtype)
