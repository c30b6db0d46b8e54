"""User-defined differentiable functions: ``autograd.Function`` and its ``ctx``.

A subclass supplies ``forward`` and ``backward`` (static methods).  ``apply`` runs
``forward`` without recording, then puts one node in the graph whose class is the
subclass's ``<Name>Backward`` (a ``BackwardCFunction``).  That node *is* the ``ctx``
``forward``/``backward`` see, as in PyTorch, and the one engine runs it like any other:
``backward`` is called under the engine's grad mode, so with ``create_graph=True`` a
backward written in retrograd ops is itself differentiable.

>>> import retrograd as torch
>>> class Cube(torch.autograd.Function):
...     @staticmethod
...     def forward(ctx, x):
...         ctx.save_for_backward(x)
...         return x ** 3
...     @staticmethod
...     def backward(ctx, g):
...         x, = ctx.saved_tensors
...         return g * 3 * x ** 2
>>> x = torch.tensor(2., requires_grad=True)
>>> Cube.apply(x).backward(); x.grad
tensor(12.)
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import warnings
from typing import Any, Callable

from . import forward_ad, grad_mode
from .graph import Node, SavedTensor, _creation_site, _freed_error, _freed_marker

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable", "InplaceFunction"]


def _Tensor():
    from .._tensor import Tensor

    return Tensor


class FunctionCtx:
    """What ``forward``/``setup_context`` use to pass state to ``backward``."""

    def save_for_backward(self, *tensors) -> None:
        """Save tensors (or None) for ``backward``; read them back with ``ctx.saved_tensors``."""
        T = _Tensor()
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, T):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                                f"{type(t).__name__}")
        self.to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        """Save tensors (or None) for ``jvp``, which reads them back with ``ctx.saved_tensors``."""
        T = _Tensor()
        if not all(t is None or isinstance(t, T) for t in tensors):
            raise AssertionError("save_for_forward expects all arguments to be tensors; you should save non-tensors "
                                 "as attributes on ctx.")
        self.saved_for_forward = tensors

    def mark_dirty(self, *args) -> None:
        """Declare inputs that ``forward`` modified in place (they are returned as outputs)."""
        self.dirty_tensors = args

    def mark_shared_storage(self, *pairs) -> None:
        warnings.warn("mark_shared_storage is deprecated. Tensors with shared storages are automatically "
                      "tracked. Note that calls to `set_()` are not tracked", DeprecationWarning, stacklevel=2)

    def mark_non_differentiable(self, *args) -> None:
        """Declare outputs that get no gradient (``requires_grad=False``)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """With False, ``backward`` may receive None for outputs that got no gradient."""
        self.materialize_grads = bool(value)


