"""Top-level aliases PyTorch exposes for nn.functional ops (``torch.dropout``, ``torch.layer_norm``...),
with torch's top-level signatures.  They call (or compose) ``retrograd.nn.functional``; no
gradients are defined here.
"""
from __future__ import annotations

from ._tensor import Tensor

__all__ = ["dropout", "selu", "celu", "rrelu", "threshold", "hardshrink", "batch_norm", "layer_norm", "group_norm",
           "instance_norm", "cosine_similarity", "pairwise_distance", "pdist", "pixel_shuffle", "bilinear",
           "dropout_", "selu_", "celu_", "rrelu_", "threshold_"]


def _F():
    from .nn import functional

    return functional


def _R():
    import retrograd

    return retrograd


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.dropout(input, p, train)``: zero elements with probability p and rescale when training.

    >>> import retrograd as torch
    >>> torch.dropout(torch.ones(3), 0.5, False)
    tensor([1., 1., 1.])
    """
    return _F().dropout(input, p, train)


def selu(input: Tensor) -> Tensor:
    """Scaled ELU.

    >>> import retrograd as torch
    >>> torch.selu(torch.tensor([0., 1.]))
    tensor([0.0000, 1.0507])
    """
    return _F().selu(input)


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    """Continuously differentiable ELU.

    >>> import retrograd as torch
    >>> torch.celu(torch.tensor([0., 1.]))
    tensor([0., 1.])
    """
    return _F().celu(input, alpha)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          generator=None) -> Tensor:
    """Randomized leaky ReLU: slope (lower+upper)/2 in eval, a uniform random slope per element when training.

    >>> import retrograd as torch
    >>> torch.rrelu(torch.tensor([-1., 1.]), 0.1, 0.3)
    tensor([-0.2000,  1.0000])
    """
    R = _R()
    if training:
        from . import _rng
        from ._creation import _eng

        # PyTorch's draws: a double uniform per element <= 0 (slope 1 elsewhere)
        slope = R.from_numpy(_rng.rrelu_noise(_eng(generator), input._data, lower, upper))
        return input * slope
    return R.where(input >= 0, input, input * ((lower + upper) / 2))


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:  # noqa: F811
    """``value`` where input <= threshold, else input.

    >>> import retrograd as torch
    >>> torch.threshold(torch.tensor([0.5, 2.]), 1., -1.)
    tensor([-1.,  2.])
    """
    return _F().threshold(input, threshold, value)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """0 where |input| <= lambd, else input.

    >>> import retrograd as torch
    >>> torch.hardshrink(torch.tensor([0.3, -1.]))
    tensor([ 0., -1.])
    """
    from ._ops.nn.activation import hardshrink as _hardshrink

    return _hardshrink(input, lambd)


def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
               running_var: Tensor | None, training: bool, momentum: float, eps: float,
               cudnn_enabled: bool) -> Tensor:
    """``torch.batch_norm`` (note torch's argument order: weight and bias first).

    >>> import retrograd as torch
    >>> torch.batch_norm(torch.tensor([[1.], [3.]]), None, None, None, None, True, 0.1, 1e-5, False).flatten()
    tensor([-1.0000,  1.0000])
    """
    return _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5, cudnn_enable: bool = True) -> Tensor:
    """Layer normalisation over the trailing ``normalized_shape`` dims.

    >>> import retrograd as torch
    >>> torch.layer_norm(torch.tensor([1., 3.]), [2])
    tensor([-1.0000,  1.0000])
    """
    return _F().layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5, cudnn_enabled: bool = True) -> Tensor:
    """Group normalisation over channel groups.

    >>> import retrograd as torch
    >>> torch.group_norm(torch.tensor([[1., 3.]]), 1).flatten()
    tensor([-1.0000,  1.0000])
    """
    return _F().group_norm(input, num_groups, weight, bias, eps)


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
                  running_var: Tensor | None, use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    """Normalise each (sample, channel) over its spatial dims; running stats updated / used as torch does.

    >>> import retrograd as torch
    >>> torch.instance_norm(torch.tensor([[[1., 3.]]]), None, None, None, None, True, 0.1, 1e-5, False)
    tensor([[[-1.0000,  1.0000]]])
    """
    R = _R()
    if input.dim() < 2:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {list(input.shape)}")
    n, c = input.shape[0], input.shape[1]
    shape = [1, c] + [1] * (input.dim() - 2)
    if use_input_stats:
        # batch_norm on (1, N*C, ...) is exactly instance norm; running stats are averaged over N
        x = input.reshape([1, n * c] + list(input.shape[2:]))
        rm = None if running_mean is None else running_mean.repeat(n)
        rv = None if running_var is None else running_var.repeat(n)
        out = _F().batch_norm(x, rm, rv, None, None, True, momentum, eps).reshape(input.shape)
        with R.no_grad():
            if running_mean is not None:
                running_mean.copy_(rm.reshape(n, c).mean(0))
            if running_var is not None:
                running_var.copy_(rv.reshape(n, c).mean(0))
    else:
        out = (input - running_mean.reshape(shape)) / R.sqrt(running_var.reshape(shape) + eps)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """Cosine similarity along ``dim``.

    >>> import retrograd as torch
    >>> torch.cosine_similarity(torch.tensor([[1., 0.]]), torch.tensor([[1., 1.]]))
    tensor([0.7071])
    """
    return _F().cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """p-norm distance between the rows of x1 and x2.

    >>> import retrograd as torch
    >>> torch.pairwise_distance(torch.tensor([[0., 0.]]), torch.tensor([[3., 4.]]))
    tensor([5.0000])
    """
    return _F().pairwise_distance(x1, x2, p, eps, keepdim)


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """Distances between all pairs of rows (i < j) of a 2-D tensor, flattened.

    >>> import retrograd as torch
    >>> torch.pdist(torch.tensor([[0., 0.], [3., 4.], [0., 1.]]))
    tensor([5.0000, 1.0000, 4.2426])
    """
    R = _R()
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    idx = R.triu_indices(n, n, 1)
    return R.linalg.vector_norm(input[idx[0]] - input[idx[1]], float(p), dim=1)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r).

    >>> import retrograd as torch
    >>> torch.pixel_shuffle(torch.arange(4.).reshape(1, 4, 1, 1), 2).shape
    torch.Size([1, 1, 2, 2])
    """
    return _F().pixel_shuffle(input, upscale_factor)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """x1^T A x2 + b per output feature.

    >>> import retrograd as torch
    >>> torch.bilinear(torch.ones(1, 2), torch.ones(1, 3), torch.ones(1, 2, 3)).flatten()
    tensor([6.])
    """
    return _F().bilinear(input1, input2, weight, bias)


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place :func:`dropout`.

    >>> import retrograd as torch
    >>> torch.dropout_(torch.ones(2), 0.5, False)
    tensor([1., 1.])
    """
    return input.copy_(dropout(input, p, train)) if train else input


def selu_(input: Tensor) -> Tensor:
    """In-place :func:`selu`.

    >>> import retrograd as torch
    >>> torch.selu_(torch.zeros(1))
    tensor([0.])
    """
    return input.copy_(selu(input))


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place :func:`celu`.

    >>> import retrograd as torch
    >>> torch.celu_(torch.zeros(1))
    tensor([0.])
    """
    return input.copy_(celu(input, alpha))


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
           generator=None) -> Tensor:
    """In-place :func:`rrelu`.

    >>> import retrograd as torch
    >>> torch.rrelu_(torch.tensor([-1.]), 0.1, 0.3)
    tensor([-0.2000])
    """
    return input.copy_(rrelu(input, lower, upper, training, generator))


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:  # noqa: F811
    """In-place :func:`threshold`.

    >>> import retrograd as torch
    >>> torch.threshold_(torch.tensor([0.5, 2.]), 1., -1.)
    tensor([-1.,  2.])
    """
    return _F().threshold(input, threshold, value, inplace=True)
