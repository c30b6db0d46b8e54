"""Batched ``vmap``: trace ``func`` once on one batch element, then replay its ops batched.

retrograd's tensors carry no batch dimension of their own, so ``vmap`` works in two steps:

1. **Trace.**  ``func`` runs once, on the first element of every mapped input.  While it runs,
   the op table (``_ops._registry``) hands every primitive it applies to ``record``: an op
   with an input that derives from a mapped input (a *batched* value) is appended to the
   trace, and its outputs become batched values too.  Everything else (ops on parameters,
   constants, shapes) is computed once, as a constant of the trace.  Values are known by
   their NumPy array, so ``detach()`` and other aliases of a batched tensor stay batched.
2. **Replay.**  The trace's ops run again on the whole batch, one op call each: every
   primitive declares in its table entry (``primitive(..., batch=KIND)``) how it maps over a
   batched input, and the rule of that kind (``RULES`` below) calls the op (or a few table
   ops) on arrays whose dim 0 is the batch.  The replay goes through the op table, so it is
   differentiable and nests: an enclosing ``vmap``/``grad`` records or differentiates it.

An op without a batching rule is replayed once per batch element (a one-time warning names
it).  ``func``'s Python code runs once, so data-dependent control flow on a batched value
is refused as PyTorch refuses it (``.item()``, ``bool()``), and in-place writes of a batched
value into an unbatched tensor raise PyTorch's error.  A trace that cannot be replayed
faithfully (an in-place write through a view of a batched value, random ops with
``randomness='different'``, a result the first replay of a trace does not reproduce)
makes ``vmap`` run ``func`` per element instead.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _tensor as _tensor_mod
from .._ops import _registry as _reg
from .._tensor import Tensor
from ..autograd import forward_ad as _fwAD

__all__ = ["Trace", "tracing", "RULES"]

_wrap = Tensor._wrap
_traces: list = []  # the active traces, innermost last
_floor = [0]  # traces below this index are paused (batching runs its own ops; a vmap started
# inside a paused region still traces its own function)


class Unbatchable(Exception):
    """The trace cannot be replayed batched; ``vmap`` falls back to running ``func`` per element."""


class Trace:
    """One vmap level's record: batched values (by array id) and the ops that made them."""

    __slots__ = ("vals", "keep", "tape", "n", "aliased", "bad", "internal")

    def __init__(self) -> None:
        self.vals: dict = {}  # id(ndarray) -> slot
        self.keep: list = []  # (the arrays, so their ids stay theirs while the trace lives)
        self.tape: list = []  # (op, args, static, cast, out_slots, inplace_dtype)
        self.n = 0
        self.aliased: set = set()  # slots that share memory with another slot (views)
        self.bad: str | None = None  # why the trace cannot be replayed, if it cannot
        self.internal: dict = {}  # id -> leaf a transform made inside the trace (replayed detached)

    def new_slot(self, t: Tensor) -> int:
        s = self.n
        self.n += 1
        self.vals[id(t._data)] = s
        self.keep.append(t._data)
        return s

    def slot(self, t) -> int | None:
        return self.vals.get(id(t._data))


def tracing() -> bool:
    """Whether a vmap is tracing its function right now (transforms then build graphs of their
    backward passes, so that every gradient is computed by table ops the trace sees)."""
    return len(_traces) > _floor[0]


def _active():
    """The traces that record now, innermost first."""
    return reversed(_traces[_floor[0]:])


def _static_slots(tr: Trace, static):
    """{name: slot} for static arguments that are batched arrays (e.g. max-pool indices)."""
    found = None
    for k, v in static.items():
        if type(v) is np.ndarray:
            s = tr.vals.get(id(v))
            if s is not None:
                if found is None:
                    found = {}
                found[k] = s
        elif type(v) is tuple and any(type(e) is np.ndarray and id(e) in tr.vals for e in v):
            tr.bad = "an index array depends on a mapped input"
    return found


