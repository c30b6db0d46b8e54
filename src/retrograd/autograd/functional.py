"""Higher-level differentiation: jacobian, hessian, vjp, jvp, hvp, vhp.

PyTorch's ``torch.autograd.functional`` API, signatures, return structures and strict-mode
errors.  ``vjp``, ``vhp`` and the reverse-mode ``jacobian`` run on ``autograd.grad``.  ``jvp``
runs forward mode on ``autograd.forward_ad``'s dual numbers (in strict mode, and inside an
open dual level, it uses PyTorch's own double-backward trick: the vector-Jacobian product is
linear in its vector ``u``, so differentiating it w.r.t. ``u`` gives the Jacobian-vector
product); ``jacobian(strategy="forward-mode", vectorize=True)`` is ``vmap`` of forward-mode
products over the standard basis, as in PyTorch.  ``hvp`` uses the double-backward trick.

>>> import retrograd as torch
>>> from retrograd.autograd.functional import jacobian
>>> jacobian(lambda x: x ** 2, torch.tensor([1., 2.]))
tensor([[2., 0.],
        [0., 4.]])
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from . import grad_mode

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _T():
    from .._tensor import Tensor

    return Tensor


# ------------------------------------------------------------------ argument handling
def _as_tuple(inp, arg_name: str, fn_name: str):
    is_tuple = isinstance(inp, tuple)
    if not is_tuple:
        inp = (inp,)
    T = _T()
    for i, el in enumerate(inp):
        if not isinstance(el, T):
            if is_tuple:
                raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors "
                                f"but the value at index {i} has type {type(el)}.")
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"the given {arg_name} has type {type(el)}.")
    return is_tuple, inp


def _tuple_postprocess(res, to_unpack):
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """Fresh differentiable handles on the inputs (an alias keeps their history with create_graph)."""
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(inp.view_as(inp))
        else:
            res.append(inp.detach().requires_grad_(need_graph))
    return tuple(res)


def _grad_postprocess(inputs, create_graph: bool):
    if isinstance(inputs[0], _T()):
        return inputs if create_graph else tuple(inp.detach() for inp in inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v: tuple, other: tuple, is_other_tuple: bool) -> None:
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}.")


def _check_requires_grad(inputs, input_type: str, strict: bool) -> None:
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode.")
        if not inp.requires_grad:
            if input_type == "hessian":
                raise RuntimeError(
                    f"The hessian of the user-provided function with respect to input {i} is independent of the "
                    "input. This is not allowed in strict mode. You should ensure that your function is thrice "
                    "differentiable and that the hessian depends on the inputs.")
            if input_type == "jacobian":
                raise RuntimeError(
                    "While computing the hessian, found that the jacobian of the user-provided function with "
                    f"respect to input {i} is independent of the input. This is not allowed in strict mode. You "
                    "should ensure that your function is twice differentiable and that the jacobian depends on the "
                    "inputs (this would be violated by a linear function for example).")
            if input_type == "grad_inputs":
                raise RuntimeError(f"The gradient with respect to input {i} is independent of the inputs of the "
                                   "user-provided function. This is not allowed in strict mode.")
            raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The outputs "
                               "must be computed in a differentiable manner from the input when running in strict "
                               "mode.")


def _autograd_grad(outputs: tuple, inputs: tuple, grad_outputs=None, create_graph: bool = False,
                   retain_graph: bool | None = None) -> tuple:
    """autograd.grad over the outputs that require grad (None for every input when none does)."""
    from . import grad

    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    new_out, new_gout = [], []
    for out, g in zip(outputs, grad_outputs):
        if out is not None and out.requires_grad:
            new_out.append(out)
            new_gout.append(g)
    if not new_out:
        return (None,) * len(inputs)
    return grad(tuple(new_out), inputs, tuple(new_gout), allow_unused=True, create_graph=create_graph,
                retain_graph=retain_graph)


_FILL_MSGS = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict "
            "mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when "
                  "using the double backward trick to compute forward mode gradients. This is not allowed in strict "
                  "mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed in "
                   "strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
                         "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
                         "backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict: bool, create_graph: bool, stage: str) -> tuple:
    from .. import _creation

    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_FILL_MSGS[stage].format(i=i))
            g = _creation.zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode when create_graph=True.")
        res.append(g)
    return tuple(res)


# ------------------------------------------------------------------ products

def _product_result(outputs, is_outputs_tuple, diff_of, wrt, v, shape_like, is_res_tuple, create_graph, strict,
                    stage):
    """The shared tail of vjp/jvp/vhp/hvp: grad of ``diff_of`` w.r.t. ``wrt`` against ``v``,
    zeros filled in (or strict-mode errors), then PyTorch's (outputs, result) packaging."""
    with grad_mode.set_grad_enabled(True if create_graph else grad_mode.is_grad_enabled()):
        grad_res = _autograd_grad(diff_of, wrt, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, shape_like, strict, create_graph, stage)
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res, is_res_tuple)

