"""``out=`` for ops whose own code has none: one decorator, PyTorch's rules per op kind.

PyTorch's ``out=`` ops fall into a few families as to which ``out`` dtypes they accept:
``"same"`` (the result's dtype only: tril, diag, take_along_dim ...), ``"cast"`` (any dtype the
result type can be cast to: std, var, outer ...), or an op-specific check (``all`` wants bool,
``nonzero`` int64 ...).  In every case the result is computed as usual, then copied into ``out``
(resized when its shape differs, with PyTorch's warning for a non-empty ``out``), and ``out``
itself is returned.  Inputs that require grad are refused, as PyTorch refuses them.
"""
from __future__ import annotations

import functools
from typing import Callable

from .. import _dtype as D
from .._tensor import Tensor

__all__: list[str] = []


def _type_name(d) -> str:
    from .._tensor import _scalar_type_name

    return _scalar_type_name(d)


def _check_cast(name: str, result: Tensor, out: Tensor) -> None:
    if not D.can_cast(result.dtype, out.dtype):
        raise RuntimeError(f"result type {_type_name(result.dtype)} can't be cast to the desired output type "
                           f"{_type_name(out.dtype)}")


def write_out(name: str, result: Tensor, out, mode: str | Callable = "cast") -> Tensor:
    """Copy ``result`` into ``out`` under ``mode`` (see the module doc) and return ``out``."""
    from .linalg.products import _write_out

    if callable(mode):
        mode(result, out)
        mode = "cast"
    if mode == "same":
        return _write_out(name, result, out)
    _check_cast(name, result, out)
    if out._data.dtype != result._data.dtype:  # (copy_ below casts; the shape check wants equal dtypes)
        result = Tensor._wrap(result._data.astype(out._data.dtype), False, None, 0)
    return _write_out(name, result, out)


def with_out(name: str, mode: str | Callable = "cast", grad_name: str | None = None, grad_check: bool = True,
             tuple_mode: str = "cast", select: Callable | None = None, full_overlap: bool = False):
    """Give ``fn`` an ``out=`` keyword with PyTorch's rules.

    ``grad_name``: the name PyTorch's autograd error uses (the kernel's, e.g. ``cat`` for vstack).
    ``tuple_mode``: the rule for each tensor of a tuple result (max/min's values and indices must
    have exactly the result's dtypes: ``"same"``).
    ``select``: ``select(args, kwargs)`` gives the mode for one call (an op whose overloads follow
    different rules: ``max(x, out=)`` vs ``max(x, y, out=)``).
    ``full_overlap``: ``out`` may not even be an input itself (PyTorch's ``assert_no_overlap``).
    """
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, out=None, **kwargs):
            if out is None:
                return fn(*args, **kwargs)
            from .linalg.products import _check_out

            tensors = [a for a in args if isinstance(a, Tensor)]
            for a in args:  # (a sequence of tensors: vstack, hstack ...)
                if isinstance(a, (list, tuple)):
                    tensors += [t for t in a if isinstance(t, Tensor)]
            if not isinstance(out, (tuple, list)):
                if grad_check:
                    _check_out(grad_name or name, out, *tensors)
                elif not isinstance(out, Tensor):
                    raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
            elif grad_check:  # (values, indices): the same refusal when an input requires grad
                for o in out:
                    _check_out(grad_name or name, o, *tensors)
            from ._common import check_out_overlap

            for o in (out if isinstance(out, (tuple, list)) else (out,)):
                check_out_overlap(o, *tensors, full=full_overlap)
            res = fn(*args, **kwargs)
            if isinstance(res, tuple):  # (values, indices): each into its own out tensor
                if tuple_mode == "same":  # (all dtypes are checked before anything is written)
                    for o, r in zip(out, res):
                        if o.dtype is not r.dtype:
                            raise RuntimeError(f"Expected out tensor to have dtype {_cpp(r.dtype)}, but got "
                                               f"{_cpp(o.dtype)} instead")
                for o, r in zip(out, res):
                    write_out(name, r.detach(), o, tuple_mode)
                return type(res)(tuple(out))
            return write_out(name, res.detach(), out, mode if select is None else select(args, kwargs))
        return wrapper
    return deco


def declares_out(mode: str | Callable = "cast", *, tuple_mode: str | Callable = "cast", grad_check: bool = True,
                 grad_name: str | None = None, select: Callable | None = None, full_overlap: bool = False):
    """Declare on a function's definition that ``retrograd.<name>`` takes ``out=`` with PyTorch's
    rules (the arguments are :func:`with_out`'s).  The module's function stays as written, so
    Tensor methods and the library's own calls pay nothing; the op package gives its public name
    the ``out=`` wrapper (:func:`give_out`)."""
    def deco(fn):
        fn._out_rule = dict(mode=mode, tuple_mode=tuple_mode, grad_check=grad_check, grad_name=grad_name,
                            select=select, full_overlap=full_overlap)
        return fn
    return deco


def give_out(namespace: dict) -> None:
    """Wrap each function in ``namespace`` (the op package's) whose definition says ``@declares_out``."""
    for name, fn in list(namespace.items()):
        rule = getattr(fn, "_out_rule", None)
        if rule is None or getattr(fn, "_rg_out_wrapped", False) or name != getattr(fn, "__name__", None):
            continue
        rule = dict(rule)
        if rule["select"] is not None:  # (an op whose mode is chosen per call: clamp_min, clamp_max)
            rule["mode"] = "cast"
        wrapped = with_out(name, **rule)(fn)
        wrapped._rg_out_wrapped = True
        namespace[name] = wrapped