class BackwardCFunction(Node, FunctionCtx):
    """The graph node (and ctx) of one ``Function.apply`` call."""

    _forward_cls: Any = None
    _call_on_none = True  # custom backwards run even when every incoming grad is None
    _in_jvp = False  # while ``jvp`` runs, ``saved_tensors`` are those saved for forward
    saved_for_forward: tuple = ()

    def __init__(self) -> None:
        Node.__init__(self)
        self.to_save = None
        self.dirty_tensors = None
        self.non_differentiable = None
        self.materialize_grads = True
        self.needs_input_grad = ()
        self._saved = None
        self._released = False
        self._arg_is_tensor = ()  # per forward arg: a tensor input (gets a next_functions entry)?
        self._out_meta = ()  # per forward output: (shape, np dtype) of tensors, None otherwise
        self._non_diff_out = ()  # positions of outputs marked non-differentiable

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<retrograd.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    # ---- saved tensors ----
    @property
    def saved_tensors(self) -> tuple:
        if self._in_jvp:
            return tuple(self.saved_for_forward)
        if self._released == "accessed":
            raise RuntimeError("saved_tensors can only be accessed once when clear_saved_tensors_on_access=True is set "
                               "on the autograd.Function. Either access saved_tensors only once, or set "
                               "clear_saved_tensors_on_access=False.")
        if self._released is not False:
            raise _freed_error(self)
        if self._saved is None:
            return ()
        out = tuple(None if s is None else s.unpack(self) for s in self._saved)
        if self._forward_cls.clear_saved_tensors_on_access:
            # handed over once: the node keeps no reference, so backward may free them early
            self._saved = None
            self._released = "accessed"
        return out

    @property
    def _raw_saved_tensors(self) -> tuple:
        """The SavedTensor objects behind ``saved_tensors`` (PyTorch's private accessor)."""
        if self._released is not False:
            raise _freed_error(self)
        return tuple(SavedTensor._placeholder("none") if s is None else s for s in self._saved or ())

    @property
    def saved_variables(self) -> tuple:
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2)
        return self.saved_tensors

    def release(self) -> None:
        if self._saved is not None:
            self._saved = None
            self._released = _freed_marker()

    def _num_outputs(self) -> int:
        return len(self._out_meta)

    # ---- what the engine calls ----
    def apply(self, grads: list, needed: tuple | None = None) -> list:
        fcls = self._forward_cls
        grads = list(grads)
        if self.materialize_grads:
            from .. import _creation
            from .._dtype import from_numpy_dtype

            # (``ctx._materialize_non_diff_grads = False``: outputs marked non-differentiable keep None)
            skip = self._non_diff_out if not getattr(self, "_materialize_non_diff_grads", True) else ()
            for i, meta in enumerate(self._out_meta):
                if grads[i] is None and meta is not None and i not in skip:
                    grads[i] = _creation.zeros(meta[0], dtype=from_numpy_dtype(meta[1]))
        result = _user_backward(fcls)(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n_args = len(self._arg_is_tensor)
        if len(result) != n_args:
            if len(result) > n_args and all(r is None for r in result[n_args:]):
                result = result[:n_args]
            else:
                raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients "
                                   f"(expected {n_args}, got {len(result)})")
        out = []
        for pos, (g, is_tensor) in enumerate(zip(result, self._arg_is_tensor)):
            if is_tensor:
                if g is not None and not isinstance(g, _Tensor()):
                    raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
                out.append(g)
            elif g is not None:
                raise RuntimeError(f"function {self.name()} returned a gradient different than None at position "
                                   f"{pos + 1}, but the corresponding forward input was not a Variable")
        return out


def _user_backward(fcls) -> Callable:
    """``backward`` or its alias ``vjp``, whichever the subclass implements (not both, as PyTorch)."""
    backward_fn, vjp_fn = fcls.backward, fcls.vjp
    base_backward = Function.__dict__["backward"].__func__
    if backward_fn is not base_backward and vjp_fn is not base_backward:
        raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You should "
                           "only implement one of them.")
    return vjp_fn if vjp_fn is not base_backward else backward_fn


class _FunctionMeta(type):
    """Gives every Function subclass its own node class, ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs) -> None:
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        cls._backward_cls.__module__ = "retrograd.autograd.function"
        super().__init__(name, bases, attrs)


class Function(FunctionCtx, metaclass=_FunctionMeta):
    """Base class of custom differentiable operations (see the module docstring).

    Two styles, as in PyTorch: ``forward(ctx, *args)``; or ``forward(*args)`` plus
    ``setup_context(ctx, inputs, output)``.  Call it with ``MyFn.apply(*args)``.
    """

    def __init__(self, *args, **kwargs) -> None:
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are all static, so you "
            "should invoke them on the class itself. Instantiating an autograd function will raise an error in a "
            "future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use new-style autograd "
            "function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> Any:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    # With True, ``ctx.saved_tensors`` hands the saved tensors over once and the node drops them.
    clear_saved_tensors_on_access = False

    # PyTorch's torch.func.vmap hooks.  retrograd's vmap runs a Function's forward per batch
    # element, so neither is consulted; they exist with PyTorch's defaults.
    generate_vmap_rule = False

    @staticmethod
    def vmap(info: Any, in_dims: Any, *args: Any) -> Any:
        raise NotImplementedError("To use autograd.Function with vmap, you must either override the vmap staticmethod "
                                  "or set generate_vmap_rule=True.")

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it "
                                  "with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` and record one ``<Name>Backward`` node when a tensor input requires grad."""
        if _uses_setup_context(cls):
            # setup_context sees every forward argument, defaults filled in (as in PyTorch)
            sig, n_pos = _signature(cls.forward)
            if kwargs or len(args) < n_pos:
                bound = sig.bind(*args, **kwargs)
                bound.apply_defaults()
                args = bound.args  # (as PyTorch: keyword-only parameters keep their defaults)
        elif kwargs:
            args = _bind_kwargs(cls.forward, args, kwargs)
        return _apply(cls, args)


