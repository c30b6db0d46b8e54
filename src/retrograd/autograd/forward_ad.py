"""Forward-mode AD: dual tensors that carry a tangent through every op (``torch.autograd.forward_ad``).

Inside a ``dual_level()``, ``make_dual(x, t)`` pairs a tensor with a tangent (a direction);
every op applied to it then also computes its output's tangent, the Jacobian-vector product
``J t``, and ``unpack_dual(y)`` reads it back.  One level at a time, as in PyTorch.

How tangents are computed (no per-op forward rules): the op table's backward rules give
``v = J^T u`` for any cotangent ``u`` and are themselves differentiable, and ``<v, t>`` is
linear in ``u``, so ``J t`` is its gradient w.r.t. ``u`` (the "double-vjp" trick).  The op
table sends each op here through its one slow-path flag while a level is active (see
``_ops._registry``); view ops apply themselves to the tangent instead, so a view's tangent is
a view of its base's tangent, as in PyTorch.

>>> import retrograd as torch
>>> import retrograd.autograd.forward_ad as fwAD
>>> with fwAD.dual_level():
...     x = fwAD.make_dual(torch.tensor([0., 1.]), torch.tensor([1., 1.]))
...     fwAD.unpack_dual(x * x + x).tangent
tensor([1., 3.])
"""
from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from . import grad_mode

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual"]

_gstate = grad_mode.state

NO_LEVEL_MSG = ("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                "enter_dual_level() first.")
NESTED_MSG = "Nested forward mode AD is not supported at the moment"
EXIT_ORDER_MSG = ("Trying to exit a forward AD level that was not the last one that was created. "
                  "This is not supported.")


class _Level:
    """The one dual level: whether it is open, its generation, and pauses.

    A tangent is stored on its tensor with the generation of the level that set it
    (``__dict__["_fw_tangent"] = (gen, tangent)``): leaving the level bumps nothing and
    walks nothing, yet every tangent of an old level reads as absent afterwards.
    """

    def __init__(self) -> None:
        self.active = False
        self.gen = 0
        self.paused = 0  # > 0 while a custom Function's forward runs (its inputs look plain)
        self.fwd_enabled = True  # torch._C._set_fwd_grad_enabled: off, no op computes a tangent


_level = _Level()

# PyTorch's module-level record of the innermost open level (-1: none); its tests poll it.
_current_level = -1


def _registry():
    from .._ops import _registry as r

    return r


def _Tensor():
    from .._tensor import Tensor

    return Tensor


# ---------------------------------------------------------------- tangent storage
def _get(t) -> Any:
    """``t``'s tangent at the open level, or None."""
    e = t.__dict__.get("_fw_tangent")
    if e is None or e[0] != _level.gen or not _level.active or _level.paused:
        return None
    return e[1]


def _set(t, tangent) -> None:
    t.__dict__["_fw_tangent"] = (_level.gen, tangent)


@contextlib.contextmanager
def _paused():
    """No tangents flow (and none are visible) inside: custom Function forwards, internals."""
    reg = _registry()
    _level.paused += 1
    reg._set_forward_ad(None)
    try:
        yield
    finally:
        _level.paused -= 1
        _sync_hook()


def _sync_hook() -> None:
    # the op table propagates tangents only while a level is open, not paused, and enabled
    on = _level.active and not _level.paused and _level.fwd_enabled
    _registry()._set_forward_ad(_HOOK if on else None)


def _is_fwd_grad_enabled() -> bool:
    """Whether ops compute tangents at all (PyTorch's private forward-grad switch; on by default).

    >>> import retrograd.autograd.forward_ad as fwAD
    >>> fwAD._is_fwd_grad_enabled()
    True
    """
    return _level.fwd_enabled


def _set_fwd_grad_enabled_flag(enabled: bool) -> None:
    """Turn tangent propagation on or off globally (``torch._C._set_fwd_grad_enabled``)."""
    _level.fwd_enabled = bool(enabled)
    _sync_hook()


class _set_fwd_grad_enabled:
    """Context manager that sets the forward-grad switch for its body, then restores it.

    >>> import retrograd.autograd.forward_ad as fwAD
    >>> with fwAD._set_fwd_grad_enabled(False):
    ...     fwAD._is_fwd_grad_enabled()
    False
    """

    def __init__(self, mode: bool) -> None:
        self.prev = _level.fwd_enabled
        _set_fwd_grad_enabled_flag(mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _set_fwd_grad_enabled_flag(self.prev)


# ---------------------------------------------------------------- levels
def enter_dual_level() -> int:
    """Open a dual level and return it (always 0: levels do not nest, as in PyTorch).

    >>> import retrograd.autograd.forward_ad as fwAD
    >>> lvl = fwAD.enter_dual_level(); fwAD.exit_dual_level(level=lvl); lvl
    0
    """
    global _current_level
    if _level.active:
        raise RuntimeError(NESTED_MSG)
    _level.active = True
    _level.gen += 1
    _sync_hook()
    _current_level = 0
    return 0


def exit_dual_level(*, level: int | None = None) -> None:
    """Close the open dual level: every tangent made in it is gone afterwards.

    >>> import retrograd.autograd.forward_ad as fwAD
    >>> fwAD.enter_dual_level()
    0
    >>> fwAD.exit_dual_level()
    """
    if level is None:
        level = 0 if _level.active else -1
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if not _level.active or level != 0:
        raise RuntimeError(EXIT_ORDER_MSG)
    global _current_level
    _level.active = False
    _registry()._set_forward_ad(None)
    _current_level = -1


class dual_level:
    """Context manager (or decorator) that opens a dual level for its body.

    >>> import retrograd as torch
    >>> import retrograd.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     y = fwAD.make_dual(torch.tensor(2.), torch.tensor(1.)) ** 3
    ...     fwAD.unpack_dual(y).tangent
    tensor(12.)
    """

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc) -> None:
        exit_dual_level()

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)

        return wrapper


