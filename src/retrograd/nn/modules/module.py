"""``nn.Module``: parameters, buffers and sub-modules registered by attribute assignment.

Behaviour, error messages and ``repr`` follow ``torch.nn.Module``.  The global hooks
(``register_module_*``, re-exported here where torch has them) and the backward-hook machinery
live in ``_module_hooks``; ``Module.to``'s argument parsing in ``_module_to_args``.
"""
from __future__ import annotations

import itertools
import warnings
from collections import OrderedDict, namedtuple
from typing import Any, Callable, Iterator, Mapping

from ..._tensor import Tensor
from ...autograd import grad_mode
from ...autograd.memory_report import _tracking, module_stack
from ...utils.hooks import RemovableHandle
from ..parameter import Buffer, Parameter
from ._module_hooks import (_BackwardHook, _WrappedHook, _global_backward_hooks,  # noqa: F401
                            _global_backward_pre_hooks, _global_buffer_registration_hooks, _global_forward_hooks,
                            _global_forward_hooks_always_called, _global_forward_hooks_with_kwargs,
                            _global_forward_pre_hooks, _global_module_registration_hooks,
                            _global_parameter_registration_hooks, _run_registration_hooks,
                            register_module_backward_hook, register_module_buffer_registration_hook,
                            register_module_forward_hook, register_module_forward_pre_hook,
                            register_module_full_backward_hook, register_module_full_backward_pre_hook,
                            register_module_module_registration_hook, register_module_parameter_registration_hook)
from ._module_to_args import _parse_module_to

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_backward_hook", "register_module_full_backward_pre_hook",
           "register_module_full_backward_hook", "register_module_buffer_registration_hook",
           "register_module_parameter_registration_hook", "register_module_module_registration_hook"]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


