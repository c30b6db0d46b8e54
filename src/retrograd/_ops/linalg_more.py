"""Linear algebra beyond matmul: einsum, tensordot, the add*mm family, kron, cross, trace, cdist,
multi_dot, and PyTorch's top-level matrix functions (det, inverse, svd, norm ...).

Decompositions (inv, solve, cholesky, qr, eigh, svd, pinv, lstsq, norms) live in
``_linalg_decomp.py``; ``retrograd.linalg`` re-exports from both modules.  einsum's rule is
an einsum itself (the output gradient contracted with the other operand), so its
derivatives differentiate again like every other rule.
"""
from __future__ import annotations

import math
import string
import warnings

import numpy as np

from .._tensor import Tensor, _scalar_type_name
from . import _linalg_decomp as _D
from ._linalg_decomp import out_arg
from ._common import shape_str, tensor_args, wrap_dim
from ._registry import apply, apply_inplace, primitive
from .convert import clone
from .linalg import CPP_NAMES, matmul, mm, mv, outer
from .pointwise import abs, clamp, eq, mul, sign, sqrt, where
from .reduce import sum
from .shape import _unsafe_view, expand, permute, reshape, t, unsqueeze

__all__ = ["vdot", "inner", "einsum", "tensordot", "addmm", "addbmm", "baddbmm", "addmv", "addr", "kron",
           "cross", "trace", "cdist", "chain_matmul", "det", "inverse", "logdet", "slogdet", "cholesky",
           "cholesky_solve", "cholesky_inverse", "qr", "svd", "pinverse", "matrix_power"]
METHODS = ["vdot", "inner", "addmm", "addbmm", "baddbmm", "addmv", "addr", "addmm_", "addbmm_", "baddbmm_",
           "addmv_", "addr_", "kron", "cross", "trace", "det", "inverse", "logdet", "slogdet", "cholesky",
           "cholesky_solve", "cholesky_inverse", "qr", "svd", "pinverse", "matrix_power"]

_wrap = Tensor._wrap
mT = _D.mT


def _tn(x: Tensor) -> str:
    return _scalar_type_name(x.dtype)


# ---------------------------------------------------------------- vdot / inner / tensordot
_vdot = primitive("vdot", lambda a, b: np.asarray(np.vdot(a, b)), node="VdotBackward0",
                  a=lambda g, b: g * b,
                  b=lambda g, a: g * a)


@out_arg
@tensor_args("vdot", input=1, other=2)
def vdot(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """Dot product of two 1-d tensors (conjugating the first, a no-op for real tensors).

    >>> import retrograd as torch
    >>> torch.vdot(torch.tensor([1., 2.]), torch.tensor([3., 4.]))
    tensor(11.)
    """
    if input._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and {other._data.ndim}D tensors")
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_tn(input)} and {_tn(other)}")
    n1, n2 = input._data.shape[0], other._data.shape[0]
    if n1 != n2:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n1}] and src [{n2}] to have the same number "
                           f"of elements, but got {n1} and {n2} elements respectively")
    if input._data.dtype.kind == "b":
        raise NotImplementedError("\"dot\" not implemented for 'Bool'")
    return apply(_vdot, (input, other))


