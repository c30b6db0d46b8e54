"""The op table's machinery: declaring a primitive and applying it.

A primitive is a NumPy forward plus one backward rule per differentiable input::

    mul = primitive("mul", lambda a, b: a * b, node="MulBackward0",
                    a=lambda g, b: g * b,
                    b=lambda g, a: g * a)

* The forward's positional parameters name the tensor inputs; its keyword-only
  parameters are static arguments (dims, shapes, exponents).
* A rule's parameter names say what it needs: ``g`` (the output gradient, a list for
  multi-output ops), ``out`` (the output), any input name, any static name.  Only what
  some rule mentions is saved for backward.
* Rules are written in retrograd ops (never NumPy), so ``create_graph=True`` differentiates
  them again: every derivative is itself differentiable.
* Gradients may come back broadcast; the engine sums them to the input's shape and casts
  them to its dtype, so rules don't repeat that.
"""
from __future__ import annotations

import ast
import copy
import inspect
import sys
import textwrap
from typing import Callable

import numpy as np

from ..autograd import grad_mode
from ..autograd import anomaly_mode as _anomaly_mode
from ..autograd import graph as _graph
from ..autograd import _nonfinite, _sites
from ..autograd import memory_report as _memory_report
from ..autograd._array_backward import compile_fast_backward
from ..autograd.graph import OpNode, SavedTensor, _inference_used, _saved_hooks_stack

__all__ = ["OpDef", "primitive", "apply", "apply_binary", "apply_inplace", "on_arrays", "OPS"]

OPS: dict[str, "OpDef"] = {}
# op name -> (file, line) of the frames that called primitive(), innermost first: the op's
# declaration is among them (a factory's caller); ``python -m retrograd where OP`` reads it
DECLARED_AT: dict[str, tuple] = {}
_state = grad_mode.state


class OpDef:
    """One table entry (see the module docstring)."""

    __slots__ = ("name", "node_name", "forward", "inputs", "statics", "rules", "rule_args", "arg_plan",
                 "save_inputs", "save_out", "saved_names", "n_out", "node_cls", "doc", "differentiable", "errors",
                 "meta", "fast", "fast_backward", "record", "users", "elide", "keep", "batch")

    def __repr__(self) -> str:
        return f"<op {self.name} -> {self.node_name}>"


