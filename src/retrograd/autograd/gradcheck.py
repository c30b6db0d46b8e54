"""gradcheck / gradgradcheck: analytical gradients against central finite differences.

Both Jacobians are laid out as PyTorch lays them out: one ``(input.numel(), output.numel())``
matrix per (differentiable output, input requiring grad) pair.  The numerical one perturbs
each input element in place (on the raw array, so no version bump, like PyTorch's ``.data``)
and takes ``(f(x + eps) - f(x - eps)) / (2 eps)``; the analytical one projects
``autograd.grad`` on each standard basis vector of the output (rows of J).

>>> import retrograd as torch
>>> x = torch.randn(3, dtype=torch.float64, requires_grad=True)
>>> torch.autograd.gradcheck(lambda t: (t * t).sin(), (x,))
True
"""
from __future__ import annotations

import warnings
from typing import Callable, Sequence

import numpy as np

from .graph import Node

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError", "get_numerical_jacobian", "get_analytical_jacobian"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck / gradgradcheck when a check fails (a RuntimeError, as in PyTorch)."""


# ------------------------------------------------------------------ small helpers
def _Tensor():
    from .._tensor import Tensor

    return Tensor


def _as_tuple(x) -> tuple:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _iter_tensors(x, only_requiring_grad: bool = False):
    """Tensors in ``x`` (nested iterables allowed), in order, without recursion."""
    T = _Tensor()
    stack = [x]
    while stack:
        item = stack.pop()
        if isinstance(item, T):
            if item.requires_grad or not only_requiring_grad:
                yield item
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))


def _differentiable_outputs(x) -> tuple:
    return tuple(o for o in _as_tuple(x) if o.requires_grad)


def _wrap(a: np.ndarray):
    return _Tensor()._wrap(a, False, None, 0)


def _is_float(t) -> bool:
    return isinstance(t, _Tensor()) and t._data.dtype.kind in "fc"


def _check_inputs(inputs: tuple) -> None:
    T = _Tensor()
    found = False
    for idx, inp in enumerate(inputs):
        if isinstance(inp, T) and inp.requires_grad:
            if inp._data.dtype != np.float64:
                warnings.warn(
                    f"Input #{idx} requires gradient and is not a double precision floating point or complex. "
                    "This check will likely fail if all the inputs are not of double precision floating point "
                    "or complex. ", stacklevel=4)
            d = inp._data
            if not all(st > 0 or sz <= 1 for st, sz in zip(d.strides, d.shape)):
                raise RuntimeError(
                    f"The {idx}th input has a dimension with stride 0. gradcheck only supports inputs that are "
                    "non-overlapping to be able to compute the numerical gradients correctly. You should call "
                    ".contiguous on the input before passing it to gradcheck.")
            found = True
    if not found:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of them have requires_grad=True.")