def vjp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), v^T J): the vector-Jacobian product at ``inputs``.

    >>> import retrograd as torch
    >>> out, g = torch.autograd.functional.vjp(lambda x: 2 * x, torch.ones(2), torch.tensor([1., 3.]))
    >>> g
    tensor([2., 6.])
    """
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function returns a single "
                               "Tensor with a single element.")
    return _product_result(outputs, is_outputs_tuple, outputs, inputs, v, inputs, is_inputs_tuple,
                           create_graph, strict, "back")


def jvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), J v): the Jacobian-vector product, in forward mode (dual numbers).

    >>> import retrograd as torch
    >>> out, jv = torch.autograd.functional.jvp(lambda x: x ** 2, torch.tensor([1., 2.]), torch.ones(2))
    >>> jv
    tensor([2., 4.])
    """
    from .. import _creation

    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, inputs, is_inputs_tuple)
        elif len(inputs) != 1 or inputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                               "single Tensor with a single element.")
        if not strict and not _fwAD()._level.active:
            return _jvp_forward(func, inputs, v, create_graph)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        # u^T J is linear in u, so any finite u works; zeros keep inf/nan out.
        grad_outputs = tuple(_creation.zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    return _product_result(outputs, is_outputs_tuple, grad_inputs, grad_outputs, v, outputs, is_outputs_tuple,
                           create_graph, strict, "back_trick")


def _fwAD():
    from . import forward_ad

    return forward_ad


def _jvp_forward(func: Callable, inputs: tuple, v, create_graph: bool):
    """``jvp`` on dual numbers: one forward pass; an output without a tangent gets zeros."""
    from .. import _creation

    fwAD = _fwAD()
    if v is None:
        v = (_creation.ones_like(inputs[0]),)
    with fwAD.dual_level():
        duals = tuple(fwAD.make_dual(i, t) for i, t in zip(inputs, v))
        outputs = func(*duals)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        prims, tans = [], []
        for o in outputs:
            t = fwAD.unpack_dual(o).tangent
            prims.append(o)  # (the output itself: its tangent is gone once the level closes)
            tans.append(_creation.zeros_like(o) if t is None else t)
    outputs = _grad_postprocess(tuple(prims), create_graph)
    res = _grad_postprocess(tuple(tans), create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res, is_outputs_tuple)


def _jacobian_forward(func: Callable, inputs):
    """``jacobian(strategy="forward-mode", vectorize=True)``: vmap of dual-number products over
    the standard basis of the inputs (PyTorch's ``_jacfwd``)."""
    from ..func._forward import _standard_basis
    from ..func._vmap import vmap

    fwAD = _fwAD()
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    numels = tuple(i.numel() for i in inputs)
    tangents = _standard_basis(list(inputs), list(numels))
    info: list = []

    def push(tangents):
        from .. import _creation

        with fwAD.dual_level():
            duals = tuple(fwAD.make_dual(i, t.view_as(i)) for i, t in zip(inputs, tangents))
            is_out_tuple, outs = _as_tuple(func(*duals), "outputs", "jacobian")
            info[:] = [is_out_tuple, []]
            jv = []
            for o in outs:
                p, t = fwAD.unpack_dual(o)
                info[1].append(p)
                jv.append(_creation.zeros_like(p) if t is None else t)
            return tuple(jv)

    before_split = vmap(push)(tuple(tangents))
    is_outputs_tuple, outputs = info
    jac = []
    for jac_i, out_i in zip(before_split, outputs):
        row = []
        for piece, inp in zip(jac_i.split(numels, dim=0), inputs):
            row.append(piece.permute(*range(1, piece.dim()), 0).reshape(tuple(out_i.shape) + tuple(inp.shape)))
        jac.append(row)
    return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))  # (lists, as PyTorch's)