@out_arg
def tensordot(a: Tensor, b: Tensor, dims=2, out=None) -> Tensor:
    """Contract ``dims`` (an int: the last/first dims; or two lists) of a with those of b.

    >>> import retrograd as torch
    >>> torch.tensordot(torch.ones(2, 3), torch.ones(3, 4), dims=1).shape
    torch.Size([2, 4])
    """
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, (int, np.integer)):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a._data.ndim, b._data.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(-int(dims), 0)), list(range(int(dims)))
    else:
        da, db = dims
        da = [int(da)] if isinstance(da, (int, np.integer)) else [int(d) for d in da]
        db = [int(db)] if isinstance(db, (int, np.integer)) else [int(d) for d in db]
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    for x, y in zip(da, db):
        s1, s2 = a._data.shape[wrap_dim(x, a._data.ndim)], b._data.shape[wrap_dim(y, b._data.ndim)]
        if s1 != s2:
            # A size-1 dim broadcasts against the other: sum the other side right away.
            if s2 == 1:
                a = sum(a, x, keepdim=True)
                continue
            if s1 == 1:
                b = sum(b, y, keepdim=True)
                continue
            raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} in dim {x} and second "
                               f"has size {s2} in dim {y}")
    da = [wrap_dim(d, a._data.ndim) for d in da]
    db = [wrap_dim(d, b._data.ndim) for d in db]
    fa = [d for d in range(a._data.ndim) if d not in da]
    fb = [d for d in range(b._data.ndim) if d not in db]
    csize = int(np.prod([a._data.shape[d] for d in da]))
    rows = [a._data.shape[d] for d in fa]
    cols = [b._data.shape[d] for d in fb]
    if a._data.dtype.kind == "b" and da and not fa and not fb:
        raise NotImplementedError("\"dot\" not implemented for 'Bool'")  # PyTorch contracts everything with dot
    ta = reshape(permute(a, fa + da), (int(np.prod(rows)), csize))
    tb = reshape(permute(b, db + fb), (csize, int(np.prod(cols))))
    return reshape(mm(ta, tb), tuple(rows + cols))


@out_arg
@tensor_args("inner", input=1, other=2)
def inner(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """Sum-product over the last dims of both (a product when either is 0-d)."""
    if input._data.ndim == 0 or other._data.ndim == 0:
        return mul(input, other)
    if input._data.shape[-1] != other._data.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{shape_str(input._data.shape)} and {shape_str(other._data.shape)}")
    return tensordot(input, other, ([-1], [-1]))


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
        for c, s in zip(lab, x._data.shape):
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
    ops = []
    for lab, x in zip(terms, operands):
        want = tuple(sizes[c] for c in lab)
        if want != x._data.shape and len(set(lab)) == len(lab):
            x = expand(x, want)
        ops.append((x, "".join(lab)))
    lo_final = "".join(out_labels)
    if len(ops) == 1:
        x, la = ops[0]
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


# ---------------------------------------------------------------- addmm & co
def _scaled(x, s):
    return x if s == 1 else x * s


def _axpby(inp, prod, beta, alpha, dtype):
    if dtype.kind == "b":
        p = np.logical_and(prod, bool(alpha))
        return p if not beta else np.logical_or(p, np.logical_and(inp, bool(beta)))
    if dtype.kind in "iu":  # PyTorch casts the scalars to the integer type (truncating)
        alpha, beta = int(alpha), int(beta)
    p = prod if alpha == 1 else alpha * prod
    r = p if beta == 0 else (inp + p if beta == 1 else beta * inp + p)
    return np.asarray(r).astype(dtype, copy=False)


_addmm = primitive("addmm", lambda input, mat1, mat2, *, beta, alpha: _axpby(input, mat1 @ mat2, beta, alpha,
                                                                              mat1.dtype),
                   node="AddmmBackward0",
                   input=lambda g, beta: _scaled(g, beta),
                   mat1=lambda g, mat2, alpha: _scaled(mm(g, t(mat2)), alpha),
                   mat2=lambda g, mat1, alpha: _scaled(mm(t(mat1), g), alpha))
_addbmm = primitive("addbmm", lambda input, batch1, batch2, *, beta, alpha: _axpby(
                        input, np.matmul(batch1, batch2).sum(0), beta, alpha, batch1.dtype),
                    node="AddbmmBackward0",
                    input=lambda g, beta: _scaled(g, beta),
                    batch1=lambda g, batch2, alpha: _scaled(matmul(unsqueeze(g, 0), mT(batch2)), alpha),
                    batch2=lambda g, batch1, alpha: _scaled(matmul(mT(batch1), unsqueeze(g, 0)), alpha))
_baddbmm = primitive("baddbmm", lambda input, batch1, batch2, *, beta, alpha: _axpby(
                         input, np.matmul(batch1, batch2), beta, alpha, batch1.dtype),
                     node="BaddbmmBackward0",
                     input=lambda g, beta: _scaled(g, beta),
                     batch1=lambda g, batch2, alpha: _scaled(matmul(g, mT(batch2)), alpha),
                     batch2=lambda g, batch1, alpha: _scaled(matmul(mT(batch1), g), alpha))
_addmv = primitive("addmv", lambda input, mat, vec, *, beta, alpha: _axpby(input, mat @ vec, beta, alpha, mat.dtype),
                   node="AddmvBackward0",
                   input=lambda g, beta: _scaled(g, beta),
                   mat=lambda g, vec, alpha: _scaled(outer(g, vec), alpha),
                   vec=lambda g, mat, alpha: _scaled(mv(t(mat), g), alpha))
_addr = primitive("addr", lambda input, vec1, vec2, *, beta, alpha: _axpby(input, np.multiply.outer(vec1, vec2), beta,
                                                                            alpha, vec1.dtype),
                  node="AddrBackward0",
                  input=lambda g, beta: _scaled(g, beta),
                  vec1=lambda g, vec2, alpha: _scaled(mv(g, vec2), alpha),
                  vec2=lambda g, vec1, alpha: _scaled(mv(t(g), vec1), alpha))


def _check_expand(input: Tensor, shape: tuple) -> None:
    src = input._data.shape
    if len(src) > len(shape):
        raise RuntimeError(f"expand: the number of sizes provided ({len(shape)}) must be greater or equal to the "
                           f"number of dimensions in the tensor ({len(src)})")
    for i in range(1, len(src) + 1):
        if src[-i] != shape[-i] and src[-i] != 1:
            raise RuntimeError(f"The expanded size of the tensor ({shape[-i]}) must match the existing size "
                               f"({src[-i]}) at non-singleton dimension {len(shape) - i}.  Target sizes: "
                               f"{shape_str(shape)}.  Tensor sizes: {shape_str(src)}")


def _check_input(input: Tensor, shape: tuple, other: Tensor, other_name: str) -> None:
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"self and {other_name} must have the same dtype, but got {_tn(input)} and {_tn(other)}")
    _check_expand(input, shape)