def _record(op, tensors: tuple, static, cast, out):
    """The op table's hook: record ``op`` in the innermost trace that one of its inputs belongs to."""
    for tr in _active():
        slots = [tr.vals.get(id(t._data)) for t in tensors]
        sstat = _static_slots(tr, static) if static else None
        if sstat is None and all(s is None for s in slots):
            continue
        args = tuple(t if s is None else s for s, t in zip(slots, tensors))
        kinds = tuple(s is not None for s in slots)
        outs = (out,) if op.n_out == 1 else out
        out_slots = tuple(tr.new_slot(o) for o in outs)
        for s, t in zip(slots, tensors):  # a view of a batched value: in-place writes are unsafe
            if s is not None and op.name in _VIEWS:
                tr.aliased.add(s)
                tr.aliased.update(out_slots)
        tr.tape.append((op, args, kinds, static, sstat, cast, out_slots, None))
        return out
    return out


_VIEWS = frozenset({"view", "expand", "transpose", "t", "permute", "unsqueeze", "squeeze", "squeeze_dim",
                    "squeeze_dims", "select", "slice", "diagonal", "alias", "unfold", "as_strided", "index",
                    "squeeze_matmul"})


def _inplace(op, target, others: tuple, static, cast, run):
    """``apply_inplace`` while tracing: run it, and record the out-of-place op into a new slot
    that the target's array now stands for."""
    for tr in _active():
        ts = tr.slot(target)
        os_ = [tr.slot(o) for o in others]
        if ts is None and all(s is None for s in os_):
            continue
        if ts is None:
            b = _batch_size_hint(tr, os_)
            other = next(o for o, s in zip(others, os_) if s is not None)
            shape = list(np.broadcast_shapes(tuple(target.shape), (b,) + tuple(other.shape)))
            raise RuntimeError(f"output with shape [{', '.join(map(str, target.shape))}] doesn't match the broadcast "
                               f"shape [{', '.join(map(str, shape))}]")
        if ts in tr.aliased:
            tr.bad = f"the in-place op {op.name} writes through a view of a batched tensor"
        dtype = target._data.dtype
        with paused():
            res = run(op, target, others, static, cast)
        args = (ts,) + tuple(o if s is None else s for o, s in zip(others, os_))
        kinds = (True,) + tuple(s is not None for s in os_)
        new = tr.new_slot(target)
        tr.tape.append((op, args, kinds, static, None, cast, (new,), dtype))
        return res
    return run(op, target, others, static, cast)


_sizes: dict = {}  # id(trace) -> batch size, for error messages


def _batch_size_hint(tr: Trace, slots) -> int:
    return _sizes.get(id(tr), 1)


def _guard(t, kind: str) -> None:
    """Tensor.item / bool / float / int on a batched value inside vmap: PyTorch's errors."""
    for tr in _active():
        if id(t._data) in tr.vals:
            if kind == "bool":
                raise RuntimeError("vmap: It looks like you're attempting to use a Tensor in some data-dependent "
                                   "control flow. We don't support that yet, please file an issue at "
                                   "https://github.com/pytorch/pytorch/issues .")
            raise RuntimeError("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
                               "calling .item() on a Tensor, please try to rewrite what you're doing with other "
                               "operations. If error is occurring somewhere inside PyTorch internals, please file a "
                               "bug report.")


def _internal(t) -> None:
    """A leaf that a transform creates while tracing (its differentiation handle, a dummy
    cotangent): the replay uses it detached, so only the outside's leaves get a graph."""
    if len(_traces) > _floor[0]:
        _traces[-1].internal[id(t)] = t
        all_internal[id(t)] = t


class _Hook:
    internal = staticmethod(_internal)
    record = staticmethod(_record)
    inplace = staticmethod(_inplace)
    guard = staticmethod(_guard)


_HOOK = _Hook()


def push(tr: Trace, batch_size: int) -> None:
    _traces.append(tr)
    _sizes[id(tr)] = batch_size
    _reg._set_batching(_HOOK)
    _tensor_mod._vmap_guard[0] = _guard


def pop(tr: Trace) -> None:
    _traces.remove(tr)
    _sizes.pop(id(tr), None)
    if not _traces:
        _reg._set_batching(None)
        _tensor_mod._vmap_guard[0] = None


