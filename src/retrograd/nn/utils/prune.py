"""Pruning (``torch.nn.utils.prune``): zero out parts of a parameter through a mask.

Pruning ``module.<name>`` moves the parameter to ``<name>_orig``, stores a ``<name>_mask`` buffer
and registers a forward pre-hook that recomputes ``module.<name> = <name>_mask * <name>_orig``
before every call, so gradients reach ``<name>_orig`` only through the kept entries.  Pruning the
same tensor again combines the masks through a :class:`PruningContainer` (the new method only
sees the entries / channels that are still unpruned); :func:`remove` makes the pruning permanent.

>>> import retrograd as torch
>>> from retrograd.nn.utils import prune
>>> m = prune.l1_unstructured(torch.nn.Linear(4, 2), "weight", amount=0.5)
>>> sorted(k for k in m.state_dict())
['bias', 'weight_mask', 'weight_orig']
>>> int(m.weight_mask.sum())
4
"""
from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

import numpy as np

from ... import _ops as O
from ..._creation import ones_like, rand, rand_like, zeros_like
from ..._tensor import Tensor
from ._topk_select import topk_indices
from .convert_parameters import parameters_to_vector

__all__ = [
    "BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured",
    "RandomStructured", "LnStructured", "CustomFromMask", "identity", "random_unstructured",
    "l1_unstructured", "random_structured", "ln_structured", "global_unstructured", "custom_from_mask",
    "remove", "is_pruned",
]


def _zero_flat(default_mask: Tensor, indices: np.ndarray) -> Tensor:
    """A contiguous copy of ``default_mask`` with its flat ``indices`` set to 0 (torch's
    ``mask = default_mask.clone(); mask.view(-1)[indices] = 0``)."""
    data = np.array(default_mask._data, copy=True, order="C")
    data.reshape(-1)[indices] = 0
    return Tensor._wrap(data, False, None, 0)


class BasePruningMethod(ABC):
    """Base class of pruning methods: subclasses define :meth:`compute_mask` and ``PRUNING_TYPE``
    (``"unstructured"``, ``"structured"`` (with a ``dim`` attribute) or ``"global"``).

    >>> import retrograd as torch
    >>> from retrograd.nn.utils import prune
    >>> class Odd(prune.BasePruningMethod):
    ...     PRUNING_TYPE = "unstructured"
    ...     def compute_mask(self, t, default_mask):
    ...         mask = default_mask.clone()
    ...         mask.view(-1)[1::2] = 0
    ...         return mask
    >>> m = torch.nn.Linear(2, 2)
    >>> _ = Odd.apply(m, "weight")
    >>> m.weight_mask
    tensor([[1., 0.],
            [1., 0.]])
    """

    _tensor_name: str

    def __call__(self, module, inputs) -> None:
        # the forward pre-hook: refresh the pruned tensor from ``_orig`` and ``_mask``
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The mask for importance scores ``t``, on top of ``default_mask`` (same shape as ``t``)."""

    def apply_mask(self, module) -> Tensor:
        """``<name>_mask * <name>_orig`` of ``module`` (differentiable in ``_orig``)."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name: str, *args, importance_scores: Tensor | None = None, **kwargs):
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)``, joining any earlier pruning of it."""
        old_method = None
        found = 0
        hooks_to_remove = []
        for key, hook in module._forward_pre_hooks.items():
            if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
                old_method = hook
                hooks_to_remove.append(key)
                found += 1
        if found > 1:
            raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of module "
                                 f"{module}. Use a PruningContainer.")
        for key in hooks_to_remove:
            del module._forward_pre_hooks[key]

        method = cls(*args, **kwargs)
        method._tensor_name = name
        if old_method is not None:
            if isinstance(old_method, PruningContainer):
                old_method.add_pruning_method(method)
                method = old_method
            else:
                container = PruningContainer(old_method)
                container.add_pruning_method(method)
                method = container

        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(f"importance_scores should have the same shape as parameter {name} of "
                                     f"{module}, got {importance_scores.shape} vs {orig.shape}")
        else:
            importance_scores = orig

        if not isinstance(method, PruningContainer):
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()

        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            # leave the module as it was when this was the first pruning of ``name``
            if not isinstance(method, PruningContainer):
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t: Tensor, default_mask: Tensor | None = None,
              importance_scores: Tensor | None = None) -> Tensor:
        """``t`` times the mask this method computes (from ``importance_scores``, or ``t`` itself)."""
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError("importance_scores should have the same shape as tensor t, "
                                     f"got {importance_scores.shape} vs {t.shape}")
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module) -> None:
        """Make the pruning permanent: ``<name>`` becomes a Parameter holding the masked values."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