def _check_same(a: Tensor, b: Tensor) -> None:
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {CPP_NAMES[a.dtype.name]} != "
                           f"{CPP_NAMES[b.dtype.name]}")


def _addmm_dtypes(input, mat1, mat2):
    # PyTorch's ADDMM_META checks dtypes before any shape
    if input._data.dtype != mat2._data.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_tn(input)} and {_tn(mat2)}")
    if mat1._data.dtype != mat2._data.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_tn(mat1)} and {_tn(mat2)}")


def _no_bool(x: Tensor, impl: str) -> None:
    if x._data.dtype.kind == "b":
        raise NotImplementedError(f"\"{impl}\" not implemented for 'Bool'")


def _size_dim(d: int, n: int) -> int:
    """``wrap_dim`` as ``Tensor.size(d)`` does it (a 0-d tensor has no dim at all)."""
    if n == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    return wrap_dim(d, n)


def _size(x: Tensor, d: int) -> int:
    """``x.size(d)`` with PyTorch's IndexError (its checks call size() before any dim check)."""
    n = x._data.ndim
    if n == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
    return x._data.shape[d]


def _addmm_args(input, mat1, mat2):
    _addmm_dtypes(input, mat1, mat2)
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if m._data.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m._data.ndim}-D tensor")
    if mat1._data.shape[1] != mat2._data.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({mat1._data.shape[0]}x{mat1._data.shape[1]} "
                           f"and {mat2._data.shape[0]}x{mat2._data.shape[1]})")
    shape = (mat1._data.shape[0], mat2._data.shape[1])
    _check_expand(input, shape)
    _no_bool(mat1, "addmm_impl_cpu_")
    return shape


@out_arg
def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """beta * input + alpha * (mat1 @ mat2).

    >>> import retrograd as torch
    >>> torch.addmm(torch.ones(2, 2), torch.eye(2), torch.eye(2), beta=2)
    tensor([[3., 2.],
            [2., 3.]])
    """
    _addmm_args(input, mat1, mat2)
    return apply(_addmm, (input, mat1, mat2), {"beta": beta, "alpha": alpha})


