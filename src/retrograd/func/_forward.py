"""Forward-mode transforms: ``jvp``, ``linearize``, ``jacfwd`` and ``hessian`` (PyTorch's ``torch.func``).

They run on ``autograd.forward_ad``'s dual numbers: each primal is paired with its tangent
(``make_dual``), ``func`` runs once, and every op on the way computes its output's tangent
(``J t``) from its table entry; ``unpack_dual`` reads the results back.  ``jacfwd`` pushes the
standard basis through ``jvp`` under ``vmap`` (one forward pass per basis vector, batched where
vmap has batching rules), as PyTorch does; ``hessian`` is ``jacfwd(jacrev(f))``
(forward-over-reverse: the reverse pass inside runs on dual numbers).

retrograd has a single dual level (PyTorch's ``forward_ad`` does too); a ``jvp`` nested in
another forward transform (``jvp(jvp(f))``, ``jacfwd(jacfwd(f))``) therefore computes its
product by differentiating the vector-Jacobian product ``u -> J^T u`` (linear in ``u``) against
the tangent: two reverse passes, the same values.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from .. import _creation
from .._ops import split as _split
from .._tensor import Tensor
from ..autograd import forward_ad as fwAD
from ..autograd import grad_mode
from ._core import (Scope, autograd_grad, check_argnums, replace_argnums, running_user_function, slice_argnums,
                    split_outputs, undo_tensors)
from ._pytree import tree_flatten, tree_unflatten

__all__ = ["jvp", "linearize", "jacfwd", "hessian"]

_JVP = "jvp(f, primals, tangents)"


def _check_tensor_list(flat: list, argname: str) -> None:
    if len(flat) == 0:
        raise RuntimeError(f"{_JVP}: Expected {argname} to contain at least one Tensor.")
    for x in flat:
        if not isinstance(x, Tensor):
            raise RuntimeError(f"{_JVP}: Expected {argname} to only contain Tensors, got {type(x)}")


def _jvp_impl(func: Callable, primals, tangents, has_aux: bool, argnums=None, strict: bool = False):
    """``(primals_out, tangents_out[, aux])``; with ``argnums`` the tangents are for those primals only."""
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    if argnums is not None:
        argnums = check_argnums(argnums, len(primals))
        diff = (primals[argnums],) if isinstance(argnums, int) else slice_argnums(primals, argnums)
    else:
        diff = primals
    flat_p, p_spec = tree_flatten(diff)
    flat_t, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(f"{_JVP}: Expected primals and tangents to have the same python structure. For example, "
                           "if primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
                           f"{p_spec!r} and tangents with structure {t_spec!r}")
    _check_tensor_list(flat_p, "primals")
    _check_tensor_list(flat_t, "tangents")
    for p, t in zip(flat_p, flat_t):
        if not (p.is_floating_point() or p.is_complex()):
            raise ValueError(f"Expected primal to be floating point or complex, but got: {p.dtype}")
        if p.shape != t.shape:
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of the "
                               f"original Tensor, this is not supported. Tensor is of size {list(p.shape)} while "
                               f"the given forward gradient is of size {list(t.shape)}.")
    if fwAD._level.active:  # (nested in another forward transform: see the module docstring)
        return _jvp_by_reverse(func, primals, p_spec, flat_p, flat_t, has_aux, argnums, strict)

    def build_args(new: list):
        new = tree_unflatten(new, p_spec)
        if argnums is None:
            return new
        return replace_argnums(primals, argnums, new[0] if isinstance(argnums, int) else new)

    with fwAD._set_fwd_grad_enabled(True), fwAD.dual_level():
        duals = [fwAD.make_dual(p, t) for p, t in zip(flat_p, flat_t)]
        with running_user_function():
            out = func(*build_args(duals))
        flat_out, out_spec, aux = split_outputs(_JVP, out, has_aux, Scope())
        prim, tans = [], []
        for o in flat_out:
            p, t = fwAD.unpack_dual(o)
            if t is None:
                if strict:
                    raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is independent of "
                                       "the inputs. This is not allowed with strict=True.")
                t = _creation.zeros_like(p)
            prim.append(p)
            tans.append(t)
    primals_out, tangents_out = tree_unflatten(prim, out_spec), tree_unflatten(tans, out_spec)
    if has_aux:
        return primals_out, tangents_out, aux
    return primals_out, tangents_out


def _jvp_by_reverse(func, primals, p_spec, flat_p, flat_t, has_aux, argnums, strict):
    """``jvp`` inside an open dual level: J t as the derivative of ``u -> J^T u`` against ``t``."""
    scope = Scope()
    with grad_mode.enable_grad():
        handles = [scope.make_diff(x) for x in flat_p]
        new = tree_unflatten(handles, p_spec)
        if argnums is None:
            args = new
        else:
            args = replace_argnums(primals, argnums, new[0] if isinstance(argnums, int) else new)
        with running_user_function():
            out = func(*args)
        flat_out, out_spec, aux = split_outputs(_JVP, out, has_aux, scope)
        live = [i for i, o in enumerate(flat_out) if o.requires_grad and (o.is_floating_point() or o.is_complex())]
        if strict and len(live) != len(flat_out):
            raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is independent of "
                               "the inputs. This is not allowed with strict=True.")
        keep = scope.keep_graph(flat_out) or (scope.outer_enabled and any(t.requires_grad for t in flat_t))
        res: list = [None] * len(flat_out)
        if live:
            # u^T J is linear in u, so any u gives the same derivative; zeros keep inf/nan out.
            us = [scope.own_leaf(_creation.zeros_like(flat_out[i]).requires_grad_(True)) for i in live]
            vj = autograd_grad([flat_out[i] for i in live], handles, us, create_graph=True)
            jt = autograd_grad(vj, us, list(flat_t), create_graph=keep, retain_graph=keep)
            for i, g in zip(live, jt):
                res[i] = g
        tans = [_creation.zeros_like(o) if r is None else r for o, r in zip(flat_out, res)]
    primals_out = tree_unflatten([scope.finish(o) for o in flat_out], out_spec)
    tangents_out = tree_unflatten([scope.finish(t) for t in tans], out_spec)
    if has_aux:
        return primals_out, tangents_out, undo_tensors(scope, aux)
    return primals_out, tangents_out


def jvp(func: Callable, primals: tuple, tangents: tuple, *, strict: bool = False, has_aux: bool = False):
    """``(func(*primals), J @ tangents)``: the Jacobian-vector product, in forward mode.

    ``primals`` must be a tuple (``func(*primals)`` is called) and ``tangents`` must have the
    same structure.  One forward pass on dual numbers (``autograd.forward_ad``).

    >>> import retrograd as torch
    >>> torch.func.jvp(lambda x: x ** 2, (torch.tensor([1., 2.]),), (torch.ones(2),))
    (tensor([1., 4.]), tensor([2., 4.]))
    """
    return _jvp_impl(func, primals, tangents, has_aux, strict=strict)


def linearize(func: Callable, *primals) -> tuple[Any, Callable]:
    """``(func(*primals), jvp_fn)`` where ``jvp_fn(*tangents)`` is the Jacobian-vector product at ``primals``.

    (retrograd re-runs ``func`` in forward mode on each ``jvp_fn`` call; PyTorch traces it once.)

    >>> import retrograd as torch
    >>> out, jvp_fn = torch.func.linearize(torch.sin, torch.tensor(0.))
    >>> jvp_fn(torch.tensor(2.))
    tensor(2.)
    """
    flat_p, p_spec = tree_flatten(primals)
    for x in flat_p:
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    with grad_mode.no_grad():
        with running_user_function():
            out = func(*primals)
    leaves, spec = tree_flatten(out)
    out = tree_unflatten([o.detach() if isinstance(o, Tensor) else o for o in leaves], spec)

    def jvp_fn(*tangents):
        flat_t, t_spec = tree_flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(f"Expected the tangents {t_spec!r} to have the same argspec as the primals "
                               f"{p_spec!r}")
        for idx, (t, p) in enumerate(zip(flat_t, flat_p)):
            if not isinstance(t, Tensor) or t.shape != p.shape:
                shape = t.shape if isinstance(t, Tensor) else type(t)
                raise RuntimeError(f"tangent:{idx} with shape {shape} in flattened pytree doesn't match the shape "
                                   f"{p.shape} of the corresponding primal.")
            if t.dtype != p.dtype:
                raise RuntimeError(f"tangent:{idx} with dtype {t.dtype} in flattened pytree doesn't match the dtype "
                                   f"{p.dtype} of the corresponding primal.")
        return _jvp_impl(func, tuple(primals), tuple(tangents), False)[1]

    return out, jvp_fn


def _error_if_complex(func_name: str, args, is_input: bool) -> None:
    for idx, arg in enumerate(tree_flatten(args)[0]):
        if isinstance(arg, Tensor) and arg.is_complex():
            kind = "inputs" if is_input else "outputs"
            raise RuntimeError(f"{func_name}: Expected all {kind} to be real but received complex tensor at "
                               f"flattened input idx: {idx}")


def _standard_basis(flat: list, numels: list) -> list:
    """One basis tensor per primal, shaped ``(sum(numels),) + primal.shape``: side by side, the identity."""
    total = sum(numels)
    out, start = [], 0
    for p, n in zip(flat, numels):
        eye = _creation.zeros((total, n), dtype=p.dtype)
        eye._data[start:start + n] = _creation.eye(n, dtype=p.dtype)._data
        out.append(eye.view((total,) + tuple(p.shape)))
        start += n
    return out


def jacfwd(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False, *,
           randomness: str = "error") -> Callable:
    """A function computing the Jacobian of ``func`` w.r.t. argument(s) ``argnums`` in forward mode.

    ``vmap`` of ``jvp`` over the standard basis of the inputs, as in PyTorch: each leaf of the
    result has shape ``out.shape + input.shape``.

    >>> import retrograd as torch
    >>> torch.func.jacfwd(lambda x: x.sum() * x)(torch.tensor([1., 2.]))
    tensor([[4., 1.],
            [2., 5.]])
    """
    from ._jac import _check_randomness_arg
    from ._vmap import vmap

    @functools.wraps(func)
    def wrapper(*args):
        _check_randomness_arg(randomness)
        _error_if_complex("jacfwd", args, is_input=True)
        if argnums is None:
            primals = args
        else:
            nums = check_argnums(argnums, len(args))
            primals = (args[nums],) if isinstance(nums, int) else slice_argnums(args, nums)
        flat_p, p_spec = tree_flatten(primals)
        numels = [p.numel() for p in flat_p]
        basis = tree_unflatten(_standard_basis(flat_p, numels), p_spec)

        def push_jvp(basis):
            output = _jvp_impl(func, args, basis, has_aux, argnums=argnums)
            _error_if_complex("jacfwd", output[0], is_input=False)
            return (output[1], output[2]) if has_aux else output[1]

        results = vmap(push_jvp, randomness=randomness)(basis)
        aux = None
        if has_aux:
            results, aux = results
            flat_aux, aux_spec = tree_flatten(aux)
            aux = tree_unflatten([a[0] for a in flat_aux], aux_spec)
        jac_outs, spec = tree_flatten(results)
        jac_outs_ins = []
        for jac_out in jac_outs:
            pieces = _split(jac_out.movedim(0, -1), numels, dim=-1)
            row = []
            for p, piece in zip(flat_p, pieces):
                row.append(piece.squeeze(-1) if p.dim() == 0 else piece.unflatten(-1, p.shape))
            jac_outs_ins.append(tree_unflatten(row, p_spec))
        if isinstance(argnums, int):
            jac_outs_ins = [j[0] for j in jac_outs_ins]
        res = tree_unflatten(jac_outs_ins, spec)
        return (res, aux) if has_aux else res

    return wrapper


def hessian(func: Callable, argnums: int | tuple[int, ...] = 0) -> Callable:
    """A function computing the Hessian of ``func`` w.r.t. argument(s) ``argnums``, forward-over-reverse
    (``jacfwd(jacrev(func, argnums), argnums)``).

    >>> import retrograd as torch
    >>> torch.func.hessian(lambda x: (x ** 3).sum())(torch.tensor([1., 2.]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    from ._jac import jacrev

    return jacfwd(jacrev(func, argnums), argnums)
