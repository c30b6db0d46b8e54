"""Tensor's methods and operators, bound in this one listing.

Most methods are the op of the same name with ``self`` first: ``METHODS`` lists them by the
``_ops`` module that defines the op ("" for the op package itself, where the method is the
top-level function).  Below it: methods whose argument order or form differs from the function's, the
operators, and small methods of Tensor's own.  Adding an op's method: add its name under its
module here (no module outside this file binds Tensor methods).
"""
from __future__ import annotations

import importlib

import numpy as np

from . import _creation as C
from . import _complex
from . import _deprecated
from . import _layout
from . import _dtype as D
from . import _ops as O
from ._numpy_interop import array_ufunc
from ._tensor import Tensor, bump_version
from .autograd import grad_mode

METHODS = (
    ("", (
        "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "neg", "negative", "pow", "exp",
        "log", "sqrt", "sin", "cos", "tan", "tanh", "sigmoid", "relu", "abs", "absolute", "sign", "reciprocal",
        "square", "eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal",
        "clamp", "clip", "sum", "mean", "reshape", "view", "view_as", "reshape_as", "transpose", "swapaxes",
        "swapdims", "t", "expand", "expand_as", "unsqueeze", "squeeze", "select", "narrow", "flatten",
        "contiguous", "movedim", "moveaxis", "matmul", "mm", "mv", "dot", "bmm", "outer", "clone", "copy_", "zero_",
        "fill_", "add_", "sub_", "mul_", "div_", "neg_", "pow_", "clamp_", "clip_", "exp_", "log_", "sqrt_", "sin_",
        "cos_", "tan_", "tanh_", "sigmoid_", "reciprocal_", "relu_", "abs_", "sign_", "nonzero", "index_put_"
    )),
    ("binary", (
        "floor_divide", "remainder", "fmod", "float_power", "atan2", "arctan2", "hypot", "xlogy", "copysign",
        "logaddexp", "logaddexp2", "xlogy_", "floor_divide_", "remainder_", "fmod_", "float_power_", "atan2_",
        "arctan2_", "hypot_", "copysign_", "heaviside", "ldexp", "nextafter", "ldexp_", "heaviside_", "nextafter_",
        "divide_", "multiply_", "subtract_", "true_divide_", "negative_"
    )),
    ("bitwise", (
        "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift",
        "bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_not_", "bitwise_left_shift_", "bitwise_right_shift_",
        "gcd", "lcm", "gcd_", "lcm_"
    )),
    ("calculus", ("diff",)),
    ("clamp", ("clamp_min", "clamp_max", "clamp_min_", "clamp_max_")),
    ("comparison", (
        "isclose", "allclose", "equal", "logical_and", "logical_or", "logical_xor", "logical_not", "isnan", "isinf",
        "isposinf", "isneginf", "isfinite", "isreal", "logical_and_", "logical_or_", "logical_xor_", "logical_not_",
        "maximum", "minimum", "fmax", "fmin", "eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "greater_equal_",
        "less_", "less_equal_", "not_equal_"
    )),
    ("complex", ("conj", "resolve_conj", "resolve_neg", "conj_physical")),
    ("conversion", ("is_same_size", "is_nonzero")),
    ("copies", ("narrow_copy",)),
    ("diagonal", ("tril", "triu", "diag", "diagonal", "diag_embed", "diagflat", "tril_", "triu_")),
    ("index_dim", (
        "index_select", "index_add", "index_copy", "index_fill", "index_add_", "index_copy_", "index_fill_",
        "index_reduce", "index_reduce_"
    )),
    ("indexing", ("take", "argwhere", "index_put", "put", "put_", "nonzero_static")),
    ("joining", (
        "split", "chunk", "unbind", "tensor_split", "dsplit", "hsplit", "vsplit", "split_with_sizes", "unsafe_chunk",
        "unsafe_split", "unsafe_split_with_sizes"
    )),
    ("linalg.addmm", (
        "addmm", "addbmm", "baddbmm", "addmv", "addr", "addmm_", "addbmm_", "baddbmm_", "addmv_", "addr_", "kron"
    )),
    ("linalg.distances", ("dist",)),
    ("linalg.householder", ("geqrf", "orgqr", "ormqr")),
    ("linalg.lu", ("lu", "lu_solve")),
    ("linalg.matrix_functions", ("matrix_exp",)),
    ("linalg.norms", ("renorm", "renorm_")),
    ("linalg.products", ("ger", "vdot", "inner", "cross", "trace")),
    ("linalg.solvers", ("triangular_solve",)),
    ("linalg.top_level", (
        "det", "inverse", "logdet", "slogdet", "cholesky", "cholesky_solve", "cholesky_inverse", "qr", "svd",
        "pinverse", "matrix_power"
    )),
    ("masked", ("masked_fill", "masked_select", "masked_scatter", "masked_fill_", "masked_scatter_")),
    ("nn.activation", ("softmax", "log_softmax")),
    ("random", (
        "uniform_", "normal_", "bernoulli_", "random_", "exponential_", "geometric_", "cauchy_", "log_normal_",
        "bernoulli", "multinomial"
    )),
    ("rearrange", ("repeat", "repeat_interleave", "fliplr", "flipud", "roll", "rot90")),
    ("reduction", (
        "prod", "amax", "amin", "max", "min", "argmax", "argmin", "norm", "logsumexp", "all", "any", "count_nonzero",
        "nansum", "nanmean", "aminmax"
    )),
    ("scan", ("cumsum", "cumprod", "cummax", "cummin", "cumsum_", "cumprod_", "logcumsumexp", "signbit")),
    ("scatter", (
        "gather", "scatter", "scatter_add", "scatter_reduce", "take_along_dim", "scatter_", "scatter_add_",
        "scatter_reduce_", "select_scatter", "slice_scatter", "diagonal_scatter", "msort", "as_strided_scatter"
    )),
    ("shape", (
        "adjoint", "unflatten", "broadcast_to", "ravel", "t_", "transpose_", "swapaxes_", "swapdims_", "squeeze_",
        "unsqueeze_", "slice_inverse"
    )),
    ("sorting", ("unique", "unique_consecutive", "median", "nanmedian", "mode", "sort", "argsort", "topk", "kthvalue")),
    ("special", ("i0", "mvlgamma", "i0_", "mvlgamma_", "igamma", "igammac")),
    ("statistics", ("var", "std", "cov", "corrcoef", "quantile", "nanquantile", "bincount", "histc", "histogram")),
    ("strided", ("as_strided", "as_strided_", "unfold")),
    ("ternary", ("lerp", "addcmul", "addcdiv", "lerp_", "addcmul_", "addcdiv_")),
    ("unary", (
        "sgn", "rsqrt", "exp2", "expm1", "log2", "log10", "log1p", "asin", "acos", "atan", "sinh", "cosh", "asinh",
        "acosh", "atanh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "logit", "erf", "erfc",
        "erfinv", "lgamma", "digamma", "floor", "ceil", "round", "trunc", "fix", "frac", "nan_to_num", "sinc",
        "deg2rad", "rad2deg", "positive", "angle", "rsqrt_", "exp2_", "expm1_", "log2_", "log10_", "log1p_", "asin_",
        "acos_", "atan_", "sinh_", "cosh_", "asinh_", "acosh_", "atanh_", "arcsin_", "arccos_", "arctan_", "arcsinh_",
        "arccosh_", "arctanh_", "logit_", "erf_", "erfc_", "floor_", "ceil_", "round_", "trunc_", "fix_", "frac_",
        "nan_to_num_", "sinc_", "deg2rad_", "rad2deg_", "sgn_", "erfinv_", "lgamma_", "digamma_", "polygamma_",
        "frexp", "absolute_", "square_"
    )),
)