def _addbmm_args(input, batch1, batch2):
    # addbmm_out expands self to (batch1.size(1), batch2.size(2)) first, then checks the batches,
    # then runs addmm per batch (hence addmm's dtype messages)
    _check_expand(input, (_size(batch1, 1), _size(batch2, 2)))
    for name, b in (("batch1", batch1), ("batch2", batch2)):
        if b._data.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    s1, s2 = batch1._data.shape, batch2._data.shape
    if s1[0] != s2[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {s1[0]} and {s2[0]}")
    if s1[2] != s2[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({s1[1]}x{s1[2]} and {s2[1]}x{s2[2]})")
    _addmm_dtypes(input, batch1, batch2)
    _no_bool(batch1, "addmm_impl_cpu_")


def _baddbmm_args(input, batch1, batch2):
    _check_expand(input, (_size(batch1, 0), _size(batch1, 1), _size(batch2, 2)))
    if input._data.dtype != batch1._data.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {CPP_NAMES[input.dtype.name]}, batch1: "
                           f"{CPP_NAMES[batch1.dtype.name]}, batch2: {CPP_NAMES[batch2.dtype.name]}")
    if batch1._data.dtype != batch2._data.dtype:
        raise RuntimeError(f"expected scalar type {_tn(batch1)} but found {_tn(batch2)}")
    for name, b in (("batch1", batch1), ("batch2", batch2)):
        if b._data.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    s1, s2 = batch1._data.shape, batch2._data.shape
    if s1[0] != s2[0] or s1[2] != s2[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{s1[0]}, {s1[2]}] but "
                           f"got: [{s2[0]}, {s2[1]}].")
    _no_bool(batch1, "baddbmm")


@out_arg
def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """beta * input + alpha * sum_b(batch1[b] @ batch2[b])."""
    _addbmm_args(input, batch1, batch2)
    return apply(_addbmm, (input, batch1, batch2), {"beta": beta, "alpha": alpha})


@out_arg
def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """beta * input + alpha * bmm(batch1, batch2)."""
    _baddbmm_args(input, batch1, batch2)
    return apply(_baddbmm, (input, batch1, batch2), {"beta": beta, "alpha": alpha})


def _addmv_args(input, mat, vec):
    if not (mat._data.ndim == 2 and vec._data.ndim == 1 and input._data.ndim <= 1):
        raise RuntimeError(f"vector + matrix @ vector expected, got {input._data.ndim}, {mat._data.ndim}, "
                           f"{vec._data.ndim}")
    if mat._data.shape[1] != vec._data.shape[0] or (input._data.size not in (1, mat._data.shape[0])):
        raise RuntimeError(f"size mismatch, got input ({_size(input, 0)}), mat "
                           f"({'x'.join(map(str, mat._data.shape))}), vec ({vec._data.shape[0]})")
    if not input._data.dtype == mat._data.dtype == vec._data.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_tn(input)}, {_tn(mat)}, and "
                           f"{_tn(vec)}")
    _no_bool(mat, "addmv_impl_cpu")


@out_arg
def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """beta * input + alpha * (mat @ vec)."""
    _addmv_args(input, mat, vec)
    return apply(_addmv, (input, mat, vec), {"beta": beta, "alpha": alpha})


def _addr_args(input, vec1, vec2):
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v._data.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v._data.ndim}-D")
    _check_same(vec1, vec2)
    _check_input(input, (vec1._data.shape[0], vec2._data.shape[0]), vec2, "vec2")


@out_arg
def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """beta * input + alpha * outer(vec1, vec2) (the three promote to a common dtype, as in PyTorch)."""
    from .._dtype import result_type

    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v._data.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v._data.ndim}-D")
    dt = result_type(input, vec1, vec2)
    if not (dt.is_floating_point or dt.is_complex):
        for name, v in (("beta", beta), ("alpha", alpha)):  # checked before the values are cast
            if isinstance(v, float):
                raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point number.")
    _check_expand(input, (vec1._data.shape[0], vec2._data.shape[0]))
    input, vec1, vec2 = (x if x.dtype == dt else x.to(dt) for x in (input, vec1, vec2))
    return apply(_addr, (input, vec1, vec2), {"beta": beta, "alpha": alpha})


