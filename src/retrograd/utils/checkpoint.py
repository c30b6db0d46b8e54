"""Activation checkpointing: trade compute for memory.

``checkpoint(fn, *args, use_reentrant=False)`` runs ``fn`` so that the tensors its ops
save for backward are *not* kept: a saved-tensor pack hook replaces each by a small
placeholder.  When backward first needs one of them, ``fn`` is run again (same inputs,
same RNG state when ``preserve_rng_state``) under a hook that collects the tensors it
saves, in the same order; each placeholder then unpacks to its recomputed twin.  The
original graph is untouched, so gradients (and double backward) are the same as without
checkpointing.  ``use_reentrant=True`` is PyTorch's older variant: an
``autograd.Function`` whose backward recomputes ``fn`` and runs a nested backward.

>>> import retrograd as torch
>>> from retrograd.utils.checkpoint import checkpoint
>>> x = torch.ones(3, requires_grad=True)
>>> y = checkpoint(lambda t: (t.exp() * t).sum(), x, use_reentrant=False)
>>> y.backward(); x.grad
tensor([5.4366, 5.4366, 5.4366])
"""
from __future__ import annotations

import contextlib
import enum
import warnings
from typing import Any, Callable

from .. import _creation
from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.function import Function
from ..autograd.graph import saved_tensors_hooks

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction", "noop_context_fn",
           "detach_variable", "check_backward_validity", "get_device_states", "set_device_states",
           "set_checkpoint_early_stop", "set_checkpoint_debug_enabled", "DefaultDeviceType", "CheckpointPolicy",
           "SelectiveCheckpointContext", "create_selective_checkpoint_contexts", "GraphExecGroup"]


class CheckpointError(RuntimeError):
    """Recomputation did not reproduce what the original forward saved."""


def noop_context_fn():
    """The default ``context_fn``: no extra contexts around forward / recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs: tuple) -> tuple:
    """Detached copies of the tensors in ``inputs`` keeping ``requires_grad`` (others pass through)."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for inp in inputs:
        if not isinstance(inp, Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs) -> None:
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=3)


_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, "
    "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if "
    "you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants.")