def bind(listing) -> None:
    """Attach ``module.<name>`` to Tensor for each (module, names) of ``listing`` (a module of
    ``_ops`` by its dotted name there; "" is the package)."""
    for module, names in listing:
        # (by import: the package's ``clamp`` or ``diagonal`` attribute is the function, not the module)
        namespace = importlib.import_module(f"{O.__name__}.{module}") if module else O
        for name in names:
            if name in Tensor.__dict__:
                raise TypeError(f"Tensor.{name} is bound twice (the class or this listing already has it)")
            fn = getattr(namespace, name)
            # (an op whose argument errors count positions has a method form that skips ``self``)
            setattr(Tensor, name, getattr(fn, "method_form", fn))


bind(METHODS)
# (assigned before their modules' listings were bound, so those skipped these names)
Tensor.polygamma = O.unary._polygamma_method  # x.polygamma(n) puts n first, unlike the function
Tensor.conj_physical_ = _complex._conj_physical_
# torch 2.13's deprecated non-in-place resizes, legacy storage_type, removed linear algebra
Tensor.resize = _deprecated._resize
Tensor.resize_as = _deprecated._resize_as
Tensor.storage_type = _deprecated._storage_type
Tensor.lstsq = _deprecated.REMOVED_METHODS["lstsq"]
Tensor.solve = _deprecated.REMOVED_METHODS["solve"]
Tensor.symeig = _deprecated.REMOVED_METHODS["symeig"]
Tensor.eig = _deprecated.REMOVED_METHODS["eig"]
# (these methods also take dims one by one, x.permute(1, 0); the functions want one tuple)
Tensor.permute = O.shape.permute_method
Tensor.flip = O.rearrange.flip_method
Tensor.tile = O.rearrange.tile_method