def _inplace(op, check, out_shape):
    def method(self: Tensor, a: Tensor, b: Tensor, *, beta=1, alpha=1) -> Tensor:
        check(self, a, b)
        shape = out_shape(a, b)
        if self._data.shape != shape:
            raise RuntimeError(f"Bad in-place call: input tensor size {shape_str(self._data.shape)} and output tensor "
                               f"size {shape_str(shape)} should match")
        return apply_inplace(op, self, (a, b), {"beta": beta, "alpha": alpha})
    return method


addmm_ = _inplace(_addmm, _addmm_args, lambda a, b: (a._data.shape[0], b._data.shape[1]))
addbmm_ = _inplace(_addbmm, _addbmm_args,
                   lambda a, b: (a._data.shape[1], b._data.shape[2]))
baddbmm_ = _inplace(_baddbmm, _baddbmm_args,
                    lambda a, b: (a._data.shape[0], a._data.shape[1], b._data.shape[2]))
addmv_ = _inplace(_addmv, _addmv_args, lambda a, b: (a._data.shape[0],))
addr_ = _inplace(_addr, _addr_args, lambda a, b: (a._data.shape[0], b._data.shape[0]))


# ---------------------------------------------------------------- kron / cross / trace
@out_arg
@tensor_args("kron", input=1, other=2)
def kron(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """Kronecker product (block matrix of input[i] * other).

    >>> import retrograd as torch
    >>> torch.kron(torch.eye(2), torch.ones(1, 2))
    tensor([[1., 1., 0., 0.],
            [0., 0., 1., 1.]])
    """
    nd = max(input._data.ndim, other._data.ndim)
    sa = (1,) * (nd - input._data.ndim) + input._data.shape
    sb = (1,) * (nd - other._data.ndim) + other._data.shape
    ar = reshape(input, tuple(x for s in sa for x in (s, 1)))
    br = reshape(other, tuple(x for s in sb for x in (1, s)))
    return apply(_unsafe_view, (ar * br,), {"shape": tuple(a * b for a, b in zip(sa, sb))})


def _cross_fw(a, b, *, dim):
    return np.ascontiguousarray(np.moveaxis(np.cross(np.moveaxis(a, dim, -1), np.moveaxis(b, dim, -1)), -1, dim))


_cross = primitive("linalg_cross", _cross_fw, node="LinalgCrossBackward0",
                   a=lambda g, b, dim: apply(_cross, (b, g), {"dim": dim}),
                   b=lambda g, a, dim: apply(_cross, (g, a), {"dim": dim}))


@out_arg
def linalg_cross(input: Tensor, other: Tensor, *, dim: int = -1, out=None) -> Tensor:
    """Cross product of 3-vectors along ``dim`` (batch dims broadcast)."""
    if input._data.ndim != other._data.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    n = input._data.ndim
    d = _size_dim(dim, n)
    if input._data.shape[d] != 3 or other._data.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input._data.shape[d]} and "
                           f"{other._data.shape[d]}")
    try:
        np.broadcast_shapes(input._data.shape, other._data.shape)
    except ValueError:
        from ._common import broadcast_error

        raise broadcast_error(input._data.shape, other._data.shape) from None
    # PyTorch's order: shapes, then dtypes, then the kernel's dtype dispatch
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"expected scalar type {_tn(input)} but found {_tn(other)}")
    if input._data.dtype.kind == "b":
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    return apply(_cross, (input, other), {"dim": d})


