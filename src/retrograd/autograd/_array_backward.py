"""The first-order backward of an op with a declared fast path, compiled per op into one function.

An op declared with ``fast={input: fn}`` (see ``_ops/_registry.primitive``) has, for each
differentiable input, a NumPy function computing what the input's rule computes.  When no
graph is being recorded the engine calls it on the arrays instead of running the rule on
Tensors.  Interpreting the op's argument plan for every node costs more than the arithmetic
on small tensors, so each such op gets a function generated from its plan, for example for
``mul`` (saved ``a`` and ``b``)::

    def backward(node, grads, needed):
        g = grads[0]
        gd = g._data
        dt = gd.dtype
        saved = node.saved
        nf = node._next
        use0 = nf[0] is not None and (needed is None or needed[0])
        use1 = ...
        if use1:                            # saved input 'a', read by the rule of input 1
            v = saved[0]; ver = saved[1]    # (its version checked, as the rule's would be)
            ...
            if a0.dtype != dt: return None  # not an array of the gradient's dtype: the rules run
        ...
        out = [None, None]
        if use0:
            r = fast0(gd, a1)
            out[0] = g if r is gd else <r wrapped in a Tensor, inline>
        ...
        return out

It returns None when some argument does not qualify (a saved differentiable input or output
of another dtype than the gradient, a Tensor or NumPy-scalar static): the node then runs its
rules on Tensors as usual.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from . import grad_mode
from .graph import SavedTensor

__all__ = ["compile_fast_backward"]

ARG_G, ARG_SAVED, ARG_STATIC, ARG_SHAPE = 0, 1, 2, 3  # the plan kinds fast paths may use (see _registry)


def _load(saved: tuple, j: int, node):
    """The array of saved entry ``j`` held as a SavedTensor (an output, a hooked save)."""
    return saved[j].unpack_data(node)


def _modified(t, version: int, node) -> None:
    SavedTensor._of_input(t, version)._raise_modified(node)


def compile_fast_backward(op, tensor_cls: type) -> Callable:
    """``backward(node, grads, needed) -> list | None`` for ``op``'s fast functions (``op.fast``).

    ``tensor_cls``: the Tensor class; results are wrapped inline, as ``Tensor._wrap`` does
    (a 0-d NumPy result is a scalar: made a 0-d array again).
    """
    from .._ops._registry import _plan_arg

    fns = op.fast
    plans = tuple(tuple(_plan_arg(a, op) for a in _params(f)) if f is not None else () for f in fns)
    # saved entries whose dtype must be the gradient's: the output and the differentiable inputs
    # (a loss's integer target, say, is passed as it is)
    must_match = {2 * k for k, name in enumerate(op.saved_names)
                  if name == "out" or op.rules[op.inputs.index(name)] is not None}
    multi = op.n_out > 1
    lines = ["def backward(node, grads, needed):"]
    if multi:  # (a multi-output op's fast functions take the list of output gradients, zeros for None)
        lines += ["    gd = [t._data for t in _materialize(grads, node.out_meta)]",
                  "    dt = gd[0].dtype"]
    else:
        lines += ["    g = grads[0]",
                  "    gd = g._data",
                  "    dt = gd.dtype"]
    lines += ["    saved = node.saved",
              "    static = node.static",
              "    nf = node._next"]
    # Which fast functions run this time: a saved input is loaded (and its version checked) only when
    # one that runs reads it, as PyTorch only checks what the needed derivatives use (``y = x * c``
    # with a constant ``c``, then ``x.add_(1)``, must still backpropagate).
    users: dict = {}  # plan entry -> indices of the functions reading it
    for i, plan in enumerate(plans):
        if fns[i] is not None:
            for entry in plan:
                users.setdefault(entry, []).append(i)
    for i, f in enumerate(fns):
        if f is not None:
            lines.append(f"    use{i} = nf[{i}] is not None and (needed is None or needed[{i}])")
    names: dict = {}  # plan entry -> local variable
    for plan in plans:
        for kind, key in plan:
            if kind == ARG_G or (kind, key) in names:
                continue
            var = f"a{len(names)}"
            names[(kind, key)] = var
            if kind == ARG_SAVED:  # (SavedTensor.unpack_data inlined for a directly saved input)
                guard = " or ".join(f"use{i}" for i in users[(kind, key)])
                lines += [f"    if {guard}:",
                          f"        v = saved[{key}]",
                          f"        ver = saved[{key + 1}]",
                          "        if ver is None:",
                          f"            {var} = _load(saved, {key}, node)",
                          "        else:",
                          "            vc = v._vc",
                          "            if vc is not None and vc[0] != ver:",
                          "                _modified(v, ver, node)",
                          f"            {var} = v._data"]
                if key in must_match:
                    lines += [f"        if {var}.dtype != dt:",
                              "            return None"]
                lines += ["    else:",
                          f"        {var} = None"]
            elif kind == ARG_STATIC:
                lines += [f"    {var} = static[{key!r}]",
                          f"    if isinstance({var}, _not_plain):",
                          "        return None"]
            elif kind == ARG_SHAPE:
                lines.append(f"    {var} = node._in_meta[{key}][0]")
            else:
                raise ValueError(f"{op.name}: a fast path cannot use plan kind {kind}")
    lines.append(f"    out = [None] * {len(fns)}")
    env = {"_load": _load, "_modified": _modified, "_new": object.__new__, "_materialize": _materialize,
           "_T": tensor_cls, "_nd": np.ndarray, "_array": np.array, "_gen": np.generic, "_state": grad_mode.state,
           "_not_plain": (tensor_cls, np.generic)}
    for i, (f, plan) in enumerate(zip(fns, plans)):
        if f is None:
            continue
        env[f"fast{i}"] = f
        args = ", ".join("gd" if kind == ARG_G else names[(kind, key)] for kind, key in plan)
        lines.append(f"    if use{i}:")
        lines.append(f"        r = fast{i}({args})")
        if not multi:  # (an identity function hands the incoming Tensor on, as the Tensor path does)
            lines += ["        if r is gd:",
                      f"            out[{i}] = g",
                      "            r = None"]
        lines += ["        if r is not None:",
                  "            t = _new(_T)",
                  "            t._data = r if type(r) is _nd else r.__array__() if isinstance(r, _gen) else _array(r)",
                  "            t._requires_grad = False",
                  "            t._grad_fn = None",
                  "            t._output_nr = 0",
                  "            t._vc = None",
                  "            if _state.inference:",
                  "                t.__dict__['_inference'] = True",
                  f"            out[{i}] = t"]
    lines.append("    return out")
    exec(compile("\n".join(lines), f"<fast backward of {op.name}>", "exec"), env)
    return env["backward"]


def _params(f) -> tuple:
    import inspect

    return tuple(inspect.signature(f).parameters)


def _materialize(grads, out_meta):
    from .graph import _materialize as m

    return m(grads, out_meta)