def _sum_to_size(self, *size):
    """``x.sum_to_size(*size)``: sum broadcast dims away so the result has ``size``."""
    shape = O._common.parse_shape(size)
    have = tuple(self.shape)
    # PyTorch: ``size`` must be expandable to self's shape (not a reshape)
    ok = len(shape) <= len(have) and all(s == h or s == 1 for s, h in zip(shape[::-1], have[::-1]))
    if not ok:
        raise RuntimeError(f"size {{[{', '.join(map(str, shape))}]}} is not expandable to size "
                           f"{{[{', '.join(map(str, have))}]}}.")
    # PyTorch's sum_to: an equal shape is self itself; otherwise a keepdim sum (int64 for
    # integer and bool inputs) over the leading and the size-1 dims, then a view without
    # the leading ones
    if not have:
        return O.sum(self)
    if shape == have:
        return self
    lead = len(have) - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and have[lead + i] != 1)
    r = O.sum(self, dims, keepdim=True)
    return r.view(shape) if lead else r


Tensor.sum_to_size = _sum_to_size


def _where_method(self, condition, y):
    """``x.where(condition, y)``: torch.where(condition, x, y) (the tensor is the "true" branch)."""
    return O.where(condition, self, y)


Tensor.where = _where_method


def _r(fn):
    return lambda self, other: fn(other, self)


