"""InstanceNorm1d/2d/3d and LocalResponseNorm.

>>> import retrograd as torch
>>> torch.nn.InstanceNorm1d(1)(torch.tensor([[[1., 3.]]]))
tensor([[[-1.0000,  1.0000]]])
"""
from __future__ import annotations

import warnings

from ..._tensor import Tensor
from .. import functional as F
from .module import Module
from .normalization import _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LocalResponseNorm"]


class _InstanceNorm(_NormBase):
    _nd = 1

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _check_input_dim(self, input: Tensor) -> None:
        lo = self._nd + 1
        if input.ndim not in (lo, lo + 1):
            raise ValueError(f"expected {lo}D or {lo + 1}D input (got {input.ndim}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        no_batch = self._nd + 1
        feature_dim = input.ndim - no_batch
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.shape[feature_dim]}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False")
        unbatched = input.ndim == no_batch
        x = input.unsqueeze(0) if unbatched else input
        use_input_stats = self.training or not self.track_running_stats
        # torch's F.instance_norm checks (the functional here words them differently): the spatial size,
        # then the running stats, repeated over the batch, as batch_norm sees them
        if use_input_stats and x[0, 0].numel() <= 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {x.size()}")
        n, c = x.shape[0], x.shape[1]
        for name, t in (("running_mean", self.running_mean), ("running_var", self.running_var),
                        ("weight", self.weight), ("bias", self.bias)):
            if t is not None and t.numel() != c:
                raise RuntimeError(f"{name} should contain {n * c} elements not {n * t.numel()}")
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats,
                              self.momentum if self.momentum is not None else 0.0, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Normalise each (sample, channel) of (N, C, L) over L."""
    _nd = 1


class InstanceNorm2d(_InstanceNorm):
    """Normalise each (sample, channel) of (N, C, H, W) over H, W."""
    _nd = 2


class InstanceNorm3d(_InstanceNorm):
    """Normalise each (sample, channel) of (N, C, D, H, W) over D, H, W."""
    _nd = 3


class LocalResponseNorm(Module):
    """Normalise each channel by the energy of its ``size`` neighbouring channels."""

    __constants__ = ["size", "alpha", "beta", "k"]

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)
