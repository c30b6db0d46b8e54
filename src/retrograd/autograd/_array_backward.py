"""First-order backward of ``array_rules`` ops, compiled per op into one plain function.

An op declared with ``array_rules=True`` (see ``_ops/_registry.primitive``) has rules that
are plain arithmetic, so when no graph is being recorded they may run on the NumPy arrays
directly.  Interpreting the op's argument plan for every node costs more than the
arithmetic on small tensors, so each such op gets a function generated from its plan,
for example for ``mul`` (saved ``a`` and ``b``)::

    def backward(node, g, needed):
        gd = g._data
        dt = gd.dtype
        saved = node.saved
        nf = node._next
        a0 = _load(saved, 0, node, dt)      # the array of saved input 'a', version-checked
        if a0 is None: return None          # not an array of the gradient's dtype
        a1 = _load(saved, 2, node, dt)
        if a1 is None: return None
        out = [None, None]
        if nf[0] is not None and (needed is None or needed[0]):
            r = rule0(gd, a1)
            out[0] = g if r is gd else <r wrapped in a Tensor, inline>
        ...
        return out

It returns None when some argument does not qualify (a mixed-dtype op, a tensor-valued
static): the node then runs its rules on Tensors as usual.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from . import grad_mode
from .graph import SavedTensor

__all__ = ["compile_array_backward"]

ARG_G, ARG_SAVED, ARG_STATIC, ARG_SHAPE = 0, 1, 2, 3  # the plan kinds array rules may use (see _registry)


def _load(saved: tuple, j: int, node, dt):
    """The array of saved entry ``j`` (an (entry, version) pair), or None if not of dtype ``dt``."""
    v = saved[j]
    ver = saved[j + 1]
    if ver is None:
        a = v.unpack_data(node)
    else:
        vc = v._vc
        if (0 if vc is None else vc[0]) != ver:
            SavedTensor._of_input(v, ver)._raise_modified(node)
        a = v._data
    return a if a.dtype == dt else None


def _modified(t, version: int, node) -> None:
    SavedTensor._of_input(t, version)._raise_modified(node)


def _number(static: dict, key: str):
    """A static argument usable in array arithmetic (a Python number), else None."""
    v = static[key]
    t = type(v)
    return v if t is float or t is int else None


def compile_array_backward(rules: tuple, arg_plan: tuple, tensor_cls: type, strict: bool = True) -> Callable:
    """``backward(node, g, needed) -> list | None`` for an op's array rules and plan.

    ``tensor_cls``: the Tensor class; results are wrapped inline, as ``Tensor._wrap`` does
    (a 0-d NumPy result is a scalar: made a 0-d array again).  ``strict`` (rules that are
    plain arithmetic): every saved array must have the gradient's dtype and every static
    must be a number, else None (the Tensor rules run).  NumPy twins written for an op
    (not strict) take their arguments as they are; an input's shape comes from the node.
    """
    lines = ["def backward(node, g, needed):",
             "    gd = g._data",
             "    dt = gd.dtype",
             "    saved = node.saved",
             "    static = node.static",
             "    nf = node._next"]
    # Which rules run this time: a saved input is loaded (and its version checked) only when a
    # rule that runs reads it, as PyTorch only checks what the needed derivatives use (``y = x * c``
    # with a constant ``c``, then ``x.add_(1)``, must still backpropagate).
    users: dict = {}  # plan entry -> indices of the rules reading it
    for i, (rule, plan) in enumerate(zip(rules, arg_plan)):
        if rule is not None:
            for entry in plan:
                users.setdefault(entry, []).append(i)
    for i, rule in enumerate(rules):
        if rule is not None:
            lines.append(f"    use{i} = nf[{i}] is not None and (needed is None or needed[{i}])")
    names: dict = {}  # plan entry -> local variable
    for plan in arg_plan:
        for kind, key in plan:
            if kind == ARG_G or (kind, key) in names:
                continue
            var = f"a{len(names)}"
            names[(kind, key)] = var
            if kind == ARG_SAVED:  # (_load inlined for a directly saved input)
                guard = " or ".join(f"use{i}" for i in users[(kind, key)])
                lines += [f"    if {guard}:",
                          f"        v = saved[{key}]",
                          f"        ver = saved[{key + 1}]",
                          "        if ver is None:",
                          f"            {var} = _load(saved, {key}, node, dt)",
                          "        else:",
                          "            vc = v._vc",
                          "            if vc is not None and vc[0] != ver:",
                          "                _modified(v, ver, node)",
                          f"            {var} = v._data if {'v._data.dtype == dt' if strict else 'True'} else None",
                          f"        if {var} is None:",
                          "            return None"]
                continue
            elif kind == ARG_STATIC:
                lines.append(f"    {var} = _number(static, {key!r})" if strict else f"    {var} = static[{key!r}]")
                if not strict:
                    continue  # (a static may be None)
            elif kind == ARG_SHAPE and not strict:
                lines.append(f"    {var} = node._in_meta[{key}][0]")
                continue
            else:
                raise ValueError(f"array rules cannot use plan kind {kind}")
            lines.append(f"    if {var} is None:")
            lines.append("        return None")
    lines.append(f"    out = [None] * {len(rules)}")
    env = {"_load": _load, "_number": _number, "_modified": _modified, "_new": object.__new__,
           "_T": tensor_cls, "_nd": np.ndarray, "_array": np.array, "_state": grad_mode.state}
    for i, (rule, plan) in enumerate(zip(rules, arg_plan)):
        if rule is None:
            continue
        env[f"rule{i}"] = rule
        args = ", ".join("gd" if kind == ARG_G else names[(kind, key)] for kind, key in plan)
        lines.append(f"    if use{i}:")
        lines.append(f"        r = rule{i}({args})")
        # (an identity rule hands the incoming Tensor on, as the Tensor path does)
        lines += ["        if r is gd:",
                  f"            out[{i}] = g",
                  "        else:",
                  "            t = _new(_T)",
                  "            t._data = r if type(r) is _nd else _array(r)",
                  "            t._requires_grad = False",
                  "            t._grad_fn = None",
                  "            t._output_nr = 0",
                  "            t._vc = None",
                  "            if _state.inference:",
                  "                t.__dict__['_inference'] = True",
                  f"            out[{i}] = t"]
    lines.append("    return out")
    exec(compile("\n".join(lines), "<array backward>", "exec"), env)
    return env["backward"]
