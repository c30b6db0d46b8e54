"""Special functions: igamma, entr, ndtr, zeta, bessel..., i0/i1, mvlgamma, orthogonal polynomials."""
from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor, _scalar_type_name
from . import _bessel_kernels as BK, _poly_kernels as P, _special_kernels as K
from ._common import binary_operands, float_dtype_for, tensor_args
from ._composite import _R, _inplace, _out, _supports_out
from ._registry import apply, primitive
from ._special_kernels import _bessel_i_series
from .binary import _float_cast, _invalid_combination, _result_dtype
from .masked import where
from .reduction import _const
from .unary import _need_tensor, exp, lgamma, log, sgn

__all__ = ["i0", "mvlgamma", "i0_", "igamma", "igammac"]


def _i0_fw(a):
    return np.i0(a.astype(np.float64)).astype(a.dtype)


def _i1_fw(a):
    r = _bessel_i_series(np.asarray(a, dtype=np.float64), 1).astype(a.dtype)  # (power series, float64)
    return np.where(np.isinf(a), np.nan, r).astype(a.dtype)  # PyTorch's i1 (Cephes) is NaN at +-inf


def _i1_rule(g, a, out):
    R = _R()
    safe = R.where(a == 0, R.ones_like(a), a)
    return g * R.where(a == 0, R.full_like(a, 0.5), i0(a) - out / safe)


_i0 = primitive("i0", _i0_fw, node="I0Backward0", a=lambda g, a: g * _i1(a))
_i1_op = primitive("special_i1", _i1_fw, node="SpecialI1Backward0", a=_i1_rule)


def _i1(a: Tensor) -> Tensor:
    return apply(_i1_op, (a,))


@_supports_out
def i0(input: Tensor, *, out=None) -> Tensor:
    """Modified Bessel function of the first kind, order 0.

    >>> import retrograd as torch
    >>> torch.i0(torch.tensor([0., 1.]))
    tensor([1.0000, 1.2661])
    """
    R = _R()
    cast = None if input.is_floating_point() else R.get_default_dtype()
    return apply(_i0, (input,), None, cast)


def i0_(self: Tensor) -> Tensor:
    """In-place :func:`i0`."""
    return _inplace(self, i0)


def _mvlgamma_fw(a, *, p):
    from . import _special

    total = sum(np.asarray(_special.lgamma(a.astype(np.float64) - i / 2.0)) for i in range(p))
    return (total + p * (p - 1) / 4 * math.log(math.pi)).astype(a.dtype)


def _mvlgamma_rule(g, a, p):
    R = _R()
    offs = _const(-np.arange(p, dtype=a._data.dtype) / 2)
    return g * R.digamma(a.unsqueeze(-1) + offs).sum(-1)


_mvlgamma = primitive("mvlgamma", _mvlgamma_fw, node="MvlgammaBackward0", a=_mvlgamma_rule)


@_supports_out
def mvlgamma(input: Tensor, p: int, *, out=None) -> Tensor:
    """Multivariate log-gamma of dimension ``p``.

    >>> import retrograd as torch
    >>> torch.mvlgamma(torch.tensor([2.5]), 1)
    tensor([0.2847])
    """
    R = _R()
    if input._data.dtype.kind == "b":
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if not isinstance(p, (int, np.integer)) or isinstance(p, bool):
        raise TypeError(f"mvlgamma(): argument 'p' (position 2) must be int, not {type(p).__name__}")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    cast = None if input.is_floating_point() else R.get_default_dtype()
    return apply(_mvlgamma, (input,), {"p": int(p)}, cast)


def mvlgamma_(self: Tensor, p: int) -> Tensor:
    """In-place :func:`mvlgamma`."""
    return _inplace(self, lambda x: mvlgamma(x, p))


_SQRT_2PI = math.sqrt(2 * math.pi)
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _f64fw(f, n: int = 1):
    """A float64 kernel of ``n`` arrays as a forward (inputs ``a``, ``b``) keeping the input dtype."""
    def run(*arrays):
        with np.errstate(all="ignore"):
            r = f(*(x.astype(np.float64, copy=False) for x in arrays))
        return np.asarray(r).astype(arrays[0].dtype, copy=False)
    if n == 1:
        return lambda a: run(a)
    return lambda a, b: run(a, b)


def _unary_call(op, name: str, input, out):
    _need_tensor(name, input)
    return _out(apply(op, (input,), None, float_dtype_for(input)), out, name)