def checkpoint(function: Callable, *args, use_reentrant: bool | None = None,
               context_fn: Callable = noop_context_fn, determinism_check: str = "default", debug: bool = False,
               early_stop: bool = True, **kwargs) -> Any:
    """Run ``function(*args, **kwargs)`` without keeping its activations; recompute them in backward.

    ``preserve_rng_state`` (keyword, default True) replays the random stream in the
    recomputation, so dropout-like ops draw the same numbers.

    >>> import retrograd as torch
    >>> w = torch.ones(2, 2, requires_grad=True)
    >>> out = checkpoint(lambda x: (x @ w).tanh(), torch.ones(1, 2), use_reentrant=False)
    """
    if use_reentrant is None:
        warnings.warn(_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    debug = debug if _checkpoint_debug_enabled is None else _checkpoint_debug_enabled
    early_stop = early_stop if _enable_checkpoint_early_stop is None else _enable_checkpoint_early_stop
    return _checkpoint_without_reentrant(function, preserve, context_fn, args, kwargs, debug, early_stop)


# ------------------------------------------------------------------ non-reentrant (saved-tensor hooks)
class _Holder:
    """What the graph keeps instead of a saved tensor: its position in the region's save order."""

    __slots__ = ("frame", "index", "__weakref__")

    def __init__(self, frame: "_Frame", index: int) -> None:
        self.frame = frame
        self.index = index


class _Frame:
    """One checkpointed call: enough to re-run it, and the tensors a recomputation produced."""

    def __init__(self, function, args, kwargs, preserve: bool, context_fn, debug: bool = False,
                 early_stop: bool = True) -> None:
        self.function = function
        self.args = args
        self.kwargs = kwargs
        self.rng_state = _creation.get_rng_state() if preserve else None
        self.context_fn = context_fn
        self.debug = debug
        self.early_stop = early_stop
        self.metas: list = []  # (shape, dtype) of each saved tensor, to check the recomputation
        # per recomputation scope (a backward run id, or a GraphExecGroup): {index: tensor} not yet
        # unpacked, and the indices already unpacked
        self.recomputed: dict = {}
        self.unpacked: dict = {}

    def pack(self, t: Tensor) -> _Holder:
        self.metas.append((t._data.shape, t._data.dtype))
        return _Holder(self, len(self.metas) - 1)

    def unpack(self, holder: _Holder) -> Tensor:
        from ..autograd.engine import current_run_id

        group = GraphExecGroup._current
        key = group if group is not None else current_run_id()
        if key is None:  # accessed outside backward: recompute, hand over, keep nothing
            return self._recompute()[holder.index]
        done = self.unpacked.setdefault(key, set())
        if holder.index in done:
            extra = ("Performing two backward calls that overlap (i.e. require the same saved activation in order "
                     "to compute gradients) is not allowed while under the torch.utils.checkpoint.GraphExecGroup "
                     "context. ") if group is not None else ""
            raise CheckpointError(
                "torch.utils.checkpoint: Unpack is being triggered for a tensor that was already unpacked once. "
                f"{extra}If you are calling ctx.saved_tensors in backward, make sure to do so only once. Otherwise "
                "please open an issue with details on your use case.")
        store = self.recomputed.get(key)
        if store is None:
            store = self.recomputed[key] = self._recompute()
        t = store.pop(holder.index)  # each saved tensor is unpacked once per scope: free it now
        done.add(holder.index)
        if not store:
            del self.recomputed[key]
        return t

    def _tip(self) -> str:
        if self.debug:
            return ("\nYou are seeing this error because you passed `debug=True` to checkpoint (or enabled "
                    "set_checkpoint_debug_enabled): the recomputation of the checkpointed function did not save the "
                    "same tensors as its original forward; make the function deterministic (same ops, shapes and "
                    "dtypes on every call).\n")
        return ("\nTip: for more detail pass `debug=True` to torch.utils.checkpoint.checkpoint(...) or run under "
                "torch.utils.checkpoint.set_checkpoint_debug_enabled(True).\n")

    def _recompute(self) -> dict:
        saved: list = []
        n_needed = len(self.metas)

        def pack(t: Tensor):
            if len(saved) >= n_needed:
                if self.early_stop:
                    raise _StopRecomputation  # every tensor backward needs is rebuilt: stop here
                raise CheckpointError("torch.utils.checkpoint: trying to save more tensors during recomputation "
                                      "than during the original forward pass.\n" + self._tip())
            saved.append(t.detach() if t.requires_grad else t)  # (a constant keeps its identity, as in PyTorch)
            return None

        prev_rng = None
        if self.rng_state is not None:
            prev_rng = _creation.get_rng_state()
            _creation.set_rng_state(self.rng_state)
        _, recompute_ctx = self.context_fn()
        try:
            with saved_tensors_hooks(pack, lambda _: None), grad_mode.enable_grad(), recompute_ctx:
                self.function(*self.args, **self.kwargs)
        except _StopRecomputation:
            pass
        finally:
            if prev_rng is not None:
                _creation.set_rng_state(prev_rng)
        if len(saved) != len(self.metas):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the original forward and "
                f"recomputation.\nNumber of tensors saved during forward: {len(self.metas)}\nNumber of tensors saved "
                f"during recomputation: {len(saved)}.\n" + self._tip())
        bad = [(i, m, (t._data.shape, t._data.dtype)) for i, (m, t) in enumerate(zip(self.metas, saved))
               if m != (t._data.shape, t._data.dtype)]
        if bad:
            lines = "".join(f"tensor at position {i}:\nsaved metadata: {_meta(m)}\nrecomputed metadata: {_meta(r)}\n"
                            for i, m, r in bad)
            raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following tensors have "
                                  f"different metadata than during the forward pass.\n{lines}.\n" + self._tip())
        return dict(enumerate(saved))


class _StopRecomputation(Exception):
    """Raised inside a recomputation once it has saved every tensor the backward needs (early stop)."""


def _meta(m) -> dict:
    from .._dtype import from_numpy_dtype
    from .._size import Size

    return {"shape": Size(m[0]), "dtype": from_numpy_dtype(m[1]), "device": "cpu"}


def _checkpoint_without_reentrant(function, preserve, context_fn, args, kwargs, debug=False, early_stop=True):
    frame = _Frame(function, args, kwargs, preserve, context_fn, debug, early_stop)
    fwd_ctx, _ = context_fn()
    with saved_tensors_hooks(frame.pack, _unpack_holder), fwd_ctx:
        return function(*args, **kwargs)


def _unpack_holder(holder: _Holder) -> Tensor:
    return holder.frame.unpack(holder)