@functools.lru_cache(maxsize=256)
def _signature(forward: Callable) -> tuple[inspect.Signature, int]:
    """``forward``'s signature and its number of named positional parameters."""
    sig = inspect.signature(forward)
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sig, sum(p.kind in kinds for p in sig.parameters.values())


def _bind_kwargs(forward: Callable, args: tuple, kwargs: dict) -> tuple:
    """Keyword arguments moved to their positions after ``ctx`` (PyTorch's C++ binding and its messages)."""
    params = [p for p in inspect.signature(forward).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][1:]
    names = [p.name for p in params]
    slots: list = list(args) + [_MISSING] * max(0, len(params) - len(args))
    for k, v in kwargs.items():
        if k not in names:
            raise TypeError(f"forward() got an unexpected keyword argument '{k}'")
        i = names.index(k)
        if i < len(args):
            raise TypeError(f"forward() got multiple values for argument '{k}'")
        slots[i] = v
    for i, v in enumerate(slots):
        if v is _MISSING:
            if params[i].default is inspect.Parameter.empty:
                raise TypeError(f"forward() missing required argument: '{names[i]}' (position {i})")
            slots[i] = params[i].default
    return tuple(slots)


_MISSING = object()
_NO_PAUSE = contextlib.nullcontext()


# How many torch.func transforms (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap) are running
# the user's function right now: an old-style Function (forward(ctx, ...)) is refused inside
# one, as torch refuses it.
_func_transforms = [0]
_NEEDS_SETUP_CONTEXT = ("In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, "
                        "...), it must override the setup_context staticmethod. For more details, please see "
                        "https://pytorch.org/docs/main/notes/extending.func.html")


def _uses_setup_context(cls) -> bool:
    return getattr(cls.setup_context, "__func__", cls.setup_context) is not Function.__dict__["setup_context"].__func__