class PruningContainer(BasePruningMethod):
    """The pruning methods applied in turn to one tensor; the last one acts on what is still unpruned.

    >>> import retrograd as torch
    >>> from retrograd.nn.utils import prune
    >>> m = torch.nn.Linear(4, 1)
    >>> _ = prune.l1_unstructured(m, "weight", amount=1)
    >>> _ = prune.l1_unstructured(m, "weight", amount=1)
    >>> [type(p).__name__ for p in m._forward_pre_hooks[next(iter(m._forward_pre_hooks))]]
    ['L1Unstructured', 'L1Unstructured']
    """

    def __init__(self, *args) -> None:
        self._pruning_methods: tuple = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method) -> None:
        """Append ``method`` (it must act on this container's tensor)."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        elif method is not None and self._tensor_name != method._tensor_name:
            raise ValueError("Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """Run the newest method on the still-unpruned part of ``t`` and merge into ``default_mask``."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            slc = default_mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the attribute '
                                     "`dim` defined.")
            n_dims = t.dim()
            dim = method.dim
            if dim < 0:
                dim = n_dims + dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            keep_channel = default_mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
            slc = [slice(None)] * n_dims
            slc[dim] = keep_channel
            slc = tuple(slc)
        elif kind == "global":
            slc = tuple([slice(None)] * len(t.shape))
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        partial_mask = method.compute_mask(t[slc], default_mask=default_mask[slc])
        new_mask[slc] = partial_mask.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing, but sets up the ``_orig`` / ``_mask`` reparametrisation (mask of ones).

    >>> import retrograd as torch
    >>> from retrograd.nn.utils import prune
    >>> prune.identity(torch.nn.Linear(2, 1), "bias").bias_mask
    tensor([1.])
    """

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module, name: str):  # type: ignore[override]
        return super().apply(module, name)


class _Unstructured(BasePruningMethod):
    """What the unstructured methods share: prune ``amount`` (int count or float fraction) of the
    entries, those that ``_indices_to_prune`` picks (flat indices into ``t``)."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: int | float) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        nparams_toprune = _nparams_to_prune(self.amount, t.nelement())
        if nparams_toprune == 0:
            return default_mask.clone()
        return _zero_flat(default_mask, self._indices_to_prune(t, nparams_toprune))

    @abstractmethod
    def _indices_to_prune(self, t: Tensor, k: int) -> np.ndarray:
        """Flat indices of the ``k`` entries of ``t`` to prune."""


class RandomUnstructured(_Unstructured):
    """Prunes ``amount`` (int count or float fraction) of the unpruned entries, chosen at random.

    >>> import retrograd as torch
    >>> from retrograd.nn.utils import prune
    >>> int(prune.RandomUnstructured(amount=3).compute_mask(torch.ones(10), torch.ones(10)).sum())
    7
    """

    def _indices_to_prune(self, t: Tensor, k: int) -> np.ndarray:
        return topk_indices(rand_like(t)._data, k, largest=True)

    @classmethod
    def apply(cls, module, name: str, amount: int | float):  # type: ignore[override]
        return super().apply(module, name, amount=amount)


