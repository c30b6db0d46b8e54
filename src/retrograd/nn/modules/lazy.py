"""``LazyModuleMixin``: modules whose parameter shapes are inferred from their first input.

Until the first call the module holds :class:`~retrograd.nn.parameter.UninitializedParameter`
(and ``UninitializedBuffer``) placeholders.  A forward pre-hook then calls the layer's
``initialize_parameters(*args, **kwargs)``, removes itself, and switches the module's class to
``cls_to_become`` (``LazyLinear`` becomes ``Linear``), as ``torch.nn.modules.lazy`` does.

>>> import retrograd as torch
>>> m = torch.nn.LazyLinear(2)
>>> m
LazyLinear(in_features=0, out_features=2, bias=True)
>>> m(torch.ones(5, 3)).shape
torch.Size([5, 2])
>>> m
Linear(in_features=3, out_features=2, bias=True)
"""
from __future__ import annotations

import itertools

from ...autograd import grad_mode
from ...utils.hooks import RemovableHandle
from ..parameter import is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Mixin (listed before the layer class) that infers parameter shapes on the first forward.

    Subclasses set ``cls_to_become`` and implement ``initialize_parameters``.

    >>> import retrograd as torch
    >>> net = torch.nn.Sequential(torch.nn.LazyLinear(4), torch.nn.ReLU())
    >>> net[0].has_uninitialized_params()
    True
    >>> _ = net(torch.ones(1, 7)); net[0].weight.shape
    torch.Size([4, 7])
    """

    cls_to_become: type | None = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Kept in the module's own hook dicts (bound methods, so deepcopy rebinds them to the copy);
        # removed by id in _infer_parameters.
        self._load_hook = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[self._load_hook.id] = self._lazy_load_hook
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    # The two hook handles hold weak references to this module's hook dicts: pickling (and
    # deepcopy) store their ids instead and rebuild them on the new module's dicts.
    _HANDLE_DICTS = {"_initialize_hook": ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs"),
                     "_load_hook": ("_load_state_dict_pre_hooks", None)}

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        for key in self._HANDLE_DICTS:
            if key in state:
                state[key] = state[key].id
        return state

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        for key, (main, extra) in self._HANDLE_DICTS.items():
            if isinstance(self.__dict__.get(key), int):
                handle = RemovableHandle(self.__dict__[main],
                                         extra_dict=self.__dict__[extra] if extra is not None else None)
                handle.id = self.__dict__[key]
                self.__dict__[key] = handle

    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        # placeholders go in as they are (detaching one would be a use of it)
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if (is_lazy(param) or keep_vars) else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if (is_lazy(buf) or keep_vars) else buf.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                        error_msgs) -> None:
        """Before loading: a placeholder that receives a real tensor takes that tensor's shape."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param) and not is_lazy(state_dict[key]):
                with grad_mode.no_grad():
                    param.materialize(state_dict[key].shape)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        # A placeholder loaded into a placeholder copies nothing; the generic loader would ask both
        # for their shape (an error), so those entries are set aside while it runs.
        both_lazy = {}
        for name, value in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if value is not None and is_lazy(value) and key in state_dict and is_lazy(state_dict[key]):
                both_lazy[key] = state_dict.pop(key)
        try:
            super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                          unexpected_keys, error_msgs)
        finally:
            state_dict.update(both_lazy)
        if both_lazy:
            missing_keys[:] = [k for k in missing_keys if k not in both_lazy]

    def initialize_parameters(self, *args, **kwargs) -> None:
        """Materialize the parameters from the first input (each lazy layer implements it)."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether any parameter or buffer of this module (not its children) is still a placeholder."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None) -> None:
        # the forward pre-hook: initialise, drop both hooks, become the plain layer
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        init_id = module.__dict__.pop("_initialize_hook").id
        module._forward_pre_hooks.pop(init_id, None)
        module._forward_pre_hooks_with_kwargs.pop(init_id, None)
        module._load_state_dict_pre_hooks.pop(module.__dict__.pop("_load_hook").id, None)
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. "
                           "Run a dummy forward pass to correctly initialize the modules")
