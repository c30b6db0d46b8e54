"""Module hooks beyond one module's own dicts: the global hooks every module runs
(``register_module_forward_hook`` ..., re-exported by ``nn.modules.module`` where torch has them),
the global registration hooks, ``_WrappedHook`` (a hook holding its module weakly) and
``_BackwardHook``, which routes a module call's inputs and outputs through an identity op (node
``BackwardHookFunctionBackward``) whose node hooks see all their gradients at once.

>>> import retrograd as torch
>>> from retrograd.nn.modules.module import register_module_forward_hook
>>> seen = []
>>> handle = register_module_forward_hook(lambda m, args, out: seen.append(type(m).__name__))
>>> _ = torch.nn.ReLU()(torch.ones(1)); handle.remove(); seen
['ReLU']
"""
from __future__ import annotations

import functools
import warnings
import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING, Callable

from ..._tensor import Tensor
from ...autograd import grad_mode
from ...utils.hooks import RemovableHandle

if TYPE_CHECKING:
    from .module import Module

__all__ = ["register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_backward_hook", "register_module_full_backward_pre_hook",
           "register_module_full_backward_hook", "register_module_buffer_registration_hook",
           "register_module_parameter_registration_hook", "register_module_module_registration_hook"]

# Hooks common to every module (PyTorch's ``torch.nn.modules.module.register_module_*``): they
# run before each module's own hooks of the same kind.
_global_forward_pre_hooks: OrderedDict = OrderedDict()
_global_forward_hooks: OrderedDict = OrderedDict()
_global_forward_hooks_always_called: OrderedDict = OrderedDict()
_global_forward_hooks_with_kwargs: OrderedDict = OrderedDict()
_global_backward_pre_hooks: OrderedDict = OrderedDict()
_global_backward_hooks: OrderedDict = OrderedDict()
_global_is_full_backward_hook: bool | None = None


def register_module_forward_pre_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, args)`` before every module's forward (before the module's own pre-hooks).

    >>> import retrograd as torch
    >>> from retrograd.nn.modules.module import register_module_forward_pre_hook
    >>> seen = []
    >>> h = register_module_forward_pre_hook(lambda m, args: seen.append(type(m).__name__))
    >>> _ = torch.nn.ReLU()(torch.ones(1)); h.remove(); seen
    ['ReLU']
    """
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook: Callable, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """``hook(module, args, output)`` after every module's forward (before the module's own hooks)."""
    handle = RemovableHandle(_global_forward_hooks, extra_dict=_global_forward_hooks_always_called)
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_backward_hook(hook: Callable) -> RemovableHandle:
    """Deprecated in PyTorch; here it behaves as :func:`register_module_full_backward_hook`."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is True:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a global Module hook. "
                           "Please use only one of them.")
    _global_is_full_backward_hook = False
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def register_module_full_backward_pre_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, grad_output)`` for every module (before the module's own backward pre-hooks)."""
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, grad_input, grad_output)`` for every module (before the module's own)."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is False:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a global Module hook. "
                           "Please use only one of them.")
    _global_is_full_backward_hook = True
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle

# Global registration hooks (``register_module_{buffer,parameter,module}_registration_hook``):
# ``hook(module, name, value)`` runs as a buffer / parameter / child module is registered on any
# module and may return a replacement for ``value``.
_global_buffer_registration_hooks: OrderedDict = OrderedDict()
_global_parameter_registration_hooks: OrderedDict = OrderedDict()
_global_module_registration_hooks: OrderedDict = OrderedDict()


def _add_global_hook(store: OrderedDict, hook: Callable) -> RemovableHandle:
    handle = RemovableHandle(store)
    store[handle.id] = hook
    return handle


def register_module_buffer_registration_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, name, buffer)`` whenever any module registers a buffer; a returned tensor replaces it.

    >>> import retrograd as torch
    >>> from retrograd.nn.modules.module import register_module_buffer_registration_hook
    >>> seen = []
    >>> h = register_module_buffer_registration_hook(lambda m, name, b: seen.append(name))
    >>> bn = torch.nn.BatchNorm1d(2); h.remove(); seen
    ['running_mean', 'running_var', 'num_batches_tracked']
    """
    return _add_global_hook(_global_buffer_registration_hooks, hook)


def register_module_parameter_registration_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, name, param)`` whenever any module registers a parameter; a returned one replaces it."""
    return _add_global_hook(_global_parameter_registration_hooks, hook)