# ---------------------------------------------------------------- make / unpack
class UnpackedDualTensor(NamedTuple):
    """What ``unpack_dual`` returns: the primal (a view of the dual tensor) and its tangent."""

    primal: Any
    tangent: Any


def _check_float(t, what: str) -> None:
    if not hasattr(t, "is_floating_point"):
        raise AttributeError(f"'{type(t).__name__}' object has no attribute 'is_floating_point'")
    if not (t.is_floating_point() or t.is_complex()):
        # (PyTorch's text names the dtype torch.<name>)
        raise ValueError(f"Expected {what} to be floating point or complex, but got: torch.{t.dtype.name}")


def make_dual(tensor, tangent, *, level: int | None = None):
    """A view of ``tensor`` that carries ``tangent`` (same size) at the open level.

    The view has ``tensor``'s autograd history (``ViewBackward0`` when it requires grad);
    ``tangent`` is stored as given (not copied).

    >>> import retrograd as torch
    >>> import retrograd.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     d = fwAD.make_dual(torch.tensor([1., 2.]), torch.tensor([1., 0.]))
    ...     fwAD.unpack_dual(d.exp()).tangent
    tensor([2.7183, 0.0000])
    """
    if level is None:
        level = 0 if _level.active else -1
    if level < 0:
        raise RuntimeError(NO_LEVEL_MSG)
    _check_float(tensor, "primal")
    _check_float(tangent, "tangent")
    if not _level.active or level != 0:
        raise RuntimeError("Invalid level given to _make_dual")
    if _get(tensor) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward gradient at the same "
                           "level 0 is not supported.")
    if _get(tangent) is not None:
        raise RuntimeError("Setting a forward grad that itself has a forward gradient at the same level0 is not "
                           "supported.")  # (PyTorch's text, no space before the level)
    _check_size(tensor, tangent)
    from .._ops.shape import view

    with _paused():
        out = view(tensor, tensor._data.shape)
    _set(out, _same_layout(tensor, tangent))
    return out


