"""torch's top-level entry points of ``nn.functional``'s composites: ``torch.kl_div``,
``torch.rms_norm``, ``torch.alpha_dropout``, ``torch.pixel_unshuffle`` ... with ATen's argument
forms (reductions as ints 0 none, 1 mean, 2 sum).  They sit above ``nn.functional`` and call it;
no gradients are defined here (the op table, ``_ops/``, never imports ``nn``).
"""
from __future__ import annotations

from .._ops._common import tensor_args
from .._tensor import Tensor

__all__ = ["binary_cross_entropy_with_logits", "kl_div", "hinge_embedding_loss", "margin_ranking_loss",
           "poisson_nll_loss", "triplet_margin_loss", "cosine_embedding_loss", "prelu", "rms_norm", "pixel_unshuffle",
           "channel_shuffle", "alpha_dropout", "feature_alpha_dropout", "feature_dropout"]


def _F():
    from . import functional  # (imported on first call: nn.functional is built after this module's package)

    return functional


# ------------------------------------------------------------------ losses
# torch's top-level functions behave as if their default reduction were 0 ('none'), though its
# stubs print ``reduction=1``; retrograd follows the behaviour.
_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _red(reduction) -> str:
    if isinstance(reduction, str):
        return reduction
    return _REDUCTIONS[int(reduction)]


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction: int = 0) -> Tensor:
    """``torch.binary_cross_entropy_with_logits`` (reduction: 0 none, 1 mean, 2 sum).

    >>> import retrograd as torch
    >>> torch.binary_cross_entropy_with_logits(torch.zeros(2), torch.ones(2), None, None, 1)
    tensor(0.6931)
    """
    return _F().binary_cross_entropy_with_logits(input, target, weight, reduction=_red(reduction),
                                                 pos_weight=pos_weight)


def kl_div(input: Tensor, target: Tensor, reduction: int = 0, *, log_target: bool = False) -> Tensor:
    """``torch.kl_div`` (reduction: 0 none, 1 mean over all elements, 2 sum).

    >>> import retrograd as torch
    >>> torch.kl_div(torch.zeros(2), torch.ones(2))
    tensor([0., 0.])
    """
    return _F().kl_div(input, target, reduction=_red(reduction), log_target=log_target)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, reduction: int = 0) -> Tensor:
    """``torch.hinge_embedding_loss``.

    >>> import retrograd as torch
    >>> torch.hinge_embedding_loss(torch.tensor([0.5]), torch.tensor([-1.]))
    tensor([0.5000])
    """
    return _F().hinge_embedding_loss(input, target, margin, reduction=_red(reduction))


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = 0) -> Tensor:
    """``torch.margin_ranking_loss``.

    >>> import retrograd as torch
    >>> torch.margin_ranking_loss(torch.tensor([1.]), torch.tensor([2.]), torch.tensor([1.]))
    tensor([1.])
    """
    return _F().margin_ranking_loss(input1, input2, target, margin, reduction=_red(reduction))


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: int) -> Tensor:
    """``torch.poisson_nll_loss`` (every argument required, as in torch).

    >>> import retrograd as torch
    >>> torch.poisson_nll_loss(torch.zeros(2), torch.zeros(2), True, False, 1e-8, 1)
    tensor(1.)
    """
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_red(reduction))


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-06, swap: bool = False, reduction: int = 0) -> Tensor:
    """``torch.triplet_margin_loss``.

    >>> import retrograd as torch
    >>> torch.triplet_margin_loss(torch.zeros(1, 2), torch.zeros(1, 2), torch.zeros(1, 2))
    tensor([1.])
    """
    return _F().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=_red(reduction))


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = 0) -> Tensor:
    """``torch.cosine_embedding_loss``.

    >>> import retrograd as torch
    >>> torch.cosine_embedding_loss(torch.ones(1, 2), torch.ones(1, 2), torch.tensor([1.]))
    tensor([0.])
    """
    return _F().cosine_embedding_loss(input1, input2, target, margin, reduction=_red(reduction))


@tensor_args("prelu", weight=2)
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``torch.prelu``: max(0, x) + weight * min(0, x).

    >>> import retrograd as torch
    >>> torch.prelu(torch.tensor([-2., 2.]), torch.tensor([0.5]))
    tensor([-1.,  2.])
    """
    return _F().prelu(input, weight)


# ------------------------------------------------------------------ normalization
def rms_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """``torch.rms_norm``.

    >>> import retrograd as torch
    >>> torch.rms_norm(torch.tensor([3., 4.]), [2])
    tensor([0.8485, 1.1314])
    """
    return _F().rms_norm(input, normalized_shape, weight, eps)


# ------------------------------------------------------------------ vision
def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """``torch.pixel_unshuffle``.

    >>> import retrograd as torch
    >>> torch.pixel_unshuffle(torch.zeros(1, 1, 4, 4), 2).shape
    torch.Size([1, 4, 2, 2])
    """
    return _F().pixel_unshuffle(input, downscale_factor)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """``torch.channel_shuffle``.

    >>> import retrograd as torch
    >>> torch.channel_shuffle(torch.arange(4.).reshape(1, 4, 1, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    return _F().channel_shuffle(input, groups)


# ------------------------------------------------------------------ dropout
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
