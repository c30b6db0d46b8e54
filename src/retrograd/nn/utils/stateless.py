"""``functional_call``: run a module with some parameters/buffers swapped for given tensors, then restore."""
from __future__ import annotations

import warnings
from contextlib import contextmanager

__all__ = ["functional_call"]


def _split(module, name: str):
    prefix, _, attr = name.rpartition(".")
    return (module.get_submodule(prefix) if prefix else module), attr


def _swap(owner, attr: str, value):
    """Put ``value`` at ``owner.<attr>`` (in _parameters/_buffers if it lives there); return an undo."""
    for store in ("_parameters", "_buffers"):
        d = owner.__dict__[store]
        if attr in d:
            old = d[attr]
            d[attr] = value

            def undo(d=d, old=old):
                d[attr] = old
            return undo
    had = attr in owner.__dict__
    old = owner.__dict__.get(attr)
    object.__setattr__(owner, attr, value)

    def undo_plain():
        if had:
            object.__setattr__(owner, attr, old)
        else:
            object.__delattr__(owner, attr)
    return undo_plain


@contextmanager
def _reparametrize(module, values: dict, tie_weights: bool, strict: bool):
    if tie_weights:
        # a tensor tied under several names follows the one name it was given under
        names_by_id: dict = {}
        for name, t in list(module.named_parameters(remove_duplicate=False)) + \
                list(module.named_buffers(remove_duplicate=False)):
            names_by_id.setdefault(id(t), []).append(name)
        extra = {}
        for names in names_by_id.values():
            given = [n for n in names if n in values]
            if given:
                first = values[given[0]]
                for n in given[1:]:
                    if values[n] is not first:
                        raise ValueError(f"functional_call got multiple values for keys {sorted(given)}, which "
                                         "are tied. Consider using tie_weights=False")
                for n in names:
                    if n not in values:
                        extra[n] = first
        values = {**values, **extra}
    if strict:
        expected = {n for n, _ in module.named_parameters(remove_duplicate=False)} | \
            {n for n, _ in module.named_buffers(remove_duplicate=False)}
        missing = sorted(expected - set(values))
        unexpected = sorted(set(values) - expected)
        if missing or unexpected:
            msgs = []
            if unexpected:
                msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
            if missing:
                msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
                module._get_name(), "\n\t".join(msgs)))
    undos = []
    try:
        for name, value in values.items():
            owner, attr = _split(module, name)
            undos.append(_swap(owner, attr, value))
        yield
    finally:
        for undo in reversed(undos):
            undo()


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights: bool = True,
                    strict: bool = False):
    """``module(*args, **kwargs)`` with its parameters and buffers replaced by ``parameters_and_buffers``.

    >>> import retrograd as torch
    >>> m = torch.nn.Linear(2, 1)
    >>> w = {"weight": torch.ones(1, 2), "bias": torch.zeros(1)}
    >>> torch.nn.utils.stateless.functional_call(m, w, (torch.tensor([[1., 2.]]),))
    tensor([[3.]])
    """
    warnings.warn("This API is deprecated as of PyTorch 2.0 and will be removed in a future version of PyTorch. "
                  "Please use torch.func.functional_call instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)


def _functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights: bool = True,
                     strict: bool = False):
    if isinstance(parameters_and_buffers, (list, tuple)):
        merged: dict = {}
        for d in parameters_and_buffers:
            for k, v in d.items():
                if k in merged:
                    raise ValueError(f"{k} appeared in multiple dictionaries; behavior of functional call is "
                                     "ambiguous")
                merged[k] = v
        parameters_and_buffers = merged
    kwargs = kwargs or {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize(module, dict(parameters_and_buffers), tie_weights, strict):
        return module(*args, **kwargs)
