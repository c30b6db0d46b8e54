"""Matmul, mm, mv, dot, bmm, outer, ger, vdot, inner, tensordot, kron, cross, trace, multi_dot,
chain_matmul, vecdot."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ... import _dtype as D
from ..._blas import mm as blas_mm
from ..._tensor import Tensor
from ...autograd import grad_mode
from .._common import binary_operands, shape_str, tensor_args, wrap_dim
from .._out import with_out
from .._registry import apply, primitive
from ..binary import mul
from ..conversion import clone
from ..reduction import sum
from ..shape import _unsafe_view, permute, reshape, sum_to, transpose, unsqueeze
from . import _checks as _D
from ._checks import _size_dim, out_arg

__all__ = ["matmul", "mm", "mv", "dot", "bmm", "outer", "ger", "vdot", "inner", "tensordot", "cross", "trace",
           "chain_matmul"]


_mm = primitive("mm", lambda a, b: blas_mm(a, b), node="MmBackward0",
                fast=dict(a=lambda g, b: blas_mm(g, b.swapaxes(0, 1)), b=lambda g, a: blas_mm(a.swapaxes(0, 1), g)),
                a=lambda g, b: mm(g, t_(b)),
                b=lambda g, a: mm(t_(a), g), batch="matmul")
_mv = primitive("mv", lambda a, b: a @ b, node="MvBackward0",
                fast=dict(a=lambda g, b: g[:, None] * b, b=lambda g, a: a.swapaxes(0, 1) @ g),
                a=lambda g, b: outer(g, b),
                b=lambda g, a: mv(t_(a), g), batch="matmul")
# (+ 0: PyTorch's dot accumulates from +0, so a sum of -0 products is +0)
_dot = primitive("dot", lambda a, b: np.asarray(np.dot(a, b) + 0), node="DotBackward0",
                 fast=dict(a=lambda g, b: g * b, b=lambda g, a: g * a),
                 a=lambda g, b: g * b,
                 b=lambda g, a: g * a, batch="matmul")
# Batched products with broadcasting batch dims; grads are summed back by the engine.
_bmm = primitive("matmul_batched", lambda a, b: np.matmul(a, b), node="BmmBackward0",
                 a=lambda g, a_shape, b: sum_to(matmul(g, transpose(b, -1, -2)), a_shape),
                 b=lambda g, b_shape, a: sum_to(matmul(transpose(a, -1, -2), g), b_shape), batch="matmul")


def t_(x: Tensor) -> Tensor:
    return transpose(x, 0, 1)


def _dims(x: Tensor) -> str:
    return "x".join(str(s) for s in x._data.shape)


# PyTorch's messages name C++ scalar types here ("float != double").
CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
             "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def _same_dtype(a: Tensor, b: Tensor, name: str):
    if a._data.dtype == b._data.dtype:
        if a._data.dtype.kind == "b" and name in ("mm", "dot", "mv", "bmm"):
            impl = {"mm": "addmm_impl_cpu_", "mv": "addmv_impl_cpu"}.get(name, name)
            raise NotImplementedError(f"\"{impl}\" not implemented for 'Bool'")
        return
    if name == "mm":
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {CPP_NAMES[a.dtype.name]} != "
                           f"{CPP_NAMES[b.dtype.name]}")
    if name == "dot":
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_tn(a)} and {_tn(b)}")
    if name == "mv":
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_tn(b)}, {_tn(a)}, and {_tn(b)}")
    raise RuntimeError(f"expected scalar type {_tn(a)} but found {_tn(b)}")


def _tn(x: Tensor) -> str:
    from ..._tensor import _scalar_type_name

    return _scalar_type_name(x.dtype)


# ---------------------------------------------------------------- out= (PyTorch's rules)
def _check_out(name: str, out, *inputs) -> None:
    """Before computing: ``out`` must be a Tensor, and out= results are not differentiable."""
    if not isinstance(out, Tensor):
        if name in ("mm", "bmm"):  # (these have a second overload, so PyTorch lists both)
            raise TypeError(
                f"{name}() received an invalid combination of arguments - got ({type(inputs[0]).__name__}, "
                f"{type(inputs[1]).__name__}, out={type(out).__name__}), but expected one of:\n"
                " * (Tensor input, Tensor mat2, *, Tensor out = None)\n"
                " * (Tensor input, Tensor mat2, torch.dtype out_dtype, *, Tensor out = None)\n")
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if grad_mode.state.enabled and (out._requires_grad or any(
            isinstance(x, Tensor) and x._requires_grad for x in inputs)):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")


def warn_if_resized(out: Tensor, expected: tuple, stacklevel: int = 3) -> None:
    """PyTorch's deprecation warning when a non-empty ``out`` must be resized to ``expected``
    (an empty ``out`` is resized silently)."""
    if out._data.size and out._data.shape != tuple(expected):
        warnings.warn(
            f"An output with one or more elements was resized since it had shape [{', '.join(map(str, out.shape))}], "
            f"which does not match the required output shape [{', '.join(map(str, expected))}]. This behavior is "
            "deprecated, and in a future PyTorch release outputs will not be resized unless they have zero "
            "elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
            "t.resize_(0).", UserWarning, stacklevel=stacklevel)


def _write_out(name: str, result: Tensor, out: Tensor, kernel_shape: tuple | None = None,
               cast: bool = False) -> Tensor:
    """Copy ``result`` into ``out`` (same dtype required; resized, with PyTorch's warning when
    a non-empty ``out`` has the wrong shape) and return ``out``.

    ``kernel_shape``: the shape PyTorch's kernel writes, when it differs from the result's
    (vector @ matrix is computed as a 1-row mm): ``out`` is checked against it.
    ``cast``: ``out`` may have another dtype the result casts to (cat / stack), else it must match.
    """
    if cast and out._data.dtype != result._data.dtype:
        if not D.can_cast(result.dtype, out.dtype):
            raise TypeError(f"torch.cat(): input types can't be cast to the desired output type {_tn(out)}")
    elif out._data.dtype != result._data.dtype:
        if name == "dot":
            raise RuntimeError(f"result dtype {_tn(out)} does not match input dtype {_tn(result)}")
        raise RuntimeError(f"Expected out tensor to have dtype {CPP_NAMES[result.dtype.name]}, but got "
                           f"{CPP_NAMES[out.dtype.name]} instead")
    shape = result._data.shape
    expected = kernel_shape or shape
    warn_if_resized(out, expected, stacklevel=4)
    if out._data.shape != shape:
        out._data = np.empty(shape, dtype=out._data.dtype)
    return out.copy_(result)


def mm(input: Tensor, mat2: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Matrix product of two 2-d tensors.

    >>> import retrograd as torch
    >>> y = torch.empty(2, 2)
    >>> torch.mm(torch.ones(2, 3), torch.ones(3, 2), out=y) is y
    True
    """
    if out is not None:
        _check_out("mm", out, input, mat2)
        return _write_out("mm", mm(input, mat2), out)
    if input._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if input._data.shape[1] != mat2._data.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_dims(input)} and {_dims(mat2)})")
    _same_dtype(input, mat2, "mm")
    return apply(_mm, (input, mat2))