Tensor.__add__ = O.add
Tensor.__radd__ = O.add  # PyTorch's __radd__ is self.add(other): the tensor stays first
Tensor.__iadd__ = O.add_
Tensor.__sub__ = O.sub
Tensor.__rsub__ = lambda self, other: O.rsub(self, other)
Tensor.__isub__ = O.sub_
Tensor.__mul__ = O.mul
Tensor.__rmul__ = O.mul
Tensor.__imul__ = O.mul_
Tensor.__truediv__ = O.div
Tensor.__rtruediv__ = lambda self, other: O.mul(O.reciprocal(self), other)
Tensor.__itruediv__ = O.div_
# Python 2's names, which PyTorch's Tensor still has (``x.__div__(2)``, ``x.__rdiv__(2)``)
Tensor.__div__ = Tensor.__truediv__
Tensor.__rdiv__ = Tensor.__rtruediv__
Tensor.__idiv__ = Tensor.__itruediv__
Tensor.__neg__ = O.neg
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = O.abs
Tensor.__pow__ = O.pow
Tensor.__rpow__ = lambda self, other: O.pow(other, self)
Tensor.__ipow__ = O.pow_
Tensor.__mod__ = O.binary.remainder
Tensor.__rmod__ = lambda self, other: O.binary.remainder(other, self)
Tensor.__imod__ = O.binary.remainder_
Tensor.__floordiv__ = O.binary.floor_divide
Tensor.__rfloordiv__ = lambda self, other: O.binary.floor_divide(other, self)
Tensor.__ifloordiv__ = O.binary.floor_divide_
_bw = O.bitwise
Tensor.__and__ = _bw.bitwise_and
Tensor.__rand__ = _r(_bw.bitwise_and)
Tensor.__iand__ = _bw.bitwise_and_
Tensor.__or__ = _bw.bitwise_or
Tensor.__ror__ = _r(_bw.bitwise_or)
Tensor.__ior__ = _bw.bitwise_or_
Tensor.__xor__ = _bw.bitwise_xor
Tensor.__rxor__ = _r(_bw.bitwise_xor)
Tensor.__ixor__ = _bw.bitwise_xor_
Tensor.__invert__ = _bw._invert
Tensor.__lshift__ = _bw.bitwise_left_shift
Tensor.__rlshift__ = _r(_bw.bitwise_left_shift)
Tensor.__ilshift__ = _bw.bitwise_left_shift_
Tensor.__rshift__ = _bw.bitwise_right_shift
Tensor.__rrshift__ = _r(_bw.bitwise_right_shift)
Tensor.__irshift__ = _bw.bitwise_right_shift_


def _matmul_op(self, other):
    # As in PyTorch, ``t @ [1., 1.]`` or ``t @ 2`` is Python's "unsupported operand" TypeError:
    # the operator answers NotImplemented for anything but a tensor (or an ndarray, which
    # PyTorch hands to NumPy and gets back a tensor).
    if isinstance(other, (Tensor, np.ndarray)):
        return O.matmul(self, other)
    return NotImplemented


def _rmatmul_op(self, other):
    if isinstance(other, (Tensor, np.ndarray)):
        return O.matmul(other, self)
    return NotImplemented


Tensor.__matmul__ = _matmul_op
Tensor.__array_ufunc__ = array_ufunc  # ndarray (op) Tensor -> Tensor, see _numpy_interop
Tensor.__rmatmul__ = _rmatmul_op
_COMPARABLE = (Tensor, int, float, bool, np.number, np.bool_, np.ndarray)


def _cmp_op(fn):
    # As in PyTorch, ``t == None`` is False and ``t < "a"`` is Python's TypeError:
    # operands that are not numbers or arrays give NotImplemented, not an op error.
    def op(self, other):
        if isinstance(other, _COMPARABLE):
            return fn(self, other)
        return NotImplemented
    op.__name__ = fn.__name__
    return op


Tensor.__eq__ = _cmp_op(O.eq)
Tensor.__ne__ = _cmp_op(O.ne)
Tensor.__lt__ = _cmp_op(O.lt)
Tensor.__le__ = _cmp_op(O.le)
Tensor.__gt__ = _cmp_op(O.gt)
Tensor.__ge__ = _cmp_op(O.ge)
Tensor.__getitem__ = O.getitem
Tensor.__setitem__ = O.setitem


def _delitem(self, key) -> None:
    raise TypeError("Tensor does not support deleting items")


Tensor.__delitem__ = _delitem
_T_WARNED = set()  # PyTorch warns once per process (TORCH_WARN_ONCE)
_T_MSG = {
    0: "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases. (Triggered internally "
       "at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4321.)",
    1: "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it will throw "
       "an error in a future release. Consider `x.mT` to transpose batches of matrices or "
       "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor. (Triggered internally "
       "at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4314.)",
}


def _T(self):
    n = self.ndim
    if n == 2:
        return O.permute(self, (1, 0))  # (PermuteBackward0, as in PyTorch; t() is TBackward0)
    kind = 0 if n == 0 else 1
    if kind not in _T_WARNED:
        _T_WARNED.add(kind)
        import warnings

        warnings.warn(_T_MSG[kind], UserWarning, stacklevel=2)
    return O.permute(self, tuple(range(n - 1, -1, -1)))