def _nie(what: str):
    """A rule for an input PyTorch does not differentiate (its NotImplementedError)."""
    def rule(g):
        raise NotImplementedError(f"the derivative for '{what}' is not implemented.")
    return rule


# ================================================================ entr, xlog1py
def _entr_rule(g, a):
    return -g * (log(a) + 1)


_entr = primitive("special_entr", _f64fw(K.entr), node="SpecialEntrBackward0", a=_entr_rule)


def special_entr(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise entropy ``-x log x`` (0 at 0, -inf below 0).

    >>> import retrograd as torch
    >>> torch.special.entr(torch.tensor([0., 0.5]))
    tensor([0.0000, 0.3466])
    """
    return _unary_call(_entr, "special_entr", input, out)


def _xlog1py_rule_a(g, a, b):
    # PyTorch masks the point where x = 0 and log1p(y) is -inf or NaN
    return where((a == 0) & (b <= -1), 0.0, special_xlog1py(g, b))


def _xlog1py_rule_b(g, a, b):
    return g * a / (b + 1)


_xlog1py_fw = _f64fw(K.xlog1py, 2)
_xlog1py = primitive("special_xlog1py", _xlog1py_fw, node="SpecialXlog1PyBackward0",
                     a=_xlog1py_rule_a, b=_xlog1py_rule_b)
_xlog1py_ss = primitive("special_xlog1py_scalar_self", _xlog1py_fw, node="SpecialXlog1PyBackward1",
                        b=_xlog1py_rule_b)
_xlog1py_so = primitive("special_xlog1py_scalar_other", _xlog1py_fw, node="SpecialXlog1PyBackward2",
                        a=_xlog1py_rule_a)

_BINARY_OVERLOADS = ["Tensor input, Tensor other, *, Tensor out = None",
                     "Number self, Tensor other, *, Tensor out = None",
                     "Tensor input, Number other, *, Tensor out = None"]


def _binary_args(name: str, input, other, ops):
    """(op, a, b, cast) for a float binary op taking a Number on either side."""
    ta, tb = isinstance(input, Tensor), isinstance(other, Tensor)
    if not (ta or tb):
        raise _invalid_combination(name, (input, other), _BINARY_OVERLOADS)
    a, b, cast = binary_operands(input, other, name)
    op = ops[0] if ta and tb else (ops[2] if ta else ops[1])
    return op, a, b, _float_cast(a, cast)


def special_xlog1py(input, other, *, out: Tensor | None = None) -> Tensor:
    """``input * log1p(other)``, 0 where input is 0 (unless other is NaN).

    >>> import retrograd as torch
    >>> torch.special.xlog1py(torch.tensor([0., 2.]), torch.tensor([-1., 0.]))
    tensor([0., 0.])
    """
    op, a, b, cast = _binary_args("special_xlog1py", input, other, (_xlog1py, _xlog1py_ss, _xlog1py_so))
    return _out(apply(op, (a, b), None, cast), out)


# ================================================================ the normal distribution
def _normal_pdf(x):
    return exp(x * x * -0.5) * (1 / _SQRT_2PI)


# PyTorch builds ndtr from erfc and a scalar multiply: its node is that MulBackward1.
_ndtr = primitive("special_ndtr", _f64fw(K.ndtr), node="MulBackward1", a=lambda g, a: g * _normal_pdf(a))
_ndtri = primitive("special_ndtri", _f64fw(K.ndtri), node="SpecialNdtriBackward0",
                   a=lambda g, out: g * _SQRT_2PI * exp(out * out * 0.5))
_log_ndtr = primitive("special_log_ndtr", _f64fw(K.log_ndtr), node="SpecialLogNdtrBackward0",
                      a=lambda g, a, out: g * exp(-(out + a * a * 0.5)) * (1 / _SQRT_2PI))


def special_ndtr(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The standard normal CDF.

    >>> import retrograd as torch
    >>> torch.special.ndtr(torch.tensor([0.]))
    tensor([0.5000])
    """
    return _unary_call(_ndtr, "special_ndtr", input, out)


def special_ndtri(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The inverse of :func:`ndtr` (quantile of the standard normal); +-inf at 0 and 1.

    >>> import retrograd as torch
    >>> torch.special.ndtri(torch.tensor([0.5]))
    tensor([0.])
    """
    return _unary_call(_ndtri, "special_ndtri", input, out)


def special_log_ndtr(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """``log(ndtr(x))``, accurate far into both tails.

    >>> import retrograd as torch
    >>> torch.special.log_ndtr(torch.tensor([0.]))
    tensor([-0.6931])
    """
    return _unary_call(_log_ndtr, "special_log_ndtr", input, out)


# ================================================================ erfcx, i0e, i1, i1e
_erfcx = primitive("special_erfcx", _f64fw(K.erfcx), node="SpecialErfcxBackward0",
                   a=lambda g, a, out: g * (a * out * 2 - _TWO_OVER_SQRT_PI))


def special_erfcx(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The scaled complementary error function ``exp(x**2) * erfc(x)``.

    >>> import retrograd as torch
    >>> torch.special.erfcx(torch.tensor([0.]))
    tensor([1.])
    """
    return _unary_call(_erfcx, "special_erfcx", input, out)


def _i1e_rule(g, a, out):
    safe = where(a == 0, 1.0, a)
    return g * where(a == 0, 0.5, special_i0e(a) - out * (sgn(a) + 1 / safe))


_i0e = primitive("special_i0e", _f64fw(K.i0e), node="SpecialI0EBackward0",
                 a=lambda g, a, out: g * (special_i1e(a) - sgn(a) * out))
_i1e = primitive("special_i1e", _f64fw(K.i1e), node="SpecialI1EBackward0", a=_i1e_rule)


def special_i0e(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """``exp(-|x|) * i0(x)``: the modified Bessel function I0, scaled so it cannot overflow.

    >>> import retrograd as torch
    >>> torch.special.i0e(torch.tensor([0., 1.]))
    tensor([1.0000, 0.4658])
    """
    return _unary_call(_i0e, "special_i0e", input, out)


def special_i1(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The modified Bessel function of the first kind, order 1.

    >>> import retrograd as torch
    >>> torch.special.i1(torch.tensor([0.]))
    tensor([0.])
    """
    _need_tensor("special_i1", input)
    cast = float_dtype_for(input)
    return _out(_i1(input if cast is None else input.to(cast)), out)


def special_i1e(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """``exp(-|x|) * i1(x)``.

    >>> import retrograd as torch
    >>> torch.special.i1e(torch.tensor([0.]))
    tensor([0.])
    """
    return _unary_call(_i1e, "special_i1e", input, out)


# ================================================================ Hurwitz zeta
def _zeta_rule_q(g, a, b):
    return g * -a * special_zeta(a + 1.0, b)


_zeta_fw = _f64fw(K.zeta, 2)
_zeta = primitive("special_zeta", _zeta_fw, node="SpecialZetaBackward0", a=_nie("zeta"), b=_zeta_rule_q)
_zeta_ss = primitive("special_zeta_scalar_self", _zeta_fw, node="SpecialZetaBackward1", b=_zeta_rule_q)
_zeta_so = primitive("special_zeta_scalar_other", _zeta_fw, node="SpecialZetaBackward2", a=_nie("zeta"))


def special_zeta(input, other, *, out: Tensor | None = None) -> Tensor:
    """The Hurwitz zeta function ``sum_k (other + k) ** -input``.

    >>> import retrograd as torch
    >>> torch.special.zeta(torch.tensor([2.]), torch.tensor([1.]))
    tensor([1.6449])
    """
    op, a, b, cast = _binary_args("special_zeta", input, other, (_zeta, _zeta_ss, _zeta_so))
    return _out(apply(op, (a, b), None, cast), out)


# ================================================================ incomplete gamma
def _igamma_rule_x(g, a, b):
    # d/dx P(a, x) = x^(a-1) e^-x / Gamma(a)
    return g * exp((a - 1) * log(b) - b - lgamma(a))


_igamma = primitive("igamma", _f64fw(K.gammainc, 2), node="IgammaBackward0",
                    a=_nie("igamma: input"), b=_igamma_rule_x)
_igammac = primitive("igammac", _f64fw(K.gammaincc, 2), node="IgammacBackward0",
                     a=_nie("igammac: input"), b=lambda g, a, b: -_igamma_rule_x(g, a, b))


def _igamma_args(name: str, input, other):
    _need_tensor(name, input, "input", 1)
    _need_tensor(name, other, "other", 2)
    a, b, cast = binary_operands(input, other, name)
    rt = cast or a.dtype
    if not rt.is_floating_point:  # (no integer kernel: PyTorch dispatches on the promoted type)
        from .._tensor import _scalar_type_name

        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_scalar_type_name(rt)}'")
    return a, b, _float_cast(a, cast)


@tensor_args("igamma", input=1, other=2)
def igamma(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The regularised lower incomplete gamma function P(input, other).

    >>> import retrograd as torch
    >>> torch.igamma(torch.tensor([1.]), torch.tensor([0.]))
    tensor([0.])
    """
    a, b, cast = _igamma_args("igamma", input, other)
    return _out(apply(_igamma, (a, b), None, cast), out, inputs=(input, other))


def igamma_(self: Tensor, other: Tensor) -> Tensor:
    """In-place :func:`igamma` (a Tensor method only, as in PyTorch).

    >>> import retrograd as torch
    >>> torch.tensor([1.]).igamma_(torch.tensor([0.]))
    tensor([0.])
    """
    from ._inplace import inplace_via

    _need_tensor("igamma_", other, "other", 1)
    return inplace_via(self, lambda x: igamma(x, other), (other,))


def igammac_(self: Tensor, other: Tensor) -> Tensor:
    """In-place :func:`igammac` (a Tensor method only, as in PyTorch)."""
    from ._inplace import inplace_via

    _need_tensor("igammac_", other, "other", 1)
    return inplace_via(self, lambda x: igammac(x, other), (other,))


@tensor_args("igammac", input=1, other=2)
def igammac(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The regularised upper incomplete gamma function Q(input, other) = 1 - P.

    >>> import retrograd as torch
    >>> torch.igammac(torch.tensor([1.]), torch.tensor([0.]))
    tensor([1.])
    """
    a, b, cast = _igamma_args("igammac", input, other)
    return _out(apply(_igammac, (a, b), None, cast), out, inputs=(input, other))


def special_gammainc(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """:func:`igamma` under its SciPy name.

    >>> import retrograd as torch
    >>> torch.special.gammainc(torch.tensor([1.]), torch.tensor([0.]))
    tensor([0.])
    """
    a, b, cast = _igamma_args("special_gammainc", input, other)
    return _out(apply(_igamma, (a, b), None, cast), out, inputs=(input, other))


def special_gammaincc(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """:func:`igammac` under its SciPy name.

    >>> import retrograd as torch
    >>> torch.special.gammaincc(torch.tensor([1.]), torch.tensor([0.]))
    tensor([1.])
    """
    a, b, cast = _igamma_args("special_gammaincc", input, other)
    return _out(apply(_igammac, (a, b), None, cast), out, inputs=(input, other))


# ================================================================ not differentiable in PyTorch
# (no rule: the output never requires grad, as in PyTorch)
def _nodiff_unary(name: str, kernel, example: str):
    op = primitive(name, _f64fw(kernel), node="NotImplemented")
    short = name.removeprefix("special_")

    def fn(input: Tensor, *, out: Tensor | None = None) -> Tensor:
        if isinstance(input, Tensor) and input._data.dtype == np.float16:  # (PyTorch has no Half loop)
            raise NotImplementedError(f"\"{short}_cpu\" not implemented for 'Half'")
        return _unary_call(op, name, input, out)

    fn.__name__ = fn.__qualname__ = name
    call, result = example.split(" -> ")
    fn.__doc__ = (f"Elementwise ``{short}``; PyTorch does not differentiate it.\n\n"
                  f">>> import retrograd as torch\n>>> {call}\n{result}\n")
    fn.op = op
    return fn


special_spherical_bessel_j0 = _nodiff_unary(
    "special_spherical_bessel_j0", K.spherical_bessel_j0,
    "torch.special.spherical_bessel_j0(torch.tensor([0.])) -> tensor([1.])")
special_modified_bessel_i0 = _nodiff_unary(
    "special_modified_bessel_i0", K.modified_bessel_i0,
    "torch.special.modified_bessel_i0(torch.tensor([0., 1.])) -> tensor([1.0000, 1.2661])")
special_modified_bessel_i1 = _nodiff_unary(
    "special_modified_bessel_i1", K.modified_bessel_i1,
    "torch.special.modified_bessel_i1(torch.tensor([0.])) -> tensor([0.])")
special_bessel_j0 = _nodiff_unary(
    "special_bessel_j0", BK.bessel_j0, "torch.special.bessel_j0(torch.tensor([0.])) -> tensor([1.])")
special_bessel_j1 = _nodiff_unary(
    "special_bessel_j1", BK.bessel_j1, "torch.special.bessel_j1(torch.tensor([0.])) -> tensor([0.])")
special_bessel_y0 = _nodiff_unary(
    "special_bessel_y0", BK.bessel_y0, "torch.special.bessel_y0(torch.tensor([1.])) -> tensor([0.0883])")
special_bessel_y1 = _nodiff_unary(
    "special_bessel_y1", BK.bessel_y1, "torch.special.bessel_y1(torch.tensor([1.])) -> tensor([-0.7812])")
special_modified_bessel_k0 = _nodiff_unary(
    "special_modified_bessel_k0", BK.modified_bessel_k0,
    "torch.special.modified_bessel_k0(torch.tensor([1.])) -> tensor([0.4210])")
special_modified_bessel_k1 = _nodiff_unary(
    "special_modified_bessel_k1", BK.modified_bessel_k1,
    "torch.special.modified_bessel_k1(torch.tensor([1.])) -> tensor([0.6019])")
special_scaled_modified_bessel_k0 = _nodiff_unary(
    "special_scaled_modified_bessel_k0", BK.scaled_modified_bessel_k0,
    "torch.special.scaled_modified_bessel_k0(torch.tensor([1.])) -> tensor([1.1445])")
special_scaled_modified_bessel_k1 = _nodiff_unary(
    "special_scaled_modified_bessel_k1", BK.scaled_modified_bessel_k1,
    "torch.special.scaled_modified_bessel_k1(torch.tensor([1.])) -> tensor([1.6362])")
special_airy_ai = _nodiff_unary(
    "special_airy_ai", BK.airy_ai, "torch.special.airy_ai(torch.tensor([0.])) -> tensor([0.3550])")


_EXAMPLES = {
    "chebyshev_polynomial_t": "tensor([-1.0000, -0.6875])",
    "chebyshev_polynomial_u": "tensor([-1.0000, -0.8750])",
    "chebyshev_polynomial_v": "tensor([-1.0000, -0.1250])",
    "chebyshev_polynomial_w": "tensor([-1.0000, -1.6250])",
    "shifted_chebyshev_polynomial_t": "tensor([-0., 1.])",
    "shifted_chebyshev_polynomial_u": "tensor([-0., 1.])",
    "shifted_chebyshev_polynomial_v": "tensor([1., 1.])",
    "shifted_chebyshev_polynomial_w": "tensor([-1.,  1.])",
    "hermite_polynomial_h": "tensor([-5.0000, -2.8750])",
    "hermite_polynomial_he": "tensor([-1.3750, -0.7344])",
    "laguerre_polynomial_l": "tensor([-0.1458,  0.3411])",
    "legendre_polynomial_p": "tensor([-0.4375, -0.3359])",
}


def _make(op_name: str):
    name = op_name.removeprefix("special_")
    op = primitive(op_name, lambda x, n: P.polynomial(name, x, n), node="NotImplemented")

    def fn(x, n, *, out: Tensor | None = None) -> Tensor:
        if not isinstance(x, Tensor) and not isinstance(n, Tensor):
            raise _invalid_combination("special_" + name, (x, n), [
                "Tensor x, Tensor n, *, Tensor out = None", "Number x, Tensor n, *, Tensor out = None",
                "Tensor x, Number n, *, Tensor out = None"])
        a, b, cast = binary_operands(x, n, "special_" + name)
        cast = _float_cast(a, cast)
        rt = _result_dtype(a, cast)
        if rt.itemsize == 2:  # (no Half loop in PyTorch)
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_scalar_type_name(rt)}'")
        return _out(apply(op, (a, b), None, cast), out, "special_" + name)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"The polynomial ``{name}`` of degree ``n`` at ``x`` (``n`` truncated to an integer; a "
                  f"negative degree gives 0).  PyTorch does not differentiate it.\n\n"
                  f">>> import retrograd as torch\n"
                  f">>> torch.special.{name}(torch.tensor([0.5, 0.25]), 3)\n{_EXAMPLES[name]}\n")
    fn.op = op
    return fn


POLYNOMIALS = {f.__name__: f for f in (
    _make("special_chebyshev_polynomial_t"),
    _make("special_chebyshev_polynomial_u"),
    _make("special_chebyshev_polynomial_v"),
    _make("special_chebyshev_polynomial_w"),
    _make("special_shifted_chebyshev_polynomial_t"),
    _make("special_shifted_chebyshev_polynomial_u"),
    _make("special_shifted_chebyshev_polynomial_v"),
    _make("special_shifted_chebyshev_polynomial_w"),
    _make("special_hermite_polynomial_h"),
    _make("special_hermite_polynomial_he"),
    _make("special_laguerre_polynomial_l"),
    _make("special_legendre_polynomial_p"),
)}
