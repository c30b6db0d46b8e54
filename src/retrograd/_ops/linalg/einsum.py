"""Einsum."""
from __future__ import annotations

import string

import numpy as np

from ..._tensor import Tensor
from .._registry import apply, primitive
from ..shape import expand
from . import _checks as _D
from .products import _tn

__all__ = ["einsum"]


# ---------------------------------------------------------------- einsum
_LETTERS = string.ascii_uppercase + string.ascii_lowercase  # torch orders A-Z before a-z


def _einsum_np(eq: str, *arrays):
    big = len(arrays) > 1 and np.prod([a.size for a in arrays]) > 4096
    return np.asarray(np.einsum(eq, *arrays, optimize=bool(big)))


_einsum1 = primitive("einsum_unary", lambda a, *, la, lo: _einsum_np(f"{la}->{lo}", a), node="EinsumBackward0",
                     a=lambda g, a_shape, la, lo: _einsum_grad(g, lo, [], la, a_shape))
_einsum2 = primitive("einsum_binary", lambda a, b, *, la, lb, lo: _einsum_np(f"{la},{lb}->{lo}", a, b),
                     node="EinsumBackward0",
                     a=lambda g, b, a_shape, la, lb, lo: _einsum_grad(g, lo, [(b, lb)], la, a_shape),
                     b=lambda g, a, b_shape, la, lb, lo: _einsum_grad(g, lo, [(a, la)], lb, b_shape))


def _einsum_grad(g: Tensor, lo: str, others: list, target: str, shape) -> Tensor:
    """d(einsum)/d(operand with subscripts ``target``): contract g with the other operands.

    Subscripts of the operand that appear nowhere else are put back with a ones vector;
    repeated subscripts (a diagonal, 'ii') with an identity matrix.
    """
    used = set(lo) | set(target) | {c for _, lab in others for c in lab}
    fresh = (c for c in _LETTERS if c not in used)
    present = set(lo) | {c for _, lab in others for c in lab}
    out, extra, seen = [], [], set()
    for c, size in zip(target, shape):
        if c in seen:
            nc = next(fresh)
            out.append(nc)
            extra.append((_D._const(np.eye(size), g), c + nc))
        else:
            seen.add(c)
            out.append(c)
            if c not in present:
                extra.append((_D._const(np.ones(size), g), c))
    terms = [lo] + [lab for _, lab in others] + [lab for _, lab in extra]
    return einsum(",".join(terms) + "->" + "".join(out), g, *[x for x, _ in others], *[x for x, _ in extra])


def _sum_out_first(terms: list, operands: list, sizes: dict, out_labels: list) -> tuple:
    """PyTorch's einsum first sums an operand over each contracted label that no other operand holds
    at full size (squeezing that label, of size 1, from the others), then multiplies: ``ij,jk->ik``
    with ``a`` of shape (3, 1) sums ``b`` over ``j`` and saves that sum, not ``b`` (so an in-place
    change of ``b`` afterwards does not invalidate the graph), and rounds as PyTorch does."""
    from ..reduction import sum as _sum
    from ..shape import squeeze

    terms = [list(t) for t in terms]
    for c in list(sizes):
        if c in out_labels or any(t.count(c) > 1 for t in terms):
            continue
        holders = [k for k, t in enumerate(terms) if c in t]
        full = [k for k in holders if operands[k]._data.shape[terms[k].index(c)] != 1]
        if sizes[c] == 1 or len(full) != 1 or (len(holders) > 1 and len(full) == len(holders)):
            continue
        for k in holders:  # the full holder sums the label out, the others (size 1) drop it
            d = terms[k].index(c)
            operands[k] = _sum(operands[k], d) if k == full[0] else squeeze(operands[k], d)
            del terms[k][d]
    return terms, operands


def _parse_term(term: str, pos: int, equation: str) -> list:
    labels, i = [], 0
    while i < len(term):
        c = term[i]
        if c == ".":
            if term[i:i + 3] != "...":
                raise RuntimeError("einsum(): found '.' for operand that is not part of any ellipsis")
            labels.append(Ellipsis)
            i += 3
            continue
        if c not in _LETTERS:
            raise RuntimeError(f"einsum(): invalid subscript given at index {pos + i} in the equation string, "
                               "subscripts must be in [a-zA-Z]")
        labels.append(c)
        i += 1
    return labels


def _sublist_to_equation(args) -> tuple[str, list]:
    ops, terms = [], []
    items = list(args)
    out = None
    if len(items) % 2 == 1:
        out = items.pop()
    for k in range(0, len(items), 2):
        ops.append(items[k])
        terms.append(items[k + 1])

    def term(sub) -> str:
        return "".join("..." if s is Ellipsis else _LETTERS[int(s)] for s in sub)

    eq = ",".join(term(s) for s in terms)
    if out is not None:
        eq += "->" + term(out)
    return eq, ops