def _mT(self, name: str = "mT"):
    if self.ndim == 0:
        return self  # (as PyTorch: a 0-d tensor is its own transpose)
    if self.ndim < 2:
        raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of matrices. "
                           f"Got {self.ndim}-D tensor.")
    return O.transpose(self, -2, -1)


def _H(self):
    if self.ndim == 0:
        return self
    if self.ndim != 2:
        hint = " For batches of matrices, consider using tensor.mH" if self.ndim > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor.{hint}")
    return O.transpose(self, 0, 1)  # (real dtypes: the conjugate is the tensor itself)


Tensor.T = property(_T)
Tensor.mT = property(_mT)
Tensor.H = property(_H)
Tensor.mH = property(lambda self: _mT(self, "mH"))


def _new_factory(fn):
    def method(self, *size_args, size=None, dtype=None, device=None, requires_grad=False, **kw):
        if size is not None:  # new_zeros(size=(2, 3)), as torch allows
            size_args = size_args + (size,)
        return fn(*size_args, dtype=D.as_dtype(dtype) or self.dtype, requires_grad=requires_grad)
    return method


Tensor.new_zeros = _new_factory(C.zeros)
Tensor.new_ones = _new_factory(C.ones)
Tensor.new_empty = _new_factory(C.empty)
Tensor.new_full = lambda self, size, fill_value, *, dtype=None, device=None, requires_grad=False: C.full(
    size, fill_value, dtype=dtype or self.dtype, requires_grad=requires_grad)
Tensor.new_tensor = lambda self, data, *, dtype=None, device=None, requires_grad=False: C.tensor(
    data, dtype=dtype or self.dtype, requires_grad=requires_grad)


# ---------------------------------------------------------------------------- storage_offset, dim_order, new
def _storage_offset(self) -> int:
    from ._ops.strided import _offset

    return _offset(self)


def _dim_order(self, *, ambiguity_check=False) -> tuple:
    st = self.stride()
    return tuple(sorted(range(self.ndim), key=lambda i: -st[i]))  # stable: ties keep dim order


def _legacy_new(self, *args, device=None, **kw):
    """Legacy ``Tensor.new``: the legacy typed constructor (``torch.FloatTensor(...)``) of self's dtype:
    sizes -> uninitialised, a sequence -> data, a tensor or storage of that dtype -> an alias."""
    import types

    from ._compat import _legacy_new as legacy
    from ._size import Size

    if "size" in kw and not args:
        args = (Size(kw.pop("size")),)
    return legacy(types.SimpleNamespace(dtype=self.dtype), args, device, kw)


def _new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False, **kw):
    dt = dtype or self.dtype
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    n = 1 + sum((a - 1) * b for a, b in zip(size, stride)) if all(size) else 0
    buf = C.zeros(n, dtype=dt)
    out = buf.as_strided(size, stride, 0) if size else buf.reshape(())
    return out.requires_grad_(requires_grad) if requires_grad else out