class paused:
    """Ops run inside are not recorded (batching's own bookkeeping)."""

    def __enter__(self):
        self.prev = _floor[0]
        _floor[0] = len(_traces)

    def __exit__(self, *exc):
        _floor[0] = self.prev


# ====================================================================== replay
_warned: set = set()
all_internal: dict = {}  # every transform-made leaf of the outermost vmap call's traces (cleared by it)


def replay(tr: Trace, env: dict, batch_size: int) -> None:
    """Run the trace's ops on the batch: ``env`` maps slots to tensors with the batch at dim 0."""
    for op, args, kinds, static, sstat, cast, out_slots, inplace_dtype in tr.tape:
        xs = [env[a] if k else _detached(tr, a) for a, k in zip(args, kinds)]
        if sstat:
            static = dict(static)
            for name, s in sstat.items():
                static[name] = env[s]  # (a batched array static: the rule gets its tensor)
        rule = RULES.get(_kind(op.batch)[0]) if op.batch is not None else None
        out = None
        if rule is not None:
            out = rule(op, xs, kinds, static, cast, batch_size, sstat)
        if out is None:  # (no rule, or the rule does not cover this combination)
            out = _per_element(op, xs, kinds, static, cast, batch_size, sstat)
        outs = (out,) if op.n_out == 1 else out
        for s, o in zip(out_slots, outs):
            if inplace_dtype is not None and o._data.dtype != inplace_dtype:
                from .._dtype import from_numpy_dtype

                o = o.to(from_numpy_dtype(inplace_dtype))
            env[s] = o


def finish(t):
    """A vmap result: detached (keeping its tangent) when its graph reaches only leaves that
    transforms made inside the traces (as ``Scope.finish`` does for a transform's results)."""
    if not isinstance(t, Tensor) or not t._requires_grad or not _only_internal(None, t):
        return t
    d = t.detach()
    tangent = _fwAD._get(t) if _fwAD._level.active else None
    return d if tangent is None else _fwAD.make_dual(d, tangent)


def _detached(tr: Trace, t):
    """A constant of the trace as the replay uses it: detached when it requires grad only
    through leaves that transforms made inside the trace (their graphs belong to the trace)."""
    if not t._requires_grad:
        return t
    key = ("c", id(t))
    hit = tr.internal.get(key)
    if hit is None:
        d = None
        if _only_internal(tr, t):
            d = t.detach()
            tangent = _fwAD._get(t) if _fwAD._level.active else None
            if tangent is not None:  # (inside a forward transform: the value keeps its tangent)
                d = _fwAD.make_dual(d, tangent)
        hit = tr.internal[key] = (t, d)
    return t if hit[1] is None else hit[1]


def _only_internal(tr: Trace, t) -> bool:
    from ..autograd.graph import AccumulateGrad

    if t._grad_fn is None:
        return id(t) in all_internal
    stack, seen = [t._grad_fn], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            if id(node.variable) not in all_internal:
                return False
            continue
        stack.extend(n for n in node._next if n is not None)
    return True


def first_mismatch(tr: Trace, env: dict):
    """The first traced op whose replayed element 0 differs from what the trace computed (a
    batching rule's bug), as ``(op name, slot, traced, replayed)``; None when all agree."""
    for op, args, kinds, static, sstat, cast, out_slots, _ in tr.tape:
        for s in out_slots:
            want = tr.keep[s]
            if tr.vals.get(id(want)) != s:
                continue  # (written in place later in the trace: the array holds a later value)
            got = env[s]._data[0]
            if got.shape != want.shape or not np.allclose(got, want, rtol=1e-4, atol=1e-6, equal_nan=True):
                return op.name, s, want, got
    return None


_kinds: dict = {}


def _kind(batch: str) -> tuple:
    """``"fold:x_shape"`` -> ``("fold", ("x_shape",))``: a rule's kind and the statics it adjusts."""
    k = _kinds.get(batch)
    if k is None:
        name, _, rest = batch.partition(":")
        k = _kinds[batch] = (name, tuple(rest.split(",")) if rest else ())
    return k