class L1Unstructured(_Unstructured):
    """Prunes ``amount`` of the unpruned entries with the smallest absolute value (torch's choice on ties).

    >>> import retrograd as torch
    >>> from retrograd.nn.utils import prune
    >>> prune.L1Unstructured(amount=2).compute_mask(torch.tensor([3., -1., 2., 0.5]), torch.ones(4))
    tensor([1., 0., 1., 0.])
    """

    def _indices_to_prune(self, t: Tensor, k: int) -> np.ndarray:
        return topk_indices(np.abs(t._data), k, largest=False)

    @classmethod
    def apply(cls, module, name: str, amount: int | float,  # type: ignore[override]
              importance_scores: Tensor | None = None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


def _channel_mask(t: Tensor, dim: int, keep: np.ndarray) -> Tensor:
    """Zeros like ``t`` with ones on the kept slices along ``dim`` (``keep``: bool flags or indices)."""
    mask = zeros_like(t)
    slc: list = [slice(None)] * t.dim()
    slc[dim] = keep
    mask._data[tuple(slc)] = 1
    return mask


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` of the channels along ``dim``, chosen at random.

    >>> import retrograd as torch
    >>> from retrograd.nn.utils import prune
    >>> m = prune.random_structured(torch.nn.Linear(3, 4), "weight", amount=2, dim=0)
    >>> int(m.weight_mask.sum(1).count_nonzero())
    2
    """

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        tensor_size = _channel_count(t, self.dim)
        nparams_toprune = _nparams_to_prune(self.amount, tensor_size)
        if nparams_toprune == 0:
            return default_mask
        prob = rand(tensor_size)
        threshold = O.kthvalue(prob, k=nparams_toprune).values
        mask = _channel_mask(t, self.dim, (prob > threshold)._data)
        return mask * default_mask.to(dtype=mask.dtype)

    @classmethod
    def apply(cls, module, name: str, amount: int | float, dim: int = -1):  # type: ignore[override]
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes ``amount`` of the channels along ``dim`` with the smallest ``n``-norm.

    >>> import retrograd as torch
    >>> from retrograd.nn.utils import prune
    >>> w = torch.tensor([[1., 1.], [0., 0.1], [2., 0.]])
    >>> prune.LnStructured(amount=1, n=2, dim=0).compute_mask(w, torch.ones(3, 2))
    tensor([[1., 1.],
            [0., 0.],
            [1., 1.]])
    """

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, n, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        tensor_size = _channel_count(t, self.dim)
        nparams_toprune = _nparams_to_prune(self.amount, tensor_size)
        nparams_tokeep = tensor_size - nparams_toprune
        norm = _compute_norm(t, self.n, self.dim)
        if nparams_toprune == 0:
            return default_mask
        keep = np.sort(topk_indices(norm._data, nparams_tokeep, largest=True))
        mask = _channel_mask(t, self.dim, keep)
        return mask * default_mask.to(dtype=mask.dtype)

    @classmethod
    def apply(cls, module, name: str, amount: int | float, n, dim: int,  # type: ignore[override]
              importance_scores: Tensor | None = None):
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes with a given mask (multiplied into any earlier mask).

    >>> import retrograd as torch
    >>> from retrograd.nn.utils import prune
    >>> prune.custom_from_mask(torch.nn.Linear(2, 1), "bias", torch.tensor([0.])).bias.abs()
    tensor([0.], grad_fn=<AbsBackward0>)
    """

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match "
                                 f"self.mask shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name: str, mask: Tensor):  # type: ignore[override]
        return super().apply(module, name, mask=mask)


# ---------------------------------------------------------------------------------------------- functions
def identity(module, name: str):
    """Set up pruning of ``module.<name>`` without pruning anything; returns ``module``.

    >>> import retrograd as torch
    >>> from retrograd.nn.utils import prune
    >>> sorted(dict(prune.identity(torch.nn.Linear(2, 1), "weight").named_buffers()))
    ['weight_mask']
    """
    Identity.apply(module, name)
    return module


def random_unstructured(module, name: str, amount: int | float):
    """Prune ``amount`` of ``module.<name>``'s unpruned entries at random; returns ``module``.

    >>> import retrograd as torch
    >>> from retrograd.nn.utils import prune
    >>> int(prune.random_unstructured(torch.nn.Linear(5, 2), "weight", amount=0.3).weight_mask.sum())
    7
    """
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name: str, amount: int | float, importance_scores: Tensor | None = None):
    """Prune the ``amount`` smallest-magnitude entries of ``module.<name>`` (or of ``importance_scores``).

    >>> import retrograd as torch
    >>> from retrograd.nn.utils import prune
    >>> m = torch.nn.Linear(2, 1)
    >>> _ = prune.l1_unstructured(m, "weight", 1, importance_scores=torch.tensor([[5., 1.]]))
    >>> m.weight_mask
    tensor([[1., 0.]])
    """
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name: str, amount: int | float, dim: int):
    """Prune ``amount`` random channels of ``module.<name>`` along ``dim``; returns ``module``.

    >>> import retrograd as torch
    >>> from retrograd.nn.utils import prune
    >>> prune.random_structured(torch.nn.Linear(3, 4), "weight", 1, dim=1).weight_mask.shape
    torch.Size([4, 3])
    """
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name: str, amount: int | float, n, dim: int, importance_scores: Tensor | None = None):
    """Prune the ``amount`` channels along ``dim`` with the smallest ``n``-norm; returns ``module``.

    >>> import retrograd as torch
    >>> from retrograd.nn.utils import prune
    >>> m = torch.nn.Linear(2, 3)
    >>> _ = prune.ln_structured(m, "weight", 1, n=1, dim=0,
    ...                         importance_scores=torch.tensor([[1., 1.], [0., 1.], [3., 0.]]))
    >>> m.weight_mask
    tensor([[1., 1.],
            [0., 0.],
            [1., 1.]])
    """
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores: dict | None = None, **kwargs) -> None:
    """Prune across several ``(module, name)`` tensors at once as if they were one vector.

    >>> import retrograd as torch
    >>> from retrograd.nn.utils import prune
    >>> a, b = torch.nn.Linear(2, 1), torch.nn.Linear(2, 1)
    >>> with torch.no_grad():
    ...     _ = a.weight.copy_(torch.tensor([[1., 4.]])), b.weight.copy_(torch.tensor([[3., 2.]]))
    >>> prune.global_unstructured([(a, "weight"), (b, "weight")], prune.L1Unstructured, amount=2)
    >>> a.weight_mask, b.weight_mask
    (tensor([[0., 1.]]), tensor([[1., 0.]]))
    """
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    relevant_importance_scores = parameters_to_vector(
        [importance_scores.get((module, name), getattr(module, name)) for (module, name) in parameters])
    default_mask = parameters_to_vector(
        [getattr(module, name + "_mask", ones_like(getattr(module, name))) for (module, name) in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
                        f"{pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final_mask = container.compute_mask(relevant_importance_scores, default_mask)
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        num_param = param.numel()
        custom_from_mask(module, name, mask=final_mask[pointer:pointer + num_param].view_as(param))
        pointer += num_param


def custom_from_mask(module, name: str, mask: Tensor):
    """Prune ``module.<name>`` with the given ``mask``; returns ``module``.

    >>> import retrograd as torch
    >>> from retrograd.nn.utils import prune
    >>> prune.custom_from_mask(torch.nn.Linear(2, 1), "weight", torch.tensor([[0., 1.]])).weight_mask
    tensor([[0., 1.]])
    """
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name: str):
    """Make the pruning of ``module.<name>`` permanent (drop ``_orig``, ``_mask`` and the hook).

    >>> import retrograd as torch
    >>> from retrograd.nn.utils import prune
    >>> m = prune.remove(prune.l1_unstructured(torch.nn.Linear(2, 1), "weight", 1), "weight")
    >>> sorted(m.state_dict())
    ['bias', 'weight']
    """
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module) -> bool:
    """Whether ``module`` or any submodule carries a pruning hook.

    >>> import retrograd as torch
    >>> from retrograd.nn.utils import prune
    >>> m = torch.nn.Sequential(torch.nn.Linear(2, 2))
    >>> prune.is_pruned(m), prune.is_pruned(prune.identity(m[0], "bias") and m)
    (False, True)
    """
    for _, submodule in module.named_modules():
        for hook in submodule._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False


# ---------------------------------------------------------------------------------------------- checks
def _validate_pruning_amount_init(amount) -> None:
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _validate_pruning_amount(amount, tensor_size: int) -> None:
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={tensor_size}")


def _validate_structured_pruning(t: Tensor) -> None:
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. Found tensor of "
                         f"shape {shape} with {len(shape)} dims")


def _compute_nparams_toprune(amount, tensor_size: int) -> int:
    if isinstance(amount, numbers.Integral):
        return amount
    return round(amount * tensor_size)


def _validate_pruning_dim(t: Tensor, dim: int) -> None:
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _nparams_to_prune(amount, tensor_size: int) -> int:
    """How many of ``tensor_size`` entries (or channels) ``amount`` prunes, checked against the size."""
    nparams_toprune = _compute_nparams_toprune(amount, tensor_size)
    _validate_pruning_amount(nparams_toprune, tensor_size)
    return nparams_toprune


def _channel_count(t: Tensor, dim: int) -> int:
    """The number of channels along ``dim`` that structured pruning chooses from (checked)."""
    _validate_structured_pruning(t)
    _validate_pruning_dim(t, dim)
    return t.shape[dim]


def _compute_norm(t: Tensor, n, dim: int) -> Tensor:
    dims = list(range(t.dim()))
    if dim < 0:
        dim = dims[dim]
    dims.remove(dim)
    return O.norm(t.detach(), p=n, dim=dims)