def _resize_(self, *sizes, memory_format=None):
    from ._ops._common import parse_shape
    from ._tensor import check_inplace

    from .autograd.grad_mode import is_inference_mode_enabled

    # (inference mode records no graph, so PyTorch lets even a tensor that requires grad resize)
    if self.requires_grad and not is_inference_mode_enabled():
        raise RuntimeError("cannot resize variables that require grad")
    check_inplace(self)
    shape = tuple(parse_shape(sizes))
    fmt = memory_format
    if fmt is not None and fmt is not _layout.preserve_format and fmt is not _layout.contiguous_format:
        _layout.check_memory_format("resize_", fmt)
    else:
        fmt = None
    if shape == self._data.shape and (fmt is None or _layout.is_contiguous_as(self._data, fmt)):
        return self  # (torch: resizing to the current shape is no write: the version stays)
    n = 1
    for s in shape:  # (Python ints: torch's overflow errors, not NumPy's)
        n *= s
    if n >= 2 ** 63:
        raise RuntimeError("numel: integer multiplication overflow")
    if n * self._data.itemsize >= 2 ** 63:
        raise RuntimeError(f"Storage size calculation overflowed with sizes=[{', '.join(map(str, shape))}]")
    old = np.asarray(self._data).reshape(-1)
    if n <= old.size:
        data = np.ascontiguousarray(old[:n]).reshape(shape) if old.base is None and self._data.flags.c_contiguous \
            else old[:n].copy().reshape(shape)
    else:
        data = np.zeros(n, dtype=old.dtype)
        data[:old.size] = old
        data = data.reshape(shape)
    if fmt is not None:  # the same storage, strided in the requested format's dimension order
        data = np.lib.stride_tricks.as_strided(data, shape, _layout.format_strides(data, fmt))
    self._data = data
    bump_version(self)
    return self


def _resize_as_(self, the_template, *, memory_format=None):
    fmt = memory_format
    if fmt is _layout.preserve_format:  # the template's own layout, when it has a named one
        fmt = next((f for f in (_layout.channels_last, _layout.channels_last_3d)
                    if the_template._data.ndim == (4 if f is _layout.channels_last else 5)
                    and not the_template.is_contiguous() and the_template.is_contiguous(memory_format=f)), None)
    return _resize_(self, tuple(the_template.shape), memory_format=fmt)


def _set_(self, source=None, storage_offset: int = 0, size=None, stride=None):
    """``x.set_(storage, offset, size, stride)``: ``x`` becomes a view of that memory (as in torch,
    writes through either are seen by both); ``x.set_(t)`` shares ``t``'s data; ``x.set_()`` empties.

    >>> import retrograd as torch
    >>> a, b = torch.zeros(3), torch.arange(4.)
    >>> a.set_(b)
    tensor([0., 1., 2., 3.])
    >>> b[0] = 7.; a
    tensor([7., 1., 2., 3.])
    >>> a.set_().shape
    torch.Size([0])
    """
    from ._storage import TypedStorage, UntypedStorage, _root
    from ._tensor import check_inplace

    if source is None or (isinstance(source, Tensor) and size is None and stride is None and not storage_offset):
        return _tensor_set_(self, source)  # (Tensor.set_ itself: torch's dtype and autograd checks)
    check_inplace(self)
    if grad_mode.state.enabled and (self._requires_grad or (isinstance(source, Tensor) and source._requires_grad)):
        raise RuntimeError("the derivative for 'set_' is not implemented.")
    if isinstance(source, Tensor):
        root = _root(source._data)
    elif isinstance(source, TypedStorage):
        if source.dtype is not self.dtype:  # (an UntypedStorage is read as self's dtype)
            from ._compat import _SCALAR_NAMES
            from ._ops.linalg.products import CPP_NAMES

            raise RuntimeError(f"Expected a Storage of type {CPP_NAMES.get(self.dtype.name, self.dtype.name)} or an "
                               f"UntypedStorage, but got type {_SCALAR_NAMES[source.dtype.name]} for argument 1 "
                               "'storage'")
        root = source._untyped._array
    elif isinstance(source, UntypedStorage):
        root = source._array
    else:
        raise TypeError(f"set_(): argument 'source' must be Storage or Tensor, not {type(source).__name__}")
    item = self._data.itemsize
    flat = root.reshape(-1).view(np.uint8)  # (the storage's bytes, read as this tensor's dtype below)
    n = flat.size // item
    size = (n - storage_offset,) if size is None else tuple(int(v) for v in size)
    if stride is None:
        stride, acc = [], 1
        for v in reversed(size):
            stride.insert(0, acc)
            acc *= max(v, 1)
    stride = tuple(int(v) for v in stride)
    need = storage_offset + 1 + sum((v - 1) * st for v, st in zip(size, stride)) if all(size) else 0
    if need > n:
        raise RuntimeError(f"setStorage: sizes [{', '.join(map(str, size))}], strides "
                           f"[{', '.join(map(str, stride))}], storage offset {storage_offset}, and itemsize "
                           f"{item} requiring a storage size of {need * item} are out of bounds for storage of "
                           f"size {n * item}")
    base = flat[storage_offset * item:(storage_offset + max(need - storage_offset, 0)) * item].view(
        self._data.dtype) if need else np.empty((0,), self._data.dtype)
    self._data = np.lib.stride_tricks.as_strided(base, size, tuple(st * item for st in stride))
    bump_version(self)
    return self