def _allclose(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> bool:
    dt = np.promote_types(a.dtype, b.dtype)
    return bool(np.allclose(a.astype(dt), b.astype(dt), rtol=rtol, atol=atol, equal_nan=False))


def _mismatch_msg(analytical: np.ndarray, numerical: np.ndarray, out_idx: int, in_idx: int,
                  forward: bool = False) -> str:
    mode = "computed with forward mode " if forward else ""
    return (f"Jacobian {mode}mismatch for output {out_idx:d} with respect to input {in_idx:d},\n"
            f"numerical:{_wrap(numerical)!r}\nanalytical:{_wrap(analytical)!r}\n")


# ------------------------------------------------------------------ numerical Jacobian
def _eval_copies(fn: Callable, inputs: tuple) -> list:
    """fn(*inputs) with each output's data copied (outputs may alias the perturbed input)."""
    T = _Tensor()
    return [np.array(o._data, copy=True) if isinstance(o, T) else o for o in _as_tuple(fn(*inputs))]


def _numerical_jacobian(fn: Callable, inputs: tuple, outputs: tuple, eps: float) -> list[list[np.ndarray]]:
    """[input][output] Jacobians (in.numel x out.numel) for each input requiring grad.

    Non-float outputs get no entry (as in PyTorch); the list per input has one matrix per
    float output, in order.
    """
    T = _Tensor()
    float_outs = [i for i, o in enumerate(outputs) if _is_float(o)]
    result = []
    for inp in inputs:
        if not (isinstance(inp, T) and inp.requires_grad):
            continue
        data = inp._data  # perturbed in place; the function sees the same Tensor object
        n = data.size
        jac = [np.zeros((n, outputs[k]._data.size), dtype=outputs[k]._data.dtype) for k in float_outs]
        for col, idx in enumerate(np.ndindex(data.shape)):
            orig = data[idx].copy()
            data[idx] = orig - eps
            outa = _eval_copies(fn, inputs)
            data[idx] = orig + eps
            outb = _eval_copies(fn, inputs)
            data[idx] = orig
            for j, k in enumerate(float_outs):
                a, b = outa[k], outb[k]
                if a.shape != b.shape:
                    raise AssertionError(
                        "Expected `func` to return outputs with the same shape when inputs are perturbed on index "
                        f"{idx} by {eps}, but got: shapes {_size(a.shape)} and {_size(b.shape)}.")
                if a.dtype != b.dtype:
                    from .._dtype import from_numpy_dtype

                    raise AssertionError(
                        "Expected `func` to return outputs with the same dtype when inputs are perturbed on index "
                        f"{idx} by {eps}, but got: dtypes {from_numpy_dtype(a.dtype)} and {from_numpy_dtype(b.dtype)}.")
                jac[j][col] = ((b - a) / (2 * eps)).reshape(-1)
        result.append(jac)
    return result


def _size(shape):
    from .._size import Size

    return Size(shape)


# ------------------------------------------------------------------ analytical Jacobian
def _analytical_rows(output, diff_inputs: list) -> list[list]:
    """rows[i][j]: grad of output element j w.r.t. diff input i (None when unused)."""
    from . import grad as autograd_grad

    base = np.zeros(output._data.shape, dtype=output._data.dtype)
    flat = base.reshape(-1)
    rows: list[list] = [[] for _ in diff_inputs]
    for j in range(flat.size):
        flat[:] = 0
        flat[j] = 1
        gi = autograd_grad(output, diff_inputs, _wrap(base.copy()), retain_graph=True, allow_unused=True)
        for i, g in enumerate(gi):
            rows[i].append(None if g is None else np.array(g._data, copy=True))
    return rows


def _stack(rows: list[list], diff_inputs: list, n_out: int):
    jacs = []
    sizes_ok = types_ok = True
    for i, inp in enumerate(diff_inputs):
        jac = np.zeros((inp._data.size, n_out), dtype=inp._data.dtype)
        for j, r in enumerate(rows[i]):
            if r is None:
                continue
            if r.shape != inp._data.shape:
                sizes_ok = False
            elif r.dtype != inp._data.dtype:
                types_ok = False
            if r.size != inp._data.size:
                raise AssertionError(f"Expected out_jacobian column to have {r.size} elements, "
                                     f"but got {inp._data.size}")
            jac[:, j] = r.reshape(-1)
        jacs.append(jac)
    return jacs, sizes_ok, types_ok


_NONDET_NOTE = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""


def _analytical_jacobian(inputs: tuple, output, nondet_tol: float, check_grad_dtypes: bool) -> list[np.ndarray]:
    diff_inputs = list(_iter_tensors(inputs, True))
    rows1 = _analytical_rows(output, diff_inputs)
    rows2 = _analytical_rows(output, diff_inputs)
    n_out = output._data.size
    j1, sizes_ok, types_ok = _stack(rows1, diff_inputs, n_out)
    j2, _, _ = _stack(rows2, diff_inputs, n_out)
    reentrant = all(a.size == 0 or np.abs(a - b).max() <= nondet_tol for a, b in zip(j1, j2))
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with same input and grad_output multiple times "
            "gives different values, although analytical gradient matches numerical gradient."
            f"The tolerance for nondeterminism was {nondet_tol}." + _NONDET_NOTE)
    return j1