def _per_element(op, xs, kinds, static, cast, batch_size, sstat):
    """The fallback: apply ``op`` once per batch element and stack the results."""
    from .._ops import stack

    if op.name not in _warned:
        _warned.add(op.name)
        warnings.warn(f"There is a performance drop because we have not yet implemented the batching rule for "
                      f"{op.name}. vmap runs it once per batch element.", UserWarning, stacklevel=4)
    results = []
    for b in range(batch_size):
        st = static
        if sstat:
            st = dict(static)
            for name in sstat:
                st[name] = static[name]._data[b]
        args = tuple(x.select(0, b) if k else x for x, k in zip(xs, kinds))
        results.append(_reg.apply(op, args, st, cast))
    if op.n_out == 1:
        return stack(results)
    return tuple(stack([r[i] for r in results]) for i in range(op.n_out))


# ---------------------------------------------------------------------- helpers for rules
def _lnd(x: Tensor, batched: bool) -> int:
    """Logical (per-element) number of dims."""
    return x._data.ndim - 1 if batched else x._data.ndim


def _pad_to(x: Tensor, nd: int) -> Tensor:
    """A batched ``x`` with size-1 dims inserted after the batch dim up to ``nd`` logical dims
    (so it broadcasts, right-aligned, against unbatched operands)."""
    shape = x._data.shape
    missing = nd - (len(shape) - 1)
    if missing <= 0:
        return x
    return x.reshape((shape[0],) + (1,) * missing + shape[1:])


def _bexpand(x: Tensor, batch_size: int) -> Tensor:
    """An unbatched ``x`` as a batched value (expanded, no copy)."""
    return x.unsqueeze(0).expand((batch_size,) + tuple(x._data.shape))


def _shift(d: int, nd: int) -> int:
    """Logical dim ``d`` of a value with ``nd`` logical dims -> its physical dim."""
    if nd == 0:
        return 1 if d in (0, -1) else d + 1
    return d % nd + 1


def _apply(op, xs, static, cast):
    return _reg.apply(op, tuple(xs), static, cast)


# ---------------------------------------------------------------------- the rules
def _elementwise(op, xs, kinds, static, cast, B, sstat):
    """Broadcasting ops: batched operands padded so the batch dim stays in front."""
    if sstat:
        return None
    nd = max(_lnd(x, k) for x, k in zip(xs, kinds))
    return _apply(op, [_pad_to(x, nd) if k else x for x, k in zip(xs, kinds)], static, cast)


def _first(op, xs, kinds, static, cast, B, sstat):
    """Ops whose value is their first input (``keep_graph``'s identity): the other inputs only
    link the graph, so they are passed along unbatched when they can be."""
    g = xs[0] if kinds[0] else _bexpand(xs[0], B)
    return _apply(op, [g] + list(xs[1:]), static, cast)


def _fold(op, xs, kinds, static, cast, B, sstat):
    """Ops on a batch of samples (dim 0 of the first input), the other inputs unbatched:
    fold the vmap batch into that dim.  Static ``*shape`` entries that describe the first
    input's shape are folded the same way."""
    if sstat or not kinds[0] or any(kinds[1:]):
        return None
    x = xs[0]
    shape = x._data.shape
    if len(shape) < 2:
        return None
    folded = x.reshape((B * shape[1],) + shape[2:])
    out = _apply(op, [folded] + list(xs[1:]), _fold_static(op, static, B), cast)
    if op.n_out == 1:
        return out.reshape((B, shape[1]) + tuple(out._data.shape[1:]))
    return tuple(o.reshape((B, shape[1]) + tuple(o._data.shape[1:])) for o in out)


def _fold_static(op, static, B):
    if not static:
        return static
    st = dict(static)
    for k in _kind(op.batch)[1]:
        v = st[k]
        st[k] = (B * v[0],) + tuple(v[1:])
    return st


