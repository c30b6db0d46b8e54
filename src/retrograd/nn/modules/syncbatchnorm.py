"""SyncBatchNorm: batch norm whose statistics would be reduced across processes.

It normalises with the local batch (statistics are not reduced across processes), exactly as
PyTorch does when no distributed process group is initialised (any ``process_group`` is only kept).

>>> import retrograd as torch
>>> torch.nn.SyncBatchNorm(3)(torch.randn(4, 3, 2)).shape
torch.Size([4, 3, 2])
"""
from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from .module import Module
from .normalization import _BatchNorm

__all__ = ["SyncBatchNorm"]


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation over (N, C, *) inputs (any number of trailing dims).

    >>> import retrograd as torch
    >>> torch.nn.SyncBatchNorm(2)
    SyncBatchNorm(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group: Any | None = None, device=None, dtype=None, *,
                 bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _check_non_zero_input_channels(self, input: Tensor) -> None:
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        # without a process group (always, here) PyTorch runs plain batch norm on the local batch
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any | None = None) -> Module:
        """Replace every BatchNorm*d inside ``module`` by a SyncBatchNorm sharing its tensors.

        A BatchNorm passed directly is returned as a new SyncBatchNorm; other modules are
        changed in place and returned.

        >>> import retrograd as torch
        >>> net = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3))
        >>> torch.nn.SyncBatchNorm.convert_sync_batchnorm(net)[1]
        SyncBatchNorm(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
        """
        result = module
        if isinstance(module, _BatchNorm):
            result = cls(module.num_features, module.eps, module.momentum, module.affine, module.track_running_stats,
                         process_group, bias=module.bias is not None)
            if module.affine:
                # the same Parameter objects: an optimizer built on the old module still trains these
                result.weight = module.weight
                result.bias = module.bias
            result.running_mean = module.running_mean
            result.running_var = module.running_var
            result.num_batches_tracked = module.num_batches_tracked
            result.training = module.training
            if hasattr(module, "qconfig"):
                result.qconfig = module.qconfig
        for name, child in module.named_children():
            result.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return result