# ------------------------------------------------------------------ forward mode
def _dual_inputs(tupled: tuple):
    """(inputs with each one requiring grad made a dual of its detached value and a zero tangent,
    {position: tangent}) inside an open dual level."""
    from .. import _creation
    from . import forward_ad as fwAD

    T = _Tensor()
    duals = list(tupled)
    tangents = {}
    for i, x in enumerate(tupled):
        if isinstance(x, T) and x.requires_grad:
            d = fwAD.make_dual(x.detach(), _creation.zeros_like(x))
            tangents[i] = fwAD.unpack_dual(d).tangent  # (read back: the dual may hold its own tensor)
            duals[i] = d
    return duals, tangents


def _out_tangents(outs) -> list:
    """(primal, tangent or None) of each float output."""
    from . import forward_ad as fwAD

    return [fwAD.unpack_dual(o) for o in _as_tuple(outs) if _is_float(o)]


def _forward_jacobian(func: Callable, tupled: tuple) -> list[list[np.ndarray]]:
    """[input][output] Jacobians (in.numel x out.numel) by forward mode, one column per input element."""
    from . import forward_ad as fwAD

    result = []
    with fwAD.dual_level():
        duals, tangents = _dual_inputs(tupled)
        for i, tan in tangents.items():
            td = tan._data
            jac = None
            for col, idx in enumerate(np.ndindex(td.shape)):
                td[idx] = 1
                outs = _out_tangents(func(*duals))
                if jac is None:
                    jac = [np.zeros((td.size, p._data.size), dtype=p._data.dtype) for p, _ in outs]
                for k, (_, t) in enumerate(outs):
                    if t is not None:  # (read before the reset: an output may alias the input's tangent)
                        jac[k][col] = t._data.reshape(-1)
                td[idx] = 0
            result.append(jac if jac is not None else [])
    return result


def _test_undefined_forward_mode(func: Callable, tupled: tuple) -> None:
    """An input whose tangent is a zero tensor, or that is no dual at all, must give the same output tangents."""
    from .. import _creation
    from . import forward_ad as fwAD

    with fwAD.dual_level():
        duals, tangents = _dual_inputs(tupled)
        eng = _creation._eng(None)
        for tan in tangents.values():
            tan._data[...] = eng.uniform(tan._data.size, tan._data.dtype, 0.0, 1.0).reshape(tan._data.shape)
        for i in tangents:
            keep = duals[i]
            x = tupled[i]
            duals[i] = fwAD.make_dual(x.detach(), _creation.zeros_like(x))
            outs1 = _out_tangents(func(*duals))
            duals[i] = x.detach()
            outs2 = _out_tangents(func(*duals))
            duals[i] = keep
            for k, ((_, t1), (_, t2)) in enumerate(zip(outs1, outs2)):
                if t1 is not None and t2 is not None and not _allclose(t1._data, t2._data, 1e-5, 1e-8):
                    raise GradcheckError(f"Mismatch in tangent values for output with index: {k} when input: {x} has "
                                         f"an undefined tangent value. Got: {t1} but expected: {t2}")