def register_module_module_registration_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, name, submodule)`` whenever any module registers a child; a returned module replaces it."""
    return _add_global_hook(_global_module_registration_hooks, hook)


def _run_registration_hooks(store: OrderedDict, module, name: str, value):
    for hook in store.values():
        output = hook(module, name, value)
        if output is not None:
            value = output
    return value


class _WrappedHook:
    """A hook that may receive its module as first argument, holding the module only weakly.

    A weak reference keeps a registered hook from keeping its module alive; pickling and
    deepcopy store the module itself (rebuilt as a weak reference on load).
    """

    def __init__(self, hook: Callable, module=None) -> None:
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = module is not None
        if self.with_module:
            self.module = weakref.ref(module)

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self) -> dict:
        state = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            state["module"] = self.module()
        return state

    def __setstate__(self, state: dict) -> None:
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


def _zeros_like_data(t: Tensor) -> Tensor:
    import numpy as np

    return Tensor._wrap(np.zeros(t._data.shape, dtype=t._data.dtype), False, None, 0)


class _BackwardHook:
    """Full backward (pre-)hooks of one module call, as PyTorch's ``BackwardHook``.

    Inputs (and outputs) that require grad pass through one multi-output identity op; a
    post-hook on the outputs' node records ``grad_output`` (running backward pre-hooks), a
    post-hook on the inputs' node calls the user hooks with ``(grad_input, grad_output)``
    and may replace ``grad_input``.
    """

    def __init__(self, module: Module, hooks: list, pre_hooks: list) -> None:
        self.module = module
        self.user_hooks = hooks
        self.user_pre_hooks = pre_hooks
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_idx = None
        self.n_inputs = -1
        self.input_idx = None
        self.input_zeros = ()  # (position, tensor) of tensor inputs that do not require grad

    @staticmethod
    def _pack(indices, values, size) -> tuple:
        res = [None] * size
        for i, v in zip(indices, values):
            res[i] = v
        return tuple(res)

    def _apply_on_tensors(self, fn, args: tuple):
        from ..._ops.nn.hooks import _identity_apply

        idx = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        if not idx or not grad_mode.is_grad_enabled():
            return args, None
        new = _identity_apply(tuple(args[i] for i in idx))
        fn(new[0].grad_fn)
        out = list(args)
        for i, v in zip(idx, new):
            out[i] = v
        return tuple(out), idx

    def setup_input_hook(self, args: tuple) -> tuple:
        def fn(node):
            def hook(grad_input, _):
                if self.grad_outputs is None:
                    return None
                res = self._pack(self.input_idx, grad_input, self.n_inputs)
                if self.input_zeros:
                    # torch routes every tensor input through its hook function; one that does not
                    # require grad gets a zero gradient there (materialized), not None
                    res = list(res)
                    for i, t in self.input_zeros:
                        res[i] = _zeros_like_data(t)
                    res = tuple(res)
                for user_hook in self.user_hooks:
                    out = user_hook(self.module, res, self.grad_outputs)
                    if out is None:
                        continue
                    if len(out) != len(res):
                        raise RuntimeError("Backward hook returned an invalid number of grad_input, got "
                                           f"{len(out)}, but expected {len(res)}")
                    res = out
                self.grad_outputs = None
                return tuple(res[i] for i in self.input_idx)
            node.register_hook(hook)

        res, self.input_idx = self._apply_on_tensors(fn, args)
        self.n_inputs = len(args)
        if self.input_idx is not None:
            self.input_zeros = tuple((i, a) for i, a in enumerate(args) if isinstance(a, Tensor) and not a.requires_grad)
        return res

    def setup_output_hook(self, result):
        def fn(node):
            def hook(_, grad_output):
                self.grad_outputs = self._pack(self.output_idx, grad_output, self.n_outputs)
                for pre in self.user_pre_hooks:
                    new = pre(self.module, self.grad_outputs)
                    if new is None:
                        continue
                    if len(new) != len(self.grad_outputs):
                        raise RuntimeError("Backward pre hook returned an invalid number of grad_output, got "
                                           f"{len(new)}, but expected {len(self.grad_outputs)}")
                    self.grad_outputs = tuple(new)
                local = self.grad_outputs
                if self.input_idx is None:
                    warnings.warn("Full backward hook is firing when gradients are computed with respect to module "
                                  "outputs since no inputs require gradients. See "
                                  "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module"
                                  ".register_full_backward_hook for more details.", stacklevel=5)
                    grad_inputs = self._pack([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple) and all(e is None for e in res)):
                            raise RuntimeError("Backward hook for Modules where no input requires gradient should "
                                               "always return None or None for all gradients.")
                    self.grad_outputs = None
                return tuple(local[i] for i in self.output_idx)
            node.register_hook(hook)

        is_tuple = isinstance(result, tuple)
        args = result if is_tuple else (result,)
        res, self.output_idx = self._apply_on_tensors(fn, args)
        self.n_outputs = len(args)
        return res if is_tuple else res[0]