def _callable_results(self, values) -> np.ndarray:
    """Python results of apply_/map_/map2_ as self's dtype; non-numbers raise TypeError (as torch)."""
    out = []
    for v in values:
        if not isinstance(v, (int, float, bool, np.number)):
            if self._data.dtype.kind in "iu":
                raise TypeError(f"'{type(v).__name__}' object cannot be interpreted as an integer")
            raise TypeError(f"must be real number, not {type(v).__name__}")
        out.append(v)
    return np.array(out, dtype=self._data.dtype).reshape(self._data.shape)


def _no_grad_args(name: str, *tensors) -> None:
    for t in tensors:
        if t.requires_grad:
            raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() "
                               "instead.")


def _apply_(self, callable):
    from ._tensor import check_inplace

    check_inplace(self)
    flat = np.asarray(self._data).reshape(-1)
    np.copyto(self._data, _callable_results(self, [callable(v.item()) for v in flat]))
    bump_version(self)
    return self


def _map_(self, tensor, callable):
    from ._tensor import check_inplace

    check_inplace(self)
    other = np.broadcast_to(np.asarray(tensor._data), self._data.shape).reshape(-1)
    flat = np.asarray(self._data).reshape(-1)
    np.copyto(self._data, _callable_results(self, [callable(a.item(), b.item()) for a, b in zip(flat, other)]))
    bump_version(self)
    return self


def _map2_(self, x, y, callable):
    """Legacy ``map2_``: ``self[i] = callable(self[i], x[i], y[i])`` with x and y broadcast to self."""
    from ._tensor import check_inplace

    _no_grad_args("map2_", self, x, y)
    check_inplace(self)
    xs = np.broadcast_to(np.asarray(x._data), self._data.shape).reshape(-1)
    ys = np.broadcast_to(np.asarray(y._data), self._data.shape).reshape(-1)
    flat = np.asarray(self._data).reshape(-1)
    np.copyto(self._data, _callable_results(
        self, [callable(a.item(), b.item(), c.item()) for a, b, c in zip(flat, xs, ys)]))
    bump_version(self)
    return self


Tensor.is_cpu = property(lambda self: True)
Tensor.is_conj = lambda self: False
Tensor.is_neg = lambda self: False
Tensor.storage_offset = _storage_offset
Tensor.dim_order = _dim_order
Tensor.new = _legacy_new
Tensor.new_empty_strided = _new_empty_strided
Tensor.resize_ = _resize_
Tensor.resize_as_ = _resize_as_
_tensor_set_ = Tensor.set_  # the class's own: set_() and set_(tensor)
Tensor.set_ = _set_
Tensor.apply_ = _apply_
Tensor.map_ = _map_
Tensor.map2_ = _map2_
Tensor.real = property(O.real)
Tensor.imag = property(_complex.imag)  # (raises: retrograd's tensors are real)
Tensor.sparse_dim = lambda self: 0  # dense tensors: no sparse dims, every dim dense
Tensor.dense_dim = lambda self: self._data.ndim


# ---- device/layout flags PyTorch code checks: retrograd tensors are dense, on the CPU ----
for _flag in ("is_mps", "is_xpu", "is_ipu", "is_mkldnn", "is_vulkan", "is_xla", "is_maia", "is_mtia",
              "is_nested", "is_sparse_csr"):
    setattr(Tensor, _flag, property(lambda self: False))
