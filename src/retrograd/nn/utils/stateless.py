"""``functional_call``: run a module with some parameters/buffers swapped for given tensors, then restore.

The deprecated ``nn.utils.stateless.functional_call`` lives here; ``retrograd.func.functional_call``
(the current API, which also takes a tuple of dicts) uses ``_functional_call`` below.
"""
from __future__ import annotations

import warnings
from contextlib import contextmanager

__all__ = ["functional_call"]

_MISSING = object()


def _is_tensor(x) -> bool:
    from ..._tensor import Tensor

    return isinstance(x, Tensor)


def _swap_tensor(module, name: str, value):
    """Put ``value`` (``_MISSING``: remove) at ``module.<name>``; return what was there."""
    prefix, _, attr = name.rpartition(".")
    owner = module.get_submodule(prefix) if prefix else module
    if value is not _MISSING and value is not None and not _is_tensor(value):
        raise TypeError(f"{value} is not an instance of torch.Tensor")
    for store in (owner._parameters, owner._buffers):
        if attr in store:
            old = store[attr]
            if value is _MISSING:
                del store[attr]
            else:
                store[attr] = value
            return old
    old = getattr(owner, attr) if hasattr(owner, attr) else _MISSING
    if old is not _MISSING and old is not None and not _is_tensor(old):
        raise TypeError(f"attribute `{attr}`: {old} is not an instance of torch.Tensor")
    if value is not _MISSING:
        object.__setattr__(owner, attr, value)
    elif attr in owner.__dict__:
        object.__delattr__(owner, attr)
    return old


def _swap_all(module, values: dict) -> dict:
    """Swap every entry in; on any failure put back what was already swapped."""
    orig: dict = {}
    try:
        for name, t in values.items():
            orig[name] = _swap_tensor(module, name, t)
    except Exception:
        for name, t in orig.items():
            _swap_tensor(module, name, t)
        raise
    return orig


def _untie(module, values: dict) -> dict:
    """A value given for one name of a tied tensor goes to all its names (PyTorch's tie_weights)."""
    named: dict = {}
    named.update(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    by_tensor: dict = {}
    for name, t in named.items():
        by_tensor.setdefault(id(t), set()).add(name)
    tied = {n: names for names in by_tensor.values() if len(names) > 1 for n in names}
    given = {n for n in values if n in tied}
    for n in given:
        names = tied[n]
        if len(names & given) > 1 and len({id(values[m]) for m in names if m in values}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, which are tied. "
                             "Consider using tie_weights=False")
    out = dict(values)
    for n in given:
        for m in tied[n]:
            out[m] = values[n]
    return out


@contextmanager
def _reparametrize_module(module, parameters_and_buffers: dict, tie_weights: bool = False, strict: bool = False):
    values = _untie(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    if strict:
        valid = {n for n, _ in module.named_parameters(remove_duplicate=False)} | \
            {n for n, _ in module.named_buffers(remove_duplicate=False)}
        missing = sorted(valid - set(values))
        unexpected = sorted(set(values) - valid)
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(module._get_name(),
                                                                                 "\n\t".join(msgs)))
    orig: dict = {}
    try:
        orig = _swap_all(module, values)
        yield
    finally:
        now = _swap_all(module, orig)
        # A module that reassigns a swapped tensor in its forward (self.t = self.t + 1) leaves
        # the new value in the caller's dict, as PyTorch does.
        parameters_and_buffers.update({k: now[k] for k in parameters_and_buffers if k in now})


def functional_call(module, parameters_and_buffers: dict, args=None, kwargs: dict | None = None, *,
                    tie_weights: bool = True, strict: bool = False):
    """``module(*args, **kwargs)`` with its parameters and buffers replaced by ``parameters_and_buffers``.

    Deprecated (as in PyTorch 2.x): use ``retrograd.func.functional_call``.

    >>> import retrograd as torch
    >>> m = torch.nn.Linear(2, 1)
    >>> w = {"weight": torch.ones(1, 2), "bias": torch.zeros(1)}
    >>> torch.nn.utils.stateless.functional_call(m, w, (torch.tensor([[1., 2.]]),))
    tensor([[3.]])
    """
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed "
                  "in a future version of PyTorch. Please use `torch.func.functional_call` instead which is a "
                  "drop-in replacement.", FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)


def _functional_call(module, parameters_and_buffers: dict, args=None, kwargs: dict | None = None, *,
                     tie_weights: bool = True, strict: bool = False):
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)