def _apply(cls, args: tuple):
    if _func_transforms[0] and not _uses_setup_context(cls):
        raise RuntimeError(_NEEDS_SETUP_CONTEXT)
    T = _Tensor()
    ctx = cls._backward_cls()
    is_tensor = tuple(isinstance(a, T) for a in args)
    ctx._arg_is_tensor = is_tensor
    ctx.needs_input_grad = tuple(t and a.requires_grad for a, t in zip(args, is_tensor))
    tensor_inputs = [a for a, t in zip(args, is_tensor) if t]
    executable = grad_mode.state.enabled and any(a.requires_grad for a in tensor_inputs)
    tangents = forward_ad._input_tangents(args)  # (None unless a dual level is open and an input is dual)

    prev = grad_mode.state.enabled
    grad_mode.state.enabled = False  # forward is not recorded: the node stands for all of it
    try:
        # forward sees plain tensors (no tangents flow through it): jvp gives the outputs' tangents
        with forward_ad._paused() if forward_ad._level.active else _NO_PAUSE:
            if _uses_setup_context(cls):
                output = cls.forward(*args)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args)
    finally:
        grad_mode.state.enabled = prev

    if not isinstance(output, tuple):
        if not isinstance(output, T):
            return output  # PyTorch leaves non-tensor (and list) outputs alone
        single = True
        outputs = (output,)
    else:
        single = False
        outputs = output

    if ctx.dirty_tensors:
        out_ids = {id(o) for o in outputs}
        if any(id(t) not in out_ids for t in ctx.dirty_tensors):
            raise RuntimeError("Some elements marked as dirty during the forward method were not returned as output. "
                               "The inputs that are modified inplace must all be outputs of the Function.")
        arg_ids = {id(a) for a in args}
        for t in ctx.dirty_tensors:
            if id(t) not in arg_ids:
                msg = ("ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have been "
                       "mutated should be passed to ctx.mark_dirty().")
                if isinstance(t, T) and t._base is not None:
                    raise RuntimeError(msg)  # (a view of an intermediate: no history to rewrite)
                warnings.warn(msg, UserWarning, stacklevel=3)
            elif isinstance(t, T) and t._base is not None and sum(isinstance(o, T) for o in outputs) > 1:
                raise RuntimeError(
                    "If your Function modifies inplace an input that is a view of another Tensor, your Function "
                    "cannot return more than one Tensor. This is not supported by the current autograd engine. You "
                    "should either make sure the input is not a view (using .clone() for example) or make your "
                    "Function only return one Tensor (potentially splitting it into two Functions: one doing the "
                    "inplace that returns a single Tensor and a second one that does the other operations). You can "
                    "ask on the forum https://discuss.pytorch.org/ if you need help to do this change.")
    if tangents is not None:
        non_diff = {id(t) for t in (ctx.non_differentiable or ())}
        ctx.__dict__["_jvp_non_diff"] = {i for i, o in enumerate(outputs) if id(o) in non_diff}
    if not executable:
        if prev:
            # (PyTorch: a view returned by a Function stays "made in a custom Function" even when no
            # input required grad, so a later in-place on it is refused with that explanation)
            for o in outputs:
                if isinstance(o, T) and o._base is not None and o.__dict__.get("_view_meta") == "no_grad":
                    o.__dict__["_view_meta"] = "custom_fn"
                    o.__dict__.pop("_view_nograd", None)
        if tangents is not None:
            # an input returned as-is is an alias of it (a view), with its own tangent
            input_ids = {id(a) for a in args if isinstance(a, T)}
            dirty_ids = {id(t) for t in (ctx.dirty_tensors or ())}
            outputs = tuple(_alias(o) if isinstance(o, T) and id(o) in input_ids and id(o) not in dirty_ids
                            and o._data.dtype.kind in "fc" else o for o in outputs)
            forward_ad._custom_jvp(cls, ctx, args, tangents, outputs)
            return outputs[0] if single else outputs
        return output

    from .anomaly_mode import anomaly_state
    from .engine import edge_of

    ctx.next_functions = tuple(edge_of(a) for a in tensor_inputs)
    ctx._in_meta = tuple((a._data.shape, a._data.dtype) for a in tensor_inputs)
    ctx._site = _creation_site()
    if anomaly_state.enabled:
        from .anomaly_mode import record_trace

        record_trace(ctx)
    new_outputs = _wrap_outputs(ctx, args, outputs)
    if tangents is not None:
        forward_ad._custom_jvp(cls, ctx, args, tangents, tuple(new_outputs))
    _save(ctx, args, outputs, new_outputs)
    ctx.to_save = None
    ctx.dirty_tensors = None
    return new_outputs[0] if single else tuple(new_outputs)


def _wrap_outputs(ctx: BackwardCFunction, args: tuple, outputs: tuple) -> list:
    """Attach the node to each differentiable output (PyTorch's rules for inputs, dirty, views)."""
    T = _Tensor()
    input_ids = {id(a) for a in args if isinstance(a, T)}
    dirty = {id(t) for t in (ctx.dirty_tensors or ())}
    non_diff = {id(t) for t in (ctx.non_differentiable or ())}
    meta = []
    result = []
    for i, o in enumerate(outputs):
        if not isinstance(o, T):
            meta.append(None)
            result.append(o)
            continue
        meta.append((o._data.shape, o._data.dtype))
        is_input = id(o) in input_ids
        if id(o) in non_diff:
            ctx._non_diff_out += (i,)
        if id(o) in non_diff or o._data.dtype.kind not in "fc":
            if not o._requires_grad:
                if is_input and id(o) not in dirty:
                    o = _alias(o)
            elif is_input:
                o = o.detach()  # as PyTorch: a detached alias, the input keeps its history
            elif o._base is None:
                o._requires_grad = False
            result.append(o)
            continue
        if is_input and id(o) in dirty:
            if o._grad_fn is None and o._requires_grad:
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
            if o._base is not None:  # the refusals of in-place writes to views (multi-output views, leaf views)
                from .._views import check_view_inplace

                check_view_inplace(o)
            o._grad_fn = ctx
            o._output_nr = i
            o._requires_grad = True
            o._vcounter()[0] += 1  # as PyTorch: marking dirty bumps the version once more
            if o._base is not None:
                from .._views import after_inplace_on_view

                after_inplace_on_view(o)
            result.append(o)
            continue
        if is_input:
            o = _alias(o)  # an input returned as-is becomes a view of it with its own history
        if o._base is not None:
            o.__dict__["_view_meta"] = "custom_fn"
            o.__dict__.pop("_view_nograd", None)  # made under forward's no_grad, but it is the Function's view
        o._grad_fn = ctx
        o._output_nr = i
        o._requires_grad = True
        result.append(o)
    ctx._out_meta = tuple(meta)
    return result


