"""Masked_fill/masked_select/masked_scatter, where."""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from .._layout import like_operands
from ._common import _const, binary_operands, broadcast_error, scalar_tensor
from ._composite import _out
from ._out import same_dtype, with_out
from ._registry import apply, apply_inplace, primitive

__all__ = ["where", "masked_fill", "masked_select", "masked_scatter", "masked_fill_", "masked_scatter_"]


# ---------------------------------------------------------------- where / clamp
def _where_fw(cond, a, b):
    out = np.where(cond, a, b)  # (laid out as PyTorch's, whose operands are cond, a, b in that order)
    if cond.flags.c_contiguous and a.flags.c_contiguous and b.flags.c_contiguous:
        return out
    return like_operands(out, cond, a, b)



# PyTorch: where(cond, g, 0) (a product with the mask would turn an infinite g into NaN)
_where = primitive("where", lambda cond, a, b: _where_fw(cond, a, b), node="WhereBackward0",
                   a=lambda g, cond: where(cond, g, 0.0),
                   b=lambda g, cond: where(cond, 0.0, g), batch="elementwise")


def logical_not_t(cond: Tensor) -> Tensor:
    return Tensor._wrap(np.logical_not(cond._data), False, None, 0)


def where(condition, input=None, other=None, *, out=None):
    """``where(cond, x, y)`` picks from x where cond else y; ``where(cond)`` = nonzero(as_tuple)."""
    if input is None and other is None:
        from .indexing import nonzero

        return nonzero(condition, as_tuple=True)
    if not isinstance(condition, Tensor) or input is None or other is None:
        got = ", ".join("Tensor" if isinstance(x, Tensor) else type(x).__name__
                        for x in (condition, input, other) if x is not None)
        raise TypeError(f"where() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        " * (Tensor condition)\n"
                        " * (Tensor condition, Tensor input, Tensor other, *, Tensor out = None)\n"
                        " * (Tensor condition, Number self, Tensor other)\n"
                        " * (Tensor condition, Tensor input, Number other)\n"
                        " * (Tensor condition, Number self, Number other)\n")
    cond = condition
    kind = cond._data.dtype.kind
    if cond._data.dtype == np.uint8:
        import warnings

        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and will be removed in a "
                      "future version of PyTorch. Use a boolean condition instead.", UserWarning, stacklevel=2)
        cond = Tensor._wrap(cond._data.astype(bool), False, None, 0)
    elif kind != "b":
        from .._tensor import _scalar_type_name

        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{_scalar_type_name(cond.dtype)}")
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        rt = D.result_type(input, other)  # two numbers: e.g. where(c, 2, 0.5) is float32
        return _out(apply(_where, (cond, scalar_tensor(input, rt), scalar_tensor(other, rt))), out, inputs=(cond,))
    a, b, cast = binary_operands(input, other, "where")
    try:  # (PyTorch broadcasts cond, input, other in turn and names the pair that fails)
        np.broadcast_shapes(cond._data.shape, a._data.shape, b._data.shape)
    except ValueError:
        try:
            acc = np.broadcast_shapes(cond._data.shape, a._data.shape)
        except ValueError:
            raise broadcast_error(cond._data.shape, a._data.shape) from None
        raise broadcast_error(acc, b._data.shape) from None
    r = apply(_where, (cond, a, b)) if cast is None else _where_cast(cond, a, b, cast)
    if out is not None and out._data.dtype != r._data.dtype:  # (where's own check and words)
        from .._tensor import _scalar_type_name as _n

        raise RuntimeError(f"Expected out type to be {_n(r.dtype)} but got {_n(out.dtype)}")
    return _out(r, out, inputs=(cond, input, other))


def _where_cast(cond, a, b, cast):
    a = a.to(cast) if a.dtype is not cast else a
    b = b.to(cast) if b.dtype is not cast else b
    return apply(_where, (cond, a, b))


# ---------------------------------------------------------------- masked ops
def _mask_np(mask, name: str) -> np.ndarray:
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        if name == "masked_select:":
            raise RuntimeError("masked_select: expected BoolTensor for mask")
        if name == "masked_scatter_":  # this one names the dtype PyTorch's way
            from .. import _dtype as D
            from .._tensor import _scalar_type_name

            raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with dtype "
                               f"{_scalar_type_name(D.from_numpy_dtype(m.dtype))}")
        names = {"int64": "long int", "float32": "float", "float64": "double", "int32": "int", "uint8": "unsigned char"}
        raise RuntimeError(f"{name} only supports boolean masks, but got mask with dtype "
                           f"{names.get(m.dtype.name, m.dtype.name)}")
    return m


def _masked_fill_np(a, *, mask, value):
    shape = np.broadcast_shapes(a.shape, mask.shape)
    # (contiguous, as PyTorch's clone(contiguous_format) of the input that it fills)
    return np.asarray(np.where(mask, np.asarray(value).astype(a.dtype), a).reshape(shape), order="C")


_masked_fill = primitive("masked_fill", _masked_fill_np, node="MaskedFillBackward0",
                         a=lambda g, mask: apply(_masked_fill, (g,), {"mask": mask, "value": 0}), batch="elementwise")
