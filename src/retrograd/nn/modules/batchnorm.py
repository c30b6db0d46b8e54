"""``torch.nn.modules.batchnorm``: the batch-norm classes under PyTorch's module path.

Code written for PyTorch reaches them there, e.g. ``isinstance(m,
torch.nn.modules.batchnorm._BatchNorm)`` to find every batch-norm layer (what
``swa_utils.update_bn`` and many training scripts do).  The classes themselves live in
``normalization.py``, ``lazy_layers.py`` and ``syncbatchnorm.py``.

>>> import retrograd as torch
>>> isinstance(torch.nn.BatchNorm2d(3), torch.nn.modules.batchnorm._BatchNorm)
True
"""
from .lazy_layers import LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, _LazyNormBase
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm, _NormBase
from .syncbatchnorm import SyncBatchNorm

__all__ = ["BatchNorm1d", "LazyBatchNorm1d", "BatchNorm2d", "LazyBatchNorm2d", "BatchNorm3d",
           "LazyBatchNorm3d", "SyncBatchNorm"]

# (private bases that PyTorch code names through this module)
_PRIVATE = (_NormBase, _BatchNorm, _LazyNormBase)
