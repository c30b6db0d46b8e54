"""``skip_init``: build a module without running its parameter initialisation cost (here: just build it)."""
from __future__ import annotations

import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """Instantiate ``module_cls``; PyTorch leaves the parameters uninitialised, so callers must set them.

    >>> import retrograd as torch
    >>> torch.nn.utils.skip_init(torch.nn.Linear, 6, 1).weight.shape
    torch.Size([1, 6])
    """
    from ..modules.module import Module

    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    return module_cls(*args, **kwargs)
