"""Gradient clipping by total norm or by value (in place on ``.grad``), and its two halves: the total norm
of some tensors, and scaling grads by a given norm."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ... import _dtype
from ..._tensor import Tensor
from ...autograd import grad_mode

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def _grads(parameters) -> list:
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p._grad for p in parameters if p._grad is not None]


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None) -> Tensor:
    """Scale all gradients together so that their total ``norm_type``-norm is at most ``max_norm``.

    Returns the total norm before clipping (a 0-d tensor).

    >>> import retrograd as torch
    >>> w = torch.nn.Parameter(torch.ones(4))
    >>> (w * 3).sum().backward()
    >>> torch.nn.utils.clip_grad_norm_([w], 1.0)
    tensor(6.)
    """
    grads = _grads(parameters)
    max_norm = float(max_norm)
    norm_type = float(norm_type)
    if len(grads) == 0:
        # nothing to measure: PyTorch returns torch.tensor(0.0), i.e. in the default dtype
        return Tensor._wrap(np.array(0.0, dtype=_dtype.get_default_dtype().np), False, None, 0)
    total_t = _total_norm(grads, norm_type)
    total = float(total_t._data)
    dtype = total_t._data.dtype
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                           "it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                           "norm anyway, set `error_if_nonfinite=False`")
    # PyTorch multiplies by the clamped coefficient unconditionally (1.0 when within the bound)
    # computed in the norm's dtype, as torch's tensor arithmetic does (float32 rounding for float32 grads)
    coef = min(float(dtype.type(max_norm) / (np.asarray(total, dtype=dtype) + dtype.type(1e-6))), 1.0)
    # an inf/nan total scales inf grads by 0 (nan, as in torch), which must not raise NumPy warnings
    with grad_mode.no_grad(), np.errstate(invalid="ignore", over="ignore"):
        for g in grads:
            g.mul_(float(np.asarray(coef, dtype=dtype)))
    return total_t


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None) -> Tensor:
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient element to [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    with grad_mode.no_grad():
        for g in _grads(parameters):
            g.clamp_(-clip_value, clip_value)


def _total_norm(tensors: list, norm_type: float) -> Tensor:
    """The norm of the per-tensor norms, computed by ``linalg.vector_norm`` as torch does (so every
    order it accepts works here too: 0 counts non-zeros, negative orders, inf and -inf)."""
    from ... import _ops as O
    from ... import linalg

    with grad_mode.no_grad():
        norms = [linalg.vector_norm(t.detach(), norm_type) for t in tensors]
        return linalg.vector_norm(O.stack(norms), norm_type)


def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """The ``norm_type``-norm of the norms of ``tensors`` (as if all were concatenated into one vector).

    >>> import retrograd as torch
    >>> torch.nn.utils.get_total_norm([torch.tensor([3.]), torch.tensor([4.])])
    tensor(5.)
    """
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    tensors = [t for t in tensors if t is not None]
    norm_type = float(norm_type)
    if not tensors:
        # nothing to measure: PyTorch returns torch.tensor(0.0), i.e. in the default dtype
        return Tensor._wrap(np.array(0.0, dtype=_dtype.get_default_dtype().np), False, None, 0)
    total_t = _total_norm(tensors, norm_type)
    total = float(total_t._data)
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                           "it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                           "norm anyway, set `error_if_nonfinite=False`")
    return total_t


def clip_grads_with_norm_(parameters, max_norm: float, total_norm, foreach=None) -> None:
    """Scale the grads of ``parameters`` by min(1, max_norm / (total_norm + 1e-6)), in place.

    >>> import retrograd as torch
    >>> w = torch.nn.Parameter(torch.ones(4))
    >>> (w * 3).sum().backward()
    >>> torch.nn.utils.clip_grads_with_norm_([w], 1.0, torch.tensor(6.))
    >>> round(w.grad.norm().item(), 4)
    1.0
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p._grad for p in parameters if p._grad is not None]
    if not grads:
        return
    # the coefficient is computed in total_norm's dtype (float32 for a float32 norm), as in PyTorch
    dtype = np.dtype(total_norm._data.dtype if isinstance(total_norm, Tensor) else np.float64)
    total = np.asarray(total_norm._data if isinstance(total_norm, Tensor) else total_norm, dtype=dtype)
    coef = min(float(dtype.type(max_norm) / (total + dtype.type(1e-6))), 1.0)
    # an inf/nan total scales inf grads by 0 (nan, as in torch), which must not raise NumPy warnings
    with grad_mode.no_grad(), np.errstate(invalid="ignore", over="ignore"):
        for g in grads:
            g.mul_(coef)