def _test_batched_forward(func: Callable, tupled: tuple, rtol: float, atol: float) -> None:
    """Output tangents for a batch of two tangents match those computed one by one.

    retrograd's ``vmap`` is itself a per-sample loop (no batching rules), so the batched pass
    replays the samples in the same way; what it can still catch is a function whose tangents
    depend on random numbers drawn inside it, which PyTorch's batched check refuses as well.
    """
    from .. import _creation, _ops
    from . import forward_ad as fwAD

    T = _Tensor()
    for pos, x in enumerate(tupled):
        if not (isinstance(x, T) and x.requires_grad and _is_float(x)):
            continue

        def jvp(tangent, pos=pos, x=x):
            with fwAD.dual_level():
                args = tuple(fwAD.make_dual(x.detach(), tangent) if k == pos else
                             (a.detach() if isinstance(a, T) else a) for k, a in enumerate(tupled))
                ret = []
                for o in _as_tuple(func(*args)):
                    if o is None:
                        continue
                    p, t = fwAD.unpack_dual(o)
                    ret.append(t if t is not None else _creation.zeros_like(p))
                return tuple(ret)

        tangents = [_creation.randn_like(x) for _ in range(2)]
        expected = [_ops.stack(shards) for shards in zip(*[jvp(t) for t in tangents])]
        state = _creation.get_rng_state()
        got = [_ops.stack(shards) for shards in zip(*[jvp(t) for t in tangents])]
        if not bool((_creation.get_rng_state() == state).all()):
            raise RuntimeError("vmap: We do not yet support calling random operations inside of vmap. Please perform "
                               "random operations outside of vmap as a workaround")
        for k, (r, e) in enumerate(zip(got, expected)):
            if not _allclose(r._data, e._data, rtol, atol):
                raise GradcheckError(f"For output {k} and input {pos}: batched forward gradient mismatch:\n"
                                     f"got: {r}\nexpected: {e}")


# ------------------------------------------------------------------ the extra checks
def _test_backward_mul_by_grad_output(outputs: tuple, inputs: tuple) -> None:
    from . import grad as autograd_grad

    diff_inputs = list(_iter_tensors(inputs, True))
    if not diff_inputs:
        raise GradcheckError("no Tensors requiring grad found in input")
    zeros = [_wrap(np.zeros(o._data.shape, dtype=o._data.dtype)) for o in outputs]
    grads = autograd_grad(outputs, diff_inputs, zeros, allow_unused=True)
    for gi, di in zip(grads, diff_inputs):
        if gi is None:
            continue
        if not (gi._data == 0).all():
            raise GradcheckError("backward not multiplied by grad_output")
        if gi._data.dtype != di._data.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi._data.shape != di._data.shape:
            raise GradcheckError("grad is incorrect size")


class _UndefinedGradBackward(Node):
    """Identity whose backward passes an undefined (None) gradient on (PyTorch's UndefinedGrad)."""

    __slots__ = ()
    _name = "UndefinedGradBackward"

    def apply(self, grads, needed=None):
        return [None]


def _undefined_grad(t):
    node = _UndefinedGradBackward()
    if t._grad_fn is not None:
        node.next_functions = ((t._grad_fn, t._output_nr),)
    else:
        node.next_functions = ((t._grad_accumulator(), 0),)
    node._in_meta = ((t._data.shape, t._data.dtype),)
    return _Tensor()._wrap(t._data, True, node, 0)


def _test_undefined_backward_mode(func: Callable, outputs: tuple, inputs: tuple) -> None:
    from . import grad as autograd_grad

    diff_inputs = list(_iter_tensors(inputs, True))
    if not diff_inputs:
        raise GradcheckError("no Tensors requiring grad found in input")
    T = _Tensor()

    def warn_bc():
        warnings.warn(
            "Backwards compatibility: New undefined gradient support checking feature is enabled by default, but "
            "it may break existing callers of this function. If this is true for you, you can call this function "
            'with "check_undefined_grad=False" to disable the feature', stacklevel=2)

    def check(outs) -> None:
        zeros = [_wrap(np.zeros(o._data.shape, dtype=o._data.dtype)) for o in outs]
        try:
            grads = autograd_grad(outs, diff_inputs, zeros, allow_unused=True)
        except RuntimeError as e:
            warn_bc()
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. Please look at \"Notes about "
                "undefined output gradients\" in \"tools/autograd/derivatives.yaml\"") from e
        for gi in grads:
            if gi is not None and not (gi._data == 0).all():
                warn_bc()
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads are undefined or zero. "
                    "Please look at \"Notes about undefined output gradients\" in "
                    "\"tools/autograd/derivatives.yaml\"")

    to_check = [[_undefined_grad(o) for o in _differentiable_outputs(func(*inputs)) if isinstance(o, T)]]
    if len(to_check[0]) > 1:
        for k in range(len(outputs)):
            outs = _differentiable_outputs(func(*inputs))
            to_check.append([_undefined_grad(o) if i == k else o for i, o in enumerate(outs)])
    for outs in to_check:
        check(outs)