@out_arg
@tensor_args("cross", input=1, other=2)
def cross(input: Tensor, other: Tensor, dim: int | None = None, *, out=None) -> Tensor:
    """``torch.cross``: like linalg.cross; without ``dim``, the first dim of size 3 (deprecated)."""
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
        dim = next((i for i, s in enumerate(input._data.shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg_cross(input, other, dim=dim)


# (integers sum in int64, as torch's sum does: NumPy would give uint64 for uint8)
_trace = primitive("trace", lambda a: np.asarray(np.trace(a, dtype=np.int64 if a.dtype.kind in "iub" else None)),
                   node="TraceBackward0",
                   a=lambda g, a_shape: g * _D._const(np.eye(a_shape[0], a_shape[1]), g))


def trace(input: Tensor) -> Tensor:
    """Sum of the main diagonal of a 2-d tensor (integers sum in int64).

    >>> import retrograd as torch
    >>> torch.trace(torch.tensor([[1., 2.], [3., 4.]]))
    tensor(5.)
    """
    if input._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input._data.ndim}")
    if input._data.dtype.kind == "b":
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return apply(_trace, (input,))


# ---------------------------------------------------------------- cdist
def _cdist_fw(x1, x2, *, p):
    diff = np.abs(x1[..., :, None, :] - x2[..., None, :, :])
    with np.errstate(over="ignore", invalid="ignore"):
        if p == 0:
            r = (diff != 0).sum(-1)
        elif p == 1:
            r = diff.sum(-1)
        elif p == 2:
            r = np.sqrt((diff * diff).sum(-1))
        elif p == math.inf:
            r = diff.max(-1) if diff.shape[-1] else diff.sum(-1)
        else:
            r = (diff ** p).sum(-1) ** (1.0 / p)
    return np.asarray(r, dtype=x1.dtype)


def _cdist_weight(x1, x2, out, p):
    """d dist[i, j] / d x1[i] for every pair: shape (..., P, R, M)."""
    diff = unsqueeze(x1, -2) - unsqueeze(x2, -3)
    d = unsqueeze(out, -1)
    if p == 1:
        return sign(diff)
    if p == 2:
        return where(d == 0, 0.0, diff / d)
    if p == math.inf:
        return sign(diff) * eq(abs(diff), d).to(diff.dtype)
    if p < 1:
        w = where(diff == 0, 0.0, sign(diff) * abs(diff) ** (p - 1))
        return where(d == 0, 0.0, w / d ** (p - 1))
    if p < 2:
        return where(d == 0, 0.0, sign(diff) * abs(diff) ** (p - 1) / d ** (p - 1))
    return where(d == 0, 0.0, diff * abs(diff) ** (p - 2) / d ** (p - 1))


def _cdist_grad(g, x1, x2, out, p, first: bool):
    if p == 0:  # PyTorch: zeros, not an undefined gradient
        return (x1 if first else x2) * 0.0
    w = unsqueeze(g, -1) * _cdist_weight(x1, x2, out, p)
    return sum(w, -2) if first else -sum(w, -3)


_cdist = primitive("cdist", _cdist_fw, node="CdistBackward0",
                   x1=lambda g, x1, x2, out, p: _cdist_grad(g, x1, x2, out, p, True),
                   x2=lambda g, x1, x2, out, p: _cdist_grad(g, x1, x2, out, p, False))


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """p-norm distances between each row of x1 and each row of x2 (batch dims broadcast).

    >>> import retrograd as torch
    >>> torch.cdist(torch.tensor([[0., 0.]]), torch.tensor([[3., 4.], [0., 1.]]))
    tensor([[5., 1.]])
    """
    for name, x in (("X1", x1), ("X2", x2)):
        if x._data.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x._data.ndim}D")
    if x1._data.shape[-1] != x2._data.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1._data.shape[-1]} "
                           f"X2: {x2._data.shape[-1]}")
    for name, x in (("X1", x1), ("X2", x2)):
        if x._data.dtype.kind != "f":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {_tn(x)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if x1._data.dtype != x2._data.dtype:
        raise RuntimeError(f"expected scalar type {_tn(x1)} but found {_tn(x2)}")
    P, R = x1._data.shape[-2], x2._data.shape[-2]
    use_mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode == "use_mm_for_euclid_dist_if_necessary" and (P > 25 or R > 25)))
    if use_mm:
        # PyTorch's matmul form: |a|^2 - 2 a.b + |b|^2 (fast, twice differentiable).
        x1n = sum(x1 * x1, -1, keepdim=True)
        x2n = sum(x2 * x2, -1, keepdim=True)
        res = sqrt(clamp(matmul(x1 * -2, mT(x2)) + x1n + mT(x2n), min=1e-30))
        return reshape(res, res._data.shape)
    return apply(_cdist, (x1, x2), {"p": float(p)})


