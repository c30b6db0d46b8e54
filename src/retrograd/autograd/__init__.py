"""retrograd.autograd: backward, grad, grad modes, and the autograd toolbox.

>>> import retrograd as torch
>>> x = torch.tensor(2., requires_grad=True)
>>> torch.autograd.grad(x * x, x)
(tensor(4.),)
"""
from __future__ import annotations

import warnings

import numpy as np

from . import graph  # noqa: F401
from . import _error_details, _sites
from .anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: F401
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled,  # noqa: F401
                        is_inference_mode_enabled, no_grad, set_grad_enabled)
from .gradcheck import gradcheck, gradgradcheck  # noqa: F401  (the functions shadow the module name, as in torch)
from . import forward_ad, function, functional, profiler, profiler_util  # noqa: F401
from .function import Function, once_differentiable  # noqa: F401
from .graph import SavedTensor  # noqa: F401  (torch.autograd.SavedTensor: not constructible from Python)
from .anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled  # noqa: F401
from .engine import get_backward_engine, set_backward_engine  # noqa: F401  (retrograd's own: reference or fast)
from .explain import explain  # noqa: F401  (retrograd's own: see docs/debugging.md)
from ._nonfinite import is_detect_nan_enabled, set_detect_nan  # noqa: F401  (retrograd's own, too)
from ._sites import (is_recording_sites, is_strict_inplace, set_record_sites, set_strict_inplace,  # noqa: F401
                     strict_inplace)  # (retrograd's own: see docs/debugging.md)
from ._toggles import (_calculate_shape, _force_original_view_tracking, _profiler_enabled,  # noqa: F401
                       _unsafe_preserve_version_counter, is_multithreading_enabled, is_view_replay_enabled,
                       kineto_available, set_multithreading_enabled)

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
           "inference_mode", "detect_anomaly", "set_detect_anomaly", "Variable", "gradcheck", "gradgradcheck",
           "Function", "once_differentiable", "functional", "profiler", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled"]


_lazy: dict = {}
_warned_create_graph: list = []  # non-empty once backward(create_graph=True) has warned


def _tensor_cls():
    """Tensor, imported on first use (this package is imported while _tensor is loading)."""
    t = _lazy.get("Tensor")
    if t is None:
        from .._tensor import Tensor as t

        _lazy["Tensor"] = t
    return t


def _engine():
    e = _lazy.get("engine")
    if e is None:
        from . import engine as e

        _lazy["engine"] = e
    return e


def _as_tuple(x) -> tuple:
    Tensor = _tensor_cls()
    if x is None:
        return ()
    if isinstance(x, (Tensor, graph.GradientEdge)):
        return (x,)
    return tuple(x)


class _EdgeOutput:
    """A ``GradientEdge`` given as an output of ``backward``/``grad``: a root of the pass.

    ``_data`` is a stand-in array (no memory: a broadcast scalar) with the shape and dtype of
    the gradient the edge takes, when known, so grad_outputs are checked as for a tensor.
    """

    requires_grad = _requires_grad = True

    def __init__(self, edge) -> None:
        self._grad_fn = edge.node
        self._output_nr = edge.output_nr
        shape, dtype = graph._edge_meta(edge)
        self._data = np.broadcast_to(np.zeros((), dtype=dtype), shape)

    @property
    def dtype(self):
        from .._dtype import from_numpy_dtype

        return from_numpy_dtype(self._data.dtype)


def _roots(outputs) -> tuple:
    return tuple(_EdgeOutput(o) if isinstance(o, graph.GradientEdge) else o for o in outputs)


class _EdgeInput:
    """A ``GradientEdge`` given as an input of ``grad``: what the engine reads of an input tensor."""

    requires_grad = True

    def __init__(self, edge) -> None:
        self._grad_fn = edge.node
        self._output_nr = edge.output_nr

    def _grad_accumulator(self):
        return self._grad_fn


def _make_grads(outputs: tuple, grads: tuple, is_grads_batched: bool = False) -> list:
    """Default ones for scalar outputs; check provided grads' shapes (PyTorch's messages)."""
    Tensor = _tensor_cls()
    out = []
    for i, (o, g) in enumerate(zip(outputs, grads)):
        if g is None:
            if o.requires_grad and o._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if o._data.dtype.kind != "f" and o.requires_grad:
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {o.dtype}")
            out.append(Tensor._wrap(np.ones(o._data.shape, dtype=o._data.dtype), False, None, 0))
            continue
        if not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        gshape = g._data.shape[1:] if is_grads_batched else g._data.shape
        if gshape != o._data.shape:
            from .._size import Size

            if is_grads_batched:
                # (PyTorch reports the shape of grad_output[0][0] here; so do we)
                raise RuntimeError(
                    "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                    "dimension. The sizes of the remaining dimensions are expected to match the shape of "
                    f"corresponding output, but a mismatch was detected: grad_output[{i}] has a shape of "
                    f"{Size(gshape[1:])} and output[{i}] has a shape of {Size(o._data.shape)}. If you only want some "
                    "tensors in `grad_output` to be considered batched, consider using vmap.")
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {Size(gshape)} and output[{i}] has a shape "
                f"of {Size(o._data.shape)}.")
        if g._data.dtype != o._data.dtype and o._data.dtype.kind == "f" and g._data.dtype.kind == "f":
            g = g.to(o.dtype)  # torch's engine casts a root gradient to its output's dtype
        out.append(g)
    return out