def primitive(name: str, forward: Callable, *, node: str | None = None, n_out: int = 1,
              errors: Callable | None = None, fast: dict | None = None, batch: str | None = None,
              **rules: Callable | None) -> OpDef:
    """Declare a primitive op (forward + per-input backward rules) in the table.

    ``fast={input: fn}`` is the op's one declared fast path: for every differentiable input a
    NumPy function of (some of) that input's rule parameters, given as arrays (``g``, saved
    inputs and output) and as they are (statics), that computes exactly what the rule
    computes.  A first-order backward (no graph being recorded) calls it instead of the rule
    and skips an op dispatch per rule step; ``create_graph=True`` always runs the rules, which
    stay the definition of the derivative.  The rules run instead when an argument does not
    qualify (a saved differentiable input of another dtype than the gradient, a Tensor or
    NumPy-scalar static).  tests/autograd/test_fast_paths.py checks every fast path against its
    rules over all op_db samples.
    ``batch`` says how the op maps over a batched input under ``vmap`` (a kind of
    ``func._batching.RULES``: ``"elementwise"``, ``"reduce"``, ``"view"``, ``"fold"``...);
    None: vmap runs the op once per batch element.
    """
    op = OpDef()
    op.name = name
    op.batch = batch
    op.node_name = node or "".join(p.capitalize() for p in name.split("_")) + "Backward0"
    op.forward = forward
    params = inspect.signature(forward).parameters.values()
    op.inputs = tuple(p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    op.statics = tuple(p.name for p in params if p.kind == p.KEYWORD_ONLY)
    unknown = set(rules) - set(op.inputs)
    if unknown:
        raise TypeError(f"{name}: rules for unknown inputs {sorted(unknown)}")
    op.rules = tuple(rules.get(i) for i in op.inputs)
    op.rule_args = tuple(tuple(inspect.signature(r).parameters) if r else () for r in op.rules)
    mentioned = {a for args in op.rule_args for a in args}
    allowed = {"g", "out"} | set(op.inputs) | set(op.statics)
    allowed |= {f"{i}_shape" for i in op.inputs} | {f"{i}_dtype" for i in op.inputs}
    if mentioned - allowed:
        raise TypeError(f"{name}: rules mention unknown names {sorted(mentioned - allowed)}")
    op.meta = tuple((f"{inp}_{kind}", i, kind) for i, inp in enumerate(op.inputs)
                    for kind in ("shape", "dtype") if f"{inp}_{kind}" in mentioned)
    op.save_inputs = tuple(i for i, n in enumerate(op.inputs) if n in mentioned)
    op.save_out = "out" in mentioned
    op.saved_names = tuple(op.inputs[i] for i in op.save_inputs) + (("out",) if op.save_out else ())
    # Which rules read each saved input: an input is saved only when one of those rules can
    # run, i.e. when its own input needs a gradient (``y / c`` with a constant ``c`` keeps
    # no reference to ``y``, as in PyTorch).  ``elide``: whether that can ever drop a save.
    op.users = {i: frozenset(j for j, args in enumerate(op.rule_args)
                             if op.rules[j] is not None and op.inputs[i] in args) for i in op.save_inputs}
    differentiable = frozenset(j for j, r in enumerate(op.rules) if r is not None)
    op.elide = any(op.users[i] != differentiable for i in op.save_inputs)
    op.keep = {}  # (needs-grad per input) -> frozenset of the saved inputs kept; filled on use
    op.arg_plan = tuple(tuple(_plan_arg(a, op) for a in args) for args in op.rule_args)
    op.n_out = n_out
    op.differentiable = any(r is not None for r in op.rules)
    op.record = _RECORDERS.get(len(op.inputs), _record)  # (see _record)
    op.fast = _check_fast(op, fast) if fast else None
    op.fast_backward = compile_fast_backward(op, _Tensor) if op.fast else None
    # A few of PyTorch's nodes are C++ classes whose name() is qualified
    # ("torch::autograd::CopyBackwards") while the Python type and repr are not.
    cls_name = op.node_name.rpartition("::")[2]
    ns = {"__slots__": (), "_name": op.node_name, "_n_fixed": n_out,
          "_fast_backward": staticmethod(op.fast_backward) if op.fast_backward else None}
    if cls_name != op.node_name:
        ns["__repr__"] = lambda self: f"<{cls_name} object at {hex(id(self))}>"
    op.node_cls = type(cls_name, (OpNode,), ns)
    op.doc = None
    op.errors = errors
    if name in OPS:
        raise ValueError(f"op {name!r} declared twice")
    OPS[name] = op
    DECLARED_AT[name] = _callers()
    return op


def _callers(n: int = 4) -> tuple:
    f, sites = sys._getframe(2), []
    while f is not None and len(sites) < n:
        sites.append((f.f_code.co_filename, f.f_lineno))
        f = f.f_back
    return tuple(sites)




def _check_fast(op: OpDef, fast: dict) -> tuple:
    """The fast functions in input order, after checking they cover exactly the differentiable inputs and
    mention only what their input's rule mentions (what the rule's node saves), never a dtype."""
    have = {i for i, r in zip(op.inputs, op.rules) if r is not None}
    if set(fast) != have:
        raise TypeError(f"{op.name}: fast paths for {sorted(fast)}, rules for {sorted(have)}: one for each")
    fns = tuple(fast.get(i) for i in op.inputs)
    for i, f, args in zip(op.inputs, fns, op.rule_args):
        if f is not None:
            extra = set(inspect.signature(f).parameters) - set(args) - {"g"}
            if extra or any(a.endswith("_dtype") for a in args if a in inspect.signature(f).parameters):
                raise TypeError(f"{op.name}: the fast path of {i} mentions {sorted(extra)}, not in its rule")
    return fns


def on_arrays(fn: Callable) -> Callable:
    """A fast path from a first-order function written in Tensor ops (PyTorch's own first-order
    kernel where it differs from the formula a graph of the backward differentiates): array
    arguments wrapped as constants (a fast path runs with no graph recorded), the result's array
    returned.  Its parameters are ``fn``'s."""
    def f(*args):
        return fn(*[_wrap(a, False, None, 0) if type(a) is _ndarray else a for a in args])._data
    f.__signature__ = inspect.signature(fn)
    f.__name__ = getattr(fn, "__name__", "fast")
    return f


# How a rule argument is found at backward time (precomputed so OpNode.apply builds no dict):
ARG_G, ARG_SAVED, ARG_STATIC, ARG_SHAPE, ARG_DTYPE = range(5)


def _plan_arg(name: str, op: "OpDef") -> tuple:
    if name == "g":
        return (ARG_G, None)
    if name == "out" or name in op.inputs:
        return (ARG_SAVED, 2 * op.saved_names.index(name))  # (entry, version) pairs
    if name in op.statics:
        return (ARG_STATIC, name)
    inp, _, kind = name.rpartition("_")
    return (ARG_SHAPE if kind == "shape" else ARG_DTYPE, op.inputs.index(inp))


class _Zeros(dict):
    def __missing__(self, n: int) -> tuple:
        return (0,) * n


_ZEROS = _Zeros({n: (0,) * n for n in range(9)})  # shared ``_next_nr`` when every edge is output 0


from .._tensor import Tensor as _Tensor, bump_version  # noqa: E402

_wrap = _Tensor._wrap
_ndarray = np.ndarray


def _as_array(out):
    """What Tensor._wrap stores for a forward result that is not an ndarray (a NumPy scalar, a list)."""
    return out.__array__() if isinstance(out, np.generic) else np.asarray(out)  # (a fresh 0-d array, cheaper)
_new_node = object.__new__
_next_seq = _graph._seq.__next__
_anomaly = _anomaly_mode.anomaly_state
_getframe = sys._getframe
record_sites = True  # creation sites for error messages; off in benchmarks if needed


# Which files belong to retrograd (by filename; a frame's code filename is a cached str).
_inside: dict = {}


def _site(node, depth: int = 4) -> None:
    """Set ``node``'s creation site: the first frame outside retrograd (where the user made it)."""
    # Frames: 0 _site, 1 _record, 2 apply, 3 the op's function, 4 usually the user's code.
    # Jumping straight to 4 skips materialising the op function's frame object (the
    # user's frame object already exists and is reused); deeper chains walk outwards.
    try:
        f = _getframe(depth)
    except ValueError:  # a shallow stack (apply() called near the outermost frame)
        f = _getframe(1)
    while f is not None:
        code = f.f_code
        fn = code.co_filename
        inside = _inside.get(fn)
        if inside is None:
            inside = _inside[fn] = f.f_globals.get("__name__", "").startswith("retrograd")
        if not inside:
            node._site_code = code
            node._site_at = f.f_lasti
            return
        f = f.f_back
    node._site_code = None


def apply(op: OpDef, tensors: tuple, static: dict | None = None, cast=None):
    """Run ``op`` forward on Tensors and record a node when grad is needed.

    ``cast``: a dtype the inputs are converted to first (type promotion); the engine
    casts gradients back to each input's own dtype.
    """
    if _SLOW:
        return _slow_path(op, tensors, static, cast)
    try:
        if cast is not None:
            npd = cast.np
            arrays = [t._data if t._data.dtype == npd else t._data.astype(npd) for t in tensors]
            out = op.forward(*arrays, **static) if static else op.forward(*arrays)
        elif len(tensors) == 2:
            out = op.forward(tensors[0]._data, tensors[1]._data, **static) if static else \
                op.forward(tensors[0]._data, tensors[1]._data)
        elif len(tensors) == 1:
            out = op.forward(tensors[0]._data, **static) if static else op.forward(tensors[0]._data)
        else:
            arrays = [t._data for t in tensors]
            out = op.forward(*arrays, **static) if static else op.forward(*arrays)
    except (ValueError, IndexError, TypeError) as exc:
        raise _translate(op, tensors, exc) from None
    if _state.enabled:
        if op.differentiable:
            for t in tensors:
                if t._requires_grad:
                    return op.record(op, tensors, static, out)
    elif _state.region is not None:  # (a user's no_grad block: results remember it, see _sites)
        return _untracked(op, tensors, out)
    if op.n_out == 1:
        return _wrap(out, False, None, 0)
    return tuple(_wrap(o, False, None, 0) for o in out)


def _untracked(op: OpDef, tensors: tuple, out):
    outs = (_wrap(out, False, None, 0),) if op.n_out == 1 else tuple(_wrap(o, False, None, 0) for o in out)
    _sites.tag_untracked(op, tensors, outs)
    return outs[0] if op.n_out == 1 else outs


def apply_binary(op: OpDef, a, b):
    """``apply(op, (a, b))`` for a single-output op without statics or dtype cast.

    The path of ``+ - * /`` between tensors of one dtype (and of every backward rule
    that records a graph): the general function's branches, unrolled.
    """
    if _SLOW:
        return _slow_path(op, (a, b), None, None)
    try:
        out = op.forward(a._data, b._data)
    except (ValueError, IndexError, TypeError) as exc:
        raise _translate(op, (a, b), exc) from None
    if a._requires_grad or b._requires_grad:
        if _state.enabled:
            if op.differentiable:
                return op.record(op, (a, b), None, out)
        elif _state.region is not None:
            return _untracked(op, (a, b), out)
    return _wrap(out, False, None, 0)


# The one flag apply() and apply_binary() test: set while the profiler records or a
# forward-AD level is open, so neither costs the hot path more than this test when off.
_SLOW = False
_profiling = False  # autograd.profiler.profile is recording
_forward_ad = None  # autograd.forward_ad's hook while a dual level is open
_batching = None  # func._batching's hook while a vmap traces its function
_nested = False  # inside _slow_path: ops that the hooks run are seen only by vmap's trace
_strict = False  # autograd.set_strict_inplace: the tensors each new node saves are watched
_nan_watch = False  # autograd.set_detect_nan: each op's outputs are checked for NaN / inf
_modules = False  # autograd.graph.set_module_tracking: each node remembers the module that made it


def _hooked() -> bool:
    """A hook that must see each op once is on (the profiler, forward AD, the debugging modes)."""
    return _profiling or _forward_ad is not None or _strict or _nan_watch or _modules


def _refresh_slow() -> None:
    global _SLOW
    _SLOW = _hooked() or _batching is not None


def _set_profiling(on: bool) -> None:
    global _profiling
    _profiling = on
    _refresh_slow()


def _set_forward_ad(hook) -> None:
    global _forward_ad
    _forward_ad = hook
    _refresh_slow()


def _set_batching(hook) -> None:
    global _batching
    _batching = hook
    _refresh_slow()


def _set_strict(on: bool) -> None:
    global _strict
    _strict = on
    _refresh_slow()


def _set_module_tracking(on: bool) -> None:
    global _modules
    _modules = on
    _refresh_slow()


def _set_nan_watch(on: bool) -> None:
    global _nan_watch
    _nan_watch = on
    _refresh_slow()


def _slow_path(op: OpDef, tensors: tuple, static, cast):
    """apply() timed for the profiler and/or given tangents, and recorded by vmap's trace.

    The profiler and forward AD see each op once (the ops their hooks run are plain);
    a vmap trace sees every op, those the hooks run (tangent computations) included."""
    global _SLOW, _nested
    if _nested or not _hooked():
        prev = _SLOW
        _SLOW = False
        try:
            out = apply(op, tensors, static, cast)
        finally:
            _SLOW = prev
        return out if _batching is None else _batching.record(op, tensors, static, cast, out)
    _nested = True
    _SLOW = _batching is not None
    try:
        out = _profiled(op, tensors, static, cast) if _profiling else apply(op, tensors, static, cast)
        if _forward_ad is not None:
            out = _forward_ad.propagate(op, tensors, static, cast, out)
        if _strict:
            first = out[0] if isinstance(out, tuple) else out
            if first._grad_fn is not None:
                _sites.watch_saved(first._grad_fn)
        if _nan_watch:
            _nonfinite.check_forward(op, tensors, out)
        if _modules:
            first = out[0] if isinstance(out, tuple) else out
            if first._grad_fn is not None:
                _memory_report.note_module(first._grad_fn)
        return out
    finally:
        _nested = False
        _refresh_slow()


def _profiled(op: OpDef, tensors: tuple, static, cast):
    from ..autograd.profiler import _state as prof

    frame = prof.begin()
    try:
        return apply(op, tensors, static, cast)
    finally:
        prof.end("aten::" + op.name, frame)


def _record(op: OpDef, tensors: tuple, static, out):
    """Record one application of ``op``: the node, what its rules need saved, its output(s).

    The node's edges go where each input's gradient flows (its grad_fn, its leaf's
    AccumulateGrad, or None); the outputs are new tensors whose grad_fn is the node.
    This is the one node-recording function; ``op.record`` is this function, or for
    1-3 inputs the same function with its loops over ``tensors`` written out
    (``_unrolled``, generated from this source).
    """
    node = _new_node(op.node_cls)  # (Node.__init__ inlined: every field is set here)
    node._seq = _next_seq()
    node.op = op
    node.static = static
    if record_sites:
        _site(node)  # (frames: 0 _site, 1 here, 2 apply, 3 the op's function, 4 usually the caller)
    else:
        node._site_code = None
    # each input's gradient goes to its grad_fn, its leaf's AccumulateGrad, or nowhere (None)
    nodes = tuple([t._grad_fn if t._grad_fn is not None else t._grad_accumulator() if t._requires_grad else None
                   for t in tensors])
    node._next = nodes
    if any(t._output_nr for t in tensors):
        node._next_nr = tuple([t._output_nr if t._grad_fn is not None else 0 for t in tensors])
    else:
        node._next_nr = _ZEROS[len(tensors)]  # (shared: no tuple per node)
    if _anomaly.enabled:
        _anomaly_mode.record_trace(node)
    if not op.save_inputs:
        saved = None
    elif op.elide and None in nodes:  # (an input no runnable rule reads is not kept)
        saved = _saved_some(op, tensors, tuple([n is not None for n in nodes]))
    else:
        saved = _saved_inputs(op.save_inputs, tensors)
    if op.n_out == 1:
        res = _new_node(_Tensor)  # (Tensor._wrap inlined: one call less per recorded op)
        res._data = od = out if type(out) is _ndarray else _as_array(out)
        res._requires_grad = True
        res._grad_fn = node
        res._output_nr = 0
        res._vc = None
        if _state.inference:
            res.__dict__["_inference"] = True
        # Input shapes/dtypes let the engine sum broadcast grads back and cast them; when every
        # input matches the output (and no rule reads them) it has nothing to do: no tuple.
        if op.meta or any(t._data.shape != od.shape or t._data.dtype != od.dtype for t in tensors):
            node._in_meta = tuple([(t._data.shape, t._data.dtype) for t in tensors])
        if op.save_out:
            saved = (saved or ()) + (SavedTensor(res, is_output=True), None)
    else:
        node._in_meta = tuple([(t._data.shape, t._data.dtype) for t in tensors])
        res = tuple([_wrap(o, True, node, i) for i, o in enumerate(out)])
        node.out_meta = tuple([(o.shape, r.dtype) for o, r in zip(out, res)])
        if op.save_out:
            saved = (saved or ()) + (_SavedList([SavedTensor(r, is_output=True) for r in res]), None)
    node.saved = saved
    return res


class _Unroll(ast.NodeTransformer):
    """Rewrite a function for exactly ``n`` tensors: each comprehension over ``tensors`` becomes
    its ``n`` elements written out (``tuple([f(t) for t in tensors])`` -> ``(f(_t0), f(_t1))``,
    ``any(...)`` -> ``... or ...``), after one ``_t0, _t1 = tensors``; ``len(tensors)`` is ``n``."""

    def __init__(self, n: int) -> None:
        self.n = n

    def _elements(self, comp) -> list | None:
        gens = comp.generators
        if len(gens) != 1 or gens[0].ifs or not isinstance(gens[0].target, ast.Name) \
                or not (isinstance(gens[0].iter, ast.Name) and gens[0].iter.id == "tensors"):
            return None
        var = gens[0].target.id
        return [_Rename(var, f"_t{i}").visit(copy.deepcopy(comp.elt)) for i in range(self.n)]

    def visit_Call(self, call):
        self.generic_visit(call)
        f, args = call.func, call.args
        if not isinstance(f, ast.Name) or len(args) != 1:
            return call
        if f.id == "len" and isinstance(args[0], ast.Name) and args[0].id == "tensors":
            return ast.Constant(self.n)
        if f.id in ("tuple", "any") and isinstance(args[0], (ast.ListComp, ast.GeneratorExp)):
            elts = self._elements(args[0])
            if elts is not None:
                if f.id == "tuple":
                    return ast.Tuple(elts, ast.Load())
                return ast.BoolOp(ast.Or(), elts) if len(elts) > 1 else elts[0]
        return call

    def visit_FunctionDef(self, fn):
        self.generic_visit(fn)
        fn.name = f"{fn.name}_{self.n}"
        unpack = ast.parse(", ".join(f"_t{i}" for i in range(self.n)) + ", = tensors").body
        fn.body[1:1] = unpack  # (after the docstring)
        return fn


class _Rename(ast.NodeTransformer):
    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def visit_Name(self, name):
        return ast.Name(self.new, name.ctx) if name.id == self.old else name


def _unrolled(fn: Callable, n: int) -> Callable:
    """``fn`` with its loops over ``tensors`` unrolled for ``n`` of them (see ``_Unroll``)."""
    lines, first = inspect.getsourcelines(fn)
    tree = ast.parse(textwrap.dedent("".join(lines)))
    ast.increment_lineno(tree, first - 1)  # (tracebacks point at _record's own lines)
    tree = ast.fix_missing_locations(_Unroll(n).visit(tree))
    namespace: dict = {}
    exec(compile(tree, inspect.getsourcefile(fn), "exec"), fn.__globals__, namespace)
    return namespace[f"{fn.__name__}_{n}"]


def _saved_some(op: OpDef, tensors, needs: tuple) -> tuple | None:
    """Like _saved_inputs, but an input that no runnable rule reads (``needs``: which inputs
    need a gradient) is not kept: its pair is (None, None), a rule that would read it never runs."""
    keep = op.keep.get(needs)
    if keep is None:
        keep = op.keep[needs] = frozenset(i for i in op.save_inputs if any(needs[j] for j in op.users[i]))
    hooks = _inference_used[0] or _saved_hooks_stack
    saved = ()
    for i in op.save_inputs:
        if i not in keep:
            saved += (None, None)
        elif hooks:
            saved += (SavedTensor(tensors[i]), None)
        else:
            t = tensors[i]
            vc = t._vc
            saved += (t, 0 if vc is None else vc[0])
    return saved


def _saved_inputs(save_inputs: tuple, tensors) -> tuple | None:
    """The (entry, version) pairs of the inputs an op saves (see OpNode): the input itself and its
    version, or a SavedTensor when saved-tensor hooks or inference mode need one.  (The one- and
    two-input recorders unroll this.)"""
    if not save_inputs:
        return None
    saved = ()
    if _inference_used[0] or _saved_hooks_stack:
        for i in save_inputs:
            saved += (SavedTensor(tensors[i]), None)
    else:
        for i in save_inputs:
            t = tensors[i]
            vc = t._vc
            saved += (t, 0 if vc is None else vc[0])
    return saved


def _translate(op: OpDef, tensors, exc: Exception) -> Exception:
    """NumPy's complaint about bad input -> PyTorch's exception type and message."""
    if getattr(exc, "_retrograd_final", False):  # already PyTorch's error (e.g. an uninitialized parameter)
        return exc
    if op.errors is not None:
        mapped = op.errors(*[t._data for t in tensors], exc=exc)
        if mapped is not None:
            return mapped
    if "broadcast" in str(exc) and len(tensors) >= 2:
        from ._common import broadcast_error

        return broadcast_error(tensors[0]._data.shape, tensors[1]._data.shape)
    return RuntimeError(f"{op.name}: {exc}") if isinstance(exc, ValueError) else exc


class _SavedList(list):
    def unpack(self, node):
        return [s.unpack(node) for s in self]


# Recording ops with 1-3 inputs through _record unrolled for that many: measured faster (bench/README.md).
_RECORDERS = {n: _unrolled(_record, n) for n in (1, 2, 3)}


SavedTensor_types = (SavedTensor, _SavedList)


def apply_inplace(op: OpDef, target, others: tuple, static: dict | None = None, cast=None):
    """Run ``op`` with ``target`` as first input, writing the result into ``target``.

    Rewrites ``target``'s history: its grad_fn becomes the op's node, fed by a snapshot
    of what ``target`` was.  Errors as PyTorch for leaves that require grad.
    ``cast``: the dtype the out-of-place op would return (its ``apply(..., cast)``); PyTorch
    refuses the in-place form when that type cannot be cast back to ``target``'s dtype,
    before computing anything (the forward may not even run on ``target``'s dtype).
    """
    if cast is not None:
        check_inplace_cast(cast, target, others)
    if _SLOW and _forward_ad is not None:  # (a dual level is open: the target's tangent changes too;
        # the hook runs this function again with the level paused)
        return _forward_ad.inplace(op, target, others, static, apply_inplace)
    if _SLOW and _batching is not None:  # (vmap traces: it records the write, then runs it here)
        return _batching.inplace(op, target, others, static, cast, _inplace_plain)
    return _inplace_plain(op, target, others, static, cast)


def _inplace_plain(op: OpDef, target, others: tuple, static: dict | None = None, cast=None):
    """apply_inplace's work, past the hooks."""
    from .._tensor import check_inplace

    check_inplace(target, others)
    tensors = (target,) + others
    if _state.enabled and any(t._requires_grad for t in tensors):
        # The node must see the old value: snapshot target if a rule reads it.
        old = target
        if 0 in op.save_inputs:
            old = _wrap(target._data.copy(), target._requires_grad, target._grad_fn, target._output_nr)
            old._accum = target._accum
            if target._grad_fn is None and target._requires_grad:
                old._grad_fn = None
        res = apply(op, (old,) + others, static)
        _write(target, res._data)
        gf = res._grad_fn
        # the node's output is now ``target`` (fix the saved output's version link)
        if gf.saved and op.save_out:
            s = list(gf.saved)
            s[-2] = SavedTensor(target, is_output=True)
            gf.saved = tuple(s)
        target._grad_fn = gf
        target._output_nr = 0
        target._requires_grad = True
        from .._views import after_inplace_on_view

        after_inplace_on_view(target)
        return target
    try:
        if static:
            out = op.forward(*[t._data for t in tensors], **static)
        else:
            out = op.forward(*[t._data for t in tensors])
    except (ValueError, IndexError, TypeError) as exc:
        raise _translate(op, tensors, exc) from None
    _write(target, out)
    return target


def check_inplace_cast(result_dtype, target, others: tuple = ()) -> None:
    """PyTorch's refusal of an in-place result (a retrograd dtype) that can't be cast to ``target``.

    ``others``: the op's other operands; PyTorch checks the broadcast shape before the dtype,
    so a result that would not fit ``target``'s shape is reported as such first.
    """
    from .. import _dtype as D

    to = D.from_numpy_dtype(target._data.dtype)
    if not D.can_cast(result_dtype, to):
        from .._tensor import _scalar_type_name

        check_inplace_broadcast(target, others)

        raise RuntimeError(f"result type {_scalar_type_name(result_dtype)} can't be cast to the "
                           f"desired output type {_scalar_type_name(to)}")


def check_inplace_broadcast(target, others: tuple) -> None:
    """PyTorch's refusal when ``target`` op ``others`` broadcasts to a shape other than ``target``'s."""
    shapes = [np.shape(o._data) for o in others if isinstance(o, _Tensor)]
    if not shapes:
        return
    try:
        shape = np.broadcast_shapes(target._data.shape, *shapes)
    except ValueError:
        return  # (the op's own broadcasting error comes later)
    if shape != target._data.shape:
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, target._data.shape))}] doesn't match the broadcast "
            f"shape [{', '.join(map(str, shape))}]")


