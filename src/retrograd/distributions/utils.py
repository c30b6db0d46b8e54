"""Helpers shared by the distribution families (broadcasting, probs <-> logits, lazy params).

>>> import retrograd as torch
>>> from retrograd.distributions.utils import probs_to_logits
>>> probs_to_logits(torch.tensor([0.5]), is_binary=True)
tensor([0.])
"""
from __future__ import annotations

from functools import update_wrapper
from typing import Any, Callable, Sequence

import retrograd as torch
from retrograd import Tensor

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
           "euler_constant", "tril_matrix_to_vec", "vec_to_tril_matrix"]

euler_constant: float = 0.57721566490153286060  # Euler-Mascheroni constant


def _is_number(v: Any) -> bool:
    # torch's notion of a Python number: bool, int or float (not complex, not NumPy scalars).
    return isinstance(v, (bool, int, float))


def broadcast_all(*values: Tensor | float) -> tuple[Tensor, ...]:
    """Broadcast tensors and Python numbers together; numbers take the first tensor's dtype.

    >>> import retrograd as torch
    >>> from retrograd.distributions.utils import broadcast_all
    >>> [v.shape for v in broadcast_all(torch.zeros(3), 1.0)]
    [torch.Size([3]), torch.Size([3])]
    """
    if not all(isinstance(v, Tensor) or _is_number(v) for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if all(isinstance(v, Tensor) for v in values):
        return tuple(torch.broadcast_tensors(*values))
    dtype = torch.get_default_dtype()
    for v in values:
        if isinstance(v, Tensor):
            dtype = v.dtype
            break
    tensors = [v if isinstance(v, Tensor) else torch.tensor(v, dtype=dtype) for v in values]
    return tuple(torch.broadcast_tensors(*tensors))


def _standard_normal(shape, dtype) -> Tensor:
    # Through Tensor.normal_ like torch, so a seeded run draws the same stream.
    return torch.empty(shape, dtype=dtype).normal_()


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """Sum out the ``dim`` rightmost dimensions of ``value``."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Logits (log-odds if ``is_binary``, else unnormalised log-probs on the last dim) to probs.

    >>> import retrograd as torch
    >>> from retrograd.distributions.utils import logits_to_probs
    >>> logits_to_probs(torch.tensor([0.0, 0.0]))
    tensor([0.5000, 0.5000])
    """
    if is_binary:
        return torch.sigmoid(logits)
    return torch.softmax(logits, dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    """Clamp probabilities into ``[eps, 1 - eps]`` for the tensor's dtype.

    >>> import retrograd as torch
    >>> from retrograd.distributions.utils import clamp_probs
    >>> clamp_probs(torch.tensor([0.0, 1.0], dtype=torch.float64))[0].item() > 0
    True
    """
    eps = torch.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities to logits (log-odds if ``is_binary``, else log-probs).

    >>> import retrograd as torch
    >>> from retrograd.distributions.utils import probs_to_logits
    >>> probs_to_logits(torch.tensor([1.0]))
    tensor([-1.1921e-07])
    """
    p = clamp_probs(probs)
    if is_binary:
        return torch.log(p) - torch.log1p(-p)
    return torch.log(p)


def _probs_or_logits(probs: Any, logits: Any) -> tuple[str, Any]:
    """Which of ``probs`` / ``logits`` a probs-or-logits family was given, and its value."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    return ("probs", probs) if probs is not None else ("logits", logits)


def _held_param(dist: Any) -> Tensor:
    """The probs-or-logits tensor ``dist`` holds: logits when it holds both (torch's ``expand`` picks so)."""
    return dist.__dict__.get("logits", dist.__dict__.get("probs"))


def _lazy_probs_logits(is_binary: bool) -> tuple[lazy_property, lazy_property]:
    """The ``logits`` and ``probs`` attributes of a probs-or-logits family: the one given is set
    on the instance, the other is derived from it on first access (``is_binary``: log-odds and
    sigmoid, else log-probs and softmax over the last dim)."""

    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=is_binary)

    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=is_binary)

    return lazy_property(logits), lazy_property(probs)


def _enumerate_along_batch(values: Tensor, batch_shape: Sequence[int], expand: bool) -> Tensor:
    """``enumerate_support``'s layout: the values along dim 0, then the batch dims (size 1, or
    expanded to ``batch_shape`` without copying), then each value's own (event) dims."""
    event = tuple(values.shape[1:])
    values = values.reshape((-1,) + (1,) * len(batch_shape) + event)
    if expand:
        values = values.expand((-1,) + tuple(batch_shape) + event)
    return values


class lazy_property:
    """Compute an attribute on first access, then store it on the instance.

    Used for the parameter a distribution was not built from (``probs`` from ``logits``...).
    The value is computed with grad enabled so it stays connected to the given parameter.

    >>> from retrograd.distributions.utils import lazy_property
    >>> class A:
    ...     @lazy_property
    ...     def x(self):
    ...         return 3
    >>> A().x
    3
    """

    def __init__(self, wrapped: Callable) -> None:
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with torch.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def _tril_flat_index(n: int, diag: int) -> list[int]:
    # Row-major flat positions of the entries on or below diagonal ``diag`` of an n x n matrix.
    return [r * n + c for r in range(n) for c in range(n) if c <= r + diag]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """Place the last dim of ``vec`` row by row into the entries on or below diagonal ``diag`` of a
    square matrix (zeros elsewhere); the inverse of ``tril_matrix_to_vec``.

    >>> import retrograd as torch
    >>> from retrograd.distributions.utils import vec_to_tril_matrix
    >>> vec_to_tril_matrix(torch.tensor([1.0, 2.0, 3.0]))
    tensor([[1., 0.],
            [2., 3.]])
    """
    m = vec.shape[-1]
    b = 1 + 2 * diag
    n = (-b + (b * b + 8 * m + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > torch.finfo(vec.dtype).eps or abs(round(n) - n) > 1e-6:
        raise ValueError(f"The size of last dimension is {m} which cannot be expressed as the "
                         "lower triangular part of a square D x D matrix.")
    n = round(n)
    # Gather from the vector with one zero appended: off-triangle positions read the zero.
    where = [m] * (n * n)
    for k, pos in enumerate(_tril_flat_index(n, diag)):
        where[pos] = k
    padded = torch.cat([vec, torch.zeros(tuple(vec.shape[:-1]) + (1,), dtype=vec.dtype)], -1)
    return padded[..., torch.tensor(where)].reshape(tuple(vec.shape[:-1]) + (n, n))


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The entries on or below diagonal ``diag`` of the last two dims of ``mat``, row by row.

    >>> import retrograd as torch
    >>> from retrograd.distributions.utils import tril_matrix_to_vec
    >>> tril_matrix_to_vec(torch.tensor([[1.0, 0.0], [2.0, 3.0]]))
    tensor([1., 2., 3.])
    """
    n = mat.shape[-1]
    flat = mat.reshape(tuple(mat.shape[:-2]) + (n * n,))
    return flat[..., torch.tensor(_tril_flat_index(n, diag), dtype=torch.int64)]