Tensor.is_distributed = lambda self: False
Tensor.to_dense = lambda self, dtype=None, *, masked_grad=None: self if dtype is None else self.to(dtype)
Tensor.const_data_ptr = lambda self: self.data_ptr()


def _fill_diagonal_(self, fill_value, wrap: bool = False):
    """Fill the main diagonal in place (all dims equal for ndim > 2), as torch.Tensor.fill_diagonal_."""
    shape = self._data.shape
    if self._data.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self._data.ndim > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    n = min(shape)
    idx = np.arange(n)
    if self._data.ndim == 2 and wrap and shape[0] > shape[1] + 1:
        # torch continues the diagonal after a gap of one row
        rows = np.arange(0, shape[0])
        keep = (rows % (shape[1] + 1)) < shape[1]
        rows = rows[keep]
        cols = (np.arange(len(rows))) % shape[1]
        key = (C.tensor(rows), C.tensor(cols))
    else:
        key = tuple(C.tensor(idx) for _ in shape)
    O.index_put_(self, key, C.tensor(fill_value, dtype=self.dtype))
    return self


def _as_subclass(self, cls):
    """A ``cls`` instance sharing this tensor's data and autograd history."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from Tensor is not "
                           "possible. Make sure your class inherits from Tensor.")
    out = object.__new__(cls)
    self._vcounter()  # (made now, so both share one counter)
    for slot in ("_data", "_requires_grad", "_grad_fn", "_output_nr", "_vc", "_grad", "_accum", "_base",
                 "_retains_grad", "_hooks"):
        setattr(out, slot, getattr(self, slot))
    return out


Tensor.fill_diagonal_ = _fill_diagonal_
Tensor.as_subclass = _as_subclass


Tensor.hardshrink = O.nn.activation.hardshrink  # (nn.functional's own, from the table)
Tensor.prelu = O.nn.activation.prelu


def _igamma_(self: Tensor, other: Tensor) -> Tensor:
    """In-place :func:`retrograd.igamma`."""
    from ._ops._inplace import inplace_via
    from ._ops.special import igamma

    return inplace_via(self, lambda x: igamma(x, other), (other,))


def _igammac_(self: Tensor, other: Tensor) -> Tensor:
    """In-place :func:`retrograd.igammac`."""
    from ._ops._inplace import inplace_via
    from ._ops.special import igammac

    return inplace_via(self, lambda x: igammac(x, other), (other,))


for _name, _fn in (("igamma_", _igamma_), ("igammac_", _igammac_)):
    _fn.__name__ = _fn.__qualname__ = _name
    setattr(Tensor, _name, _fn)


# ---------------------------------------------------------------- binary operators and foreign types
# PyTorch's binary operators answer NotImplemented when the op raises TypeError (an operand of a
# type it does not know), so Python can try the other operand's reflected method:
# ``t + Unknown()`` calls ``Unknown.__radd__``, and only fails if that is missing too.
_BINARY_DUNDERS = tuple(
    f"__{p}{op}__" for op in ("add", "sub", "mul", "truediv", "div", "floordiv", "mod", "pow", "lshift",
                              "rshift", "and", "or", "xor") for p in ("", "r", "i"))


def _not_implemented_on_type_error(fn):
    # (the frame's code name starts with "_" so error messages that name the public function the
    # user called, e.g. nn.parameter's uninitialized-parameter error, look past this wrapper)
    def _binary_dunder(self, other):
        try:
            return fn(self, other)
        except TypeError:
            return NotImplemented
    _binary_dunder.__name__ = getattr(fn, "__name__", "_binary_dunder")
    _binary_dunder.__doc__ = getattr(fn, "__doc__", None)
    _binary_dunder._rg_wrapped_dunder = fn
    return _binary_dunder


for _name in _BINARY_DUNDERS:
    _fn = Tensor.__dict__.get(_name)
    if _fn is not None and not hasattr(_fn, "_rg_wrapped_dunder"):
        setattr(Tensor, _name, _not_implemented_on_type_error(_fn))
del _name, _fn