def _fold_all(op, xs, kinds, static, cast, B, sstat):
    """Like ``_fold`` when every tensor input (and batched array static) is a batch of samples
    in dim 0: all are folded; unbatched ones are expanded first."""
    first = next((x for x, k in zip(xs, kinds) if k), None)
    if first is None:
        return None
    n = first._data.shape[1] if first._data.ndim > 1 else None
    if n is None:
        return None
    ys = []
    for x, k in zip(xs, kinds):
        if not k:
            x = _bexpand(x, B)
        if x._data.ndim < 2 or x._data.shape[1] != n:
            return None
        ys.append(x.reshape((B * n,) + x._data.shape[2:]))
    st = _fold_static(op, static, B)
    if sstat:
        st = dict(st)
        for name in sstat:
            a = static[name]._data
            st[name] = a.reshape((B * a.shape[1],) + a.shape[2:])
    out = _apply(op, ys, st, cast)
    if op.n_out == 1:
        return out.reshape((B, n) + tuple(out._data.shape[1:]))
    return tuple(o.reshape((B, n) + tuple(o._data.shape[1:])) for o in out)


def _reduce(op, xs, kinds, static, cast, B, sstat):
    """Reductions with a ``dims`` (tuple, int or None: all) or ``dim`` static, one input."""
    if sstat or len(xs) != 1:
        return None
    x = xs[0]
    nd = _lnd(x, True)
    if nd == 0:
        return None
    st = dict(static)
    key = "dims" if "dims" in st else "dim"
    d = st[key]
    if d is None:
        st[key] = tuple(range(1, nd + 1))
    elif isinstance(d, int):
        st[key] = _shift(d, nd)
    else:
        st[key] = tuple(_shift(i, nd) for i in d)
    return _apply(op, xs, st, cast)


def _dim_first(op, xs, kinds, static, cast, B, sstat):
    """Ops along one ``dim`` of the first input (softmax, cumsum...); other inputs shaped like it."""
    if sstat:
        return None
    nd = max(_lnd(x, k) for x, k in zip(xs, kinds))
    ys = [x if k else _bexpand(x, B) for x, k in zip(xs, kinds)]
    if nd == 0 or any(_lnd(y, True) != nd for y in ys):
        return None
    st = dict(static)
    st["dim"] = _shift(st["dim"], nd)
    return _apply(op, ys, st, cast)


def _sum_all(op, xs, kinds, static, cast, B, sstat):
    """sum / mean of every element: the same op with dims over the logical dims (``*_dim`` twin)."""
    x = xs[0]
    nd = _lnd(x, True)
    twin = _reg.OPS[op.name + "_dim"]
    return _apply(twin, [x], {"dims": tuple(range(1, nd + 1)), "keepdim": False}, cast)


def _view(op, xs, kinds, static, cast, B, sstat):
    """view / reshape / expand-like ops with a ``shape`` static: the batch dim prepended."""
    x = xs[0]
    shape = tuple(static["shape"])
    if op.name in ("expand", "expand_grad"):
        x = _pad_to(x, len(shape))
    st = dict(static)
    st["shape"] = (B,) + shape
    return _apply(op, [x], st, cast)


def _sum_to(op, xs, kinds, static, cast, B, sstat):
    """sum_to(shape): the leading logical dims not in ``shape`` are summed, never the batch dim."""
    x = xs[0]
    shape = tuple(static["shape"])
    nd = _lnd(x, True)
    lead = nd - len(shape)
    if lead > 0:
        x = _apply(_reg.OPS["sum_dim"], [x], {"dims": tuple(range(1, lead + 1)), "keepdim": False}, None)
    return _apply(op, [x], {**static, "shape": (B,) + shape}, cast)


def _transpose(op, xs, kinds, static, cast, B, sstat):
    nd = _lnd(xs[0], True)
    if op.name == "t":
        if nd < 2:
            return xs[0]
        return _apply(_reg.OPS["transpose"], xs, {"dim0": 1, "dim1": 2}, cast)
    return _apply(op, xs, {"dim0": _shift(static["dim0"], nd), "dim1": _shift(static["dim1"], nd)}, cast)


