"""Specs for the ops of ``retrograd._ops.special``: special functions: igamma, entr, ndtr, zeta,
bessel..., i0/i1, mvlgamma, orthogonal polynomials."""
from ._spec import OpSpec, S, T


X = T((2, 3))
POS = T((2, 3), low=0.5, high=2.0)
UNIT = T((2, 3), low=0.05, high=0.95)
A_NG = T((2, 3), low=0.5, high=4.0, grad=False)  # a first argument torch does not differentiate


def _sp(name, *samples, **kw):
    return OpSpec("special." + name, list(samples), **kw)


def _alias(name, of, *samples, **kw):
    return OpSpec("special." + name, list(samples), note=f"alias of {of}", **kw)


SPECS = [
    OpSpec("i0", [S(T((2, 3), low=-3, high=3))], method=True, inplace="i0_"),
    OpSpec("mvlgamma", [S(T((2, 3), low=2.0, high=4.0), 1), S(T((2, 3), low=2.0, high=4.0), 3)],
           method=True, inplace="mvlgamma_"),
    # new ops
    _sp("entr", S(POS), S(T((4,), low=0.01, high=5.0))),
    _sp("xlog1py", S(X, T((2, 3), low=-0.5, high=2.0)), S(2.0, T((3,), low=-0.5, high=2.0)),
        S(T((2, 3)), 0.5), S(T((3,)), T((2, 1), low=-0.5, high=2.0)), broadcast=True),
    _sp("ndtr", S(T((2, 3), low=-4.0, high=4.0))),
    _sp("ndtri", S(UNIT), S(T((4,), low=1e-6, high=1e-3))),
    _sp("log_ndtr", S(T((2, 3), low=-6.0, high=4.0)), S(T((3,), low=-30.0, high=-5.0))),
    _sp("erfcx", S(T((2, 3), low=-2.0, high=2.0)), S(T((3,), low=2.0, high=20.0))),
    _sp("i0e", S(T((2, 3), low=-5.0, high=5.0)), S(T((3,), low=20.0, high=60.0))),
    _sp("i1", S(T((2, 3), low=-5.0, high=5.0))),
    _sp("i1e", S(T((2, 3), low=-5.0, high=5.0)), S(T((3,), low=-60.0, high=-20.0))),
    _sp("zeta", S(T((2, 3), low=1.5, high=4.0, grad=False), POS), S(2.5, T((3,), low=0.3, high=3.0)),
        S(T((3,), low=1.5, high=4.0, grad=False), 1.5)),
    _sp("gammainc", S(A_NG, POS), S(A_NG, T((3,), low=2.0, high=8.0))),
    _sp("gammaincc", S(A_NG, POS), S(A_NG, T((3,), low=2.0, high=8.0))),
    OpSpec("igamma", [S(A_NG, POS)], method=True),
    OpSpec("igammac", [S(A_NG, POS)], method=True),
    _sp("spherical_bessel_j0", S(T((2, 3), low=-10.0, high=10.0)), S(T((3,), low=-0.4, high=0.4)), grad=False),
    _sp("modified_bessel_i0", S(T((2, 3), low=-10.0, high=10.0)), grad=False),
    _sp("modified_bessel_i1", S(T((2, 3), low=-10.0, high=10.0)), grad=False),
    _sp("bessel_j0", S(T((2, 3), low=-30.0, high=30.0)), grad=False),
    _sp("bessel_j1", S(T((2, 3), low=-30.0, high=30.0)), grad=False),
    _sp("bessel_y0", S(T((2, 3), low=0.1, high=30.0)), grad=False),
    _sp("bessel_y1", S(T((2, 3), low=0.1, high=30.0)), grad=False),
    _sp("modified_bessel_k0", S(T((2, 3), low=0.1, high=30.0)), grad=False),
    _sp("modified_bessel_k1", S(T((2, 3), low=0.1, high=30.0)), grad=False),
    _sp("scaled_modified_bessel_k0", S(T((2, 3), low=0.1, high=30.0)), grad=False),
    _sp("scaled_modified_bessel_k1", S(T((2, 3), low=0.1, high=30.0)), grad=False),
    _sp("airy_ai", S(T((2, 3), low=-1.5, high=8.0)), S(T((3,), low=-20.0, high=-8.0)), grad=False),
    *[_sp(name, S(T((2, 3), low=lo, high=hi), T((2, 3), kind="int", low=0, high=12)),
          S(T((3,), low=lo, high=hi), 4), S(0.25, T((2, 1), low=0.0, high=9.0)), grad=False)
      for name, lo, hi in (
          ("chebyshev_polynomial_t", -1.0, 1.0), ("chebyshev_polynomial_u", -1.0, 1.0),
          ("chebyshev_polynomial_v", -1.0, 1.0), ("chebyshev_polynomial_w", -1.0, 1.0),
          ("shifted_chebyshev_polynomial_t", 0.0, 1.0), ("shifted_chebyshev_polynomial_u", 0.0, 1.0),
          ("shifted_chebyshev_polynomial_v", 0.0, 1.0), ("shifted_chebyshev_polynomial_w", 0.0, 1.0),
          ("hermite_polynomial_h", -2.0, 2.0), ("hermite_polynomial_he", -2.0, 2.0),
          ("laguerre_polynomial_l", 0.0, 5.0), ("legendre_polynomial_p", -1.0, 1.0))],
    _alias("multigammaln", "mvlgamma", S(T((2, 3), low=2.0, high=4.0), 2)),
    _alias("i0", "i0", S(X)),
    _alias("round", "round", S(T((2, 3), low=-3.0, high=3.0)), S(T((2, 3), low=-3.0, high=3.0), decimals=1)),
    _alias("softmax", "softmax", S(X, 1), S(X, 0, dtype=None)),
    _alias("log_softmax", "log_softmax", S(X, 1)),
]