# ------------------------------------------------------------------ reentrant (a custom Function)
class CheckpointFunction(Function):
    """Forward under no_grad; backward re-runs the function with grad and backpropagates through it.

    (PyTorch's name: its node shows as ``CheckpointFunctionBackward``.)
    """

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.rng_state = _creation.get_rng_state() if preserve_rng_state else None
        ctx.inputs = []
        ctx.tensor_indices = []
        tensors = []
        for i, a in enumerate(args):
            if isinstance(a, Tensor):
                tensors.append(a)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(a)
        ctx.save_for_backward(*tensors)
        with grad_mode.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        from ..autograd import backward
        from ..autograd.engine import _local

        run = _local.stack[-1] if _local.stack else None
        if run is not None and not run.checkpoint_valid:
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an "
                "`inputs` parameter to .backward(). To resolve this error, you can either set use_reentrant=False, "
                "or call .backward() without passing the `inputs` argument.")
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        detached = detach_variable(tuple(inputs))
        prev_rng = None
        if ctx.rng_state is not None:
            prev_rng = _creation.get_rng_state()
            _creation.set_rng_state(ctx.rng_state)
        try:
            with grad_mode.enable_grad():
                outputs = ctx.run_function(*detached)
        finally:
            if prev_rng is not None:
                _creation.set_rng_state(prev_rng)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        outs, gs = [], []
        for o, g in zip(outputs, grads):
            if isinstance(o, Tensor) and o.requires_grad:
                outs.append(o)
                gs.append(g)
        if not outs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        backward(outs, gs)
        return (None, None) + tuple(inp.grad if isinstance(inp, Tensor) else None for inp in detached)


