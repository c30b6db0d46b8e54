"""How NumPy sees a Tensor: ``Tensor.__array_ufunc__``.

* Arithmetic and comparison ufuncs (what ``ndarray + tensor`` or ``np.float64(2) * tensor``
  call) run as retrograd ops, so the result is a Tensor that stays in the graph and has
  PyTorch's dtype (a NumPy scalar counts as a Python scalar: float32 stays float32).
* Any other ufunc (``np.sin(t)``, ``np.add.reduce(t)``) is computed by NumPy on the data and
  the result comes back as a Tensor, which is what PyTorch's ``__array_wrap__`` gives; a
  tensor that requires grad refuses, with PyTorch's message.
* ``out=`` arrays are written by NumPy and returned as given.

``np.asarray(t)`` shares ``t``'s memory (``Tensor.__array__``), as in PyTorch.

>>> import numpy as np, retrograd as torch
>>> np.ones(2) * torch.ones(2, requires_grad=True)
tensor([1., 1.], dtype=torch.float64, grad_fn=<MulBackward0>)
"""
from __future__ import annotations

import numpy as np

from ._tensor import Tensor

# ufunc -> retrograd function name: what Python's binary operators call
_BINARY = {np.add: "add", np.subtract: "sub", np.multiply: "mul", np.true_divide: "div", np.power: "pow",
           np.matmul: "matmul", np.floor_divide: "floor_divide", np.remainder: "remainder",
           np.bitwise_and: "bitwise_and", np.bitwise_or: "bitwise_or", np.bitwise_xor: "bitwise_xor",
           np.equal: "eq", np.not_equal: "ne", np.less: "lt", np.less_equal: "le", np.greater: "gt",
           np.greater_equal: "ge"}


def _operand(x):
    """ndarray -> Tensor (it has a dimension: it takes part in promotion); NumPy scalar -> the
    Python scalar PyTorch reads it as (a NumPy bool counts as a float, as in PyTorch)."""
    if isinstance(x, np.ndarray):
        return Tensor._wrap(x, False, None, 0)
    if isinstance(x, np.bool_):
        return float(x)
    if isinstance(x, np.generic):
        return x.item()
    return x


def _unwrap(x):
    if isinstance(x, Tensor):
        if x._requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return x._data
    return x


def _rewrap(r):
    if isinstance(r, tuple):
        return tuple(_rewrap(x) for x in r)
    if isinstance(r, (np.ndarray, np.generic)):
        from . import _dtype as D

        try:
            D.from_numpy_dtype(r.dtype)
        except TypeError:
            return r  # a dtype retrograd has no tensors for: leave it to NumPy
        return Tensor._wrap(np.asarray(r), False, None, 0)
    return r


def array_ufunc(self: Tensor, ufunc, method: str, *inputs, **kwargs):
    """NumPy's hook for ufuncs that involve a Tensor (see the module docstring)."""
    name = _BINARY.get(ufunc)
    if name is not None and method == "__call__" and not kwargs and len(inputs) == 2:
        from . import _ops

        op = getattr(_ops, name, None)
        if op is not None:
            # matmul promotes an ndarray operand itself (tensor @ tensor does not promote)
            return op(*inputs) if ufunc is np.matmul else op(*[_operand(x) for x in inputs])
    out = kwargs.get("out")
    if out is not None:
        kwargs["out"] = tuple(_unwrap(o) for o in out)
    result = getattr(ufunc, method)(*[_unwrap(x) for x in inputs], **kwargs)
    if out is not None:
        return out[0] if len(out) == 1 else out
    return _rewrap(result)