def mv(input: Tensor, vec: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Matrix-vector product.

    >>> import retrograd as torch
    >>> torch.mv(torch.ones(2, 3), torch.ones(3))
    tensor([3., 3.])
    """
    if out is not None:
        _check_out("mv", out, input, vec)
        return _write_out("mv", mv(input, vec), out)
    if input._data.ndim == 0:  # PyTorch sizes its output with input.size(0) first
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if input._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input._data.ndim}, {vec._data.ndim}")
    if input._data.shape[1] != vec._data.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input._data.shape[0] if input._data.ndim else 0}), "
                           f"mat ({_dims(input)}), vec ({vec._data.shape[0] if vec._data.ndim else 0})")
    _same_dtype(input, vec, "mv")
    return apply(_mv, (input, vec))


@tensor_args("dot", input=1, tensor=2)
def dot(input: Tensor, tensor: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Inner product of two 1-d tensors.

    >>> import retrograd as torch
    >>> torch.dot(torch.tensor([1., 2.]), torch.tensor([3., 4.]))
    tensor(11.)
    """
    if out is not None:
        _check_out("dot", out, input, tensor)
        return _write_out("dot", dot(input, tensor), out)
    if input._data.ndim != 1 or tensor._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and {tensor._data.ndim}D tensors")
    if input._data.dtype != tensor._data.dtype:  # (PyTorch checks the dtypes before the sizes)
        _same_dtype(input, tensor, "dot")
    if input._data.shape != tensor._data.shape:
        raise RuntimeError(
            "inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of elements, "
            "but got {} and {} elements respectively".format(input._data.shape[0], tensor._data.shape[0],
                                                             input._data.shape[0], tensor._data.shape[0]))
    _same_dtype(input, tensor, "dot")
    return apply(_dot, (input, tensor))


@with_out("outer", grad_name="mul")
def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """Outer product of two vectors (a broadcast product, MulBackward0 as in PyTorch)."""
    if input._data.ndim != 1 or vec2._data.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input._data.ndim}-D"
                           if input._data.ndim != 1 else f"outer: Expected 1-D argument vec2, but got {vec2._data.ndim}-D")
    return unsqueeze(input, 1) * vec2


