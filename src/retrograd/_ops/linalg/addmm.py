"""Addmm, addbmm, baddbmm, addmv, addr (+ in-place)."""
from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from .._common import shape_str, tensor_args
from .._registry import apply, apply_inplace, primitive
from ..shape import _unsafe_view, reshape, t, unsqueeze
from ._checks import out_arg

__all__ = ["addmm", "addbmm", "baddbmm", "addmv", "addr", "kron"]


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
    from ..._dtype import result_type

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


# Run-time references to modules that import this one (bound last, so either import order works)
from .products import CPP_NAMES, _tn, mT, matmul, mm, mv, outer  # noqa: E402