def _permute(op, xs, kinds, static, cast, B, sstat):
    nd = _lnd(xs[0], True)
    return _apply(op, xs, {"dims": (0,) + tuple(_shift(d, nd) for d in static["dims"])}, cast)


def _unsqueeze(op, xs, kinds, static, cast, B, sstat):
    nd = _lnd(xs[0], True)
    return _apply(op, xs, {"dim": static["dim"] % (nd + 1) + 1}, cast)


def _squeeze(op, xs, kinds, static, cast, B, sstat):
    x = xs[0]
    nd = _lnd(x, True)
    if op.name == "squeeze":
        dims = tuple(i + 1 for i, n in enumerate(x._data.shape[1:]) if n == 1)
        if not dims:
            return x
        return _apply(_reg.OPS["squeeze_dims"], [x], {"dims": dims}, cast)
    d = static["dims"]
    dims = (d,) if isinstance(d, int) else tuple(d)
    return _apply(op, [x], {"dims": tuple(_shift(i, nd) for i in dims) if isinstance(d, tuple) else
                            _shift(d, nd)}, cast)


def _select_like(op, xs, kinds, static, cast, B, sstat):
    """select / slice / narrow-like views along one ``dim``."""
    nd = _lnd(xs[0], True)
    return _apply(op, xs, {**static, "dim": _shift(static["dim"], nd)}, cast)


def _join(op, xs, kinds, static, cast, B, sstat):
    """cat / stack / split / unbind along ``dim``: unbatched inputs expanded, the dim shifted."""
    nd = max(_lnd(x, k) for x, k in zip(xs, kinds))
    ys = [x if k else _bexpand(x, B) for x, k in zip(xs, kinds)]
    if any(_lnd(y, True) != nd for y in ys):
        return None  # (cat's legacy empty 1-d inputs)
    d = static["dim"]
    d = d % (nd + 1) if _kind(op.batch)[1] == ("stack",) else d % max(nd, 1)
    return _apply(op, ys, {**static, "dim": d + 1}, cast)


def _index(op, xs, kinds, static, cast, B, sstat):
    """index / index_backward / index_put*: the key gets a full slice for the batch dim in front
    (when its index arrays are adjacent, NumPy then keeps the batch dim first)."""
    key = static["key"]
    key = key if isinstance(key, tuple) else (key,)
    adv = [i for i, k in enumerate(key) if isinstance(k, np.ndarray) or isinstance(k, list)]
    if sstat or (adv and adv[-1] - adv[0] != len(adv) - 1):
        return None
    st = {**static, "key": (slice(None),) + key}
    if op.name == "index_backward":
        st["shape"] = (B,) + tuple(static["shape"])
    if not op.name.startswith("index_put"):
        return _apply(op, xs, st, cast)
    a, v = xs
    if not kinds[0]:
        a = _bexpand(a, B)
    if kinds[1]:
        region = np.empty(a._data.shape[1:], dtype=np.bool_)[key].ndim
        v = _pad_to(v, region)
    return _apply(op, [a, v], st, cast)


def _select_backward(op, xs, kinds, static, cast, B, sstat):
    """select_backward / slice_backward(g; shape, dim, ...): the gradient's shape gains the batch dim."""
    shape = tuple(static["shape"])
    return _apply(op, xs, {**static, "shape": (B,) + shape, "dim": static["dim"] % len(shape) + 1}, cast)


def _diagonal(op, xs, kinds, static, cast, B, sstat):
    nd = _lnd(xs[0], True)
    return _apply(op, xs, {**static, "dim1": _shift(static["dim1"], nd), "dim2": _shift(static["dim2"], nd)}, cast)


def _trailing(op, xs, kinds, static, cast, B, sstat):
    """Ops that act on the trailing dims only (padding): the batch dim is one more leading dim."""
    if sstat or any(kinds[1:]):
        return None
    return _apply(op, xs, static, cast)


def _embedding(op, xs, kinds, static, cast, B, sstat):
    """embedding(weight, idx) with an unbatched table: the batch is more leading index dims."""
    if sstat or kinds[0]:
        return None
    return _apply(op, xs, static, cast)


