"""``vmap``: map a function over a dimension of its inputs (PyTorch's ``torch.vmap`` API).

``vmap`` traces ``func`` on one batch element and replays its ops on the whole batch through
the op table's batching rules (``_batching``): one op call per op, not one per element.
Where that cannot be done faithfully it runs ``func`` once per batch element on the slices
``x.select(in_dim, b)`` and stacks the results along ``out_dims`` (exact per-sample semantics,
at the speed of a Python loop).
"""
from __future__ import annotations

import functools
import warnings
from typing import Any, Callable

import numpy as np

from .. import _creation
from .._ops import cat, stack
from .._tensor import Tensor
from . import _batching
from ._jac import _check_randomness_arg
from ._core import running_user_function
from ._pytree import broadcast_prefix, tree_flatten, tree_unflatten

__all__ = ["vmap"]


def _name(func) -> str:
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _check_out_dims(out_dims, func) -> None:
    if isinstance(out_dims, int):
        return
    for d in tree_flatten(out_dims)[0]:
        if d is not None and not isinstance(d, int):
            raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a "
                             "python collection of ints representing where in the outputs the vmapped dimension "
                             "should appear.")


def _process_inputs(in_dims, args: tuple, func):
    """(batch size, per-leaf in_dim, flat args, spec) with PyTorch's checks and messages."""
    name = _name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are trying "
                         "to vmap over a function with no inputs. The latter is unsupported.")
    flat_args, spec = tree_flatten(args)
    flat_dims = broadcast_prefix(in_dims, spec)
    if flat_dims is None:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                         f"structure of `inputs`. in_dims has structure {tree_flatten(in_dims)[1]!r} but inputs "
                         f"has structure {spec!r}.")
    for i, (arg, d) in enumerate(zip(flat_args, flat_dims)):
        if d is not None and not isinstance(d, int):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but "
                             "in_dim must be either an integer dimension or None.")
        if isinstance(d, int) and not isinstance(arg, Tensor):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but the "
                             f"input is of type {type(arg)}. We cannot vmap over non-Tensor arguments, please use "
                             "None as the respective in_dim")
        if d is not None:
            nd = arg.dim()
            if d < -nd or d >= nd:
                raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, but "
                                 f"that input is a Tensor of dimensionality {nd} so expected in_dim to satisfy "
                                 f"-{nd} <= in_dim < {nd}.")
            flat_dims[i] = d % nd
    sizes = [a.size(d) for a, d in zip(flat_args, flat_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return sizes[0], flat_dims, flat_args, spec


def _rng_state() -> np.ndarray:
    # (through the public state API: it covers every way the generator can be drawn from)
    return _creation.get_rng_state()._data.copy()


def _set_rng_state(state: np.ndarray) -> None:
    _creation.set_rng_state(Tensor._wrap(state.copy(), False, None, 0))


_mt_views: dict = {}  # id(engine) -> (engine, live view of its MT19937 C state: 624 key words + pos)


def _mt_view(eng) -> np.ndarray:
    hit = _mt_views.get(id(eng))
    if hit is None or hit[0] is not eng:
        import ctypes

        bg = eng.bg
        hit = _mt_views[id(eng)] = (eng, np.ctypeslib.as_array((ctypes.c_uint32 * 625).from_address(
            bg.ctypes.state_address)))
    return hit[1]


def _rng_snapshot() -> tuple:
    """The default generator's engine and a copy of its raw state (read in place, ~1 us:
    PyTorch's byte layout, ``get_rng_state``, costs a hundred times more)."""
    from .._generator import default_generator

    eng = default_generator._engine
    return eng, _mt_view(eng).copy(), eng.normal_double, eng.normal_float, eng.seed, eng.fresh


def _rng_drawn(snap: tuple) -> bool:
    """Whether any random number was drawn from the default generator since ``snap``."""
    from .._generator import default_generator

    eng = default_generator._engine
    return eng is not snap[0] or (eng.normal_double, eng.normal_float, eng.seed, eng.fresh) != snap[2:] or \
        not np.array_equal(_mt_view(eng), snap[1])


def _rng_restore(snap: tuple) -> None:
    from .._generator import default_generator

    eng = default_generator._engine = snap[0]
    state = snap[1]
    eng.bg.state = {"bit_generator": "MT19937", "state": {"key": state[:624].copy(), "pos": int(state[624])}}
    eng.normal_double, eng.normal_float, eng.seed, eng.fresh = snap[2:]


def _call_per_sample(func, batch_size: int, flat_dims: list, flat_args: list, spec, randomness: str, kwargs: dict):
    """func's flat outputs for each batch element, plus the output spec."""
    start = _rng_state() if randomness in ("error", "same") else None
    results: list = []
    out_spec = None
    if batch_size == 0:
        # No element to run on: run once on zeros shaped like one element, only to learn the
        # output structure and shapes (PyTorch runs func once on the empty batch).
        sample = [a if d is None else _creation.zeros(a.shape[:d] + a.shape[d + 1:], dtype=a.dtype)
                  for a, d in zip(flat_args, flat_dims)]
        with running_user_function():
            out, out_spec = tree_flatten(func(*tree_unflatten(sample, spec), **kwargs))
        return [], out_spec, out
    for b in range(batch_size):
        if randomness == "same":
            _set_rng_state(start)
        sample = [a if d is None else a.select(d, b) for a, d in zip(flat_args, flat_dims)]
        with running_user_function():
            flat_out, s = tree_flatten(func(*tree_unflatten(sample, spec), **kwargs))
        if randomness == "error":
            if not np.array_equal(_rng_state(), start):
                _set_rng_state(start)
                raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use "
                                   "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                                   "operation out of vmap")
        if out_spec is None:
            out_spec = s
        elif s != out_spec:
            raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` returned outputs of different structures "
                             f"for different batch elements: {out_spec!r} and {s!r}")
        results.append(flat_out)
    return results, out_spec, None


def _same_everywhere(vals: list) -> bool:
    first = vals[0]
    for v in vals[1:]:
        if v is first:
            continue
        if isinstance(first, Tensor) and isinstance(v, Tensor):
            if v.shape != first.shape or not np.array_equal(v._data, first._data, equal_nan=True):
                return False
        elif isinstance(first, Tensor) or isinstance(v, Tensor):
            return False
        else:
            try:
                if not bool(v == first):
                    return False
            except Exception:  # (values that cannot be compared count as different)
                return False
    return True


def _flat_out_dims(func, out_dims, out_spec) -> list:
    name = _name(func)
    if out_spec.is_leaf():
        if isinstance(out_dims, int) or out_dims is None:
            flat_od = [out_dims]
        elif isinstance(out_dims, tuple) and len(out_dims) == 1:
            flat_od = list(out_dims)
        else:
            flat_od = None
    else:
        flat_od = broadcast_prefix(out_dims, out_spec)
    if flat_od is None:
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
                         f"structure of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]!r} but outputs "
                         f"has structure {out_spec!r}.")
    return flat_od


def _assemble(func, results: list, out_spec, empty_sample, out_dims, batch_size: int):
    name = _name(func)
    n = out_spec.num_leaves
    flat_od = _flat_out_dims(func, out_dims, out_spec)
    flat = []
    for i in range(n):
        od = flat_od[i]
        vals = [r[i] for r in results] if empty_sample is None else [empty_sample[i]]
        if od is None:
            # PyTorch refuses a batched output here; without batch tracking, "batched" means
            # "differs between batch elements".
            if empty_sample is None and not _same_everywhere(vals):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
            flat.append(vals[0])
            continue
        for v in vals:
            if not isinstance(v, Tensor):
                raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(v)}. "
                                 "Did you mean to set out_dims= to None for output?")
        if empty_sample is not None:
            v = vals[0]
            shape = list(v.shape)
            nd = v.dim() + 1
            if od < -nd or od >= nd:
                raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {od})")
            shape.insert(od % nd, 0)
            flat.append(_creation.zeros(shape, dtype=v.dtype))
        else:
            flat.append(stack(vals, dim=od))
    return tree_unflatten(flat, out_spec)


def vmap(func: Callable, in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error", *,
         chunk_size: int | None = None) -> Callable:
    """Vectorize ``func`` over dimension ``in_dims`` of its inputs; outputs get the batch dim at ``out_dims``.

    ``in_dims``: an int (every positional input), or a tuple with one entry per positional
    argument, each an int, ``None`` (not mapped: passed whole to every call) or a nested
    structure matching a pytree argument.  Keyword arguments are never mapped.
    ``randomness``: ``'error'`` (random ops inside raise), ``'different'`` or ``'same'``
    (every element sees the same random numbers).  ``chunk_size`` is accepted and has no effect.

    retrograd runs ``func`` once per batch element (a Python loop) and stacks the results.

    >>> import retrograd as torch
    >>> torch.vmap(torch.dot)(torch.ones(3, 2), torch.arange(6.).reshape(3, 2))
    tensor([1., 5., 9.])
    >>> torch.vmap(lambda x, w: x * w, in_dims=(0, None))(torch.ones(2, 2), torch.tensor([1., 2.]))
    tensor([[1., 2.],
            [1., 2.]])
    """
    _check_randomness_arg(randomness)
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        _check_out_dims(out_dims, func)
        batch_size, flat_dims, flat_args, spec = _process_inputs(in_dims, args, func)
        if batch_size > 0:
            res = _run_batched(func, batch_size, flat_dims, flat_args, spec, randomness, kwargs, out_dims,
                               chunk_size)
            if res is not _PER_ELEMENT:
                return res
        results, out_spec, empty_sample = _call_per_sample(func, batch_size, flat_dims, flat_args, spec,
                                                           randomness, kwargs)
        return _assemble(func, results, out_spec, empty_sample, out_dims, batch_size)

    return wrapped


_DEBUG = False
_PER_ELEMENT = object()  # _run_batched's answer when func must run once per element instead
_checked: dict = {}  # trace signature -> whether its replay reproduced func on an element
_RNG_MSG = ("vmap: called random operation while in randomness error mode. Please either use the 'same' or "
            "'different' randomness flags on vmap or perform the randomness operation out of vmap")


def _run_batched(func, batch_size: int, flat_dims: list, flat_args: list, spec, randomness: str, kwargs: dict,
                 out_dims, chunk_size):
    """Trace ``func`` on element 0, replay it on the batch (see ``_batching``); _PER_ELEMENT when
    the trace cannot be replayed faithfully."""
    outermost = not _batching._traces
    try:
        return _trace_and_replay(func, batch_size, flat_dims, flat_args, spec, randomness, kwargs, out_dims,
                                 chunk_size)
    finally:
        if outermost:
            _batching.all_internal.clear()


def _trace_and_replay(func, batch_size: int, flat_dims: list, flat_args: list, spec, randomness: str, kwargs: dict,
                      out_dims, chunk_size):
    tr = _batching.Trace()
    phys: dict = {}  # slot -> the input with its batch dim moved to 0
    samples = []
    for a, d in zip(flat_args, flat_dims):
        if d is None:
            samples.append(a)
            continue
        p = a if d == 0 else a.movedim(d, 0)
        rg = p.requires_grad and (p.is_floating_point() or p.is_complex())
        s = Tensor._wrap(p._data[0, ...], rg, None, 0)
        phys[tr.new_slot(s)] = p
        samples.append(s)
    start = _rng_snapshot()
    _batching.push(tr, batch_size)
    try:
        with running_user_function():
            out = func(*tree_unflatten(samples, spec), **kwargs)
    finally:
        _batching.pop(tr)
    random = _rng_drawn(start)
    if random and randomness == "error":
        _rng_restore(start)
        raise RuntimeError(_RNG_MSG)
    if random and randomness == "different":
        _rng_restore(start)  # (each element draws its own numbers: per element)
        return _PER_ELEMENT
    if tr.bad is not None:
        _warn_fallback(func, tr.bad)
        return _PER_ELEMENT
    flat_out, out_spec = tree_flatten(out)
    flat_od = _flat_out_dims(func, out_dims, out_spec)
    name = _name(func)
    slots = []
    for o, od in zip(flat_out, flat_od):
        s = tr.slot(o) if isinstance(o, Tensor) else None
        if od is None and s is not None:
            raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
        if od is not None and not isinstance(o, Tensor):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(o)}. "
                             "Did you mean to set out_dims= to None for output?")
        slots.append(s)
    sig = (_code_key(func), tuple((e[0].name, e[2]) for e in tr.tape), tuple(slots),
           tuple((a.shape, a.dtype) if isinstance(a, Tensor) else None for a in flat_args))
    if chunk_size is None or chunk_size >= batch_size:
        batched = _replay(tr, phys, slots, flat_out, batch_size)
    else:
        parts = [_replay(tr, {k: v.narrow(0, c, min(chunk_size, batch_size - c)) for k, v in phys.items()}, slots,
                         flat_out, min(chunk_size, batch_size - c)) for c in range(0, batch_size, chunk_size)]
        batched = [None if p[0] is None else cat(p) for p in zip(*parts)]
    if batch_size > 1 and not random:
        ok = _checked.get(sig)
        if ok is None:
            ok = _checked[sig] = all(_reproduces(func, b, flat_dims, flat_args, spec, kwargs, batched)
                                     for b in _elements_to_check(phys, batch_size))
        if not ok:
            _warn_fallback(func, "its batched replay did not reproduce it on a batch element (an op computed "
                                 "outside the op table?)")
            return _PER_ELEMENT
    results = []
    for o, od, v in zip(flat_out, flat_od, batched):
        if od is None:
            results.append(o)
            continue
        nd = v.dim()
        if od < -nd or od >= nd:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {od})")
        results.append(_batching.finish(v if od % nd == 0 else v.movedim(0, od)))
    return tree_unflatten(results, out_spec)


def _code_key(func, depth: int = 0) -> tuple:
    """The code objects behind ``func`` (through functools.wraps, partials, closures and bound
    methods): with the trace's ops, what identifies a function whose replay was checked."""
    if depth > 4:
        return ()
    out: tuple = ()
    code = getattr(func, "__code__", None)
    if code is not None:
        out += (code,)
        for cell in getattr(func, "__closure__", None) or ():
            try:
                v = cell.cell_contents
            except ValueError:
                continue
            if callable(v) and not isinstance(v, type):
                out += _code_key(v, depth + 1)
            elif isinstance(v, (int, float, str, bool, type(None))):
                out += (v,)
            elif not isinstance(v, (Tensor, np.ndarray, dict, list, tuple, set)):
                out += (id(v),)  # (an object the function closes over, e.g. a model: its identity)
    for attr in ("__wrapped__", "func", "__func__", "forward"):
        inner = getattr(func, attr, None)
        if inner is not None and callable(inner) and inner is not func:
            out += _code_key(inner, depth + 1)
    if not out:
        out = (type(func),)
    return out


def _replay(tr, phys: dict, slots: list, flat_out: list, batch_size: int) -> list:
    """The batched value (batch at dim 0) of each output; an unbatched output expanded."""
    env = dict(phys)
    _batching.replay(tr, env, batch_size)
    if _DEBUG:
        bad = _batching.first_mismatch(tr, env)
        if bad is not None:
            print("vmap replay mismatch:", bad[0], bad[2].shape, bad[3].shape, bad[2].ravel()[:4], bad[3].ravel()[:4])
    res = []
    for o, s in zip(flat_out, slots):
        if s is not None:
            res.append(env[s])
        elif isinstance(o, Tensor):
            res.append(o.unsqueeze(0).expand((batch_size,) + tuple(o.shape)))
        else:
            res.append(None)
    return res


def _elements_to_check(phys: dict, batch_size: int) -> list:
    """Up to three batch elements besides 0: the last, the middle one and the one whose inputs
    differ most from element 0's (a value frozen at element 0 is unlikely to match all three)."""
    dist = np.zeros(batch_size)
    for p in phys.values():
        d = p._data
        if d.dtype.kind in "fciub" and d.size:
            dist += np.abs(d.reshape(batch_size, -1).astype(np.float64) - d[0].reshape(1, -1)).sum(1)
    picks = {batch_size - 1, batch_size // 2, int(np.argmax(dist))} - {0}
    return sorted(picks)


def _reproduces(func, b: int, flat_dims, flat_args, spec, kwargs, batched: list) -> bool:
    """Whether func run on element ``b`` alone gives the replay's element ``b`` (checked once per
    trace signature: a value computed outside the op table would be frozen at element 0)."""
    with _batching.paused(), running_user_function():
        sample = [a if d is None else a.select(d, b) for a, d in zip(flat_args, flat_dims)]
        flat, _ = tree_flatten(func(*tree_unflatten(sample, spec), **kwargs))
    for o, v in zip(flat, batched):
        if v is None or not isinstance(o, Tensor):
            continue
        got, want = v._data[b], o._data
        if got.shape != want.shape:
            return False
        if want.dtype.kind in "fc":
            scale = float(np.abs(want).max()) if want.size else 0.0
            if not np.allclose(got, want, rtol=1e-3, atol=1e-6 + 1e-4 * scale, equal_nan=True):
                return False
        elif not np.array_equal(got, want):
            return False
    return True


def _warn_fallback(func, why: str) -> None:
    warnings.warn(f"vmap({_name(func)}): running the function once per batch element: {why}.", UserWarning,
                  stacklevel=4)
