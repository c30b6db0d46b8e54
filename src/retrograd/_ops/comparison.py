"""Eq/ne/lt/le/gt/ge, maximum/minimum/fmax/fmin, isclose/allclose/equal, logical_*,
isnan/isinf/isfinite..., isin."""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _scalar_type_name
from ._common import _const, _it, _tensor_operands, binary_operands
from ._composite import _out
from ._out import declares_out, need_dtype, with_out
from ._registry import apply, apply_inplace, primitive


__all__ = ["eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal",
           "isclose", "allclose", "equal", "logical_and", "logical_or", "logical_xor", "logical_not", "isnan",
           "isinf", "isposinf", "isneginf", "isfinite", "isreal", "maximum", "minimum", "fmax", "fmin", "isin",
           "eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "greater_equal_", "less_", "less_equal_",
           "not_equal_"]


# ---------------------------------------------------------------- comparisons (no grad)
def _cmp(name: str, f):
    op = primitive(name, lambda a, b: f(a, b), batch="elementwise")

    def fn(input, other, *, out=None) -> Tensor:
        a, b, cast = binary_operands(input, other, name)
        return _out(apply(op, (a, b), None, cast), out, name, inputs=(input, other))

    fn.__name__ = name
    fn.__doc__ = f"Elementwise ``{name}`` comparison; returns a bool tensor."
    return fn


eq = _cmp("eq", np.equal)
ne = _cmp("ne", np.not_equal)
lt = _cmp("lt", np.less)
le = _cmp("le", np.less_equal)
gt = _cmp("gt", np.greater)
ge = _cmp("ge", np.greater_equal)
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


def _need_tensor(name: str, x, arg: str = "input", pos: int = 1) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")


def _doc(fn, text: str, example: str):
    call, result = example.split(" -> ")
    fn.__doc__ = f"{text}\n\n>>> import retrograd as torch\n>>> {call}\n{result}\n"
    return fn


# ---------------------------------------------------------------- predicates
def _is_float(a: np.ndarray) -> bool:
    return a.dtype.kind == "f"


def _predicate(name: str, f, example: str):
    op = primitive(name, f, batch="elementwise")

    def fn(input: Tensor) -> Tensor:
        _need_tensor(name, input)
        return apply(op, (input,))

    fn.__name__ = fn.__qualname__ = name
    return _doc(fn, f"Elementwise ``{name}``: a bool tensor (integer inputs are never NaN or infinite).", example)


def _all(value: bool):
    return lambda a: np.full(a.shape, value, dtype=bool)


isnan = _predicate("isnan", lambda a: np.isnan(a) if _is_float(a) else _all(False)(a),
                   "torch.isnan(torch.tensor([1., float('nan')])) -> tensor([False,  True])")
isinf = _predicate("isinf", lambda a: np.isinf(a) if _is_float(a) else _all(False)(a),
                   "torch.isinf(torch.tensor([1., float('-inf')])) -> tensor([False,  True])")
isposinf = _predicate("isposinf", lambda a: a == np.inf if _is_float(a) else _all(False)(a),
                      "torch.isposinf(torch.tensor([float('inf'), float('-inf')])) -> tensor([ True, False])")
isneginf = _predicate("isneginf", lambda a: a == -np.inf if _is_float(a) else _all(False)(a),
                      "torch.isneginf(torch.tensor([float('inf'), float('-inf')])) -> tensor([False,  True])")
isposinf = with_out("isposinf", need_dtype(lambda o: "isposinf does not support non-boolean outputs.", D.bool),
                    grad_check=False)(isposinf)
isneginf = with_out("isneginf", need_dtype(lambda o: "isneginf does not support non-boolean outputs.", D.bool),
                    grad_check=False)(isneginf)
isfinite = _predicate("isfinite", lambda a: np.isfinite(a) if _is_float(a) else _all(True)(a),
                      "torch.isfinite(torch.tensor([1., float('nan')])) -> tensor([ True, False])")
isreal = _predicate("isreal", _all(True), "torch.isreal(torch.tensor([1., 2.])) -> tensor([True, True])")