# ------------------------------------------------------------------ public API
def gradcheck(func: Callable, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked: bool | None = None) -> bool:
    """Compare ``func``'s analytical Jacobians with finite differences; True when all match.

    Inputs should be float64 with ``requires_grad=True``.  On a mismatch raises
    ``GradcheckError`` (a RuntimeError) with PyTorch's message, or returns False when
    ``raise_exception=False``.  ``fast_mode`` is accepted and runs the full (slow) check;
    ``check_forward_ad`` compares forward-mode (dual tensor) Jacobians too; batched reverse-mode checks are not run.

    >>> import retrograd as torch
    >>> a = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
    >>> b = torch.randn(3, dtype=torch.float64, requires_grad=True)
    >>> torch.autograd.gradcheck(torch.mul, (a, b))
    True
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    try:
        return _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                                 check_grad_dtypes, check_batched_grad, check_forward_ad, check_backward_ad,
                                 check_batched_forward_grad)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, check_grad_dtypes,
                      check_batched_grad, check_forward_ad: bool = False, check_backward_ad: bool = True,
                      check_batched_forward_grad: bool = False) -> bool:
    tupled = _as_tuple(inputs)
    _check_inputs(tupled)
    func_out = _as_tuple(func(*tupled))
    outputs = _differentiable_outputs(func_out)
    numerical_all = _numerical_jacobian(func, tupled, func_out, eps)
    if not outputs:
        for per_input in numerical_all:
            for jac in per_input:
                if (jac != 0).any():
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    # numerical[i][j]: output i (differentiable ones only) w.r.t. input j
    float_outs = [o for o in func_out if _is_float(o)]
    keep = [k for k, o in enumerate(float_outs) if o.requires_grad]
    numerical = [[per_input[k] for per_input in numerical_all] for k in keep]
    if check_backward_ad:  # (first, as PyTorch: a backward failure hides a forward one)
        for i, o in enumerate(outputs):
            analytical = _analytical_jacobian(tupled, o, nondet_tol, check_grad_dtypes)
            for j, (a, n) in enumerate(zip(analytical, numerical[i])):
                if not _allclose(a, n, rtol, atol):
                    raise GradcheckError(_mismatch_msg(a, n, i, j))
    if check_forward_ad:
        forward = _forward_jacobian(func, tupled)  # [input][float output]
        for i, k in enumerate(keep):
            for j, per_input in enumerate(forward):
                a, n = per_input[k], numerical[i][j]
                if not _allclose(a, n, rtol, atol):
                    raise GradcheckError(_mismatch_msg(a, n, i, j, forward=True))
        if check_undefined_grad:
            _test_undefined_forward_mode(func, tupled)
    if check_batched_forward_grad:
        _test_batched_forward(func, tupled, rtol, atol)
    if not check_backward_ad:
        return True
    _test_backward_mul_by_grad_output(outputs, tupled)
    if check_undefined_grad:
        _test_undefined_backward_mode(func, outputs, tupled)
    return True


def gradgradcheck(func: Callable, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True,
                  nondet_tol: float = 0.0, check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False, masked: bool = False) -> bool:
    """gradcheck of the map (inputs, grad_outputs) -> grad of ``func`` (second derivatives).

    ``grad_outputs`` default to random values in [-1, 1) (from retrograd's generator).

    >>> import retrograd as torch
    >>> x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    >>> torch.autograd.gradgradcheck(lambda t: (t * t * t).sum(), (x,))
    True
    """
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be True")
    from . import grad as autograd_grad
    from .. import _creation

    tupled = _as_tuple(inputs)
    if grad_outputs is None:
        outs = _differentiable_outputs(func(*tupled))
        eng = _creation._eng(None)
        tupled_grads = []
        for x in outs:
            # PyTorch's make_tensor(low=-1, high=1): a uniform_(-1, 1) fill from the default generator
            dt = x._data.dtype if x._data.dtype.kind in "fc" else np.float64
            t = _wrap(eng.uniform(x._data.size, dt, -1.0, 1.0).reshape(x._data.shape))
            t.requires_grad_(True)
            tupled_grads.append(t)
        tupled_grads = tuple(tupled_grads)
    else:
        tupled_grads = _as_tuple(grad_outputs)
    n_grads = len(tupled_grads)
    T = _Tensor()
    diff_in = {i for i, x in enumerate(tupled) if isinstance(x, T) and x.requires_grad}
    diff_gout = {i for i, x in enumerate(tupled_grads) if isinstance(x, T) and x.requires_grad}

    def new_func(*args):
        # restore requires_grad: the forward-over-reverse check calls this with dual tensors
        # made from detached inputs
        input_args = tuple(x.requires_grad_() if i in diff_in and not x.requires_grad else x
                           for i, x in enumerate(args[:-n_grads] if n_grads else args))
        outs = _differentiable_outputs(func(*input_args))
        gouts = tuple(x.requires_grad_() if i in diff_gout and not x.requires_grad else x
                      for i, x in enumerate(args[-n_grads:] if n_grads else ()))
        diff_args = tuple(x for i, x in enumerate(input_args) if i in diff_in)
        gi = autograd_grad(outs, diff_args, gouts, create_graph=True, allow_unused=True)
        return tuple(g for g in gi if g is not None)

    return gradcheck(new_func, tupled + tupled_grads, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes,
                     check_batched_grad=check_batched_grad, fast_mode=fast_mode,
                     check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev, masked=masked)


# ------------------------------------------------------------------ deprecated helpers PyTorch still exposes
def _deprecated(name: str) -> None:
    warnings.warn(f"`{name}` was part of PyTorch's private API and not meant to be exposed. We are deprecating it "
                  "and it will be removed in a future version of PyTorch. If you have a specific use for this or "
                  "feature request for this to be a stable API, please file us an issue at "
                  "https://github.com/pytorch/pytorch/issues/new", FutureWarning, stacklevel=3)


def get_numerical_jacobian(fn: Callable, inputs, target=None, eps: float = 1e-3, grad_out: float = 1.0):
    """Deprecated: numerical Jacobians of ``fn(inputs)`` (called with the tuple) w.r.t. each input
    requiring grad in ``target`` (default: ``inputs``), for the first output."""
    _deprecated("get_numerical_jacobian")
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_numerical_jacobian no longer supports values of "
                         "grad_out != 1.0.")
    tupled = _as_tuple(inputs)
    targets = _as_tuple(target) if target is not None else tupled
    T = _Tensor()
    target_ids = {id(t) for t in targets if isinstance(t, T)}

    def packed(*args):
        return fn(args)

    outs = _as_tuple(packed(*tupled))
    # only the targets are perturbed: the others count as constants
    masked = tuple(t if isinstance(t, T) and id(t) in target_ids else
                   (t.detach() if isinstance(t, T) else t) for t in tupled)
    jacs = _numerical_jacobian(packed, masked, outs, eps)
    return tuple(_wrap(per_input[0]) for per_input in jacs)


def get_analytical_jacobian(inputs: Sequence, output, nondet_tol: float = 0.0, grad_out: float = 1.0):
    """Deprecated: (jacobians, reentrant, correct_grad_sizes, correct_grad_types) of ``output``."""
    _deprecated("get_analytical_jacobian")
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_analytical_jacobian no longer supports values of "
                         "grad_out != 1.0.")
    diff_inputs = list(_iter_tensors(_as_tuple(inputs), True))
    r1 = _analytical_rows(output, diff_inputs)
    r2 = _analytical_rows(output, diff_inputs)
    j1, sizes_ok, types_ok = _stack(r1, diff_inputs, output._data.size)
    j2, _, _ = _stack(r2, diff_inputs, output._data.size)
    reentrant = all(a.size == 0 or np.abs(a - b).max() <= nondet_tol for a, b in zip(j1, j2))
    return tuple(_wrap(j) for j in j1), reentrant, sizes_ok, types_ok