def _linear(op, xs, kinds, static, cast, B, sstat):
    """linear(x, w) / linear_bias(b, x, w): a batched input with unbatched parameters is just
    more leading dims; batched parameters become a batched matmul."""
    names = op.inputs
    k = dict(zip(names, kinds))
    v = dict(zip(names, xs))
    if not k.get("w") and not k.get("b"):
        return _apply(op, xs, static, cast)  # (x @ w.T (+ b) treats the batch dim as a leading dim)
    x, w = v["x"], v["w"]
    if not k["x"]:
        x = _bexpand(x, B)
    if not k["w"]:
        w = _bexpand(w, B)
    x3 = x if x._data.ndim > 2 else x.unsqueeze(1)
    y = x3.reshape((B, -1, x3._data.shape[-1])).matmul(w.transpose(1, 2))
    y = y.reshape(tuple(x3._data.shape[:-1]) + (w._data.shape[1],))
    if x._data.ndim == 2:
        y = y.squeeze(1)
    if "b" in v:
        b = v["b"] if k["b"] else _bexpand(v["b"], B)
        y = y + _pad_to(b, y._data.ndim - 1)
    return y


def _linear_weight_grad(op, xs, kinds, static, cast, B, sstat):
    """linear_weight_grad(gy, x) = gy^T x summed over the leading dims, per batch element."""
    gy, x = (xs[0] if kinds[0] else _bexpand(xs[0], B)), (xs[1] if kinds[1] else _bexpand(xs[1], B))
    g3 = gy.reshape((B, -1, gy._data.shape[-1]))
    x3 = x.reshape((B, -1, x._data.shape[-1]))
    if g3._data.shape[1] == 1:  # (one row per element, as per-sample gradients have: outer products,
        # which NumPy's elementwise product computes far faster than its small batched matmuls)
        return g3.reshape((B, -1, 1)) * x3
    return g3.transpose(1, 2).matmul(x3)


def _matmul(op, xs, kinds, static, cast, B, sstat):
    """mm / matmul_batched / mv / dot: operands made batched 3-d (or more) for one matmul."""
    a, b = xs
    ka, kb = kinds
    la, lb = _lnd(a, ka), _lnd(b, kb)
    if op.name == "dot":
        if ka and kb:
            return (a * b).sum(1)
        return a.matmul(b)  # (B, n) @ (n,) or (n,) @ (B, n)^T
    if op.name == "mv":
        if ka and not kb:
            return a.matmul(b)
        a = a if ka else _bexpand(a, B)
        b = b if kb else _bexpand(b, B)
        return a.matmul(b.unsqueeze(-1)).squeeze(-1)
    # mm, matmul_batched: logical operands of >= 2 dims; the batched ones padded so that the
    # batch dim stays in front of the broadcast leading dims
    if la < 2 or lb < 2:
        return None
    nd = max(la, lb)
    return _apply(_reg.OPS["matmul_batched"], [_pad_to(a, nd) if ka else a, _pad_to(b, nd) if kb else b], None,
                  cast)


def _conv(op, xs, kinds, static, cast, B, sstat):
    """convolution(_bias)(x, w[, b]) with unbatched parameters: fold the batch into N."""
    if any(kinds[1:]) or sstat:
        return None
    st = dict(static)
    st["cols"] = None
    return _fold(op, xs, kinds, st, cast, B, None)


