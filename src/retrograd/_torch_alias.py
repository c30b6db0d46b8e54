"""Run unmodified PyTorch code on retrograd: make ``import torch...`` load retrograd's modules.

``import retrograd as torch`` covers one file; code that also does ``import torch.nn as nn`` or
``from torch.utils.data import DataLoader`` needs every ``torch.X`` name to *be* ``retrograd.X``
(the same module objects, so classes and isinstance checks agree).  ``register_as_torch()``
installs an import hook that does exactly that.

>>> import retrograd
>>> retrograd.register_as_torch()
>>> import torch.nn
>>> torch.nn is retrograd.nn
True
>>> retrograd.unregister_as_torch()
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["register_as_torch", "unregister_as_torch"]


class _TorchAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``torch`` and ``torch.*`` and answers with the matching retrograd module."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "torch" or fullname.startswith("torch."):
            target_name = "retrograd" + fullname[len("torch"):]
            if importlib.util.find_spec(target_name) is None:
                return None  # no retrograd counterpart: a clear ModuleNotFoundError for torch.X
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        module = importlib.import_module("retrograd" + spec.name[len("torch"):])
        _alias_loaded()
        # the import system sets __spec__ on whatever create_module returns; keep retrograd's
        # own (restored in exec_module), or the module's relative imports would resolve
        # against "torch.X" and warn "__package__ != __spec__.parent"
        self._own_specs[id(module)] = module.__spec__
        return module

    def exec_module(self, module) -> None:
        """Already executed as retrograd.X: only put its own __spec__ back."""
        own = self._own_specs.pop(id(module), None)
        if own is not None:
            module.__spec__ = own

    def __init__(self) -> None:
        self._own_specs: dict = {}


_finder = _TorchAlias()


def _alias_loaded() -> None:
    """Register every loaded ``retrograd.X`` as ``torch.X`` in ``sys.modules`` right away.

    Importing a submodule through the finder makes Python set it as an attribute of its
    parent package; for a submodule the package has already imported and shadowed with a
    same-named function (``autograd.gradcheck``) that would replace the function by the
    module.  A module found in ``sys.modules`` is not set again, so aliasing eagerly avoids it.
    """
    for name, module in list(sys.modules.items()):
        if module is not None and (name == "retrograd" or name.startswith("retrograd.")):
            sys.modules.setdefault("torch" + name[len("retrograd"):], module)


def register_as_torch() -> None:
    """Make ``import torch`` (and ``torch.nn``, ``torch.optim`` ...) import retrograd.

    Refuses when the real torch is already imported in this process (two libraries under one
    name would mix their tensors).
    """
    real = sys.modules.get("torch")
    if real is not None and not getattr(real, "__name__", "").startswith("retrograd"):
        raise RuntimeError("register_as_torch(): the real torch is already imported in this process")
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
    if "retrograd" in sys.modules:
        _alias_loaded()


def unregister_as_torch() -> None:
    """Undo ``register_as_torch``: remove the hook and the ``torch`` aliases it created."""
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
        if getattr(sys.modules[name], "__name__", "").startswith("retrograd"):
            del sys.modules[name]