# ---------------------------------------------------------------- logical
def _logical(name: str, f, example: str):
    op = primitive(name, f, batch="elementwise")

    def fn(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
        _need_tensor(name, input)
        _need_tensor(name, other, "other", 2)
        return _out(apply(op, (input, other)), out, inputs=(input, other))

    def fn_(self: Tensor, other: Tensor) -> Tensor:
        _need_tensor(name + "_", other, "other", 2)
        return _inplace_nondiff(op, self, (other,))

    fn.__name__ = fn.__qualname__ = name
    fn_.__name__ = fn_.__qualname__ = name + "_"
    fn_.__doc__ = f"In-place :func:`{name}` (the result is written as 0/1 in self's dtype)."
    return _doc(fn, f"Elementwise ``{name}`` of the truth values (nonzero = True): a bool tensor.", example), fn_


def _inplace_nondiff(op, self: Tensor, others: tuple, static=None) -> Tensor:
    """apply_inplace for ops without a derivative: a plain write that leaves self's history
    alone, even on a leaf that requires grad (what PyTorch does for ``x.logical_not_()``)."""
    from ..autograd import grad_mode

    with grad_mode.no_grad():
        return apply_inplace(op, self, others, static)


logical_and, logical_and_ = _logical("logical_and", lambda a, b: np.logical_and(a, b),
                                     "torch.logical_and(torch.tensor([1, 0]), torch.tensor([2, 2])) -> "
                                     "tensor([ True, False])")
logical_or, logical_or_ = _logical("logical_or", lambda a, b: np.logical_or(a, b),
                                   "torch.logical_or(torch.tensor([1, 0]), torch.tensor([0, 0])) -> "
                                   "tensor([ True, False])")
logical_xor, logical_xor_ = _logical("logical_xor", lambda a, b: np.logical_xor(a, b),
                                     "torch.logical_xor(torch.tensor([1, 0]), torch.tensor([1, 1])) -> "
                                     "tensor([False,  True])")
_logical_not = primitive("logical_not", lambda a: np.logical_not(a), batch="elementwise")


def logical_not(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise NOT of the truth values: a bool tensor.

    >>> import retrograd as torch
    >>> torch.logical_not(torch.tensor([0., 2.]))
    tensor([ True, False])
    """
    _need_tensor("logical_not", input)
    return _out(apply(_logical_not, (input,)), out)


def logical_not_(self: Tensor) -> Tensor:
    """In-place :func:`logical_not` (the result is written as 0/1 in self's dtype)."""
    return _inplace_nondiff(_logical_not, self, ())


# ---------------------------------------------------------------- closeness and equality
def _isclose_np(a, b, *, rtol, atol, equal_nan):
    close = a == b
    if equal_nan and _is_float(a):
        close = close | (np.isnan(a) & np.isnan(b))
    if rtol == 0 and atol == 0:
        return close
    if a.dtype.kind == "b":  # PyTorch measures bools in the default float dtype
        a = a.astype(D.get_default_dtype().np)
        b = b.astype(a.dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        allowed = atol + np.abs(rtol * b)
        actual = np.abs(a - b)
        return close | (np.isfinite(actual) & (actual <= allowed))


_isclose = primitive("isclose", _isclose_np, batch="elementwise")


def _float_arg(name: str, arg: str, pos: int, v) -> float:
    """PyTorch's parsing of a ``float`` argument: a real number, or a one-element tensor that does
    not require grad (read as its value); anything else is a TypeError."""
    import numbers

    if isinstance(v, numbers.Real):
        return float(v)
    if isinstance(v, Tensor) and v.numel() == 1 and not v.requires_grad and not v.is_complex():
        return float(v.item())
    raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be float, not {type(v).__name__}")


def _close_args(name: str, input, other, rtol, atol) -> tuple[float, float]:
    _need_tensor(name, input)
    _need_tensor(name, other, "other", 2)
    rtol, atol = _float_arg(name, "rtol", 3, rtol), _float_arg(name, "atol", 4, atol)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{_scalar_type_name(input.dtype)} did not match {_scalar_type_name(other.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}")
    return rtol, atol


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """|input - other| <= atol + rtol * |other|, elementwise (equal infinities are close).

    >>> import retrograd as torch
    >>> torch.isclose(torch.tensor([1., 2.]), torch.tensor([1. + 1e-6, 2.1]))
    tensor([ True, False])
    """
    rtol, atol = _close_args("isclose", input, other, rtol, atol)
    return apply(_isclose, (input, other), {"rtol": rtol, "atol": atol, "equal_nan": bool(equal_nan)})


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """Whether every element is :func:`isclose` (a Python bool).

    >>> import retrograd as torch
    >>> torch.allclose(torch.tensor([1., 2.]), torch.tensor([1., 2. + 1e-7]))
    True
    """
    rtol, atol = _close_args("allclose", input, other, rtol, atol)
    return bool(_isclose_np(input._data, other._data, rtol=rtol, atol=atol, equal_nan=bool(equal_nan)).all())


def equal(input: Tensor, other: Tensor) -> bool:
    """True when both have the same shape and elements (NaN is never equal).

    >>> import retrograd as torch
    >>> torch.equal(torch.tensor([1, 2]), torch.tensor([1., 2.]))
    True
    """
    _need_tensor("equal", input)
    _need_tensor("equal", other, "other", 2)
    return input._data.shape == other._data.shape and bool(np.array_equal(input._data, other._data))


# ---------------------------------------------------------------- maximum / minimum / fmax / fmin
def _max_rule(g, a, b):
    # PyTorch: the larger input gets the gradient, ties split it in half; NaN passes to both.
    return where(a == b, g / 2, where(a < b, 0.0, g))


def _min_rule(g, a, b):
    return where(a == b, g / 2, where(a > b, 0.0, g))


_maximum = primitive("maximum", lambda a, b: _it(np.maximum(a, b), a, b), node="MaximumBackward0",
                     a=_max_rule, b=lambda g, a, b: _max_rule(g, b, a), batch="elementwise")
_minimum = primitive("minimum", lambda a, b: _it(np.minimum(a, b), a, b), node="MinimumBackward0",
                     a=_min_rule, b=lambda g, a, b: _min_rule(g, b, a), batch="elementwise")


def _fmax_wins(a, b):
    """Where fmax's result comes from ``a`` (ties and a NaN ``b`` included), as PyTorch."""
    return logical_or(a >= b, b != b)


def _fmin_wins(a, b):
    return logical_or(a <= b, b != b)


# PyTorch's fmax / fmin keep ``a`` on ties (fmax(0., -0.) is 0., fmax(-0., 0.) is -0.)
def _fmax_np(a, b):
    keep = a >= b
    if b.dtype.kind == "f":
        keep |= np.isnan(b)
    return np.where(keep, a, b)


def _fmin_np(a, b):
    keep = a <= b
    if b.dtype.kind == "f":
        keep |= np.isnan(b)
    return np.where(keep, a, b)


_fmax = primitive("fmax", _fmax_np, node="FmaxBackward0",
                  a=lambda g, a, b: where(_fmax_wins(a, b), g, 0.0),
                  b=lambda g, a, b: where(_fmax_wins(a, b), 0.0, g), batch="elementwise")
_fmin = primitive("fmin", _fmin_np, node="FminBackward0",
                  a=lambda g, a, b: where(_fmin_wins(a, b), g, 0.0),
                  b=lambda g, a, b: where(_fmin_wins(a, b), 0.0, g), batch="elementwise")


def maximum(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise maximum; NaN propagates; ties split the gradient.

    >>> import retrograd as torch
    >>> torch.maximum(torch.tensor([1., 5.]), torch.tensor([3., 2.]))
    tensor([3., 5.])
    """
    a, b, cast = _tensor_operands("maximum", input, other)
    return _out(apply(_maximum, (a, b), None, cast), out)


def minimum(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise minimum; NaN propagates; ties split the gradient.

    >>> import retrograd as torch
    >>> torch.minimum(torch.tensor([1., 5.]), torch.tensor([3., 2.]))
    tensor([1., 2.])
    """
    a, b, cast = _tensor_operands("minimum", input, other)
    return _out(apply(_minimum, (a, b), None, cast), out)


def fmax(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise maximum that ignores NaN (NaN only where both are NaN).

    >>> import retrograd as torch
    >>> torch.fmax(torch.tensor([1., float('nan')]), torch.tensor([float('nan'), 2.]))
    tensor([1., 2.])
    """
    a, b, cast = _tensor_operands("fmax", input, other)
    return _out(apply(_fmax, (a, b), None, cast), out)


def fmin(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise minimum that ignores NaN (NaN only where both are NaN).

    >>> import retrograd as torch
    >>> torch.fmin(torch.tensor([1., float('nan')]), torch.tensor([float('nan'), 2.]))
    tensor([1., 2.])
    """
    a, b, cast = _tensor_operands("fmin", input, other)
    return _out(apply(_fmin, (a, b), None, cast), out)


@declares_out("same", grad_check=False)
def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """Whether each element of ``elements`` is in ``test_elements``.

    >>> import retrograd as torch
    >>> torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2, 5]))
    tensor([False,  True, False])
    """
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments")
    e = elements._data if isinstance(elements, Tensor) else np.asarray(elements)
    t = test_elements._data if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    return _const(np.isin(e, t, invert=invert).reshape(np.shape(e)))


# ---------------------------------------------------------------------------- in-place comparisons, aliases
def _cmp_inplace(name: str):
    def f(self: Tensor, other) -> Tensor:
        from .. import _ops as O

        from ._inplace import inplace_via

        return inplace_via(self, lambda x: getattr(O, name)(x, other), (other,))
    f.__name__ = name + "_"
    f.__doc__ = f"In-place ``{name}``: self becomes 1 where the comparison holds, else 0."
    return f


(eq_, ne_, lt_, le_, gt_, ge_, greater_, greater_equal_, less_, less_equal_, not_equal_) = (
    _cmp_inplace(n) for n in ("eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less",
                              "less_equal", "not_equal"))


# Run-time references to modules that import this one (bound last, so either import order works)
from .masked import where  # noqa: E402