# ------------------------------------------------------------------ sequential
def checkpoint_sequential(functions, segments: int, input, use_reentrant: bool | None = None, **kwargs):
    """Split a sequence of modules/functions into ``segments`` chunks and checkpoint all but the last.

    >>> import retrograd as torch
    >>> layers = [lambda t: t * 2, lambda t: t.exp(), lambda t: t.sum()]
    >>> x = torch.ones(2, requires_grad=True)
    >>> checkpoint_sequential(layers, 2, x, use_reentrant=False).backward()
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. "
            "In version 2.9 we will raise an exception if use_reentrant is not passed. use_reentrant=False is "
            "recommended, but if you need to preserve the current default behavior, you can pass "
            "use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
            stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if hasattr(functions, "children") and callable(functions.children):
        functions = list(functions.children())
    functions = list(functions)

    def run_function(start: int, end: int):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1)(input)



_CheckpointFunction = CheckpointFunction  # (the old private name)

# ------------------------------------------------------------------ settings
_checkpoint_debug_enabled: bool | None = None
_enable_checkpoint_early_stop: bool | None = None


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None):
    """Context manager overriding checkpoint's ``debug`` flag (``None``: defer to each call).

    retrograd's checkpoint errors already name the mismatching tensors, so the flag is
    recorded but adds no extra trace.

    >>> from retrograd.utils.checkpoint import set_checkpoint_debug_enabled
    >>> with set_checkpoint_debug_enabled(True):
    ...     pass
    """
    global _checkpoint_debug_enabled
    prev = _checkpoint_debug_enabled
    _checkpoint_debug_enabled = enabled
    try:
        yield
    finally:
        _checkpoint_debug_enabled = prev


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool):
    """Context manager: whether recomputation may stop once every needed tensor is rebuilt.

    retrograd always re-runs the whole checkpointed function (results are the same either way),
    so this only records the setting.

    >>> from retrograd.utils.checkpoint import set_checkpoint_early_stop
    >>> with set_checkpoint_early_stop(False):
    ...     pass
    """
    global _enable_checkpoint_early_stop
    prev = _enable_checkpoint_early_stop
    _enable_checkpoint_early_stop = enable
    try:
        yield
    finally:
        _enable_checkpoint_early_stop = prev


class DefaultDeviceType:
    """The device type whose RNG state checkpoint saves when no argument is on an accelerator.

    >>> from retrograd.utils.checkpoint import DefaultDeviceType
    >>> DefaultDeviceType.get_device_type()
    'cpu'
    """

    _default_device_type: str | None = None

    @staticmethod
    def set_device_type(device: str = "cuda") -> None:
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type() -> str:
        # no accelerators here, so the default is what PyTorch picks on a CPU-only machine
        return DefaultDeviceType._default_device_type or "cpu"


def get_device_states(*args) -> tuple[list[int], list]:
    """Device ids and RNG states of the accelerators ``args`` live on: none on retrograd (CPU only).

    >>> import retrograd as torch
    >>> from retrograd.utils.checkpoint import get_device_states
    >>> get_device_states(torch.ones(2))
    ([], [])
    """
    return [], []


def set_device_states(devices, states, *, device_type: str | None = None) -> None:
    """Restore accelerator RNG states saved by :func:`get_device_states` (nothing to do on CPU).

    >>> from retrograd.utils.checkpoint import set_device_states
    >>> set_device_states([], [])
    """
    devices, states = list(devices), list(states)
    if devices or states:
        raise RuntimeError("retrograd has no accelerator devices whose RNG state could be set")


class GraphExecGroup:
    """Groups backward calls so each checkpointed region recomputes at most once (PyTorch >= 2.9).

    retrograd recomputes per backward call; results are the same.  Groups do not nest.

    >>> from retrograd.utils.checkpoint import GraphExecGroup
    >>> with GraphExecGroup():
    ...     pass
    """

    _current: "GraphExecGroup | None" = None

    def __enter__(self) -> "GraphExecGroup":
        if GraphExecGroup._current is not None:
            raise RuntimeError(f"GraphExecGroup contexts cannot be nested. Already inside group "
                               f"{GraphExecGroup._current}")
        GraphExecGroup._current = self
        return self

    def __exit__(self, *exc) -> None:
        GraphExecGroup._current = None


# ------------------------------------------------------------------ selective checkpointing
class SelectiveCheckpointContext:
    """What a selective-checkpoint policy function receives as its first argument.

    >>> from retrograd.utils.checkpoint import SelectiveCheckpointContext
    >>> SelectiveCheckpointContext(is_recompute=False).is_recompute
    False
    """

    def __init__(self, *, is_recompute: bool, op_output=None) -> None:
        self.is_recompute = is_recompute
        self.op_output = op_output


class CheckpointPolicy(enum.Enum):
    """Per-op decision of selective checkpointing: save the op's output or recompute it.

    >>> from retrograd.utils.checkpoint import CheckpointPolicy
    >>> CheckpointPolicy.MUST_SAVE.value
    0
    """

    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


class _SelectiveMode:
    """One of the two contexts ``create_selective_checkpoint_contexts`` returns.

    retrograd's saved-tensor hooks do not know which op saves a tensor, so the policy cannot
    pick per op: inside these contexts checkpoint recomputes everything (the policy is kept
    for inspection but not called).  Values and gradients are exactly those of selective
    checkpointing; only the memory/compute trade-off differs.
    """

    def __init__(self, policy_fn: Callable, is_recompute: bool) -> None:
        self.policy_fn = policy_fn
        self.is_recompute = is_recompute

    def __enter__(self) -> "_SelectiveMode":
        return self

    def __exit__(self, *exc) -> None:
        return None


def _op_list_policy(ops: list) -> Callable:
    def policy_fn(ctx, op, *args, **kwargs):
        return CheckpointPolicy.MUST_SAVE if op in ops else CheckpointPolicy.PREFER_RECOMPUTE
    return policy_fn


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation: bool = False):
    """The ``(forward, recompute)`` context pair for ``checkpoint(..., context_fn=...)``.

    ``policy_fn_or_list`` is a policy ``fn(ctx, op, *args, **kwargs) -> CheckpointPolicy`` or a
    list of ops to save (retrograd functions such as ``torch.mm``, or op names).  Known
    difference: retrograd recomputes every op (see ``_SelectiveMode``); results match.

    >>> import functools
    >>> import retrograd as torch
    >>> from retrograd.utils.checkpoint import checkpoint, create_selective_checkpoint_contexts
    >>> x = torch.ones(2, 2, requires_grad=True)
    >>> ctx_fn = functools.partial(create_selective_checkpoint_contexts, [torch.mm])
    >>> checkpoint(lambda t: torch.mm(t, t).sin().sum(), x, use_reentrant=False, context_fn=ctx_fn).backward()
    >>> x.grad.shape
    torch.Size([2, 2])
    """
    if isinstance(policy_fn_or_list, list):
        for op in policy_fn_or_list:
            # (PyTorch wants aten OpOverloads; retrograd has none, so any op-like name is accepted)
            if not (callable(op) or isinstance(op, str)):
                raise ValueError(f"Expected op in `op_list` to be an OpOverload but got: {op} of type {type(op)}. ")
        policy_fn = _op_list_policy(policy_fn_or_list)
    elif callable(policy_fn_or_list):
        policy_fn = policy_fn_or_list
    else:
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    return _SelectiveMode(policy_fn, False), _SelectiveMode(policy_fn, True)