def _alias(t):
    """A view of ``t`` with no history (PyTorch's view_as for inputs returned as-is)."""
    v = _Tensor()._wrap(t._data, False, None, 0, t._vcounter())
    v._base = t._base if t._base is not None else t
    return v


def _save(ctx: BackwardCFunction, args: tuple, outputs: tuple, new_outputs: list) -> None:
    to_save = ctx.to_save
    if not to_save:
        return
    out_pos = {id(o): i for i, o in enumerate(outputs) if o is not None}
    saved = []
    for t in to_save:
        if t is None:
            saved.append(None)
            continue
        i = out_pos.get(id(t))
        if i is not None and new_outputs[i]._grad_fn is ctx:
            saved.append(SavedTensor(new_outputs[i], is_output=True))
        else:
            saved.append(SavedTensor(t))
    ctx._saved = saved


class InplaceFunction(Function):
    """A Function with an ``inplace`` flag (kept for old code)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


# ---- once_differentiable --------------------------------------------------------------
class _DelayedError(Node):
    """Stands for a backward that must not be differentiated again; raises when reached."""

    __slots__ = ("msg", "n")
    _name = "torch::autograd::Error"

    def __init__(self, msg: str, n: int) -> None:
        super().__init__()
        self.msg = msg
        self.n = n

    def __repr__(self) -> str:
        return f"<Error object at {hex(id(self))}>"

    def _num_outputs(self) -> int:
        return self.n

    def apply(self, grads: list, needed=None) -> list:
        raise RuntimeError(self.msg)


_DelayedError.__name__ = "Error"


def _delayed_error(msg: str, tensors: tuple) -> tuple:
    """Copies of ``tensors`` (None stays None) whose one grad_fn raises ``RuntimeError(msg)`` in backward."""
    from .engine import edge_of

    T = _Tensor()
    err = _DelayedError(msg, len(tensors))
    record = grad_mode.state.enabled and any(t is not None and t.requires_grad for t in tensors)
    if record:
        err.next_functions = tuple((None, 0) if t is None else edge_of(t) for t in tensors)
        err._in_meta = tuple(None if t is None else (t._data.shape, t._data.dtype) for t in tensors)
    out = []
    for i, t in enumerate(tensors):
        if t is None:
            out.append(None)
        elif record and t.requires_grad:
            out.append(T._wrap(t._data.copy(), True, err, i))
        else:
            out.append(T._wrap(t._data.copy(), False, None, 0))
    return tuple(out)


_TWICE_MSG = "trying to differentiate twice a function that was marked with @once_differentiable"


def once_differentiable(fn: Callable) -> Callable:
    """Decorate a ``backward`` that is not itself differentiable (it runs under no_grad).

    With ``create_graph=True`` its results are routed, as detached leaves, through an
    ``Error`` node: differentiating them again raises PyTorch's "trying to differentiate
    twice" error.
    """

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.state.enabled:
            return outputs
        T = _Tensor()
        if not any(isinstance(a, T) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        # each result becomes a fresh leaf that requires grad: the Error node's inputs
        leaves = tuple(o.detach().requires_grad_(True) if isinstance(o, T) and o.is_floating_point()
                       else o if isinstance(o, T) else None for o in outs)
        wrapped = _delayed_error(_TWICE_MSG, leaves)
        wrapped = tuple(w if isinstance(o, T) else o for w, o in zip(wrapped, outs))
        return wrapped[0] if single else wrapped

    return wrapper