def _write(target, data) -> None:
    td = target._data
    if td.dtype != data.dtype:
        data = np.asarray(data)
        if not np.can_cast(data.dtype, td.dtype, casting="same_kind") and not (
                td.dtype.kind == "b" and data.dtype.kind == "b"):
            from .. import _dtype as D

            rt = D.from_numpy_dtype(data.dtype)
            if data.dtype.kind == "f" and td.dtype.kind in "iub":
                # NumPy computes exp(int) in float64 (exp(bool) in float16); PyTorch's
                # promoted type for an integral input is the default float dtype
                rt = D.get_default_dtype()
            check_inplace_cast(rt, target)
    if td.ndim == 0 and not isinstance(td, np.ndarray):
        target._data = np.asarray(data, dtype=td.dtype)
    else:
        if np.shape(data) != td.shape:
            try:
                np.broadcast_to(data, td.shape)
            except ValueError:
                raise RuntimeError(
                    f"output with shape [{', '.join(map(str, td.shape))}] doesn't match the broadcast "
                    f"shape [{', '.join(map(str, np.broadcast_shapes(np.shape(data), td.shape)))}]") from None
        if not td.flags.writeable and td.size and any(st == 0 and n > 1 for st, n in zip(td.strides, td.shape)):
            # an expanded tensor: torch refuses arithmetic written into memory shared between elements
            raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                               "single memory location. Please clone() the tensor before performing the operation.")
        np.copyto(td, data, casting="unsafe")
    bump_version(target)
