"""``out=`` for the top-level functions whose own code has none (or ignores it), by table.

Each entry names PyTorch's rule for ``out``'s dtype (see ``_out.py``): ``"same"`` for the
structured kernels ("Expected out tensor to have dtype double, but got long int instead"),
``"cast"`` for ops whose result may be cast into ``out``, or an op-specific check.  Only the
``retrograd.<name>`` function is wrapped: Tensor methods (which take no ``out``) keep calling
the op directly, so the hot paths pay nothing.
"""
from __future__ import annotations

from .._tensor import Tensor, _scalar_type_name
from ._out import same_dtype, same_dtype_found, with_out

__all__: list[str] = []


def _take_out(result: Tensor, out: Tensor) -> None:
    if out._data.dtype != result._data.dtype:
        raise RuntimeError(f"take(): self and out expected to have the same dtype, but got self.dtype = "
                           f"{_scalar_type_name(result.dtype)} and out.dtype = {_scalar_type_name(out.dtype)}")


def _scalar_type_out(result: Tensor, out: Tensor) -> None:
    # cummax / cummin: each of (values, indices) must have exactly the result's dtype
    if out._data.dtype != result._data.dtype:
        raise RuntimeError(f"expected scalar_type {_scalar_type_name(result.dtype)} but found "
                           f"{_scalar_type_name(out.dtype)}")


def _kthvalue_out(result: Tensor, out: Tensor) -> None:
    if out._data.dtype != result._data.dtype:
        raise RuntimeError("output values must be of same type as input")


def _clamp_out(args, kwargs):
    # a tensor bound follows the binary ops' cast rule, a number bound wants out's dtype exactly
    bound = args[1] if len(args) > 1 else next(iter(kwargs.values()), None)
    return "cast" if isinstance(bound, Tensor) else same_dtype_found


_SELECTED = {"clamp_min", "clamp_max"}  # (their mode is chosen per call)
# kernels that refuse an ``out`` that is (a view of exactly) an input, not only a partial overlap
_NO_OVERLAP = {"kthvalue", "gather", "index_select", "take"}

# name: (mode, tuple_mode, grad_check[, grad_name: the kernel PyTorch's autograd refusal names])
_TABLE: dict[str, tuple] = {
    "square": ("cast", "cast", True, "pow"),
    "diff": ("cast", "cast", True, "sub"),
    "clamp_min": (_clamp_out, "cast", True),
    "clamp_max": (_clamp_out, "cast", True),
    "argmax": ("same", "cast", False),
    "argmin": ("same", "cast", False),
    "isin": ("same", "cast", False),
    "softmax": ("same", "cast", False),  # (PyTorch allows grad here)
    "log_softmax": ("same", "cast", False),  # (PyTorch allows grad here)
    "take": (_take_out, "cast", True),
    "gather": ("same", "cast", True),
    "index_select": (same_dtype("index_select(): self and result must have the same scalar type"), "cast", True),
    "index_add": ("same", "cast", True),
    "index_copy": ("same", "cast", True),
    "index_reduce": ("same", "cast", True),
    "scatter": ("same", "cast", True),
    "scatter_add": ("same", "cast", True),
    "scatter_reduce": ("same", "cast", True),
    "slice_scatter": ("same", "cast", False),  # (PyTorch allows grad here)
    "cummax": ("same", _scalar_type_out, True),
    "cummin": ("same", _scalar_type_out, True),
    "kthvalue": ("same", _kthvalue_out, True),
    "topk": ("same", "same", True),
    "sort": ("same", "same", True),
    "aminmax": ("same", "same", True),
}


def give_out(namespace: dict) -> None:
    """Wrap the table's functions in ``namespace`` (the ``_ops`` package's globals)."""
    for name, (mode, tuple_mode, grad_check, *grad_name) in _TABLE.items():
        fn = namespace.get(name)
        if fn is None or getattr(fn, "_rg_out_wrapped", False):
            continue
        selected = name in _SELECTED
        wrapped = with_out(name, "cast" if selected else mode, grad_name=grad_name[0] if grad_name else None,
                           grad_check=grad_check, tuple_mode=tuple_mode, select=mode if selected else None,
                           full_overlap=name in _NO_OVERLAP)(fn)
        wrapped._rg_out_wrapped = True
        namespace[name] = wrapped