def _conv_weight(op, xs, kinds, static, cast, B, sstat):
    """conv_weight(x, gy), the weight gradient, per batch element: the input's columns (im2col of
    the folded batch) and one batched GEMM per element, ``gy[b] @ cols[b]^T`` summed over its N."""
    if sstat or static["groups"] != 1:
        return None
    x = xs[0] if kinds[0] else _bexpand(xs[0], B)
    gy = xs[1] if kinds[1] else _bexpand(xs[1], B)
    n = x._data.shape[1]
    w_shape = tuple(static["w_shape"])
    o, ckk = w_shape[0], math.prod(w_shape[1:])
    cols = _apply(_reg.OPS["im2col"], [x.reshape((B * n,) + tuple(x._data.shape[2:]))],
                  {"ksize": w_shape[2:], "dilation": static["dilation"], "padding": static["padding"],
                   "stride": static["stride"]}, None)  # (B*N, C*k, L)
    length = cols._data.shape[2]
    if n == 1:
        g3, c3 = gy.reshape((B, o, length)), cols.reshape((B, ckk, length))
    else:
        g3 = gy.reshape((B, n, o, length)).permute(0, 2, 1, 3).reshape((B, o, n * length))
        c3 = cols.reshape((B, n, ckk, length)).permute(0, 2, 1, 3).reshape((B, ckk, n * length))
    dw = _apply(_reg.OPS["matmul_batched"], [g3, c3.transpose(1, 2)], None, cast)
    return dw.reshape((B,) + w_shape)


def _loss(op, xs, kinds, static, cast, B, sstat):
    """Losses with ``reduction``: per element 'none' then the reduction over the logical dims."""
    red = static.get("reduction")
    if sstat or red not in ("mean", "sum", "none"):
        return None
    ys = [x if k else x for x, k in zip(xs, kinds)]
    if op.name in ("nll_loss_plain", "nll_loss"):
        return _nll(op, ys, kinds, static, cast, B)
    nd = max(_lnd(x, k) for x, k in zip(xs, kinds))
    ys = [_pad_to(x, nd) if k else x for x, k in zip(xs, kinds)]
    out = _apply(op, ys, {**static, "reduction": "none"}, cast)
    if red == "none":
        return out
    dims = tuple(range(1, out._data.ndim))
    return out.sum(dims) if red == "sum" else out.mean(dims) if dims else out


def _nll(op, xs, kinds, static, cast, B):
    """nll_loss: fold the batch into the samples; the per-element mean divides by each element's
    own total weight, so it is summed back per element."""
    x, t = xs[0], xs[1]
    kx, kt = kinds[0], kinds[1]
    if len(xs) > 2 and (kinds[2] or xs[2] is not None):
        return None  # (class weights: not covered)
    x = x if kx else _bexpand(x, B)
    t = t if kt else _bexpand(t, B)
    if x._data.ndim != 3 or t._data.ndim != 2:
        return None  # ((N, C) inputs only)
    n = x._data.shape[1]
    red = static["reduction"]
    st = {**static, "reduction": "none"}
    ign = static.get("ignore_index", -100)
    out = _apply(op, [x.reshape((B * n,) + tuple(x._data.shape[2:])), t.reshape((B * n,))] + list(xs[2:]), st, cast)
    out = out.reshape((B, n))
    if red == "none":
        return out
    if red == "sum":
        return out.sum(1)
    valid = (t != ign).sum(1).to(out.dtype)
    return out.sum(1) / valid


RULES = {
    "elementwise": _elementwise,
    "first": _first,
    "fold": _fold,
    "fold_all": _fold_all,
    "reduce": _reduce,
    "dim": _dim_first,
    "sum_all": _sum_all,
    "view": _view,
    "sum_to": _sum_to,
    "transpose": _transpose,
    "permute": _permute,
    "unsqueeze": _unsqueeze,
    "squeeze": _squeeze,
    "select": _select_like,
    "linear": _linear,
    "linear_weight_grad": _linear_weight_grad,
    "matmul": _matmul,
    "conv": _conv,
    "conv_weight": _conv_weight,
    "loss": _loss,
    "select_backward": _select_backward,
    "join": _join,
    "index": _index,
    "diagonal": _diagonal,
    "trailing": _trailing,
    "embedding": _embedding,
}


def covered() -> tuple[list, list]:
    """(ops with a batching rule, ops without one): the names for docs/func.md."""
    ops = sorted(_reg.OPS)

    def has(n):
        b = _reg.OPS[n].batch
        return b is not None and _kind(b)[0] in RULES

    return [n for n in ops if has(n)], [n for n in ops if not has(n)]