def _scalar_function_outputs(func, inputs, strict: bool, name: str):
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    if is_outputs_tuple or not isinstance(outputs[0], _T()):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should contain a single element")
    return is_outputs_tuple, outputs


def _prepare_hessian_product(func, inputs, v, create_graph, strict, name):
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    if v is not None:
        _, v = _as_tuple(v, "v", name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, inputs, is_inputs_tuple)
    elif len(inputs) != 1 or inputs[0].nelement() != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single "
                           "Tensor with a single element.")
    is_outputs_tuple, outputs = _scalar_function_outputs(func, inputs, strict, name)
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict=strict)
    return is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac


def vhp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), v^T H) for a scalar function.

    >>> import retrograd as torch
    >>> f = lambda x: (x ** 3).sum()
    >>> torch.autograd.functional.vhp(f, torch.tensor([1., 2.]), torch.ones(2))[1]
    tensor([ 6., 12.])
    """
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _prepare_hessian_product(
            func, inputs, v, create_graph, strict, "vhp")
    return _product_result(outputs, is_outputs_tuple, jac, inputs, v, inputs, is_inputs_tuple,
                           create_graph, strict, "double_back")


def hvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), H v) for a scalar function (double-backward trick).

    >>> import retrograd as torch
    >>> f = lambda x: (x ** 3).sum()
    >>> torch.autograd.functional.hvp(f, torch.tensor([1., 2.]), torch.ones(2))[1]
    tensor([ 6., 12.])
    """
    from .. import _creation

    with grad_mode.enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _prepare_hessian_product(
            func, inputs, v, create_graph, strict, "hvp")
        grad_jac = tuple(_creation.zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    return _product_result(outputs, is_outputs_tuple, double_back, grad_jac, v, inputs, is_inputs_tuple,
                           create_graph, strict, "double_back_trick")


# ------------------------------------------------------------------ jacobian / hessian
def _construct_standard_basis_for(tensors: tuple, tensor_numels: tuple) -> tuple:
    """The rows of an identity matrix of size sum(tensor_numels), split by columns per tensor.

    Chunk ``i`` has shape ``(total, tensor_numels[i])`` and the dtype of ``tensors[i]``; put
    side by side the chunks form the identity (the vectors a batched vjp/jvp is run on).
    PyTorch's private helper of the same name, which its tests call directly.

    >>> import retrograd as torch
    >>> a, b = _construct_standard_basis_for((torch.zeros(1), torch.zeros(2)), (1, 2))
    >>> torch.cat([a, b], dim=1)
    tensor([[1., 0., 0.],
            [0., 1., 0.],
            [0., 0., 1.]])
    """
    if len(tensors) != len(tensor_numels):
        raise AssertionError("tensors and tensor_numels must have the same length")
    T = _T()
    total = sum(tensor_numels)
    chunks = []
    offset = 0
    for t, n in zip(tensors, tensor_numels):
        chunk = np.zeros((total, n), dtype=t._data.dtype)
        chunk[offset:offset + n] = np.eye(n, dtype=t._data.dtype)
        chunks.append(T._wrap(chunk, False, None, 0))
        offset += n
    return tuple(chunks)


def _stack_rows(rows: list, shape: tuple, create_graph: bool):
    """Rows (one per output element, each shaped like the input) -> a (n_out,) + input-shape tensor."""
    T = _T()
    if not create_graph or not any(r.requires_grad for r in rows):
        data = np.stack([r._data for r in rows]) if rows else np.zeros((0,) + shape)
        return T._wrap(data.reshape((len(rows),) + shape), False, None, 0)
    import retrograd

    if hasattr(retrograd, "stack"):
        return retrograd.stack(rows, 0)
    from .. import _creation

    out = _creation.zeros((len(rows),) + shape, dtype=rows[0].dtype)
    for j, r in enumerate(rows):
        out[j] = r  # differentiable write (index_put), keeps the graph of each row
    return out


def jacobian(func: Callable, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: entry [i][j] has shape outputs[i].shape + inputs[j].shape.

    A single Tensor in / out is returned without the tuple nesting, as in PyTorch.

    >>> import retrograd as torch
    >>> torch.autograd.functional.jacobian(lambda a, b: a * b, (torch.tensor([1., 2.]), torch.tensor([3., 4.])))
    (tensor([[3., 0.],
            [0., 4.]]), tensor([[1., 0.],
            [0., 2.]]))
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has more '
            'outputs than inputs, "forward-mode" tends to be more performant. Otherwise, prefer to use '
            '"reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and `strategy=\"forward-mode\"` are not "
                "supported together (yet). Please either set `create_graph=False` or `strategy=\"reverse-mode\"`.")
        if strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `strategy=\"forward-mode\"` are not supported "
                "together (yet). Please either set `strict=False` or `strategy=\"reverse-mode\"`.")
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                      "only implemented for `vectorize=True`.")
        return _jacobian_forward(func, inputs)
    from .. import _creation

    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize and strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not supported together. "
                "Please either set `strict=False` or `vectorize=False`.")
        jac = []
        T = _T()
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            n = out.nelement()
            basis = np.zeros(out._data.shape, dtype=out._data.dtype)
            flat = basis.reshape(-1)
            for j in range(n):
                flat[:] = 0
                flat[j] = 1
                vj = _autograd_grad((out,), inputs, (T._wrap(basis.copy(), False, None, 0),),
                                    create_graph=create_graph, retain_graph=True)
                for k, (g, inp) in enumerate(zip(vj, inputs)):
                    if g is not None:
                        if strict and create_graph and not g.requires_grad:
                            raise RuntimeError(f"The jacobian of the user-provided function is independent of input "
                                               f"{i}. This is not allowed in strict mode when create_graph=True.")
                        rows[k].append(g)
                    else:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is independent of input "
                                               f"{k}. This is not allowed in strict mode.")
                        rows[k].append(_creation.zeros_like(inp))
            jac.append(tuple(_stack_rows(rows[k], tuple(inp._data.shape), create_graph).view(
                tuple(out._data.shape) + tuple(inp._data.shape)) for k, inp in enumerate(inputs)))
        jac = tuple(jac)
        jac = _grad_postprocess(jac, create_graph)
        return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def hessian(func: Callable, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode"):
    """The Hessian of a scalar ``func``: entry [i][j] has shape inputs[i].shape + inputs[j].shape.

    >>> import retrograd as torch
    >>> torch.autograd.functional.hessian(lambda x: (x ** 3).sum(), torch.tensor([1., 2.]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, _T()):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single "
                               "element")
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


# ------------------------------------------------------------------ autograd.grad(is_grads_batched=True)
def _batched_grad(outs: tuple, ins: tuple, grads: list, retain_graph: bool, create_graph: bool,
                  allow_unused: bool, materialize_grads: bool) -> tuple:
    """autograd.grad once per leading index of ``grads``, results stacked along a new dim 0."""
    from . import grad

    T = _T()
    sizes = {g._data.shape[0] for g in grads if isinstance(g, T)}
    if len(sizes) > 1:
        raise RuntimeError("If `is_grads_batched=True`, we interpret the first dimension of each grad_output as "
                           "the batch dimension. The sizes of the remaining dimensions are expected to match the "
                           "shape of corresponding output, but a mismatch was detected")
    batch = sizes.pop() if sizes else 1
    per_input: list[list] = [[] for _ in ins]
    for b in range(batch):
        gb = tuple(g[b] if isinstance(g, T) else g for g in grads)
        last = b == batch - 1
        res = grad(outs, ins, gb, retain_graph=retain_graph if last else True, create_graph=create_graph,
                   allow_unused=True)
        for k, r in enumerate(res):
            per_input[k].append(r)
    from .. import _creation

    out = []
    for k, rows in enumerate(per_input):
        if any(r is None for r in rows):
            if materialize_grads:
                out.append(_creation.zeros_like(ins[k]))  # as PyTorch: not batched
                continue
            if not allow_unused:
                from ._error_details import unused_error

                raise unused_error(k, ins[k])
            out.append(None)
            continue
        out.append(_stack_rows(rows, tuple(ins[k]._data.shape), create_graph))
    return tuple(out)