def _layout(a: np.ndarray) -> tuple:
    """(storage size, element strides, element offset) of ``a`` within its root array."""
    from .._storage import _root

    root = _root(a)
    item = a.itemsize
    off = (a.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // item
    return root.size, tuple(s // item for s in a.strides), off


def _same_layout(primal, tangent):
    """``tangent``, or a copy laid out in memory as ``primal`` is (PyTorch's make_dual rule).

    Views of a dual tensor (``as_strided`` included) are applied to its tangent too, so the
    tangent must address a storage of the same size with the same strides and offset.
    Empty tensors are left alone: their layout cannot matter.
    """
    p, t = primal._data, tangent._data
    if p.size == 0 or _layout(p) == _layout(t):
        return tangent
    if _registry()._batching is not None:
        # (vmap traces: the trace must see the tangent flow on, so no NumPy copy; batch elements
        # are views into the batch, whose layout no copy of one element can have)
        return tangent
    size, strides, off = _layout(p)
    root = np.zeros(size, dtype=t.dtype)
    arr = np.lib.stride_tricks.as_strided(root[off:], p.shape, tuple(s * t.itemsize for s in strides))
    arr[...] = t
    return _Tensor()._wrap(arr, False, None, 0)


def _check_size(t, tangent) -> None:
    if t._data.shape != tangent._data.shape:
        def s(shape):
            return "[" + ", ".join(map(str, shape)) + "]"
        raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {s(t._data.shape)} while the given "
                           f"forward gradient is of size {s(tangent._data.shape)}.")


def unpack_dual(tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """``(primal, tangent)`` of ``tensor`` at the open level; tangent None when it has none.

    >>> import retrograd as torch
    >>> import retrograd.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     fwAD.unpack_dual(torch.ones(2)).tangent is None
    True
    """
    if not isinstance(tensor, _Tensor()):
        raise TypeError(f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not {type(tensor).__name__}")
    if level is None:
        level = 0 if _level.active else -1
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    tangent = _get(tensor)
    if level != 0:
        if tangent is not None:  # (PyTorch checks the level only for a tensor that has a tangent)
            raise RuntimeError("Invalid level given to _fw_primal")
        tangent = None
    from .._ops.indexing import _alias
    from .._ops.shape import _as_view

    with _paused():  # the primal is a plain alias: no tangent
        primal = _as_view(_registry().apply(_alias, (tensor,)), tensor)
    return UnpackedDualTensor(primal, tangent)


# ---------------------------------------------------------------- propagation through ops
# View ops are linear and return NumPy views: applied to the tangent they give a view of
# it, so in-place writes to a base's tangent show in its views' tangents (and back).
_VIEW_OPS = frozenset({"view", "expand", "transpose", "t", "permute", "unsqueeze", "squeeze", "squeeze_dim",
                       "squeeze_dims", "select", "slice", "diagonal", "alias", "unfold"})


def _propagate(op, tensors: tuple, static, cast, out):
    """The op table's slow path while a level is open: give ``out`` its tangent(s)."""
    if not op.differentiable:
        return out
    tans = [_get(t) for t in tensors]
    if not any(tn is not None for tn in tans):
        return out
    outs = out if op.n_out != 1 else (out,)
    want = [i for i, o in enumerate(outs) if o._data.dtype.kind in "fc"]
    if not want:
        return out  # comparisons, argmax, indices: no tangent, as in PyTorch
    if op.name in _VIEW_OPS and len(tensors) == 1 and op.n_out == 1 and \
            np.may_share_memory(out._data, tensors[0]._data):
        tangent = _registry().apply(op, (tans[0],), static, cast)
        if np.may_share_memory(tangent._data, tans[0]._data):
            from .._views import register_view

            register_view(tangent, tans[0])  # (a view's tangent is a view of its base's tangent)
        _set(out, tangent)
        return out
    try:
        jvps = _jvp(op, tensors, tans, static, outs, want)
    except NotImplementedError as exc:
        if not str(exc).startswith("the derivative for"):
            raise
        # (no backward rule, so no tangent either: PyTorch's forward-AD wording)
        raise NotImplementedError(f"Trying to use forward AD with {op.name} that does not support it because it has "
                                  "not been implemented yet.") from None
    for i, jt in zip(want, jvps):
        _set(outs[i], jt)
    return out


def __getattr__(name: str):
    # ``_current_level``: the open level's number (0), or -1 outside any level, as in PyTorch
    if name == "_current_level":
        return 0 if _level.active else -1
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _jvp(op, tensors: tuple, tans: list, static, outs: tuple, want: list) -> list:
    """``J t`` for the outputs ``want`` of ``op``, from its backward rules alone.

    The rules give ``v_i = J_i^T u`` for a cotangent ``u`` that requires grad (ones: v is
    linear in u, and a few rules skip an output whose gradient is all zero); the map
    u -> v is linear with transpose t -> J t, which one backward pass through the rules'
    ops computes (``grad(v, u, grad_outputs=t)``).  Nothing is recorded for the op itself.
    Elementwise ops and matrix products skip that backward pass (``_jvp_direct``).
    """
    from .. import _creation  # (late: this package loads before the op table and Tensor)
    from .._ops import _registry as reg
    from .._ops.shape import _expand

    outer = _gstate.enabled
    # Reverse mode through the tangent (forward-over-reverse users): keep its graph to the
    # inputs, the output and the tangents when any of them requires grad.
    keep = outer and (any(t._requires_grad for t in tensors)
                      or any(tn is not None and tn._requires_grad for tn in tans))
    keep = keep or reg._batching is not None  # (vmap traces: the tangent must come from table ops)
    prev = _gstate.enabled
    _gstate.enabled = True
    try:
        jt = _NO
        if op.n_out == 1 and (op.batch == "elementwise" or op.name in _MULTILINEAR or op.name in _LINEAR
                              or op.name.startswith(("cat_", "stack_"))):
            _gstate.enabled = keep
            jt = _jvp_direct(op, tensors, tans, static, outs[0])
        if jt is _NO:
            _gstate.enabled = True  # (the rules' graph in u is what the trick differentiates)
            order, jts, direct = _jvp_by_rules(op, tensors, tans, static, outs, want, keep)
        else:
            order, jts, direct = [0], [jt], {}
        res = []
        in_dtypes = {t._data.dtype for t in tensors}
        for i, jt in zip(order, jts):
            if i in direct:
                jt = direct[i] if jt is None else jt + direct[i]
                if any(jt is tn for tn in tans):
                    jt = jt.clone()  # (an input's tangent passed through: the output's must be its own)
            od = outs[i]._data
            # PyTorch's formulas promote a primal's dtype with its tangent's, except in conversions
            dt = od.dtype
            if dt in in_dtypes:
                dt = np.result_type(dt, *[tn._data.dtype for tn in tans if tn is not None])
            if jt is None:  # nothing flows (a piecewise-constant op): a zero tangent, as PyTorch
                jt = _creation.zeros(od.shape, dtype=_dtype(dt))
            else:
                if jt._data.shape != od.shape:
                    jt = reg.apply(_expand, (jt,), {"shape": od.shape}).contiguous()
                if jt._data.dtype != dt:
                    jt = jt.to(_dtype(dt))
            res.append(jt)
        return res
    finally:
        _gstate.enabled = prev


# Ops linear in each tensor input separately (matrix products): J t = sum over the inputs of the
# op with that input replaced by its tangent.  (Not convolution: its forward fills a memo that
# its own backward reads.)
_MULTILINEAR = frozenset({"mm", "mv", "dot", "matmul_batched", "linear", "linear_weight_grad", "conv_weight",
                          "conv_transpose", "einsum_binary"})


# Ops linear in their input(s) jointly: J t is the op applied to the tangents (zeros for inputs
# without one).
_LINEAR = frozenset({"sum", "sum_dim", "mean", "mean_dim", "sum_to", "expand_grad", "reshape_copy", "cumsum", "flip",
                     "roll", "repeat", "narrow_copy", "diag_embed", "tril", "triu", "trace", "clone"})
_NO = object()  # _jvp_direct's answer when its formula does not apply


def _jvp_direct(op, tensors: tuple, tans: list, static, out):
    """``J t`` without a backward pass, for the ops whose table entry makes it a formula:

    * elementwise ops (declared ``batch="elementwise"``: each output element depends on the
      same element of each input, so each input's Jacobian is diagonal, J = J^T): the
      backward rule with the tangent (broadcast to the output) as its cotangent (unless the
      rule reduces to the input's shape: then ``_NO``);
    * matrix products (``_MULTILINEAR``): the op applied with one input replaced by its tangent;
    * linear ops (``_LINEAR``, cat, stack): the op applied to the tangents.
    """
    from .._ops import _registry as reg
    from .._ops.shape import _expand

    shape = out._data.shape
    if op.name in _LINEAR or op.name.startswith(("cat_", "stack_")):
        from .. import _creation

        ts = tuple(_creation.zeros_like(t) if tn is None else tn for t, tn in zip(tensors, tans))
        acc = reg.apply(op, ts, static)
        if any(tn is not None and np.may_share_memory(acc._data, tn._data) for tn in tans):
            acc = acc.clone()
        return acc
    acc = None
    for k, tn in enumerate(tans):
        if tn is None:
            continue
        if op.name in _MULTILINEAR:
            v = reg.apply(op, tensors[:k] + (tn,) + tensors[k + 1:], static)
        else:
            rule = op.rules[k]
            if rule is None:
                continue
            if tn._data.shape != shape:
                tn = reg.apply(_expand, (tn,), {"shape": shape})
            v = rule(*[_rule_arg(n, tn, op, tensors, static, (out,)) for n in op.rule_args[k]])
            if v is None:
                continue
            if v._data.shape != shape:
                return _NO  # (the rule reduced its result to a broadcast input's shape: not J t)
        acc = v if acc is None else acc + v
    if acc is not None and any(tn is not None and np.may_share_memory(acc._data, tn._data) for tn in tans):
        acc = acc.clone()  # (the output's tangent must be its own, not a view of an input's)
    return acc


def _jvp_by_rules(op, tensors: tuple, tans: list, static, outs: tuple, want: list, keep: bool) -> tuple:
    """(outputs, their J t, tangents passed straight through) by the double-vjp trick (see ``_jvp``)."""
    from .._ops import _registry as reg
    from .._ops.shape import _expand
    from .._tensor import Tensor
    from . import grad as _grad

    wrap = Tensor._wrap
    try:
        us = {}
        gs = []
        for i, o in enumerate(outs):
            od = o._data
            if i in want:
                u = us[i] = wrap(np.ones(od.shape, od.dtype), True, None, 0)
                if reg._batching is not None:
                    reg._batching.internal(u)  # (vmap's replay: a constant, not a leaf to differentiate)
            else:  # (what the engine gives a multi-output rule for an output without gradient)
                u = wrap(np.zeros(od.shape, od.dtype), False, None, 0)
            gs.append(u)
        g = gs[0] if op.n_out == 1 else gs
        vs, ts = [], []
        direct = {}  # a rule that returns its cotangent as-is: its tangent passes straight through
        for k, (rule, names) in enumerate(zip(op.rules, op.rule_args)):
            tn = tans[k]
            if rule is None or tn is None:
                continue
            v = rule(*[_rule_arg(n, g, op, tensors, static, outs) for n in names])
            if not isinstance(v, Tensor) or not v._requires_grad:
                continue  # (None, or a constant: no dependence on u)
            if v._data.dtype != tn._data.dtype:
                tn = tn.to(_dtype(v._data.dtype))
            if v._data.shape != tn._data.shape:  # (the rules leave broadcast grads unreduced)
                tn = reg.apply(_expand, (tn,), {"shape": v._data.shape})
            hit = next((i for i, u in us.items() if v is u), None)
            if hit is not None:
                direct[hit] = tn if hit not in direct else direct[hit] + tn
            else:
                vs.append(v)
                ts.append(tn)
        _gstate.enabled = keep
        order = list(us)
        jts = list(_grad(vs, [us[i] for i in order], ts, create_graph=keep, allow_unused=True)) \
            if vs else [None] * len(order)
        return order, jts, direct
    finally:
        _gstate.enabled = True


def _rule_arg(name: str, g, op, tensors: tuple, static, outs: tuple):
    """What the engine would pass a backward rule for the parameter ``name``."""
    if name == "g":
        return g
    if name == "out":
        return outs[0] if op.n_out == 1 else list(outs)
    if name in op.inputs:
        return tensors[op.inputs.index(name)]
    if static and name in static:
        return static[name]
    inp, _, kind = name.rpartition("_")
    t = tensors[op.inputs.index(inp)]
    return t._data.shape if kind == "shape" else _dtype(t._data.dtype)


def _dtype(npd):
    from .._dtype import from_numpy_dtype

    return from_numpy_dtype(npd)


def _inplace(op, target, others: tuple, static, run: Callable):
    """``apply_inplace`` while a level is open: the tangent of the new value goes into ``target``'s."""
    tensors = (target,) + others
    tans = [_get(t) for t in tensors]
    if not op.differentiable or not any(tn is not None for tn in tans) or target._data.dtype.kind not in "fc":
        with _paused():
            return run(op, target, others, static)
    # Paused: the ops below compute the tangent and must not propagate tangents themselves.
    with _paused():
        # (before the write: the tangent reads the old value; the rules may read the result too)
        if op.name in _VIEW_OPS:
            new = _registry().apply(op, (tans[0],), static)
        else:
            new = _jvp(op, tensors, tans, static, (_registry().apply(op, tensors, static),), [0])[0]
        res = run(op, target, others, static)
        _write_tangent(target, new, _get_stored(target), _get_stored(target._base) if target._base is not None
                       else None)
    return res


def _get_stored(t):
    """``_get`` ignoring pauses (the tangents an in-place write updates while paused)."""
    e = t.__dict__.get("_fw_tangent")
    return None if e is None or e[0] != _level.gen else e[1]


def _write_tangent(target, new, old, base_tangent) -> None:
    """Give ``target`` the tangent ``new`` in place, as PyTorch does: into its existing tangent
    ``old`` (which its views' tangents share), else into its base's (made zero first if need be)."""
    from .._tensor import bump_version

    plain = not new._requires_grad
    if old is None and plain and target._base is not None:
        old = _view_tangent(target, base_tangent)
    if old is not None and plain and not old._requires_grad and old._data.shape == target._data.shape \
            and old._data.flags.writeable:
        np.copyto(old._data, new._data, casting="unsafe")
        bump_version(old)
        _set(target, old)
        return
    _set(target, new.to(_dtype(target._data.dtype)) if new._data.dtype != target._data.dtype else new)


def _view_tangent(view, bt):
    """A tangent for ``view`` that is the matching view of its base's tangent ``bt`` (made zero
    when None); None when the memory layouts differ."""
    base = view._base
    bd = base._data
    if bt is None:
        bt = _Tensor()._wrap(np.zeros_like(bd), False, None, 0)
        _set(base, bt)
    td = bt._data
    if td.dtype != bd.dtype or td.strides != bd.strides or bt._requires_grad:
        return None
    vd = view._data
    offset = vd.__array_interface__["data"][0] - bd.__array_interface__["data"][0]
    flat = np.lib.stride_tricks.as_strided(td, shape=(td.nbytes // td.itemsize,), strides=(td.itemsize,)) \
        if td.flags.c_contiguous else None
    if flat is None or offset % td.itemsize:
        return None
    data = np.lib.stride_tricks.as_strided(flat[offset // td.itemsize:], shape=vd.shape, strides=vd.strides)
    return _Tensor()._wrap(data, False, None, 0)


# ---------------------------------------------------------------- custom Functions
def _input_tangents(args: tuple) -> list | None:
    """Per ``Function.apply`` argument, its tangent (zeros for float tensors without one, None
    for the rest); None when no argument has a tangent."""
    if not _level.active or _level.paused:
        return None
    T = _Tensor()
    tans = [_get(a) if isinstance(a, T) else None for a in args]
    if not any(tn is not None for tn in tans):
        return None
    from .. import _creation

    for i, a in enumerate(args):
        if tans[i] is None and isinstance(a, T) and a._data.dtype.kind in "fc":
            tans[i] = _creation.zeros_like(a)
    return tans


def _custom_jvp(cls, ctx, args: tuple, tans: list, outputs: tuple) -> None:
    """Run ``cls.jvp`` and give each output the tangent it returns, with PyTorch's checks: no
    tangent for a non-differentiable output, an input modified in place keeps its own tangent
    (modified in place too), and a view output gets a view of its base's tangent."""
    T = _Tensor()
    versions = [None if tn is None else tn._version for tn in tans]
    ctx._in_jvp = True
    try:
        with _paused():
            result = cls.jvp(ctx, *tans)
    finally:
        ctx._in_jvp = False
    if not isinstance(result, tuple):
        result = (result,)
    if len(result) != len(outputs):
        raise RuntimeError(f"Function's jvp returned an invalid number of forward gradients (expected "
                           f"{len(outputs)} but got {len(result)})")
    dirty = {id(t) for t in (ctx.dirty_tensors or ())}
    arg_pos = {id(a): k for k, a in enumerate(args) if isinstance(a, T)}
    non_diff = ctx.__dict__.get("_jvp_non_diff", ())
    for i, (o, tn) in enumerate(zip(outputs, result)):
        if tn is not None and not isinstance(tn, T):
            raise RuntimeError(f"expected Variable or None (got {type(tn).__name__}) for grad output {i}.")
        differentiable = isinstance(o, T) and o._data.dtype.kind in "fc" and i not in non_diff
        if not differentiable:
            if tn is not None:
                raise RuntimeError(f"Function's jvp returned a gradient at position {i}, but  the corresponding forward "
                                   "output is not a differentiable Tensor.You should return None at that position "
                                   "instead.")
            continue
        if tn is None:
            continue
        k = arg_pos.get(id(o))
        if k is not None and id(o) in dirty:
            if tn is not tans[k] or tn._version == versions[k]:  # (returned, and written in place)
                raise RuntimeError("An inplace custom Function is not modifying the forward mode gradients inplace. If "
                                   "the forward is modifying an input inplace, then the jvp function must modify the "
                                   "corresponding gradient inplace.")
        elif k is not None or o._base is not None:
            _check_view_tangent(o, tn, args, tans)
        _check_size(o, tn)
        _set(o, tn)


def _check_view_tangent(o, tn, args: tuple, tans: list) -> None:
    """A view output (or an input returned as-is) needs a tangent that is a view of the tangent
    given for the input it views (of that tangent's base, when the input is itself a view)."""
    T = _Tensor()
    if tn._base is None:
        raise RuntimeError("A custom Function's forward is returning a view (or an input as-is) but the jvp is not "
                           "returning a view.")
    for a, in_t in zip(args, tans):
        if isinstance(a, T) and in_t is not None and np.may_share_memory(o._data, a._data):
            if in_t._base is None:
                if tn._base is not in_t:
                    raise RuntimeError("A custom Function is returning a view but the jvp is not returning a view of "
                                       "the given grad input.")
            elif tn._base is not in_t._base:
                raise RuntimeError("A custom Function is returning a view but the jvp is not returning a view of the "
                                   "same base as the given grad input.")
            return


class _Hook:
    """What the op table calls while a level is open (see ``_ops._registry._set_forward_ad``)."""

    propagate = staticmethod(_propagate)
    inplace = staticmethod(_inplace)


_HOOK = _Hook()