def backward(tensors, grad_tensors=None, retain_graph: bool | None = None, create_graph: bool = False,
             grad_variables=None, inputs=None) -> None:
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of graph leaves (or of ``inputs``)."""
    run_backward = _engine().run_backward

    if grad_variables is not None:
        grad_tensors = grad_variables
    outputs = _roots(_as_tuple(tensors))
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if len(inputs) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        inputs = tuple(_EdgeInput(t) if isinstance(t, graph.GradientEdge) else t for t in inputs)
    grads = _as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(outputs)
    if len(grads) < len(outputs):  # (extra gradients are ignored, as in PyTorch)
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    grads = grads[:len(outputs)]
    if retain_graph is None:
        retain_graph = create_graph
    for i, o in enumerate(outputs):
        if not o.requires_grad:
            raise _error_details.root_error(i, o)
    grads = _make_grads(outputs, grads)
    if inputs is not None:
        for t in inputs:
            if t._grad_fn is not None and not isinstance(t, _EdgeInput):
                t.retain_grad()  # as PyTorch: a non-leaf input gets its .grad through retain_grad
    if create_graph and (not _warned_create_graph or _warn_always()):
        _warned_create_graph.append(True)  # PyTorch's TORCH_WARN_ONCE: once per process (unless warn_always)
        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between the parameter and its "
            "gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to "
            "avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters "
            "to None after use to break the cycle and avoid the leak.", UserWarning, stacklevel=3)
    run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs, capture=False)


def grad(outputs, inputs, grad_outputs=None, retain_graph: bool | None = None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused: bool | None = None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> tuple:
    """The gradients of ``outputs`` w.r.t. ``inputs``, returned (``.grad`` is untouched).

    >>> import retrograd as torch
    >>> x = torch.tensor([1., 2.], requires_grad=True)
    >>> torch.autograd.grad((x * x).sum(), x)
    (tensor([2., 4.]),)
    """
    from .. import _creation
    from .engine import run_backward

    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.", FutureWarning,
                      stacklevel=2)
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outs = _roots(_as_tuple(outputs))
    ins = _as_tuple(inputs)
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    ins = tuple(_EdgeInput(t) if isinstance(t, graph.GradientEdge) else t for t in ins)
    grads = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outs)
    if len(grads) < len(outs):  # (extra grad_outputs are ignored, as in PyTorch)
        raise RuntimeError(f"got {len(outs)} tensors and {len(grads)} gradients")
    grads = grads[:len(outs)]
    for i, o in enumerate(outs):
        if not o.requires_grad:
            raise _error_details.root_error(i, o)
    for i, t in enumerate(ins):
        if not t.requires_grad:
            raise _error_details.input_not_requiring_grad_error(i, t)
    if retain_graph is None:
        retain_graph = create_graph
    grads = _make_grads(outs, grads, is_grads_batched)
    if is_grads_batched:
        from .functional import _batched_grad

        return _batched_grad(outs, ins, grads, retain_graph, create_graph, allow_unused, materialize_grads)
    site = _sites.here_line(2) if not create_graph and _sites.record_writes else None
    result = run_backward(outs, grads, retain_graph, create_graph, inputs=ins, capture=True)
    final = []
    for i, (t, g) in enumerate(zip(ins, result)):
        if g is None:
            if materialize_grads:
                if isinstance(t, _EdgeInput):
                    raise RuntimeError("materialize_grads cannot be used when the given input is a GradientEdge")
                # (PyTorch: the zeros require grad exactly when a graph is being built)
                g = _creation.zeros_like(t).requires_grad_(create_graph)
            elif not allow_unused:
                raise _error_details.unused_error(i, t)
        elif not create_graph:
            if g.requires_grad:
                g = g.detach()
            if _sites.record_writes:  # (explain(): a gradient without a graph of its own)
                g.__dict__["_cut"] = ("autograd result", site, None)
        final.append(g)
    return tuple(final)


def _warn_always() -> bool:
    from .._compat import is_warn_always_enabled

    return is_warn_always_enabled()


def __getattr__(name: str):
    # ``torch.autograd.torch`` is the torch module itself in PyTorch (its module imports torch)
    if name == "torch":
        import retrograd

        return retrograd
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        from .._tensor import Tensor

        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """Deprecated wrapper kept for old code: ``Variable(t, requires_grad)`` is a new leaf sharing ``t``'s data.

    Every tensor is an instance of Variable, as in PyTorch.

    >>> import retrograd as torch
    >>> v = torch.autograd.Variable(torch.tensor([1., 2.]), requires_grad=True)
    >>> v.requires_grad, isinstance(v, torch.autograd.Variable)
    (True, True)
    """

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        from .. import _creation
        from .._tensor import Tensor

        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if data is None:
            data = _creation.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        t = data.detach()
        t.requires_grad_(requires_grad)
        return t


class _EngineAttr:
    """``Variable._execution_engine``, looked up on first use (the engine module loads lazily)."""

    def __get__(self, obj, cls=None):
        return _engine().execution_engine


Variable._execution_engine = _EngineAttr()
