"""Matrix products: matmul and the mm / mv / dot / bmm primitives it dispatches to."""
from __future__ import annotations

import warnings

import numpy as np

from .. import _dtype as D
from .._blas import mm as blas_mm
from .._tensor import Tensor
from ..autograd import grad_mode
from ._common import binary_operands, tensor_args
from ._out import with_out
from ._registry import apply, primitive
from .shape import _unsafe_view, reshape, sum_to, transpose, unsqueeze

__all__ = ["matmul", "mm", "mv", "dot", "bmm", "outer", "ger"]
METHODS = ["ger"]  # the rest are bound by _tensor_methods.METHODS

_mm = primitive("mm", lambda a, b: blas_mm(a, b), node="MmBackward0",
                a=lambda g, b: mm(g, t_(b)),
                b=lambda g, a: mm(t_(a), g))
_mv = primitive("mv", lambda a, b: a @ b, node="MvBackward0",
                a=lambda g, b: outer(g, b),
                b=lambda g, a: mv(t_(a), g))
_dot = primitive("dot", lambda a, b: np.asarray(np.dot(a, b)), node="DotBackward0",
                 a=lambda g, b: g * b,
                 b=lambda g, a: g * a)
# Batched products with broadcasting batch dims; grads are summed back by the engine.
_bmm = primitive("matmul_batched", lambda a, b: np.matmul(a, b), node="BmmBackward0",
                 a=lambda g, a_shape, b: sum_to(matmul(g, transpose(b, -1, -2)), a_shape),
                 b=lambda g, b_shape, a: sum_to(matmul(transpose(a, -1, -2), g), b_shape))


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
    from .._tensor import _scalar_type_name

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
        from .shape import squeeze_matmul

        return apply(squeeze_matmul, (mm(unsqueeze(input, 0), other),), {"dims": (0,)})
    if na == 2 and nb == 2:
        return mm(input, other)
    # batched (one of them has >= 3 dims): PyTorch's output is always an _unsafe_view of the
    # folded mm / mv or of the bmm result (UnsafeViewBackward0), never a squeeze.
    a = unsqueeze(input, 0) if na == 1 else input
    b = unsqueeze(other, -1) if nb == 1 else other
    ka, kb = a._data.shape[-1], b._data.shape[-2]
    if ka != kb:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a._data.shape[0]}, {ka}] but got: [{b._data.shape[0]}, {kb}].")
    try:
        batch = np.broadcast_shapes(a._data.shape[:-2], b._data.shape[:-2])
    except ValueError:
        from ._common import broadcast_error

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
        from .shape import contiguous

        res = apply(_unsafe_view, (folded,), {"shape": tuple(batch) + (b._data.shape[-1], a._data.shape[-2])})
        return contiguous(transpose(res, -1, -2))
    _same_dtype(a, b, "bmm")
    return apply(_unsafe_view, (apply(_bmm, (a, b)),), {"shape": out_shape})