_masked_fill_t = primitive("masked_fill_tensor", lambda a, v, *, mask: _masked_fill_np(a, mask=mask, value=v),
                           node="MaskedFillBackward1",
                           a=lambda g, mask: apply(_masked_fill, (g,), {"mask": mask, "value": 0}),
                           v=lambda g, mask: (g * _const(mask)).sum(), batch="elementwise")


def _broadcast_check(a_shape, m_shape, mask_first: bool = True):
    try:
        return np.broadcast_shapes(a_shape, m_shape)
    except ValueError:
        raise (broadcast_error(m_shape, a_shape) if mask_first else broadcast_error(a_shape, m_shape)) from None


def masked_fill(input: Tensor, mask: Tensor, value) -> Tensor:
    """``input`` with ``value`` where ``mask`` (bool, broadcastable) is True.

    >>> import retrograd as torch
    >>> torch.tensor([1., 2., 3.]).masked_fill(torch.tensor([True, False, True]), 0.)
    tensor([0., 2., 0.])
    """
    m = _mask_np(mask, "masked_fill_")
    _broadcast_check(input._data.shape, m.shape)
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value._data.ndim} dimension(s).")
        return apply(_masked_fill_t, (input, value), {"mask": m}, None)
    return apply(_masked_fill, (input,), {"mask": m, "value": value})


def masked_fill_(self: Tensor, mask: Tensor, value) -> Tensor:
    m = _mask_np(mask, "masked_fill_")
    _broadcast_check(self._data.shape, m.shape, mask_first=False)
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value._data.ndim} dimension(s).")
        return apply_inplace(_masked_fill_t, self, (value,), {"mask": m})
    return apply_inplace(_masked_fill, self, (), {"mask": m, "value": value})


def _masked_select_np(a, *, mask):
    shape = np.broadcast_shapes(a.shape, mask.shape)
    return np.broadcast_to(a, shape)[np.broadcast_to(mask, shape)]


def _masked_select_bw_np(grad, *, shape, mask):
    out = np.zeros(shape, dtype=grad.dtype)
    out[np.broadcast_to(mask, shape)] = grad
    return out


_masked_select = primitive("masked_select", _masked_select_np, node="MaskedSelectBackward0",
                           a=lambda g, a_shape, mask: apply(
                               _masked_select_bw, (g,),
                               {"shape": np.broadcast_shapes(a_shape, mask.shape), "mask": mask}))
_masked_select_bw = primitive("masked_select_backward", _masked_select_bw_np, node="MaskedScatterBackward0",
                              grad=lambda g, mask: apply(_masked_select, (g,), {"mask": mask}))


@with_out("masked_select", same_dtype("masked_select(): self and result must have the same scalar type"))
def masked_select(input: Tensor, mask: Tensor, *, out=None) -> Tensor:
    """The elements of ``input`` where ``mask`` is True, as a 1-d tensor."""
    m = _mask_np(mask, "masked_select:")
    _broadcast_check(input._data.shape, m.shape)
    return apply(_masked_select, (input,), {"mask": m})


def _masked_scatter_np(a, src, *, mask):
    shape = np.broadcast_shapes(a.shape, mask.shape)
    out = np.array(np.broadcast_to(a, shape), order="C")
    m = np.broadcast_to(mask, shape)
    out[m] = src.reshape(-1)[: int(m.sum())]
    return out


_masked_scatter = primitive("masked_scatter", _masked_scatter_np, node="MaskedScatterBackward0",
                            a=lambda g, mask: apply(_masked_fill, (g,), {"mask": mask, "value": 0}),
                            src=lambda g, src_shape, mask: _masked_scatter_src_grad(g, mask, src_shape))


def _masked_scatter_src_grad(g: Tensor, mask: np.ndarray, src_shape) -> Tensor:
    sel = apply(_masked_select, (g,), {"mask": mask})
    n = int(np.prod(src_shape))
    k = sel._data.shape[0]
    if k < n:
        from .joining import cat

        sel = cat([sel, _wrap(np.zeros(n - k, dtype=g._data.dtype), False, None, 0)])
    return reshape(sel, src_shape)


def _masked_scatter_args(input, mask, source, name):
    m = _mask_np(mask, name)
    if source._data.dtype != input._data.dtype:
        from .._tensor import _scalar_type_name

        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got"
                           f"{_scalar_type_name(input.dtype)} and {_scalar_type_name(source.dtype)}")
    shape = _broadcast_check(input._data.shape, m.shape)
    if int(np.broadcast_to(m, shape).sum()) > source._data.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return m


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """``input`` with consecutive elements of ``source`` written where ``mask`` is True."""
    m = _masked_scatter_args(input, mask, source, "masked_scatter_")
    return apply(_masked_scatter, (input, source), {"mask": m})


def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    m = _masked_scatter_args(self, mask, source, "masked_scatter_")
    return apply_inplace(_masked_scatter, self, (source,), {"mask": m})


# Run-time references to modules that import this one (bound last, so either import order works)
from .shape import reshape  # noqa: E402

_wrap = Tensor._wrap
