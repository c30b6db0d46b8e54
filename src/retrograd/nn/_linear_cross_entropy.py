"""``nn.functional.linear_cross_entropy`` and ``nn.LinearCrossEntropyOptions``.

The loss is ``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)`` with a
weight of shape (C, in_features) or (C, d_1, ..., d_K, in_features) for a K-dimensional loss.
PyTorch can compute it in batch chunks (``options``) to save memory; retrograd accepts the
options, checks them, and always computes the reference form (the same values, and twice
differentiable, which PyTorch's chunked path is not).

>>> import retrograd as torch
>>> x, w = torch.ones(2, 3), torch.zeros(4, 3)
>>> torch.nn.functional.linear_cross_entropy(x, w, torch.tensor([0, 3]))
tensor(1.3863)
"""
from __future__ import annotations

import dataclasses
import math
import warnings

from .._tensor import Tensor

__all__ = ["LinearCrossEntropyOptions", "linear_cross_entropy"]

_POLICIES = ("auto", "accurate", "balanced", "compact")


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """How PyTorch chunks :func:`linear_cross_entropy` (checked here, then not needed: retrograd
    computes the unchunked reference form, whose values are the same).

    >>> import retrograd as torch
    >>> torch.nn.LinearCrossEntropyOptions(batch_chunk_size=2).batch_chunk_size
    2
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: object | None = None

    def __post_init__(self) -> None:
        if self.acc_policy not in _POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            factor = factor if sep else "1"
            if name != "aspect_ratio" or not factor.isdigit() or int(factor) <= 0:
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        size = self.batch_chunk_size
        if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size <= 0):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        if self.acc_dtype is not None and str(self.acc_dtype).rpartition(".")[2] not in (
                "float16", "bfloat16", "float32", "float64"):
            raise ValueError(f"acc_dtype must be one of {{None, torch.float16, torch.bfloat16, torch.float32, "
                             f"torch.float64}}, got {self.acc_dtype!r}. Pass acc_dtype=None to let the op pick "
                             "automatically.")


def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *, linear_bias: Tensor | None = None,
                         weight: Tensor | None = None, reduction: str = "mean", ignore_index: int | None = None,
                         label_smoothing: float = 0.0, options: LinearCrossEntropyOptions | None = None) -> Tensor:
    """Cross entropy of ``target`` and the logits ``input @ linear_weight^T (+ linear_bias)``.

    ``input`` is (in_features,) or (N, in_features); ``linear_weight`` (C, [d_1, ...,] in_features);
    ``ignore_index=None`` means -100 for class-index targets.

    >>> import retrograd as torch
    >>> x = torch.tensor([[1., 0.]])
    >>> torch.nn.functional.linear_cross_entropy(x, torch.eye(2), torch.tensor([0]), reduction="none")
    tensor([0.3133])
    """
    from . import functional as F

    if input.ndim < 1 or input.ndim > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.ndim}")
    if linear_weight.ndim < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.ndim}")
    batch = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {in_features} and {linear_weight.shape[-1]}, respectively")
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, "
                           f"got {tuple(linear_bias.shape)}")
    if out_features and not batch:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires"
                           f" batched input, (N, {in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    logits_shape = (*batch, num_classes, *out_features)
    # (cross_entropy reads a target of the logits' shape as class probabilities)
    probabilities = tuple(target.shape) == logits_shape
    if probabilities and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    if options is not None and (out_features or reduction not in ("mean", "sum", "none")
                                or label_smoothing != 0.0 or str(target.dtype).rpartition(".")[2] != "int64"):
        # PyTorch's chunked path cannot take these and says it falls back to the reference form
        bias_shape = tuple(linear_bias.shape) if linear_bias is not None else None
        warnings.warn("linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
                      "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, out_features == (). Got "
                      f"reduction={reduction!r}, label_smoothing={label_smoothing}, target.dtype="
                      f"torch.{str(target.dtype).rpartition('.')[2]}, out_features={out_features}, tracing=False, "
                      f"linear_bias.shape={bias_shape}.", stacklevel=2)
    flat_w = linear_weight.reshape(math.prod(out_features, start=num_classes), in_features)
    logits = F.linear(input, flat_w).reshape(logits_shape)
    if linear_bias is not None:
        logits = logits + linear_bias
    return F.cross_entropy(logits, target, weight=weight, reduction=reduction,
                           ignore_index=-100 if ignore_index is None else ignore_index,
                           label_smoothing=label_smoothing)