# ---------------------------------------------------------------- multi_dot / chain_matmul
def _chain_order(shapes) -> list:
    """Matrix-chain DP: split[i][j] = best k for (A_i..A_k)(A_k+1..A_j)."""
    n = len(shapes)
    p = [shapes[0][0]] + [s[1] for s in shapes]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(mats, split, i, j):
    if i == j:
        return mats[i]
    k = split[i][j]
    return mm(_chain(mats, split, i, k), _chain(mats, split, k + 1, j))


@out_arg
def multi_dot(tensors, *, out=None) -> Tensor:
    """Product of a chain of matrices in the cheapest order (first/last may be vectors).

    >>> import retrograd as torch
    >>> torch.linalg.multi_dot([torch.ones(2, 3), torch.ones(3, 4), torch.ones(4)]).shape
    torch.Size([2])
    """
    mats = list(tensors)
    n = len(mats)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    d0, dl = mats[0]._data.ndim, mats[-1]._data.ndim
    if d0 not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {d0}D")
    if dl not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {dl}D")
    for i in range(1, n - 1):
        if mats[i]._data.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {mats[i]._data.ndim}D")
    dt = mats[0]._data.dtype
    for i, m in enumerate(mats):
        if m._data.dtype != dt:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{CPP_NAMES[mats[0].dtype.name]} and tensor {i} {CPP_NAMES[m.dtype.name]}")
    orig = [m._data.shape for m in mats]  # messages show the shapes as given (vectors unsqueezed below)
    out_shape = []
    if d0 == 1:
        mats[0] = unsqueeze(mats[0], 0)
    else:
        out_shape.append(mats[0]._data.shape[0])
    if dl == 1:
        mats[-1] = unsqueeze(mats[-1], -1)
    else:
        out_shape.append(mats[-1]._data.shape[1])
    for i in range(n - 1):
        a, b = mats[i]._data.shape, mats[i + 1]._data.shape
        if a[1] != b[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {shape_str(orig[i])} and "
                               f"{shape_str(orig[i + 1])} "
                               "cannot be multiplied")
    if n == 2:
        res = mm(mats[0], mats[1])
    elif n == 3:
        (a, b), (_, c), (_, d) = (m._data.shape for m in mats)
        if a * c * (b + d) > b * d * (a + c):
            res = mm(mats[0], mm(mats[1], mats[2]))
        else:
            res = mm(mm(mats[0], mats[1]), mats[2])
    else:
        res = _chain(mats, _chain_order([m._data.shape for m in mats]), 0, n - 1)
    return reshape(res, tuple(out_shape))


@out_arg
def chain_matmul(*matrices, out=None) -> Tensor:
    """Deprecated ``torch.chain_matmul``: ``linalg.multi_dot`` of 2-d matrices."""
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
                  "parameters.", UserWarning, stacklevel=2)
    for m in matrices:
        if m._data.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m._data.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return clone(matrices[0])
    return multi_dot(list(matrices))


@out_arg
def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out=None) -> Tensor:
    """Dot products of vectors along ``dim`` (broadcasting the rest)."""
    if x._data.dtype.kind != "f":
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. Got {_tn(x)}")
    if x._data.dtype != y._data.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type {_tn(x)} "
                           f"and y of type {_tn(y)} instead")
    if x._data.ndim == 1 and y._data.ndim == 1:
        return vdot(x, y)  # PyTorch's 1-d fast path (VdotBackward0; dim is not even checked)
    return sum(x * y, dim)


# ---------------------------------------------------------------- PyTorch's top-level matrix functions
det = _D.det
inverse = _D.inv
logdet = _D.logdet
cholesky = _D.cholesky_legacy
cholesky_solve = _D.cholesky_solve
cholesky_inverse = _D.cholesky_inverse
qr = _D.qr_legacy
svd = _D.svd_legacy
pinverse = _D.pinverse
matrix_power = _D.matrix_power


def slogdet(input: Tensor):
    """``torch.slogdet``: (sign, logabsdet) of a square matrix."""
    from .. import return_types as RT

    return RT.slogdet(tuple(_D.slogdet(input)))