def einsum(*args) -> Tensor:
    """Einstein summation: ``einsum("ij,jk->ik", a, b)`` (also the sublist form).

    >>> import retrograd as torch
    >>> torch.einsum("ij,j->i", torch.ones(2, 3), torch.tensor([1., 2., 3.]))
    tensor([6., 6.])
    """
    if not args:
        raise TypeError("einsum(): must specify the equation string and at least one operand, or at least one "
                        "operand and its subscripts list")
    if isinstance(args[0], str):
        equation, operands = args[0], list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    else:
        equation, operands = _sublist_to_equation(args)
    return _einsum(equation, operands)


def _einsum(equation: str, operands: list) -> Tensor:
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    for i, x in enumerate(operands):
        if not isinstance(x, Tensor):
            raise TypeError(f"einsum(): operand {i} must be a Tensor, not {type(x).__name__}")
    parsed, pos = [], 0
    for term in terms:
        parsed.append(_parse_term(term, pos, eq))
        pos += len(term) + 1
    # Ellipses become fresh labels, right-aligned across operands (they broadcast).
    n_ell = 0
    for i, (labels, x) in enumerate(zip(parsed, operands)):
        nd, nl = x._data.ndim, len([c for c in labels if c is not Ellipsis])
        if Ellipsis in labels:
            if nl > nd:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({nl}) is more than the number "
                                   f"of dimensions ({nd}) for operand {i}")
            n_ell = max(n_ell, nd - nl)
        elif nl != nd:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({nl}) does not match the number "
                               f"of dimensions ({nd}) for operand {i} and no ellipsis was given")
    named = {c for labels in parsed for c in labels if c is not Ellipsis}
    spare = [c for c in _LETTERS if c not in named and c not in rhs]
    if n_ell > len(spare):
        raise RuntimeError("einsum(): too many subscripts in the equation")
    ell = spare[:n_ell]
    terms = []
    for labels, x in zip(parsed, operands):
        k = x._data.ndim - (len(labels) - 1) if Ellipsis in labels else 0
        out = []
        for c in labels:
            out.extend(ell[n_ell - k:] if c is Ellipsis else [c])
        terms.append(out)
    if arrow:
        out_labels = []
        for j, c in enumerate(_parse_term(rhs, len(lhs) + 2, eq)):
            if c is Ellipsis:
                out_labels.extend(ell)
                continue
            if c not in named:
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any input "
                                   "operand")
            if c in out_labels:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
            out_labels.append(c)
    else:
        counts: dict = {}
        for lab in terms:
            for c in lab:
                counts[c] = counts.get(c, 0) + 1
        out_labels = list(ell) + sorted((c for c in named if counts[c] == 1), key=_LETTERS.index)
    # Sizes: equal, or 1 (broadcast: expand that operand).
    sizes: dict = {}
    for i, (lab, x) in enumerate(zip(terms, operands)):
        first: dict = {}
        for c, s in zip(lab, x._data.shape):
            if c in first and s != first[c]:  # (a diagonal's sizes are checked before broadcasting)
                raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {i} but the sizes don't match, "
                                   f"{s} != {first[c]}")
            first.setdefault(c, s)
            prev = sizes.get(c)
            if prev is None or prev == 1:
                sizes[c] = s
            elif s != prev and s != 1:
                raise RuntimeError(f"einsum(): subscript {c} has size {s} for operand {i} which does not broadcast "
                                   f"with previously seen size {prev}")
    # dtypes are checked (by PyTorch's bmm) only after the equation and the sizes
    dt = operands[0]._data.dtype
    for x in operands[1:]:
        if x._data.dtype != dt:
            raise RuntimeError(f"expected scalar type {_tn(operands[0])} but found {_tn(x)}")
    if dt.kind == "b" and len(operands) > 1:
        shared = [c for c in sizes if c not in out_labels and len([lab for lab in terms if c in lab]) > 1]
        if shared:
            raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
    if len(operands) > 1:
        terms, operands = _sum_out_first(terms, list(operands), sizes, out_labels)
    ops = []
    for lab, x in zip(terms, operands):
        want = tuple(sizes[c] for c in lab)
        if want != x._data.shape and len(set(lab)) == len(lab):
            x = expand(x, want)
        ops.append((x, "".join(lab)))
    lo_final = "".join(out_labels)
    if len(ops) == 1:
        x, la = ops[0]
        if sorted(la) == sorted(lo_final) and len(set(la)) == len(la):
            # a pure permutation is a view in PyTorch (writes through it reach the operand)
            from ..shape import permute

            return permute(x, tuple(la.index(c) for c in lo_final))
        return apply(_einsum1, (x,), {"la": la, "lo": lo_final})
    acc, la = ops[0]
    for k in range(1, len(ops)):
        b, lb = ops[k]
        if k == len(ops) - 1:
            lo = lo_final
        else:
            later = set(lo_final) | {c for _, lab in ops[k + 1:] for c in lab}
            lo = "".join(c for c in dict.fromkeys(la + lb) if c in later)
        acc = apply(_einsum2, (acc, b), {"la": la, "lb": lb, "lo": lo})
        la = lo
    return acc
