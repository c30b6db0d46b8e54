"""``nn.init``: in-place initialisers with PyTorch's distributions, bounds and gains.

Values come from retrograd's generator through ``uniform_`` / ``normal_``, so after the
same ``manual_seed`` they are PyTorch's numbers (``orthogonal_`` and ``trunc_normal_`` to
within float rounding of the QR / erfinv step).

>>> import retrograd as torch
>>> w = torch.empty(3, 5)
>>> _ = torch.nn.init.constant_(w, 0.5)
>>> float(w.sum())
7.5
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .._tensor import Tensor
from ..autograd import grad_mode

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_",
           "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_",
           "sparse_"]


def _write(tensor: Tensor, values: np.ndarray) -> Tensor:
    """Overwrite ``tensor`` in place, outside autograd (as PyTorch's init does under no_grad)."""
    with grad_mode.no_grad():
        tensor.copy_(Tensor._wrap(np.asarray(values, dtype=tensor._data.dtype), False, None, 0))
    return tensor


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity (``'relu'`` -> sqrt(2), ``'tanh'`` -> 5/3 ...)."""
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                  "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    dims = tensor.dim()
    if dims < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    num_input_fmaps = tensor.size(1)
    num_output_fmaps = tensor.size(0)
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return num_input_fmaps * receptive, num_output_fmaps * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill with U(a, b): ``tensor.uniform_(a, b)`` without recording (PyTorch's numbers).

    >>> import retrograd as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.nn.init.uniform_(torch.empty(2), -1, 1)
    tensor([-0.0075,  0.5364])
    """
    with grad_mode.no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill with N(mean, std^2): ``tensor.normal_(mean, std)`` without recording.

    >>> import retrograd as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.nn.init.normal_(torch.empty(2), 0, 2)
    tensor([ 3.0820, -0.5869])
    """
    with grad_mode.no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _norm_cdf(x: float) -> float:  # the standard normal CDF
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None) -> Tensor:
    """Fill with N(mean, std^2) truncated to [a, b], by PyTorch's rejection scheme (so the
    same seed gives the same values): when [a, b] holds over 30% of the mass, redraw normals
    outside it; otherwise propose uniforms on [a, b] and accept by the density ratio.

    >>> import retrograd as torch
    >>> w = torch.nn.init.trunc_normal_(torch.empty(100), a=-1, b=1)
    >>> bool((w.abs() <= 1).all())
    True
    """
    import retrograd as R

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values "
                      "may be incorrect.", stacklevel=2)
    with grad_mode.no_grad():
        mass = _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std)
        if mass > 0.3:
            lo = float(tensor._data.dtype.type(a))  # the bounds as the tensor's dtype rounds them
            hi = float(tensor._data.dtype.type(b))
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                outside = (result < lo) | (result > hi)
                if not bool(outside.any()):
                    break
                result = R.where(outside, R.empty_like(result).normal_(mean, std, generator=generator), result)
            if result is not tensor:
                tensor.copy_(result)
            return tensor
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2

        def log_ratio(x: Tensor) -> Tensor:  # log density relative to the peak
            return x.sub(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)

        accept_buf = R.empty_like(tensor)
        tensor.uniform_(a, b, generator=generator)
        candidates = log_ratio(tensor.clone())
        pending = accept_buf.uniform_(generator=generator).log_().gt(candidates)
        if bool(pending.any()):
            result = tensor
            prop = R.empty_like(tensor)
            while True:
                prop.uniform_(a, b, generator=generator)
                result = R.where(pending, prop, result)
                lr = log_ratio(prop)
                pending = R.where(pending, accept_buf.uniform_(generator=generator).log_().gt(lr), pending)
                if not bool(pending.any()):
                    break
            tensor.copy_(result)
    return tensor


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``."""
    return _write(tensor, np.full(tensor.shape, val))


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0.0)


def eye_(tensor: Tensor) -> Tensor:
    """The identity matrix (2-d tensors only)."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _write(tensor, np.eye(*tensor.shape))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Identity-preserving conv kernels (3, 4 or 5-d)."""
    dims = tensor.ndimension()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per = sizes[0] // groups
    min_dim = min(out_per, sizes[1])
    w = np.zeros(sizes)
    centre = tuple(s // 2 for s in sizes[2:])
    for g in range(groups):
        for d in range(min_dim):
            w[(g * out_per + d, d) + centre] = 1
    return _write(tensor, w)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator=None) -> Tensor:
    """U(-bound, bound), bound = gain * sqrt(3 / fan) (He et al.); Linear/Conv use a=sqrt(5)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std  # (rounded as PyTorch does, so the bound is bit-equal)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator=None) -> Tensor:
    """N(0, std^2), std = gain / sqrt(fan)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator=None) -> Tensor:
    """A (semi-)orthogonal matrix from the QR decomposition of a Gaussian one, times gain."""
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    # PyTorch's draw: a (rows, cols) normal_ fill in the tensor's dtype
    with grad_mode.no_grad():
        flat = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)._data
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))  # make the decomposition unique (PyTorch does the same)
    if rows < cols:
        q = q.T
    return _write(tensor, (q * gain).reshape(tensor.shape))


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """2-d: N(0, std^2) with a fraction ``sparsity`` of each column set to zero (the zeroed
    rows come from ``randperm`` on the default generator, as in PyTorch)."""
    from .._creation import randperm

    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    nz = int(math.ceil(sparsity * rows))
    with grad_mode.no_grad():
        tensor.normal_(0, std, generator=generator)
        w = tensor._data.copy()
        for c in range(cols):
            w[randperm(rows)._data[:nz], c] = 0
    return _write(tensor, w)


# PyTorch's deprecated non-underscore aliases
def _deprecated(fn):
    """``fn`` under its old name (no trailing underscore), warning PyTorch's FutureWarning first."""
    old, new = fn.__name__[:-1], fn.__name__

    def f(*args, **kwargs):
        warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{new}`.", FutureWarning,
                      stacklevel=2)
        return fn(*args, **kwargs)
    f.__name__ = f.__qualname__ = old
    f.__doc__ = f"{old}(...)\n\nDeprecated: use :func:`retrograd.nn.init.{new}` (same arguments)."
    return f


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
sparse = _deprecated(sparse_)