def _typename(obj) -> str:
    """``torch.typename``: 'torch.FloatTensor' for tensors, the qualified class name otherwise."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _addindent(s_: str, num_spaces: int) -> str:
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    return first + "\n" + "\n".join((num_spaces * " ") + line for line in s)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _forward_unimplemented(self, *input: Any) -> None:
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


def _owner_of(root: "Module", target: str) -> "tuple[Module, str]":
    # (sub-module, attribute name) for get_parameter / get_buffer's dotted ``target``; the attribute must exist
    module_path, _, name = target.rpartition(".")
    mod = root.get_submodule(module_path)
    if not hasattr(mod, name):
        raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
    return mod, name


def _register_buffer_compat(module, name: str, value, persistent: bool) -> None:
    """``module.register_buffer(name, value, persistent)``, tolerating subclasses that override
    ``register_buffer`` without the ``persistent`` parameter (torch supports them the same way)."""
    method = module.register_buffer
    if getattr(method, "__func__", None) is Module.register_buffer:
        method(name, value, persistent)
        return
    import inspect

    try:
        params = inspect.signature(method).parameters
    except (TypeError, ValueError):
        params = {"persistent": None}
    if "persistent" in params:
        method(name, value, persistent)
        return
    if not persistent:
        raise RuntimeError("Registering a non-persistent buffer on a Module subclass that implements "
                           "register_buffer() without the persistent argument is not allowed.")
    method(name, value)

class Module:
    """Base class for all neural network modules.

    >>> import retrograd as torch
    >>> class Net(torch.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = torch.nn.Linear(3, 1)
    ...     def forward(self, x):
    ...         return self.fc(x)
    >>> Net()
    Net(
      (fc): Linear(in_features=3, out_features=1, bias=True)
    )
    """

    dump_patches: bool = False
    _version: int = 1
    training: bool
    call_super_init: bool = False

    def __init__(self, *args, **kwargs) -> None:
        if self.call_super_init is False and bool(kwargs):
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if self.call_super_init is False and bool(args):
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} "
                            "were given")
        sa = super().__setattr__
        sa("training", True)
        sa("_parameters", {})
        sa("_buffers", {})
        sa("_non_persistent_buffers_set", set())
        sa("_backward_pre_hooks", OrderedDict())
        sa("_backward_hooks", OrderedDict())
        sa("_is_full_backward_hook", None)
        sa("_forward_hooks", OrderedDict())
        sa("_forward_hooks_with_kwargs", OrderedDict())
        sa("_forward_hooks_always_called", OrderedDict())
        sa("_forward_pre_hooks", OrderedDict())
        sa("_forward_pre_hooks_with_kwargs", OrderedDict())
        sa("_state_dict_hooks", OrderedDict())
        sa("_state_dict_pre_hooks", OrderedDict())
        sa("_load_state_dict_pre_hooks", OrderedDict())
        sa("_load_state_dict_post_hooks", OrderedDict())
        sa("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward: Callable[..., Any] = _forward_unimplemented

    # ------------------------------------------------------------------ registration
    def _check_new_name(self, kind: str, store: str, name) -> None:
        """PyTorch's checks (and messages) before registering a buffer or parameter ``name``."""
        if store not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in getattr(self, store):
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a buffer (state that is not a parameter, e.g. BatchNorm's running mean)."""
        self._check_new_name("buffer", "_buffers", name)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        if tensor is not None:
            tensor = _run_registration_hooks(_global_buffer_registration_hooks, self, name, tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (or None) under ``name``."""
        self._check_new_name("parameter", "_parameters", name)
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        elif param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created "
                f"explicitly. To express '{name}' as a function of another Tensor, compute the value in the "
                "forward() method.")
        else:
            param = _run_registration_hooks(_global_parameter_registration_hooks, self, name, param)
            self._parameters[name] = param

    def add_module(self, name: str, module: "Module | None") -> None:
        """Add a child module under ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = _run_registration_hooks(_global_module_registration_hooks, self, name, module)

    def register_module(self, name: str, module: "Module | None") -> None:
        """Alias for :meth:`add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target: str) -> "Module":
        """The sub-module at dotted path ``target`` ('' is self)."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: "Module", strict: bool = False) -> None:
        """Replace (or, unless ``strict``, add) the sub-module at dotted path ``target``."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError("`" + "module" + f"` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]):
            mod = getattr(parent, atoms[-1])
            if not isinstance(mod, Module):
                raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target: str) -> Parameter:
        mod, param_name = _owner_of(self, target)
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        mod, buffer_name = _owner_of(self, target)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return getattr(mod, buffer_name)

    def get_extra_state(self) -> Any:
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called. Please "
                           "file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
                           "to report this bug.")

    def set_extra_state(self, state: Any) -> None:
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called. Please "
                           "file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
                           "to report this bug.")

    # ------------------------------------------------------------------ attribute protocol
    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        if "_parameters" in d:
            p = d["_parameters"]
            if name in p:
                return p[name]
        if "_buffers" in d:
            b = d["_buffers"]
            if name in b:
                return b[name]
        if "_modules" in d:
            m = d["_modules"]
            if name in m:
                return m[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        def remove_from(*dicts_or_sets) -> None:
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = self.__dict__.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(self.__dict__, self._parameters, self._buffers, self._non_persistent_buffers_set)
            modules[name] = _run_registration_hooks(_global_module_registration_hooks, self, name, value)
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = value
            return
        buffers = self.__dict__.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent = value.__dict__.get("persistent", True)
            else:
                persistent = name not in self._non_persistent_buffers_set
            _register_buffer_compat(self, name, value, persistent)
            return
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self):
        keys = (dir(self.__class__) + list(self.__dict__) + list(self._parameters) + list(self._modules)
                + list(self._buffers))
        return sorted(k for k in keys if not k[0].isdigit())

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        # checkpoints pickled by older versions lack the newer hook tables: add them empty, as torch does
        for name, factory in (("_forward_pre_hooks", OrderedDict), ("_forward_pre_hooks_with_kwargs", OrderedDict),
                              ("_forward_hooks", OrderedDict), ("_forward_hooks_with_kwargs", OrderedDict),
                              ("_forward_hooks_always_called", OrderedDict), ("_backward_hooks", OrderedDict),
                              ("_backward_pre_hooks", OrderedDict), ("_state_dict_hooks", OrderedDict),
                              ("_state_dict_pre_hooks", OrderedDict), ("_load_state_dict_pre_hooks", OrderedDict),
                              ("_load_state_dict_post_hooks", OrderedDict), ("_non_persistent_buffers_set", set)):
            if name not in self.__dict__:
                self.__dict__[name] = factory()
        if "_is_full_backward_hook" not in self.__dict__:
            self.__dict__["_is_full_backward_hook"] = None

    # ------------------------------------------------------------------ iteration
    def _named_members(self, get_members_fn, prefix: str = "", recurse: bool = True,
                       remove_duplicate: bool = True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or id(v) in memo:
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The module's parameters (and its sub-modules', when ``recurse``), each once."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """(dotted name, parameter) pairs, e.g. ('0.weight', Parameter)."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix=prefix, recurse=recurse,
                                       remove_duplicate=remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        yield from self._named_members(lambda m: m._buffers.items(), prefix=prefix, recurse=recurse,
                                       remove_duplicate=remove_duplicate)

    def children(self) -> Iterator["Module"]:
        for _, m in self.named_children():
            yield m

    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self) -> Iterator["Module"]:
        for _, m in self.named_modules():
            yield m

    def named_modules(self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True):
        """(dotted name, module) for self and every descendant, self first ('' is its name)."""
        if memo is None:
            memo = set()
        # an explicit stack (pre-order, children in registration order): no recursion limit
        stack = [(prefix, self)]
        while stack:
            name, mod = stack.pop()
            if mod in memo:
                continue
            if remove_duplicate:
                memo.add(mod)
            yield name, mod
            kids = [(name + ("." if name else "") + k, m) for k, m in mod._modules.items() if m is not None]
            stack.extend(reversed(kids))

    # ------------------------------------------------------------------ modes and grads
    def train(self, mode: bool = True) -> "Module":
        """Set training mode (Dropout, BatchNorm behave differently) on self and children."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters (to None by default)."""
        from ...autograd import _sites

        _sites.note_zero_grad(list(self.parameters()), set_to_none)
        for p in self.parameters():
            if p._grad is not None:
                if set_to_none:
                    p._grad = None
                else:
                    if p._grad._grad_fn is not None:
                        p._grad.detach_()
                    else:
                        p._grad.requires_grad_(False)
                    p._grad.zero_()

    def apply(self, fn: Callable[["Module"], None]) -> "Module":
        """Call ``fn`` on every sub-module (children first) and then on self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------ dtype / device moves
    def _apply(self, fn, recurse: bool = True) -> "Module":
        if recurse:
            for module in self.children():
                module._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            with grad_mode.no_grad():
                applied = fn(param)
            if applied is not param:
                # keep the Parameter object (optimizers hold it): swap its data
                param.data = applied
            if param._grad is not None:
                with grad_mode.no_grad():
                    g = fn(param._grad)
                if g is not param._grad:
                    param._grad = g.detach().requires_grad_(param._grad.requires_grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs) -> "Module":
        """``to(dtype)``, ``to(device)``, ``to(tensor)``: floating point parameters and buffers are cast.

        >>> import retrograd as torch
        >>> torch.nn.Linear(2, 2).to(torch.float64).weight.dtype == torch.float64
        True
        """
        from ..._size import check_device

        device_, dtype, copy = _parse_module_to(args, kwargs)
        if device_ is not None:
            if isinstance(device_, int):
                # an int is an accelerator index in PyTorch
                raise RuntimeError("Cannot access accelerator device when none is available.")
            check_device(device_)
        if copy is not None:
            raise RuntimeError(".to() does not accept copy argument")
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={dtype}")
        fmt = kwargs.get("memory_format")
        if fmt is not None:
            from ... import _layout

            _layout.check_memory_format("to", fmt)

            def convert(t):  # as torch: only 4-d and 5-d parameters/buffers change layout
                if t.dim() in (4, 5):
                    t = t.contiguous(memory_format=fmt) if fmt is not _layout.preserve_format else t
                return t.to(dtype) if dtype is not None and t.is_floating_point() else t

            return self._apply(convert)
        if dtype is None:
            return self
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self) -> "Module":
        from ... import _dtype as D

        return self._apply(lambda t: t.to(D.float32) if t.is_floating_point() else t)

    def double(self) -> "Module":
        from ... import _dtype as D

        return self._apply(lambda t: t.to(D.float64) if t.is_floating_point() else t)

    def half(self) -> "Module":
        from ... import _dtype as D

        return self._apply(lambda t: t.to(D.float16) if t.is_floating_point() else t)

    def bfloat16(self) -> "Module":
        from ... import _dtype as D

        return self._apply(lambda t: t.to(D.bfloat16) if t.is_floating_point() else t)

    def to_empty(self, *, device, recurse: bool = True) -> "Module":
        """Parameters and buffers replaced by uninitialized tensors of the same shape and dtype."""
        from ... import _creation

        return self._apply(lambda t: _creation.empty_like(t, device=device), recurse=recurse)

    def type(self, dst_type) -> "Module":
        return self._apply(lambda t: t.type(dst_type))

    def cpu(self) -> "Module":
        return self

    def cuda(self, device=None) -> "Module":
        raise AssertionError("Torch not compiled with CUDA enabled")

    def _replicate_for_data_parallel(self) -> "Module":
        """A shallow replica for data parallelism: same submodules and buffers, no own parameters
        (a replica's parameters are set later as views of the original's, as torch does)."""
        replica = self.__new__(type(self))
        replica.__dict__ = self.__dict__.copy()
        replica._parameters = {}
        replica._buffers = replica._buffers.copy()
        replica._modules = replica._modules.copy()
        replica._is_replica = True
        return replica

    def share_memory(self) -> "Module":
        """Call ``share_memory_()`` on every parameter and buffer (a placeholder of a lazy module raises)."""
        for t in itertools.chain(self.parameters(), self.buffers()):
            t.share_memory_()
        return self

    # ------------------------------------------------------------------ state dict
    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """An OrderedDict of every parameter and persistent buffer, keyed by dotted name."""
        if args:
            # legacy positional form state_dict(destination, prefix, keep_vars): deprecated in PyTorch
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict"
                          " for details.", FutureWarning, stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if result is not None:
                if getattr(hook, "_from_public_api", False):
                    raise RuntimeError("state_dict post-hook must return None")
                destination = result  # (the private API's hooks may hand back a new dict)
        return destination

    def register_state_dict_pre_hook(self, hook) -> RemovableHandle:
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata)`` after state_dict; it edits the dict in
        place and must return None (the older private ``_register_state_dict_hook`` may return a dict)."""
        hook._from_public_api = True  # (as torch marks it: state_dict() then refuses a returned value)
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _register_state_dict_hook(self, hook) -> RemovableHandle:
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook that was "
                               "previously registered via register_state_dict_post_hook")
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _register_load_state_dict_pre_hook(self, hook, with_module: bool = False) -> RemovableHandle:
        """``hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)``
        before this module loads (with ``with_module``, the module comes first)."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = _WrappedHook(hook, self if with_module else None)
        return handle

    def register_load_state_dict_pre_hook(self, hook) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs)`` before this module loads its part of a state dict."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook) -> RemovableHandle:
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        persistent = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(), persistent.items())
                       if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                                  f"Tensor-like object from checkpoint but received {type(input_param)}")
                continue
            if param.ndim == 0 and input_param.ndim == 1 and input_param.shape[0] == 1:
                input_param = input_param[0]
            if input_param.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {input_param.shape} from "
                                  f"checkpoint, the shape in current model is {param.shape}.")
                continue
            try:
                with grad_mode.no_grad():
                    if assign:
                        if isinstance(param, Parameter) and not isinstance(input_param, Parameter):
                            input_param = Parameter(input_param, requires_grad=param.requires_grad)
                        elif isinstance(input_param, Parameter):
                            input_param.requires_grad_(param.requires_grad)  # the module's flag wins, as in torch
                        setattr(self, name, input_param)
                    else:
                        param.copy_(input_param)
            except Exception as ex:  # noqa: BLE001 - reported like PyTorch does
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                                  f"{param.size()} and whose dimensions in the checkpoint are "
                                  f"{input_param.size()}, an exception occurred : {ex.args}.")
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    input_name = key[len(prefix):].split(".", 1)
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False):
        """Copy parameters and buffers from ``state_dict``; PyTorch's checks and messages."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list[str] = []
        unexpected_keys: list[str] = []
        error_msgs: list[str] = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata
        # an explicit work list instead of recursion: a module loads before its children (in order) and
        # its load_state_dict post-hooks run once its whole subtree is loaded, as in PyTorch's recursion
        work: list = [(self, state_dict, "", False)]
        while work:
            module, local_sd, prefix, done = work.pop()
            if done:
                incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
                for hook in module._load_state_dict_post_hooks.values():
                    if hook(module, incompatible) is not None:
                        raise AssertionError(
                            "Hooks registered with ``register_load_state_dict_post_hook`` are not expected to "
                            "return new values, if incompatible_keys need to be modified, it should be done "
                            "inplace.")
                continue
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_sd, prefix, local_metadata, True, missing_keys, unexpected_keys,
                                         error_msgs)
            work.append((module, local_sd, prefix, True))
            kids = []
            for name, child in module._modules.items():
                if child is not None:
                    cp = prefix + name + "."
                    kids.append((child, {k: v for k, v in local_sd.items() if k.startswith(cp)}, cp, False))
            work.extend(reversed(kids))
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ------------------------------------------------------------------ hooks
    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """``hook(module, args)`` (or ``hook(module, args, kwargs)``) runs before forward; may replace args."""
        handle = RemovableHandle(self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """``hook(module, args, output)`` runs after forward; may replace the output."""
        handle = RemovableHandle(self._forward_hooks, extra_dict=self._forward_hooks_with_kwargs)
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output)`` runs when the grads w.r.t. the inputs are computed."""
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_output)`` runs when the grads w.r.t. the outputs are computed."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook: Callable) -> RemovableHandle:
        """Deprecated in PyTorch; here it behaves as :meth:`register_full_backward_hook`."""
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    # ------------------------------------------------------------------ call
    def _call_impl(self, *args, **kwargs):
        if not (self._forward_hooks or self._forward_pre_hooks or self._backward_hooks
                or self._backward_pre_hooks or _global_forward_hooks or _global_forward_pre_hooks
                or _global_backward_hooks or _global_backward_pre_hooks):
            if _tracking[0]:  # (autograd.graph.set_module_tracking: nodes remember their module)
                module_stack.append(self)
                try:
                    return self.forward(*args, **kwargs)
                finally:
                    module_stack.pop()
            return self.forward(*args, **kwargs)
        called_always = set()
        result = None
        try:
            for hook_id, hook in list(_global_forward_pre_hooks.items()) + list(self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    res = hook(self, args, kwargs)
                    if res is not None:
                        if isinstance(res, tuple) and len(res) == 2:
                            args, kwargs = res
                        else:
                            raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, "
                                               f"new_kwargs), but got {res}.")
                else:
                    res = hook(self, args)
                    if res is not None:
                        args = res if isinstance(res, tuple) else (res,)
            bw_hook = None
            if self._backward_hooks or self._backward_pre_hooks or _global_backward_hooks or _global_backward_pre_hooks:
                bw_hook = _BackwardHook(self, list(_global_backward_hooks.values()) + list(self._backward_hooks.values()),
                                        list(_global_backward_pre_hooks.values())
                                        + list(self._backward_pre_hooks.values()))
                args = bw_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            for hook_id, hook in list(_global_forward_hooks.items()) + list(self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called or hook_id in _global_forward_hooks_always_called:
                    called_always.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs or hook_id in _global_forward_hooks_with_kwargs:
                    res = hook(self, args, kwargs, result)
                else:
                    res = hook(self, args, result)
                if res is not None:
                    result = res
            if bw_hook is not None:
                if not isinstance(result, (Tensor, tuple)):
                    if self._is_full_backward_hook is False and self._backward_hooks:
                        self._attach_legacy_backward_hooks(result)
                    else:
                        warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple "
                                      f"of Tensors but received {type(result)}", stacklevel=2)
                result = bw_hook.setup_output_hook(result)
            return result
        except Exception:
            for hook_id, hook in list(_global_forward_hooks.items()) + list(self._forward_hooks.items()):
                if (hook_id in self._forward_hooks_always_called or hook_id in _global_forward_hooks_always_called) \
                        and hook_id not in called_always:
                    try:
                        if hook_id in self._forward_hooks_with_kwargs or hook_id in _global_forward_hooks_with_kwargs:
                            res = hook(self, args, kwargs, result)
                        else:
                            res = hook(self, args, result)
                        if res is not None:
                            result = res
                    except Exception as e:  # noqa: BLE001
                        warnings.warn("module forward hook with ``always_call=True`` raised an exception that was "
                                      f"silenced as another error was raised in forward: {e}", stacklevel=2)
            raise

    __call__ = _call_impl

    def _attach_legacy_backward_hooks(self, result) -> None:
        """``register_backward_hook`` hooks on an output that is not a Tensor or tuple (a dict, a list):
        as torch, they go on the node of the first tensor found, called with that node's grads."""
        var = result
        while not isinstance(var, Tensor):
            if isinstance(var, dict):
                var = next((v for v in var.values() if isinstance(v, Tensor)), None)
            elif isinstance(var, (list, tuple)) and var:
                var = var[0]
            else:
                return
        grad_fn = var.grad_fn
        if grad_fn is None:
            return
        for hook in list(self._backward_hooks.values()):
            grad_fn.register_hook(lambda grad_input, grad_output, hook=hook: hook(self, grad_input, grad_output))
        warnings.warn("Using non-full backward hooks on a Module that does not return a single Tensor or a tuple of "
                      "Tensors is deprecated and will be removed in future versions. This hook will be missing some "
                      "of the grad_output. Please use register_full_backward_hook to get the documented behavior.",
                      FutureWarning, stacklevel=3)

    # ------------------------------------------------------------------ printing
    def extra_repr(self) -> str:
        """Extra text inside this module's repr parentheses (override in layers)."""
        return ""

    def _get_name(self) -> str:
        return self.__class__.__name__

    def __repr__(self) -> str:
        extra_lines = []
        extra = self.extra_repr()
        if extra:
            extra_lines = extra.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