def need_dtype(message: Callable, *allowed) -> Callable:
    """An op-specific out dtype rule: ``out``'s dtype must be one of ``allowed``."""
    def check(result: Tensor, out: Tensor) -> None:
        if out.dtype not in allowed:
            raise RuntimeError(message(out))
    return check


def same_dtype(message: str) -> Callable:
    """``out`` must have the result's dtype (``message`` is the op's own text)."""
    def check(result: Tensor, out: Tensor) -> None:
        if out._data.dtype != result._data.dtype:
            raise RuntimeError(message)
    return check


def same_dtype_found(result: Tensor, out: Tensor) -> None:
    """``out`` must have the result's dtype (PyTorch's "Found dtype" wording)."""
    if out._data.dtype != result._data.dtype:
        raise RuntimeError(f"Found dtype {_type_name(out.dtype)} but expected {_type_name(result.dtype)}")


def float_out(name: str) -> Callable:
    """``out`` must be floating point (logsumexp)."""
    def check(result: Tensor, out: Tensor) -> None:
        if not out.dtype.is_floating_point:
            raise RuntimeError(f"{name}(): Expected floating point type for result tensor, but got: "
                               f"{_type_name(out.dtype)}")
    return check


def same_as_input(result: Tensor, out: Tensor) -> None:
    """amax/amin: ``out``'s dtype must be the input's (the result's)."""
    if out._data.dtype != result._data.dtype:
        raise RuntimeError(f"Expected the dtype for input and out to match, but got {_type_name(result.dtype)} "
                           f"for input's dtype and {_type_name(out.dtype)} for out's dtype.")



def _cpp(d) -> str:
    from .linalg.products import CPP_NAMES

    return CPP_NAMES.get(d.name, d.name)


def reduce_out(name: str, *, float_result: bool = False, dim_required: bool = True):
    """``out=`` for the ``dtype=`` reductions (sum, prod, mean, nansum) with PyTorch's rules.

    Only the function takes ``out`` (the Tensor method does not), and only with a ``dim``: the
    all-elements overload has none.  Without ``dtype=`` the reduction runs in ``out``'s dtype; with
    one, ``out`` must have exactly that dtype.  ``float_result``: the natural result is floating
    point (mean), so an ``out`` it cannot be cast to is refused.
    """
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(input, *args, out=None, **kwargs):
            if out is None:
                return fn(input, *args, **kwargs)
            from .linalg.products import _check_out

            if dim_required and not args and kwargs.get("dim") is None:
                raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, out=Tensor), "
                                "but expected one of:\n * (Tensor input, *, torch.dtype dtype = None)\n")
            _check_out(name, out, input)
            dtype = kwargs.get("dtype")
            if dtype is not None and dtype is not out.dtype:
                raise RuntimeError(f"Expected out tensor to have dtype {_cpp(dtype)}, but got {_cpp(out.dtype)} "
                                   "instead")
            if dtype is None and float_result:
                natural = D.get_default_dtype()  # (PyTorch's message names it even for a double input)
                if not D.can_cast(natural, out.dtype):
                    raise RuntimeError(f"result type {_type_name(natural)} can't be cast to the desired output "
                                       f"type {_type_name(out.dtype)}")
            if name == "nansum" and input.dtype.is_floating_point and not out.dtype.is_floating_point:
                raise NotImplementedError(f"\"nansum_cpu\" not implemented for '{_type_name(out.dtype)}'")
            kwargs["dtype"] = out.dtype
            return write_out(name, fn(input, *args, **kwargs).detach(), out, "same")
        wrapper.method_form = getattr(fn, "method_form", fn)  # (x.sum(0, out=...) is a TypeError in torch)
        return wrapper
    return deco


def values_indices_out(name: str, style: str = "mode"):
    """``out=(values, indices)`` for mode / median / nanmedian with a ``dim``: ``values`` must have
    the input's dtype and ``indices`` int64, each refused with the op's own message (nanmedian's
    checks name ``median``, as PyTorch's shared kernel does)."""
    check_name = "median" if style == "median" else name
    def check(input: Tensor, out) -> None:
        values, indices = out
        if values.dtype is not input.dtype:
            if style == "mode":
                raise RuntimeError(f"expected scalar type '{_type_name(input.dtype)}' but got "
                                   f"'{_type_name(values.dtype)}' for values output")
            raise RuntimeError(f"Expected tensor for 'values' to have the same type as tensor for argument #2 "
                               f"'self'; but type torch.{_type_name(values.dtype)}Tensor does not equal "
                               f"torch.{_type_name(input.dtype)}Tensor (while checking arguments for {check_name})")
        if indices.dtype is not D.int64:
            if style == "mode":
                raise RuntimeError(f"expected scalar type 'Long' but got '{_type_name(indices.dtype)}' for "
                                   "indices output")
            raise RuntimeError(f"Expected tensor for argument #1 'indices' to have scalar type Long; but got "
                               f"torch.{_type_name(indices.dtype)}Tensor instead (while checking arguments for "
                               f"{check_name})")

    def deco(fn):
        @functools.wraps(fn)
        def wrapper(input, *args, out=None, **kwargs):
            if out is None:
                return fn(input, *args, **kwargs)
            from .linalg.products import _check_out

            if style != "mode" and not args and kwargs.get("dim") is None:
                raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
            if not isinstance(out, (tuple, list)) or len(out) != 2:
                raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}")
            for o in out:
                _check_out(name, o, input)
            check(input, out)
            res = fn(input, *args, **kwargs)
            for o, r in zip(out, res):
                write_out(name, r.detach(), o, "same")
            return type(res)(tuple(out))
        wrapper.method_form = getattr(fn, "method_form", fn)
        return wrapper
    return deco