@with_out("ger", grad_name="mul")
def ger(input: Tensor, vec2: Tensor) -> Tensor:
    """Alias of ``outer`` (PyTorch keeps the old name)."""
    return outer(input, vec2)


def bmm(input: Tensor, mat2: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Batched matrix product of two 3-d tensors with equal batch size.

    >>> import retrograd as torch
    >>> torch.bmm(torch.ones(4, 2, 3), torch.ones(4, 3, 5)).shape
    torch.Size([4, 2, 5])
    """
    if out is not None:
        _check_out("bmm", out, input, mat2)
        return _write_out("bmm", bmm(input, mat2), out)
    if input._data.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2._data.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if input._data.shape[0] != mat2._data.shape[0] or input._data.shape[2] != mat2._data.shape[1]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{input._data.shape[0]}, "
            f"{input._data.shape[2]}] but got: [{mat2._data.shape[0]}, {mat2._data.shape[1]}].")
    _same_dtype(input, mat2, "bmm")
    return apply(_bmm, (input, mat2))


def matmul(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """``@``: dot, mv, mm or batched products with broadcast batch dims, by rank.

    With ``out=``, the product is written into ``out`` (which must have the result's dtype;
    it is resized if needed) and ``out`` is returned; as in PyTorch this is not differentiable.

    >>> import retrograd as torch
    >>> (torch.ones(2, 3) @ torch.ones(3)).shape
    torch.Size([2])
    >>> y = torch.empty(2, 2)
    >>> torch.matmul(torch.ones(2, 3), torch.ones(3, 2), out=y) is y
    True
    """
    if out is not None:
        _check_out("matmul", out, input, other)
        result = matmul(input, other)
        na, nb = np.ndim(input), np.ndim(other)
        # (1-d @ 1-d is dot, with dot's dtype message; 1-d @ 2-d is a 1-row mm in PyTorch's kernel)
        return _write_out("dot" if na == nb == 1 else "matmul", result, out,
                          (1,) + result._data.shape if (na, nb) == (1, 2) else None)
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        for arg, pos, v in (("input", 1, input), ("other", 2, other)):
            if not isinstance(v, (Tensor, np.ndarray)):  # (a Python number: PyTorch's TypeError)
                raise TypeError(f"matmul(): argument '{arg}' (position {pos}) must be Tensor, not {type(v).__name__}")
        # an ndarray operand (ndarray @ tensor): both in the promoted dtype
        input, other, cast = binary_operands(input, other, "matmul")
        if cast is not None:
            input, other = input.to(cast), other.to(cast)
    na, nb = input._data.ndim, other._data.ndim
    if na == 0 or nb == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {na}D and {nb}D")
    if na == 1 and nb == 1:
        return dot(input, other)
    if na == 2 and nb == 1:
        return mv(input, other)
    if na == 1 and nb == 2:
        if input._data.shape[0] != other._data.shape[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied (1x{input._data.shape[0]} and {_dims(other)})")
        from ..shape import squeeze_matmul

        return apply(squeeze_matmul, (mm(unsqueeze(input, 0), other),), {"dims": (0,)})
    if na == 2 and nb == 2:
        return mm(input, other)
    # batched (one of them has >= 3 dims): PyTorch's output is always an _unsafe_view of the
    # folded mm / mv or of the bmm result (UnsafeViewBackward0), never a squeeze.
    if na >= 3 and nb <= 2:
        # Fold the batch into rows: one BLAS call, as PyTorch, whose mm / mv then check the sizes and
        # dtypes with their own messages ("mat1 and mat2 shapes cannot be multiplied (6x4 and 5x4)")
        rows, k = int(np.prod(input._data.shape[:-1])), input._data.shape[-1]
        folded = (mm if nb == 2 else mv)(reshape(input, (rows, k)), other)
        out_shape = input._data.shape[:-1] + ((other._data.shape[-1],) if nb == 2 else ())
        return apply(_unsafe_view, (folded,), {"shape": out_shape})
    a = unsqueeze(input, 0) if na == 1 else input
    b = unsqueeze(other, -1) if nb == 1 else other
    ka, kb = a._data.shape[-1], b._data.shape[-2]
    if ka != kb:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a._data.shape[0]}, {ka}] but got: [{b._data.shape[0]}, {kb}].")
    try:
        batch = np.broadcast_shapes(a._data.shape[:-2], b._data.shape[:-2])
    except ValueError:
        from .._common import broadcast_error

        raise broadcast_error(a._data.shape[:-2], b._data.shape[:-2]) from None
    out_shape = tuple(batch) + ((a._data.shape[-2],) if na > 1 else ()) + ((b._data.shape[-1],) if nb > 1 else ())
    if na >= 3 and nb <= 2:
        # Fold the batch into rows: one BLAS call (what PyTorch does too).
        _same_dtype(a, b, "mm")
        # (the row count spelled out: -1 is ambiguous when a dim is 0)
        rows = int(np.prod(a._data.shape[:-1]))
        return apply(_unsafe_view, (mm(reshape(a, (rows, ka)), b),), {"shape": out_shape})
    if na <= 2 and input._requires_grad:
        # PyTorch folds (other^T @ input^T)^T here so input's grad needs no batch-sized buffer.
        _same_dtype(b, a, "mm")
        ot = transpose(other, -1, -2)
        folded = mm(reshape(ot, (int(np.prod(ot._data.shape[:-1])), kb)), transpose(a, -1, -2))
        if na == 1:
            return apply(_unsafe_view, (folded,), {"shape": out_shape})
        from ..shape import contiguous

        res = apply(_unsafe_view, (folded,), {"shape": tuple(batch) + (b._data.shape[-1], a._data.shape[-2])})
        return contiguous(transpose(res, -1, -2))
    _same_dtype(a, b, "bmm")
    return apply(_unsafe_view, (apply(_bmm, (a, b)),), {"shape": out_shape})


_wrap = Tensor._wrap
mT = _D.mT


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
        from .._common import broadcast_error

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


# Run-time references to modules that import this one (bound last, so either import order works)
