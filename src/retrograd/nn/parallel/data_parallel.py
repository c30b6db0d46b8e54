"""``torch.nn.parallel.DataParallel`` as it behaves on a machine without accelerators.

With no CUDA devices, torch's ``DataParallel`` keeps the module and no device ids, and its
forward simply calls the module; state-dict keys gain the ``module.`` prefix.  Code that wraps
its model unconditionally therefore runs unchanged here.

>>> import retrograd as torch
>>> m = torch.nn.DataParallel(torch.nn.Linear(2, 1))
>>> list(m.state_dict())
['module.weight', 'module.bias']
"""
from __future__ import annotations

from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Wraps ``module``; with no accelerator (always, here) the forward is the module's own."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids: list = []  # torch keeps an empty list when no device type is available

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim: int = 0, module_kwargs=None):
    """The functional form; torch fails the same way without an accelerator."""
    raise RuntimeError("device type could not be determined")
