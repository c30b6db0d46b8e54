"""Optimizer base: param groups, per-parameter state, hooks, zero_grad, state_dict."""
from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from .._tensor import Tensor, bump_version
from ..autograd.grad_mode import enable_grad
from ..utils.hooks import RemovableHandle
from . import _differentiable
from . import _kernels as K

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]


class _RequiredParameter:
    """Singleton marking a hyper-parameter that every param group must give."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()

_global_pre_hooks: OrderedDict = OrderedDict()
_global_post_hooks: OrderedDict = OrderedDict()


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """``hook(optimizer, args, kwargs)`` runs before every optimizer's ``step``."""
    handle = RemovableHandle(_global_pre_hooks)
    _global_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """``hook(optimizer, args, kwargs)`` runs after every optimizer's ``step``."""
    handle = RemovableHandle(_global_post_hooks)
    _global_post_hooks[handle.id] = hook
    return handle


def _typename(o) -> str:
    """``torch.typename``: 'torch.FloatTensor' for tensors, the qualified class name otherwise."""
    if isinstance(o, Tensor):
        return o.type()
    module = type(o).__module__
    return (module + "." if module not in ("builtins", None) else "") + type(o).__qualname__


def _with_hooks(step: Callable) -> Callable:
    """Wrap a subclass's ``step`` so the global and per-optimizer step hooks run around it."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        if _global_pre_hooks or self._optimizer_step_pre_hooks:
            for pre_hook in chain(_global_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
                result = pre_hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError(f"{step} must return None or a tuple of (new_args, new_kwargs), but "
                                           f"got {result}.")
        if self.defaults.get("differentiable") and step.__module__.startswith("retrograd.optim."):
            # PyTorch runs the step with grad mode on so autograd records the update.
            out = _differentiable.step(self, *args, **kwargs)
        else:
            out = step(self, *args, **kwargs)
        if self._optimizer_step_post_hooks or _global_post_hooks:
            for post_hook in chain(self._optimizer_step_post_hooks.values(), _global_post_hooks.values()):
                post_hook(self, args, kwargs)
        return out

    wrapper.hooked = True  # type: ignore[attr-defined]
    return wrapper


class Optimizer:
    """Base class: ``param_groups`` (dicts with 'params' and hyper-parameters) and ``state``.

    Subclasses implement ``step``; it runs under ``no_grad`` and updates parameters in place.

    >>> import retrograd as torch
    >>> w = torch.ones(2, requires_grad=True)
    >>> opt = torch.optim.SGD([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step(); w
    tensor([0.8000, 0.8000], requires_grad=True)
    """

    # Per-group keys that ``__setstate__`` fills in when a pickle or state dict lacks them (PyTorch
    # does this in each subclass's ``__setstate__``); subclasses list theirs, in PyTorch's order.
    _group_setstate_defaults: dict[str, Any] = {}

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "hooked", False):
            cls.step = _with_hooks(step)

    def __init__(self, params: Iterable, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {_typename(params)}")
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    # ------------------------------------------------------------------ pickling / printing
    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
                     "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self.defaults.setdefault("differentiable", False)
        for group in self.param_groups:
            for key, value in self._group_setstate_defaults.items():
                group.setdefault(key, value)

    def __repr__(self) -> str:
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"

    # ------------------------------------------------------------------ groups
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters (with its own hyper-parameters) to optimize.

        >>> import retrograd as torch
        >>> a, b = torch.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)
        >>> opt = torch.optim.SGD([a], lr=0.1)
        >>> opt.add_param_group({"params": [b], "lr": 0.01}); len(opt.param_groups)
        2
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        tensors, names = [], []
        for p in param_group["params"]:
            if isinstance(p, tuple):
                names.append(p[0])
                tensors.append(p[1])
            else:
                tensors.append(p)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        for p in tensors:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {_typename(p)}")
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        ids = [id(p) for p in tensors]
        if len(ids) != len(set(ids)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will cause "
                          "an error; see github.com/pytorch/pytorch/issues/40967 for more information", stacklevel=3)
        seen: set[int] = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not seen.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters: to ``None`` (default) or to zeros in place."""
        from ..autograd import _sites

        _sites.note_zero_grad([p for group in self.param_groups for p in group["params"]], set_to_none)
        for group in self.param_groups:
            for p in group["params"]:
                g = p._grad
                if g is None:
                    continue
                if set_to_none:
                    p._grad = None
                else:
                    if g._grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g._data[...] = 0
                    bump_version(g)

    def step(self, closure: Callable[[], Any] | None = None):
        """Perform one optimization step (subclasses implement it)."""
        raise NotImplementedError

    def _closure_loss(self, closure):
        """Run the user's closure with grad enabled (``step`` itself runs under ``no_grad``)."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def _params_with_grad(self, group: dict[str, Any]) -> Iterator[tuple[Tensor, dict]]:
        """``(p, state)`` for each parameter of ``group`` that has a gradient, in order; a parameter's
        state is created on its first step (``step``, then the subclass's ``_init_state``)."""
        for p in group["params"]:
            if p._grad is not None:
                yield p, self._state_of(p, group)

    def _state_of(self, p: Tensor, group: dict[str, Any]) -> dict:
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _step_tensor()
            self._init_state(state, p, group)
        return state

    def _init_state(self, state: dict, p: Tensor, group: dict[str, Any]) -> None:
        """Add a subclass's buffers to the new ``state`` of ``p`` (it already holds ``step``)."""

    def _check_differentiable(self, differentiable: bool) -> None:
        # The built-in optimizers have a recorded step (``_differentiable.py``); any other
        # class calling this check has only the in-place NumPy update.
        if differentiable and not _differentiable.supports(self):
            raise RuntimeError(f"{type(self).__name__} does not support differentiable=True")

    # ------------------------------------------------------------------ hooks
    def _add_hook(self, table: OrderedDict, hook: Callable, prepend: bool = False) -> RemovableHandle:
        handle = RemovableHandle(table)
        table[handle.id] = hook
        if prepend:
            table.move_to_end(handle.id, last=False)
        return handle

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(optimizer, args, kwargs) -> None | (args, kwargs)`` runs before ``step``."""
        return self._add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` runs after ``step``."""
        return self._add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        return self._add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        return self._add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        return self._add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        return self._add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ------------------------------------------------------------------ state dict
    def state_dict(self) -> dict[str, Any]:
        """``{'state': {index: {...}}, 'param_groups': [{..., 'params': [indices]}]}`` like PyTorch.

        Parameters are replaced by their position across all groups; the state tensors are
        the optimizer's own (not copies), as in PyTorch.

        >>> import retrograd as torch
        >>> w = torch.zeros(2, requires_grad=True)
        >>> torch.optim.SGD([w], lr=0.1).state_dict()["param_groups"][0]["params"]
        [0]
        """
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        mapping: dict[int, int] = {}
        start = 0

        def pack(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            mapping.update({id(p): i for i, p in enumerate(group["params"], start) if id(p) not in mapping})
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        groups = [pack(g) for g in self.param_groups]
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        sd = {"state": state, "param_groups": groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, sd)
            if result is not None:
                sd = result
        return sd

    @staticmethod
    def _cast_value(param: Tensor, value: Tensor, key, fused_or_capturable: bool) -> Tensor:
        """PyTorch's policy: floating state follows the param's dtype; 'step' keeps its own."""
        if key == "step":
            return _to_dtype(value, np.float32) if fused_or_capturable else value
        if param.is_floating_point():
            return _to_dtype(value, param._data.dtype)
        return value

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a state dict from ``state_dict()`` (ours or PyTorch's layout); tensors are copied.

        >>> import retrograd as torch
        >>> w = torch.zeros(2, requires_grad=True)
        >>> opt = torch.optim.SGD([w], lr=0.1)
        >>> opt.load_state_dict({"state": {}, "param_groups": [dict(opt.state_dict()["param_groups"][0], lr=0.5)]})
        >>> opt.param_groups[0]["lr"]
        0.5
        """
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def flags(param_id) -> bool:
            for pg in state_dict["param_groups"]:
                if param_id in pg["params"]:
                    return bool(pg.get("fused", False) or pg.get("capturable", False))
            return False

        def cast(param, value, special: bool, key=None):
            if isinstance(value, Tensor):
                return Optimizer._cast_value(param, value, key, special)
            if isinstance(value, dict):
                return {k: cast(param, v, special, key=k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v, special) for v in value)
            return value

        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v, flags(k))
            else:
                state[k] = v

        def update_group(group: dict[str, Any], new_group: dict[str, Any]) -> dict[str, Any]:
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)


def _to_dtype(value: Tensor, npdtype) -> Tensor:
    """``value.to(dtype)``: the same tensor when the dtype already matches, else a detached copy."""
    if value._data.dtype == npdtype:
        return value
    return Tensor._wrap(value._data.astype(npdtype), False, None, 0)


def _new_state(data: np.ndarray) -> Tensor:
    """A fresh state tensor (no grad) holding ``data``."""
    return Tensor._wrap(data, False, None, 0)


def _step_tensor(value: float = 0.0) -> Tensor:
    """``state['step']``: a float32 0-d tensor, as PyTorch 2.x keeps it (float64 if default dtype is)."""
    from .._dtype import get_default_dtype

    dt = np.float64 if get_default_dtype().name == "float64" else np.float32
    return _new_state(np.array(value, dtype=dt))


def _grad(p: Tensor, maximize: bool) -> np.ndarray:
    g = p._grad._data
    return -g if maximize else g


def _scalar(x) -> float:
    """A hyper-parameter given as a number or a 1-element tensor, as a Python float."""
    return float(x._data.reshape(())) if isinstance(x, Tensor) else x


def _zeros_like(p: Tensor) -> Tensor:
    """A zero-filled state buffer shaped like parameter ``p`` (``torch.zeros_like(p)``)."""
    return _new_state(np.zeros_like(p._data))


def _weight_decay(x: np.ndarray, g: np.ndarray, lr: float, wd: float, decoupled: bool = False) -> np.ndarray:
    """The gradient after weight decay ``wd``: ``g + wd * x``, or with ``decoupled`` the gradient
    unchanged and ``x`` shrunk in place by ``1 - lr * wd`` (AdamW style)."""
    if wd != 0:
        if decoupled:
            K.mul(x, 1 - lr * wd, out=x)
        else:
            g = K.add(g, x, wd)
    return g


def _check_nonnegative(value, what: str) -> None:
    """PyTorch's ``ValueError: Invalid <what>: <value>`` unless ``0 <= value`` (NaN fails too)."""
    if not 0.0 <= value:
        raise ValueError(f"Invalid {what}: {value}")


def _check_betas(betas) -> None:
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")


def _lr(x):
    """A learning rate for arithmetic: a Python number as is; a (1-element) tensor as a NumPy scalar of
    its dtype, so ``1 - lr * wd`` or ``lr / bias_correction`` round in that dtype (float32 for
    ``torch.tensor(0.01)``), as PyTorch's 0-d tensor arithmetic does (NEP 50 weak Python scalars)."""
    return x._data.reshape(())[()] if isinstance(x, Tensor) else x


def _check_lr(lr, foreach=None, capturable: bool = False, tensor_foreach: bool = False) -> None:
    """PyTorch's learning-rate checks: Adam/AdamW refuse a tensor ``lr`` with ``foreach=True`` (and
    not capturable); a tensor ``lr`` must have one element; ``lr`` must be ``>= 0``."""
    if isinstance(lr, Tensor):
        if tensor_foreach and foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        if lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
    _check_nonnegative(lr, "learning rate")


def _check_fused(fused, foreach, differentiable) -> None:
    """PyTorch's constructor checks for ``fused=True`` (before anything looks at ``differentiable``)."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


_CAPTURABLE_DEVICES = "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']"


def _check_capturable(opt: "Optimizer", group: dict[str, Any], what: str = "params and state_steps",
                      devices: str = _CAPTURABLE_DEVICES) -> None:
    """``capturable=True`` needs an accelerator: PyTorch's single-tensor step raises this
    ``AssertionError`` for the first CPU parameter with a gradient (after the states are created)."""
    if group.get("capturable") and any(p._grad is not None for p in group["params"]):
        for _ in opt._params_with_grad(group):
            pass
        raise AssertionError(f"If capturable=True, {what} must be on supported devices: {devices}.")
