"""torch.special's orthogonal polynomials as ops: ``chebyshev_polynomial_t(x, n)`` and its eleven
siblings (kernels in ``_poly_kernels.py``).

``x`` and ``n`` are tensors or one of them a number; they broadcast and promote together, integer
results becoming the default float dtype.  PyTorch does not differentiate these functions: the
output never requires grad.
"""
from __future__ import annotations

from .._tensor import Tensor, _scalar_type_name
from . import _poly_kernels as P
from ._common import binary_operands
from ._registry import apply, primitive
from .pointwise import _out
from .pointwise_more import _float_cast, _invalid_combination, _result_dtype

__all__: list[str] = []

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


def _make(name: str):
    op = primitive("special_" + name, lambda x, n: P.polynomial(name, x, n), node="NotImplemented")

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


POLYNOMIALS = {name: _make(name) for name in P.NAMES}
