"""Differential sweep of the autograd API against PyTorch 2.13.

Every ``s_<group>__<case>(torch)`` below is run twice, once with ``torch`` and once with
``retrograd`` passed in, and must give the same result: values (rounded), shapes, dtypes,
requires_grad and grad_fn names of every tensor returned, the exception type and the first
line of its message, and the warnings emitted (category and first line).

Covers ``autograd.Function`` (ctx API, setup_context, mark_dirty, mark_non_differentiable,
set_materialize_grads, bad gradients, kwargs binding, once_differentiable, vjp alias),
``autograd.grad`` / ``backward``, tensor/node hooks, grad modes and inference mode,
``autograd.functional``, ``gradcheck`` / ``gradgradcheck``, anomaly mode and ``autograd.graph``.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch_ = pytest.importorskip("torch")
import retrograd as rg  # noqa: E402


def _norm(x, T):
    if isinstance(x, T):
        gf = x.grad_fn
        vals = repr(np.round(np.asarray(x.detach().tolist(), dtype=float), 5).tolist())  # (repr: NaN == NaN)
        return ("T", tuple(x.shape), str(x.dtype).replace("retrograd", "torch"), vals, x.requires_grad,
                None if gf is None else type(gf).__name__)
    if isinstance(x, (list, tuple)):
        return type(x).__name__, [_norm(e, T) for e in x]
    if isinstance(x, dict):
        return {k: _norm(v, T) for k, v in x.items()}
    if isinstance(x, float):
        return round(x, 5)
    if isinstance(x, type):
        return x.__name__
    return x


def _first_line(text: str) -> str:
    line = text.strip().split("\n")[0] if text.strip() else ""
    return line.split(" (Triggered internally")[0].replace("retrograd.", "torch.")


def _run(lib, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = ("ok", _norm(fn(lib), lib.Tensor))
        except Exception as e:  # noqa: BLE001 (the exception is what is compared)
            res = ("exc", type(e).__name__, _first_line(str(e)))
    ws = [(w.category.__name__, _first_line(str(w.message))) for w in caught
          if "torch.jit.script" not in str(w.message)]
    return res, ws


SCENARIOS: dict = {}


def _collect() -> None:
    for k, v in list(globals().items()):
        if k.startswith("s_") and callable(v):
            SCENARIOS[k[2:]] = v


@pytest.fixture(autouse=True)
def _restore_modes():
    yield
    rg.set_grad_enabled(True)
    rg.autograd.set_detect_anomaly(False)


# ---------------------------------------------------------------- function
def _function_mk(torch):
    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3
        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x ** 2
    return Cube

def s_function__basic(torch):
    C = _function_mk(torch); x = torch.tensor([1., 2.], requires_grad=True)
    y = C.apply(x); y.sum().backward()
    return y, x.grad, type(y.grad_fn).__name__

def s_function__double_backward(torch):
    C = _function_mk(torch); x = torch.tensor([1., 2.], requires_grad=True)
    y = C.apply(x).sum()
    g, = torch.autograd.grad(y, x, create_graph=True)
    gg, = torch.autograd.grad(g.sum(), x)
    return g, gg

def s_function__second_time(torch):
    C = _function_mk(torch); x = torch.tensor([1., 2.], requires_grad=True)
    y = C.apply(x).sum(); y.backward(); y.backward()

def s_function__saved_after_release(torch):
    C = _function_mk(torch); x = torch.tensor([1., 2.], requires_grad=True)
    y = C.apply(x); y.sum().backward()
    return y.grad_fn.saved_tensors

def s_function__saved_retain(torch):
    C = _function_mk(torch); x = torch.tensor([1., 2.], requires_grad=True)
    y = C.apply(x); y.sum().backward(retain_graph=True)
    return y.grad_fn.saved_tensors

def s_function__setup_context(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(x, k):
            return x * k
        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.k = inputs[1]
            ctx.save_for_backward(inputs[0])
        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None
    x = torch.tensor([1., 2.], requires_grad=True)
    y = F.apply(x, 3.); y.sum().backward()
    return y, x.grad, type(y.grad_fn).__name__

def s_function__needs_input_grad(torch):
    rec = []
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, c):
            rec.append(ctx.needs_input_grad)
            return a * b
        @staticmethod
        def backward(ctx, g):
            rec.append(ctx.needs_input_grad)
            return g, g, None
    a = torch.tensor(1., requires_grad=True); b = torch.tensor(2.)
    F.apply(a, b, 3).backward()
    return rec

def s_function__mark_dirty(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2); ctx.mark_dirty(x); return x
        @staticmethod
        def backward(ctx, g):
            return g * 2
    a = torch.tensor([1., 2.], requires_grad=True)
    x = a.clone(); v0 = x._version
    y = F.apply(x)
    y.sum().backward()
    return y is x, x._version - v0, type(x.grad_fn).__name__, a.grad

def s_function__mark_dirty_leaf(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2); ctx.mark_dirty(x); return x
        @staticmethod
        def backward(ctx, g):
            return g * 2
    a = torch.tensor([1., 2.], requires_grad=True)
    F.apply(a)

def s_function__mark_dirty_not_returned(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2); ctx.mark_dirty(x); return x * 1
        @staticmethod
        def backward(ctx, g):
            return g * 2
    a = torch.tensor([1., 2.], requires_grad=True)
    F.apply(a.clone())

def s_function__non_diff(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            idx = x.argmax(); v = x * 2
            ctx.mark_non_differentiable(idx)
            return v, idx, x.max()
        @staticmethod
        def backward(ctx, gv, gi, gm):
            return gv * 2 + gm
    x = torch.tensor([1., 3.], requires_grad=True)
    v, i, m = F.apply(x)
    (v.sum() + m).backward()
    return v, i, m, x.grad

def s_function__non_diff_float(torch):
    rec = []
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            a = x * 2; b = x * 3
            ctx.mark_non_differentiable(b)
            return a, b
        @staticmethod
        def backward(ctx, ga, gb):
            rec.append(gb)
            return ga * 2
    x = torch.tensor([1., 3.], requires_grad=True)
    a, b = F.apply(x); a.sum().backward()
    return a, b, rec, x.grad

def s_function__materialize_false(torch):
    rec = []
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3
        @staticmethod
        def backward(ctx, ga, gb):
            rec.append((ga is None, gb is None))
            return ga * 2
    x = torch.tensor([1., 3.], requires_grad=True)
    a, b = F.apply(x); a.sum().backward()
    return rec, x.grad

def s_function__materialize_true(torch):
    rec = []
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3
        @staticmethod
        def backward(ctx, ga, gb):
            rec.append(gb)
            return ga * 2
    x = torch.tensor([1., 3.], requires_grad=True)
    a, b = F.apply(x); a.sum().backward()
    return rec, x.grad

def s_function__return_none(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
        @staticmethod
        def backward(ctx, g):
            return None
    x = torch.tensor([1., 3.], requires_grad=True)
    F.apply(x).sum().backward()
    return x.grad

def s_function__wrong_number(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
        @staticmethod
        def backward(ctx, g):
            return g, g
    x = torch.tensor([1., 3.], requires_grad=True)
    F.apply(x).sum().backward()

def s_function__too_few(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y
        @staticmethod
        def backward(ctx, g):
            return g
    x = torch.tensor([1., 3.], requires_grad=True)
    F.apply(x, x).sum().backward()

def s_function__wrong_shape(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
        @staticmethod
        def backward(ctx, g):
            return torch.ones(3)
    x = torch.tensor([1., 3.], requires_grad=True)
    F.apply(x).sum().backward()

def s_function__broadcastable_shape(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
        @staticmethod
        def backward(ctx, g):
            return torch.ones(1, 2)
    x = torch.tensor([1., 3.], requires_grad=True)
    F.apply(x).sum().backward()
    return x.grad

def s_function__wrong_dtype(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
        @staticmethod
        def backward(ctx, g):
            return torch.ones(2, dtype=torch.float64)
    x = torch.tensor([1., 3.], requires_grad=True)
    F.apply(x).sum().backward()
    return x.grad

def s_function__grad_non_tensor_input(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k
        @staticmethod
        def backward(ctx, g):
            return g, g
    x = torch.tensor([1., 3.], requires_grad=True)
    F.apply(x, 2.).sum().backward()

def s_function__return_non_tensor_grad(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
        @staticmethod
        def backward(ctx, g):
            return 3
    x = torch.tensor([1., 3.], requires_grad=True)
    F.apply(x).sum().backward()

def s_function__non_tensor_outputs(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, 5, "s"
        @staticmethod
        def backward(ctx, g, a, b):
            return g * 2
    x = torch.tensor([1., 3.], requires_grad=True)
    y, a, b = F.apply(x); y.sum().backward()
    return y, a, b, x.grad

def s_function__kwargs(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, k=2.):
            return x * k
        @staticmethod
        def backward(ctx, g):
            return g, None
    x = torch.tensor([1., 3.], requires_grad=True)
    return F.apply(x, k=3.)

def s_function__instantiate(torch):
    C = _function_mk(torch)
    C()
    return 1

def s_function__call_instance(torch):
    C = _function_mk(torch)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = C()
    c(torch.tensor(1.))

def s_function__once_diff(torch):
    once = torch.autograd.function.once_differentiable
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x); return x ** 2
        @staticmethod
        @once
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g
    x = torch.tensor([1., 3.], requires_grad=True)
    g, = torch.autograd.grad(F.apply(x).sum(), x, create_graph=True)
    r = (g, type(g.grad_fn).__name__ if g.grad_fn is not None else None)
    g.sum().backward()
    return r

def s_function__once_diff_first(torch):
    once = torch.autograd.function.once_differentiable
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x); return x ** 2
        @staticmethod
        @once
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g
    x = torch.tensor([1., 3.], requires_grad=True)
    F.apply(x).sum().backward()
    return x.grad

def s_function__no_grad_apply(torch):
    C = _function_mk(torch); x = torch.tensor([1., 2.], requires_grad=True)
    with torch.no_grad():
        y = C.apply(x)
    return y

def s_function__no_req_apply(torch):
    C = _function_mk(torch); x = torch.tensor([1., 2.])
    return C.apply(x)

def s_function__save_non_tensor(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3); return x * 2
        @staticmethod
        def backward(ctx, g):
            return g
    F.apply(torch.tensor([1.], requires_grad=True))

def s_function__save_intermediate(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            t = x * 2
            ctx.save_for_backward(t); return t + 1
        @staticmethod
        def backward(ctx, g):
            t, = ctx.saved_tensors
            return g * t
    x = torch.tensor([1., 2.], requires_grad=True)
    F.apply(x).sum().backward(); return x.grad

def s_function__save_output_modified(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.save_for_backward(y); return y
        @staticmethod
        def backward(ctx, g):
            y, = ctx.saved_tensors
            return g * y
    x = torch.tensor([1., 2.], requires_grad=True)
    y = F.apply(x); y.add_(1); y.sum().backward()

def s_function__input_returned(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x
        @staticmethod
        def backward(ctx, g):
            return g * 2
    x = torch.tensor([1., 2.], requires_grad=True)
    y = F.apply(x); y.sum().backward()
    return y is x, y._base is x, x.grad, type(y.grad_fn).__name__

def s_function__view_output(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.view(2, 1)
        @staticmethod
        def backward(ctx, g):
            return g.view(2) * 2
    x = torch.tensor([1., 2.], requires_grad=True).clone()
    y = F.apply(x) 
    y.mul_(2)

def s_function__grad_fn_attrs(torch):
    C = _function_mk(torch); x = torch.tensor([1., 2.], requires_grad=True)
    y = C.apply(x)
    return y.grad_fn.name(), [type(n).__name__ if n is not None else None for n, _ in y.grad_fn.next_functions], y.grad_fn.needs_input_grad

def s_function__backward_not_impl(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
    x = torch.tensor([1., 2.], requires_grad=True)
    F.apply(x).sum().backward()

def s_function__forward_not_impl(torch):
    class F(torch.autograd.Function):
        pass
    F.apply(torch.tensor(1.))

def s_function__int_output(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return (x * 2).long()
        @staticmethod
        def backward(ctx, g):
            return g
    x = torch.tensor([1., 2.], requires_grad=True)
    return F.apply(x)

def s_function__list_output(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return [x * 2]
        @staticmethod
        def backward(ctx, g):
            return g
    x = torch.tensor([1., 2.], requires_grad=True)
    return F.apply(x)

def s_function__none_output(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, None
        @staticmethod
        def backward(ctx, g, h):
            return g
    x = torch.tensor([1., 2.], requires_grad=True)
    y, n = F.apply(x); y.sum().backward()
    return y, n, x.grad

def s_function__dirty_view(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1); ctx.mark_dirty(x); return x
        @staticmethod
        def backward(ctx, g):
            return g
    a = torch.tensor([1., 2., 3.], requires_grad=True)
    b = a.clone(); v = b[:2]
    F.apply(v)
    b.sum().backward()
    return b, type(b.grad_fn).__name__, type(v.grad_fn).__name__, a.grad

def s_function__vjp_method(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
        @staticmethod
        def vjp(ctx, g):
            return g * 5
    x = torch.tensor([1., 2.], requires_grad=True)
    F.apply(x).sum().backward(); return x.grad

def s_function__both_backward_vjp(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
        @staticmethod
        def vjp(ctx, g):
            return g * 5
        @staticmethod
        def backward(ctx, g):
            return g * 5
    x = torch.tensor([1., 2.], requires_grad=True)
    F.apply(x).sum().backward(); return x.grad

def s_function__saved_none(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(None, x); return x * 2
        @staticmethod
        def backward(ctx, g):
            n, x = ctx.saved_tensors
            return g * 2 if n is None else None
    x = torch.tensor([1., 2.], requires_grad=True)
    F.apply(x).sum().backward(); return x.grad

def s_function__apply_kw_only_err(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
        @staticmethod
        def backward(ctx, g):
            return g
    F.apply(x=torch.tensor(1.))

def s_function__apply_bad_kw(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
        @staticmethod
        def backward(ctx, g):
            return g
    F.apply(torch.tensor(1.), y=1)

def s_function__ctx_saved_tensors_in_forward(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return ctx.saved_tensors
        @staticmethod
        def backward(ctx, g):
            return g
    F.apply(torch.tensor(1., requires_grad=True))


# ---------------------------------------------------------------- function2
def _function2_x(torch): return torch.tensor([1., 2., 3.], requires_grad=True)

def s_function2__no_tensor_args(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return torch.ones(2) * a
        @staticmethod
        def backward(ctx, g):
            return None
    return F.apply(3.)

def s_function2__nested(torch):
    class Inner(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
        @staticmethod
        def backward(ctx, g):
            return g * 2
    class Outer(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = Inner.apply(x)
            return y * 3, y.requires_grad
        @staticmethod
        def backward(ctx, g, _):
            return g * 6
    x = _function2_x(torch); y, rg = Outer.apply(x); y.sum().backward(); return y, rg, x.grad

def s_function2__save_twice(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x); ctx.save_for_backward(x * 2); return x * 2
        @staticmethod
        def backward(ctx, g):
            t, = ctx.saved_tensors; return g * t
    x = _function2_x(torch); F.apply(x).sum().backward(); return x.grad

def s_function2__needs_in_setup(torch):
    rec = []
    class F(torch.autograd.Function):
        @staticmethod
        def forward(x, y):
            return x * y
        @staticmethod
        def setup_context(ctx, inputs, output):
            rec.append(ctx.needs_input_grad)
        @staticmethod
        def backward(ctx, g):
            return g, None
    F.apply(_function2_x(torch), torch.ones(3)); return rec

def s_function2__once_tuple_none(torch):
    once = torch.autograd.function.once_differentiable
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y
        @staticmethod
        @once
        def backward(ctx, g):
            return g * 2, None
    x = _function2_x(torch)
    g, = torch.autograd.grad(F.apply(x, torch.ones(3)).sum(), x, create_graph=True)
    return g, type(g.grad_fn).__name__ if g.grad_fn is not None else None

def s_function2__once_then_grad_err_type(torch):
    once = torch.autograd.function.once_differentiable
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x
        @staticmethod
        @once
        def backward(ctx, g):
            return g * 2
    x = _function2_x(torch)
    g, = torch.autograd.grad(F.apply(x).sum(), x, create_graph=True)
    torch.autograd.grad(g.sum(), x)

def s_function2__dirty_nondiff(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1); ctx.mark_dirty(x); ctx.mark_non_differentiable(x); return x
        @staticmethod
        def backward(ctx, g):
            return g
    x = _function2_x(torch).clone(); y = F.apply(x); return y, y is x

def s_function2__grad_fn_class_name(torch):
    class MyOp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x): return x * 2
        @staticmethod
        def backward(ctx, g): return g
    y = MyOp.apply(_function2_x(torch))
    return type(y.grad_fn).__name__, MyOp._backward_cls.__name__, y.grad_fn.name(), str(y).split("grad_fn=")[1]

def s_function2__backward_returns_list(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y): return x * y
        @staticmethod
        def backward(ctx, g): return [g, g]
    x = _function2_x(torch); F.apply(x, x).sum().backward(); return x.grad

def s_function2__materialize_false_none_all(torch):
    rec = []
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False); return x * 2, x * 3
        @staticmethod
        def backward(ctx, a, b):
            rec.append((a is None, b is None)); return None if a is None else a
    x = _function2_x(torch); a, b = F.apply(x); (b * 0).sum().backward(); return rec, x.grad

def s_function2__fn_apply_inference(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x): return x * 2
        @staticmethod
        def backward(ctx, g): return g
    with torch.inference_mode():
        y = F.apply(_function2_x(torch))
    return y, y.is_inference()

def s_function2__saved_tensors_hooks_fn(torch):
    rec = []
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x); return x * 2
        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors; return g * x
    x = _function2_x(torch)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: (rec.append("p"), t)[1], lambda t: (rec.append("u"), t)[1]):
        y = F.apply(x)
    y.sum().backward(); return rec, x.grad

def s_function2__saved_output_fn(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp(); ctx.save_for_backward(y); return y
        @staticmethod
        def backward(ctx, g):
            y, = ctx.saved_tensors; return g * y
    x = _function2_x(torch); y = F.apply(x)
    g, = torch.autograd.grad(y.sum(), x, create_graph=True)
    h, = torch.autograd.grad(g.sum(), x)
    return g, h


# ---------------------------------------------------------------- grad
def _grad_x(torch):
    return torch.tensor([1., 2., 3.], requires_grad=True)

def s_grad__allow_unused_err(torch):
    x = _grad_x(torch); z = torch.tensor(1., requires_grad=True)
    torch.autograd.grad((x * 2).sum(), [x, z])

def s_grad__allow_unused(torch):
    x = _grad_x(torch); z = torch.tensor(1., requires_grad=True)
    return torch.autograd.grad((x * 2).sum(), [x, z], allow_unused=True)

def s_grad__materialize(torch):
    x = _grad_x(torch); z = torch.tensor([1., 5.], requires_grad=True)
    return torch.autograd.grad((x * 2).sum(), [x, z], materialize_grads=True)

def s_grad__materialize_allow_false(torch):
    x = _grad_x(torch)
    return torch.autograd.grad((x * 2).sum(), [x], materialize_grads=True, allow_unused=False)

def s_grad__out_no_grad(torch):
    x = _grad_x(torch)
    torch.autograd.grad(x.detach().sum(), [x])

def s_grad__in_no_grad(torch):
    x = _grad_x(torch)
    torch.autograd.grad((x * 2).sum(), [torch.ones(2)])

def s_grad__only_inputs_false(torch):
    x = _grad_x(torch)
    return torch.autograd.grad((x * 2).sum(), [x], only_inputs=False)

def s_grad__batched(torch):
    x = _grad_x(torch)
    y = x * x
    return torch.autograd.grad(y, x, torch.eye(3), is_grads_batched=True)

def s_grad__batched_bad(torch):
    x = _grad_x(torch)
    return torch.autograd.grad(x * x, x, torch.eye(2), is_grads_batched=True)

def s_grad__bad_shape(torch):
    x = _grad_x(torch)
    return torch.autograd.grad(x * x, x, torch.ones(2))

def s_grad__nonscalar(torch):
    x = _grad_x(torch)
    return torch.autograd.grad(x * x, x)

def s_grad__int_output(torch):
    torch.autograd.grad(torch.tensor(1), torch.tensor(1.))

def s_grad__empty_inputs(torch):
    x = _grad_x(torch)
    torch.autograd.grad(x.sum(), [])

def s_grad__backward_inputs(torch):
    x = _grad_x(torch); z = torch.tensor(2., requires_grad=True)
    (x * z).sum().backward(inputs=[x])
    return x.grad, z.grad

def s_grad__backward_inputs_nonleaf(torch):
    x = _grad_x(torch); h = x * 2
    (h * h).sum().backward(inputs=[h])
    return x.grad, h.grad

def s_grad__backward_inputs_empty(torch):
    x = _grad_x(torch)
    x.sum().backward(inputs=[])

def s_grad__backward_inputs_unused(torch):
    x = _grad_x(torch); z = torch.tensor(2., requires_grad=True)
    x.sum().backward(inputs=[z])
    return z.grad

def s_grad__retain_err(torch):
    x = _grad_x(torch)
    y = (x * x).sum(); y.backward(); y.backward()

def s_grad__retain_err_grad(torch):
    x = _grad_x(torch)
    y = (x.exp()).sum(); torch.autograd.grad(y, x); torch.autograd.grad(y, x)

def s_grad__retain_ok(torch):
    x = _grad_x(torch)
    y = (x * x).sum(); y.backward(retain_graph=True); y.backward()
    return x.grad

def s_grad__backward_nograd(torch):
    torch.ones(2).sum().backward()

def s_grad__backward_grad_tensors(torch):
    x = _grad_x(torch)
    (x * 2).backward(torch.tensor([1., 0., 2.]))
    return x.grad


def s_grad__grad_non_tensor_go(torch):
    x = _grad_x(torch)
    torch.autograd.grad((x * x).sum(), x, grad_outputs=[1.0])

def s_grad__nonleaf_grad_warn(torch):
    x = _grad_x(torch); h = x * 2; h.sum().backward()
    return h.grad

def s_grad__retain_grad(torch):
    x = _grad_x(torch); h = x * 2; h.retain_grad(); (h * h).sum().backward()
    return h.grad, h.retains_grad, x.retains_grad

def s_grad__retain_grad_nograd(torch):
    torch.ones(2).retain_grad()

def s_grad__grad_setter(torch):
    x = _grad_x(torch)
    x.grad = torch.ones(2)

def s_grad__grad_setter_dtype(torch):
    x = _grad_x(torch)
    x.grad = torch.ones(3, dtype=torch.float64)

def s_grad__grad_double(torch):
    x = _grad_x(torch)
    g, = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
    h, = torch.autograd.grad(g.sum(), x)
    return g, h

def s_grad__backward_twice_accum(torch):
    x = _grad_x(torch)
    (x * 2).sum().backward(); (x * 3).sum().backward()
    return x.grad

def s_grad__grad_tensor_input_tuple(torch):
    x = _grad_x(torch)
    return torch.autograd.grad([(x * 2).sum(), (x * 3).sum()], x)

def s_grad__grad_outputs_len(torch):
    x = _grad_x(torch)
    torch.autograd.grad([(x * 2).sum(), (x * 3).sum()], x, grad_outputs=[torch.tensor(1.)])

def s_grad__requires_grad_nonleaf(torch):
    x = _grad_x(torch); (x * 2).requires_grad_(False)

def s_grad__requires_grad_int(torch):
    torch.tensor([1, 2]).requires_grad_()

def s_grad__inplace_leaf(torch):
    x = _grad_x(torch); x.add_(1)

def s_grad__version_err(torch):
    x = _grad_x(torch); h = x * 1; y = h.exp(); h.add_(1); y.sum().backward()

def s_grad__version_err2(torch):
    x = _grad_x(torch); h = x * 1; y = h * h; h.mul_(2); y.sum().backward()

def s_grad__detach_inplace(torch):
    x = _grad_x(torch); d = x.detach(); d.add_(1); return x, x._version

def s_grad__grad_scalar_of_nonfloat(torch):
    x = _grad_x(torch)
    return torch.autograd.grad((x * 2).sum(), x, grad_outputs=torch.tensor(2.))


# ---------------------------------------------------------------- hooks
def _hooks_x(torch):
    return torch.tensor([1., 2., 3.], requires_grad=True)

def s_hooks__leaf_hook_order(torch):
    rec = []; x = _hooks_x(torch)
    x.register_hook(lambda g: rec.append(("a", g.tolist())))
    x.register_hook(lambda g: g * 2)
    x.register_hook(lambda g: rec.append(("c", g.tolist())))
    (x * 1).sum().backward()
    return rec, x.grad

def s_hooks__nonleaf_hook(torch):
    rec = []; x = _hooks_x(torch); h = x * 2
    h.register_hook(lambda g: g * 10)
    h.register_hook(lambda g: rec.append(g.tolist()))
    (h * h).sum().backward()
    return rec, x.grad

def s_hooks__hook_removal(torch):
    x = _hooks_x(torch)
    hd = x.register_hook(lambda g: g * 2)
    hd.remove(); hd.remove()
    (x * 1).sum().backward()
    return x.grad

def s_hooks__hook_nograd(torch):
    torch.ones(2).register_hook(lambda g: g)

def s_hooks__node_hook(torch):
    rec = []; x = _hooks_x(torch); y = x * 2
    def hk(gi, go):
        rec.append(([None if g is None else g.tolist() for g in gi], [g.tolist() for g in go]))
    h = y.grad_fn.register_hook(hk)
    y.sum().backward()
    return rec, x.grad, type(h).__name__

def s_hooks__node_hook_replace(torch):
    x = _hooks_x(torch); y = x * 2
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 0 + 7, None))
    y.sum().backward()
    return x.grad

def s_hooks__node_prehook(torch):
    x = _hooks_x(torch); y = x * 2
    y.grad_fn.register_prehook(lambda go: (go[0] * 3,))
    y.sum().backward()
    return x.grad

def s_hooks__post_acc(torch):
    rec = []; x = _hooks_x(torch)
    x.register_post_accumulate_grad_hook(lambda t: rec.append((t is x, t.grad.tolist())))
    (x * 2).sum().backward()
    return rec

def s_hooks__post_acc_nonleaf(torch):
    x = _hooks_x(torch); (x * 2).register_post_accumulate_grad_hook(lambda t: None)

def s_hooks__post_acc_nograd(torch):
    torch.ones(2).register_post_accumulate_grad_hook(lambda t: None)

def s_hooks__hook_order_vs_post(torch):
    rec = []; x = _hooks_x(torch)
    x.register_post_accumulate_grad_hook(lambda t: rec.append("post"))
    x.register_hook(lambda g: rec.append("pre"))
    (x * 2).sum().backward()
    return rec

def s_hooks__retain_then_hook(torch):
    x = _hooks_x(torch); h = x * 2
    h.retain_grad()
    h.register_hook(lambda g: g * 2)
    (h * 1).sum().backward()
    return h.grad, x.grad

def s_hooks__hook_then_retain(torch):
    x = _hooks_x(torch); h = x * 2
    h.register_hook(lambda g: g * 2)
    h.retain_grad()
    (h * 1).sum().backward()
    return h.grad, x.grad

def s_hooks__grad_accumulator_hook(torch):
    rec = []; x = _hooks_x(torch)
    y = x * 2
    acc = y.grad_fn.next_functions[0][0]
    acc.register_hook(lambda gi, go: rec.append((len(gi), [g.tolist() for g in go])))
    y.sum().backward()
    return type(acc).__name__, rec

def s_hooks__multi_grad_hook(torch):
    rec = []; a = _hooks_x(torch); b = torch.tensor(2., requires_grad=True)
    torch.autograd.graph.register_multi_grad_hook((a, b), lambda gs: rec.append([None if g is None else g.tolist() for g in gs]))
    (a * b).sum().backward()
    (a * 2).sum().backward()
    return rec

def s_hooks__multi_grad_hook_any(torch):
    rec = []; a = _hooks_x(torch); b = torch.tensor(2., requires_grad=True)
    torch.autograd.graph.register_multi_grad_hook((a, b), lambda g: rec.append(g.tolist()), mode="any")
    (a * b).sum().backward()
    return rec

def s_hooks__gradient_edge(torch):
    x = _hooks_x(torch); y = x * 2
    e = torch.autograd.graph.get_gradient_edge(y)
    g, = torch.autograd.grad((y * y).sum(), e)
    return type(e.node).__name__, e.output_nr, g

def s_hooks__gradient_edge_leaf(torch):
    x = _hooks_x(torch)
    e = torch.autograd.graph.get_gradient_edge(x)
    return type(e.node).__name__, e.output_nr

def s_hooks__gradient_edge_nograd(torch):
    torch.autograd.graph.get_gradient_edge(torch.ones(2))

def s_hooks__saved_hooks(torch):
    rec = []
    def pack(t): rec.append(("pack", t.tolist())); return t * 1
    def unpack(t): rec.append(("unpack", t.tolist())); return t
    x = _hooks_x(torch)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = (x * x).sum()
    y.backward()
    return rec, x.grad

def s_hooks__save_on_cpu(torch):
    x = _hooks_x(torch)
    with torch.autograd.graph.save_on_cpu():
        y = (x.exp()).sum()
    y.backward(); return x.grad

def s_hooks__saved_hooks_inplace(torch):
    x = _hooks_x(torch)
    def pack(t): t.add_(1); return t
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        (x * 2) * x
    return 1

def s_hooks__disable_saved(torch):
    _hooks_x(torch)
    with torch.autograd.graph.disable_saved_tensors_hooks("no saving here"):
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            pass

def s_hooks__saved_attrs(torch):
    x = _hooks_x(torch); y = x * x
    return y.grad_fn._saved_self, y.grad_fn._saved_other, type(y.grad_fn).__name__

def s_hooks__node_name_metadata(torch):
    x = _hooks_x(torch); y = (x * 2).sum()
    return y.grad_fn.name(), y.grad_fn.metadata, [type(n).__name__ for n, _ in y.grad_fn.next_functions]

def s_hooks__hook_on_leaf_removal_handle(torch):
    x = _hooks_x(torch)
    h = x.register_hook(lambda g: g * 2)
    with h:
        pass
    (x * 1).sum().backward()
    return x.grad

def s_hooks__grad_warn_nonleaf_text(torch):
    x = _hooks_x(torch); h = x * 2
    return h.grad


# ---------------------------------------------------------------- modes
def _modes_x(torch):
    return torch.tensor([1., 2., 3.], requires_grad=True)

def s_modes__no_grad(torch):
    x = _modes_x(torch)
    with torch.no_grad():
        y = x * 2
        e = torch.is_grad_enabled()
    return y, e, torch.is_grad_enabled()

def s_modes__no_grad_deco(torch):
    x = _modes_x(torch)
    @torch.no_grad()
    def f(a): return a * 2
    return f(x)

def s_modes__no_grad_deco_bare(torch):
    x = _modes_x(torch)
    @torch.no_grad
    def f(a): return a * 2
    return f(x)

def s_modes__enable_in_no(torch):
    x = _modes_x(torch)
    with torch.no_grad():
        with torch.enable_grad():
            y = x * 2
    return y

def s_modes__set_grad_fn(torch):
    x = _modes_x(torch)
    torch.set_grad_enabled(False)
    try:
        y = x * 2; e = torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(True)
    return y, e

def s_modes__set_grad_ctx(torch):
    x = _modes_x(torch)
    with torch.set_grad_enabled(False):
        y = x * 2
    return y, torch.is_grad_enabled()

def s_modes__set_grad_deco(torch):
    x = _modes_x(torch)
    @torch.set_grad_enabled(False)
    def f(a): return a * 2
    return f(x)

def s_modes__inference(torch):
    x = _modes_x(torch)
    with torch.inference_mode():
        y = x * 2; e = torch.is_inference_mode_enabled(); g = torch.is_grad_enabled()
    return y, y.is_inference(), x.is_inference(), e, g, torch.is_inference_mode_enabled()

def s_modes__inference_false(torch):
    x = _modes_x(torch)
    with torch.inference_mode(False):
        y = x * 2
    return y, y.is_inference()

def s_modes__inference_in_autograd(torch):
    with torch.inference_mode():
        t = torch.ones(3)
    x = _modes_x(torch)
    (x * t).sum().backward()
    return x.grad

def s_modes__inference_saved(torch):
    with torch.inference_mode():
        t = torch.ones(3)
    x = _modes_x(torch)
    y = torch.exp(x) * t
    return y

def s_modes__inference_requires_grad(torch):
    with torch.inference_mode():
        t = torch.ones(3)
    t.requires_grad_()

def s_modes__inference_inplace_outside(torch):
    with torch.inference_mode():
        t = torch.ones(3)
    t.add_(1)

def s_modes__inference_inplace_inside(torch):
    with torch.inference_mode():
        t = torch.ones(3)
        t.add_(1)
    return t

def s_modes__inference_normal_inplace_inside(torch):
    t = torch.ones(3)
    with torch.inference_mode():
        t.add_(1)
    return t, t._version, t.is_inference()

def s_modes__inference_save_x(torch):
    with torch.inference_mode():
        t = torch.ones(3)
    x = _modes_x(torch)
    y = (t * x).sum()
    y.backward()
    return x.grad

def s_modes__inference_saved_for_backward(torch):
    with torch.inference_mode():
        t = torch.ones(3)
    x = _modes_x(torch)
    y = x * t
    return y

def s_modes__inference_deco(torch):
    @torch.inference_mode()
    def f(a): return a * 2
    r = f(_modes_x(torch))
    return r, r.is_inference()

def s_modes__inference_deco_bare(torch):
    @torch.inference_mode
    def f(a): return a * 2
    r = f(_modes_x(torch))
    return r, r.is_inference()

def s_modes__inference_clone_outside(torch):
    with torch.inference_mode():
        t = torch.ones(3)
    c = t.clone()
    return c.is_inference(), c.requires_grad

def s_modes__inference_inplace_on_leaf_rg(torch):
    x = _modes_x(torch)
    with torch.inference_mode():
        x.add_(1)

def s_modes__no_grad_inplace_leaf(torch):
    x = _modes_x(torch)
    with torch.no_grad():
        x.add_(1)
    return x, x._version

def s_modes__grad_mode_classes(torch):
    return torch.no_grad().__class__.__name__, repr(torch.is_grad_enabled())

def s_modes__set_grad_enabled_clone(torch):
    m = torch.set_grad_enabled(False)
    e1 = torch.is_grad_enabled()
    with m:
        e2 = torch.is_grad_enabled()
    e3 = torch.is_grad_enabled()
    torch.set_grad_enabled(True)
    return e1, e2, e3

def s_modes__no_grad_generator(torch):
    _modes_x(torch)
    @torch.no_grad()
    def gen():
        yield torch.is_grad_enabled()
        yield torch.is_grad_enabled()
    return list(gen()), torch.is_grad_enabled()

def s_modes__inference_backward_err(torch):
    x = _modes_x(torch)
    y = (x * 2).sum()
    with torch.inference_mode():
        y.backward()
    return x.grad

def s_modes__requires_grad_in_inference(torch):
    with torch.inference_mode():
        x = torch.ones(2, requires_grad=True)
        y = x * 2
    return x.requires_grad, y.requires_grad, y.is_inference()


# ---------------------------------------------------------------- functional
def _functional_f(torch):
    return lambda x: x ** 3
def _functional_f2(torch):
    return lambda x, y: (x * y, x + y.sum())
def _functional_x(torch): return torch.tensor([1., 2.])
def _functional_y(torch): return torch.tensor([3., 4.])
def _functional_s(torch): return lambda x: (x ** 3).sum()
def _functional_s2(torch): return lambda x, y: (x ** 2 * y).sum()

def s_functional__jac(torch): return torch.autograd.functional.jacobian(_functional_f(torch), _functional_x(torch))
def s_functional__jac_tuple(torch): return torch.autograd.functional.jacobian(_functional_f2(torch), (_functional_x(torch), _functional_y(torch)))
def s_functional__jac_vec(torch): return torch.autograd.functional.jacobian(_functional_f2(torch), (_functional_x(torch), _functional_y(torch)), vectorize=True)
def s_functional__jac_cg(torch): return torch.autograd.functional.jacobian(_functional_f(torch), _functional_x(torch), create_graph=True)
def s_functional__jac_strict(torch): return torch.autograd.functional.jacobian(lambda x, y: x * 2, (_functional_x(torch), _functional_y(torch)), strict=True)
def s_functional__jac_strict_indep(torch): return torch.autograd.functional.jacobian(lambda x: torch.ones(2), _functional_x(torch), strict=True)
def s_functional__jac_nonstrict_indep(torch): return torch.autograd.functional.jacobian(lambda x: torch.ones(2), _functional_x(torch))
def s_functional__jac_strict_vec(torch): return torch.autograd.functional.jacobian(_functional_f(torch), _functional_x(torch), strict=True, vectorize=True)
def s_functional__jac_fwd(torch): return torch.autograd.functional.jacobian(_functional_f(torch), _functional_x(torch), strategy="forward-mode")
def s_functional__jac_fwd_vec(torch): return torch.autograd.functional.jacobian(_functional_f(torch), _functional_x(torch), strategy="forward-mode", vectorize=True)
def s_functional__jac_bad_strategy(torch): return torch.autograd.functional.jacobian(_functional_f(torch), _functional_x(torch), strategy="x")
def s_functional__jac_2d(torch): return torch.autograd.functional.jacobian(lambda x: x.sum(0), torch.ones(2, 3))
def s_functional__jac_scalar(torch): return torch.autograd.functional.jacobian(lambda x: x.sum(), torch.ones(2, 3))
def s_functional__jac_nontensor_in(torch): return torch.autograd.functional.jacobian(lambda x: x, 3.)
def s_functional__jac_nontensor_out(torch): return torch.autograd.functional.jacobian(lambda x: 3., _functional_x(torch))
def s_functional__jac_list_out(torch): return torch.autograd.functional.jacobian(lambda x: [x, x], _functional_x(torch))
def s_functional__hess(torch): return torch.autograd.functional.hessian(_functional_s(torch), _functional_x(torch))
def s_functional__hess_tuple(torch): return torch.autograd.functional.hessian(_functional_s2(torch), (_functional_x(torch), _functional_y(torch)))
def s_functional__hess_vec(torch): return torch.autograd.functional.hessian(_functional_s2(torch), (_functional_x(torch), _functional_y(torch)), vectorize=True)
def s_functional__hess_nonscalar(torch): return torch.autograd.functional.hessian(_functional_f(torch), _functional_x(torch))
def s_functional__hess_tuple_out(torch): return torch.autograd.functional.hessian(lambda x: (x.sum(),), _functional_x(torch))
def s_functional__hess_strict_lin(torch): return torch.autograd.functional.hessian(lambda x: x.sum(), _functional_x(torch), strict=True)
def s_functional__hess_lin(torch): return torch.autograd.functional.hessian(lambda x: x.sum(), _functional_x(torch))
def s_functional__hess_fwd(torch): return torch.autograd.functional.hessian(_functional_s(torch), _functional_x(torch), outer_jacobian_strategy="forward-mode")
def s_functional__vjp(torch): return torch.autograd.functional.vjp(_functional_f(torch), _functional_x(torch), torch.ones(2))
def s_functional__vjp_none(torch): return torch.autograd.functional.vjp(_functional_s(torch), _functional_x(torch))
def s_functional__vjp_none_bad(torch): return torch.autograd.functional.vjp(_functional_f(torch), _functional_x(torch))
def s_functional__vjp_tuple(torch): return torch.autograd.functional.vjp(_functional_f2(torch), (_functional_x(torch), _functional_y(torch)), (torch.ones(2), torch.tensor(2.)))
def s_functional__vjp_badv(torch): return torch.autograd.functional.vjp(_functional_f(torch), _functional_x(torch), torch.ones(3))
def s_functional__vjp_badlen(torch): return torch.autograd.functional.vjp(_functional_f2(torch), (_functional_x(torch), _functional_y(torch)), (torch.ones(2),))
def s_functional__vjp_strict(torch): return torch.autograd.functional.vjp(lambda x: torch.ones(2), _functional_x(torch), torch.ones(2), strict=True)
def s_functional__vjp_strict2(torch): return torch.autograd.functional.vjp(lambda x, y: x * 2, (_functional_x(torch), _functional_y(torch)), torch.ones(2), strict=True)
def s_functional__vjp_cg(torch): return torch.autograd.functional.vjp(_functional_f(torch), _functional_x(torch), torch.ones(2), create_graph=True)
def s_functional__jvp(torch): return torch.autograd.functional.jvp(_functional_f(torch), _functional_x(torch), torch.ones(2))
def s_functional__jvp_tuple(torch): return torch.autograd.functional.jvp(_functional_f2(torch), (_functional_x(torch), _functional_y(torch)), (torch.ones(2), torch.ones(2)))
def s_functional__jvp_none(torch): return torch.autograd.functional.jvp(_functional_f(torch), torch.tensor([2.]))
def s_functional__jvp_none_bad(torch): return torch.autograd.functional.jvp(_functional_f(torch), _functional_x(torch))
def s_functional__jvp_strict(torch): return torch.autograd.functional.jvp(lambda x: torch.ones(2), _functional_x(torch), torch.ones(2), strict=True)
def s_functional__jvp_strict_lin(torch): return torch.autograd.functional.jvp(lambda x, y: x * 2, (_functional_x(torch), _functional_y(torch)), (torch.ones(2), torch.ones(2)), strict=True)
def s_functional__jvp_nonstrict(torch): return torch.autograd.functional.jvp(lambda x: torch.ones(2), _functional_x(torch), torch.ones(2))
def s_functional__jvp_cg(torch): return torch.autograd.functional.jvp(_functional_f(torch), _functional_x(torch), torch.ones(2), create_graph=True)
def s_functional__hvp(torch): return torch.autograd.functional.hvp(_functional_s(torch), _functional_x(torch), torch.ones(2))
def s_functional__vhp(torch): return torch.autograd.functional.vhp(_functional_s(torch), _functional_x(torch), torch.ones(2))
def s_functional__hvp_tuple(torch): return torch.autograd.functional.hvp(_functional_s2(torch), (_functional_x(torch), _functional_y(torch)), (torch.ones(2), torch.ones(2)))
def s_functional__vhp_tuple(torch): return torch.autograd.functional.vhp(_functional_s2(torch), (_functional_x(torch), _functional_y(torch)), (torch.ones(2), torch.ones(2)))
def s_functional__hvp_strict(torch): return torch.autograd.functional.hvp(lambda x: x.sum(), _functional_x(torch), torch.ones(2), strict=True)
def s_functional__vhp_strict(torch): return torch.autograd.functional.vhp(lambda x: x.sum(), _functional_x(torch), torch.ones(2), strict=True)
def s_functional__hvp_lin(torch): return torch.autograd.functional.hvp(lambda x: x.sum(), _functional_x(torch), torch.ones(2))
def s_functional__hvp_nonscalar(torch): return torch.autograd.functional.hvp(_functional_f(torch), _functional_x(torch), torch.ones(2))
def s_functional__hvp_strict_indep(torch): return torch.autograd.functional.hvp(lambda x: torch.tensor(1.), _functional_x(torch), torch.ones(2), strict=True)
def s_functional__vhp_none(torch): return torch.autograd.functional.vhp(_functional_s(torch), torch.tensor([2.]))
def s_functional__hvp_none_bad(torch): return torch.autograd.functional.hvp(_functional_s(torch), _functional_x(torch))
def s_functional__hvp_cg(torch): return torch.autograd.functional.hvp(_functional_s(torch), _functional_x(torch), torch.ones(2), create_graph=True)
def s_functional__jac_requires_grad_input(torch):
    x = torch.tensor([1., 2.], requires_grad=True)
    return torch.autograd.functional.jacobian(_functional_f(torch), x), torch.autograd.functional.jacobian(_functional_f(torch), x, create_graph=True)
def s_functional__jac_vec_strict(torch): return torch.autograd.functional.jacobian(_functional_f(torch), _functional_x(torch), vectorize=True, strict=True)
def s_functional__jac_int_out(torch): return torch.autograd.functional.jacobian(lambda x: (x > 1).long(), _functional_x(torch))


# ---------------------------------------------------------------- gradcheck
def _gradcheck_x(torch): return torch.tensor([1., 2., 3.], dtype=torch.float64, requires_grad=True)

def _gradcheck_bad(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x); return x ** 2
        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x
    return F

def s_gradcheck__ok(torch): return torch.autograd.gradcheck(lambda x: x.sin(), (_gradcheck_x(torch),))
def s_gradcheck__ok_single(torch): return torch.autograd.gradcheck(lambda x: x.sin(), _gradcheck_x(torch))
def s_gradcheck__fail(torch): return torch.autograd.gradcheck(_gradcheck_bad(torch).apply, (_gradcheck_x(torch),))
def s_gradcheck__fail_noraise(torch): return torch.autograd.gradcheck(_gradcheck_bad(torch).apply, (_gradcheck_x(torch),), raise_exception=False)
def s_gradcheck__fail_fast(torch): return torch.autograd.gradcheck(_gradcheck_bad(torch).apply, (_gradcheck_x(torch),), fast_mode=True)
def s_gradcheck__float32(torch): return torch.autograd.gradcheck(lambda x: x.sin(), (torch.tensor([1., 2.], requires_grad=True),), atol=1e-2, rtol=1e-2, eps=1e-3)
def s_gradcheck__no_req(torch): return torch.autograd.gradcheck(lambda x: x.sin(), (torch.tensor([1., 2.], dtype=torch.float64),))
def s_gradcheck__gg_ok(torch): return torch.autograd.gradgradcheck(lambda x: x.sin() * x, (_gradcheck_x(torch),))
def s_gradcheck__gg_fail(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x); return x ** 3
        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x.detach() ** 2
    return torch.autograd.gradgradcheck(F.apply, (_gradcheck_x(torch),))
def s_gradcheck__gg_fail_noraise(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x); return x ** 3
        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x.detach() ** 2
    return torch.autograd.gradgradcheck(F.apply, (_gradcheck_x(torch),), raise_exception=False)
def s_gradcheck__nondet(torch):
    import random
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
        @staticmethod
        def backward(ctx, g):
            return g * 2 + random.random() * 1e-4
    return torch.autograd.gradcheck(F.apply, (_gradcheck_x(torch),))
def s_gradcheck__nondet_tol(torch):
    import random
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
        @staticmethod
        def backward(ctx, g):
            return g * 2 + random.random() * 1e-6
    return torch.autograd.gradcheck(F.apply, (_gradcheck_x(torch),), nondet_tol=1e-3, atol=1e-3)
def s_gradcheck__undefined(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2
        @staticmethod
        def backward(ctx, g):
            return g * 2
    return torch.autograd.gradcheck(F.apply, (_gradcheck_x(torch),))
def s_gradcheck__undefined_off(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2
        @staticmethod
        def backward(ctx, g):
            return g * 2
    return torch.autograd.gradcheck(F.apply, (_gradcheck_x(torch),), check_undefined_grad=False)
def s_gradcheck__not_mul_grad(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
        @staticmethod
        def backward(ctx, g):
            return torch.ones_like(g) * 2
    return torch.autograd.gradcheck(F.apply, (_gradcheck_x(torch),))
def s_gradcheck__multi_out(torch):
    return torch.autograd.gradcheck(lambda x, y: (x * y, x + y), (_gradcheck_x(torch), _gradcheck_x(torch)))
def s_gradcheck__nontensor_arg(torch):
    return torch.autograd.gradcheck(lambda x, k: x * k, (_gradcheck_x(torch), 3.))
def s_gradcheck__int_out(torch):
    return torch.autograd.gradcheck(lambda x: (x.sin(), x.argmax()), (_gradcheck_x(torch),))
def s_gradcheck__batched_grad(torch):
    return torch.autograd.gradcheck(lambda x: x.sin(), (_gradcheck_x(torch),), check_batched_grad=True)
def s_gradcheck__wrong_size(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum()
        @staticmethod
        def backward(ctx, g):
            return g.expand(3) * 1
    return torch.autograd.gradcheck(F.apply, (_gradcheck_x(torch),))
def s_gradcheck__fail_msg2(torch): return torch.autograd.gradcheck(lambda x, y: (x * y * _gradcheck_bad(torch).apply(x)), (_gradcheck_x(torch), _gradcheck_x(torch)))
def s_gradcheck__zero_numerical(torch):
    return torch.autograd.gradcheck(lambda x: x.round(), (_gradcheck_x(torch),))


# ---------------------------------------------------------------- anomaly
def _anomaly_bad(torch):
    class MyFn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")
    return MyFn
def _anomaly_nan(torch):
    class NanFn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
        @staticmethod
        def backward(ctx, g):
            return g * float("nan")
    return NanFn

def s_anomaly__detect_warn(torch):
    x = torch.tensor([1., 2.], requires_grad=True)
    with torch.autograd.detect_anomaly():
        y = _anomaly_bad(torch).apply(x).sum()
        y.backward()

def s_anomaly__detect_nan(torch):
    x = torch.tensor([1., 2.], requires_grad=True)
    with torch.autograd.detect_anomaly():
        y = (_anomaly_nan(torch).apply(x) * 3).sum()
        y.backward()

def s_anomaly__detect_nan_builtin(torch):
    x = torch.tensor([0., 2.], requires_grad=True)
    with torch.autograd.detect_anomaly():
        y = (x.sqrt() * 0).sum()
        y.backward()
    return x.grad

def s_anomaly__detect_nan_log(torch):
    x = torch.tensor([-1., 2.], requires_grad=True)
    with torch.autograd.detect_anomaly():
        y = x.log()
        y.sum().backward()
    return x.grad

def s_anomaly__detect_nan_div(torch):
    x = torch.tensor([0., 2.], requires_grad=True)
    with torch.autograd.detect_anomaly():
        y = (x / x).sum()
        y.backward()

def s_anomaly__detect_no_nan(torch):
    x = torch.tensor([1., 2.], requires_grad=True)
    with torch.autograd.detect_anomaly(check_nan=False):
        y = (_anomaly_nan(torch).apply(x) * 3).sum()
        y.backward()
    return x.grad

def s_anomaly__set_detect(torch):
    x = torch.tensor([1., 2.], requires_grad=True)
    torch.autograd.set_detect_anomaly(True)
    try:
        (_anomaly_ae(torch)(), _anomaly_an(torch)())
        y = (_anomaly_nan(torch).apply(x) * 3).sum()
        y.backward()
    finally:
        torch.autograd.set_detect_anomaly(False)

def s_anomaly__set_detect_ctx(torch):
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        e = (_anomaly_ae(torch)(), _anomaly_an(torch)())
    return e, _anomaly_ae(torch)()

def s_anomaly__detect_state(torch):
    with torch.autograd.detect_anomaly():
        e = (_anomaly_ae(torch)(), _anomaly_an(torch)())
    return e, _anomaly_ae(torch)()

def s_anomaly__anom_fwd_in_no(torch):
    x = torch.tensor([1., 2.], requires_grad=True)
    y = _anomaly_bad(torch).apply(x).sum()
    with torch.autograd.detect_anomaly():
        y.backward()

def s_anomaly__anom_nan_grad_fn(torch):
    x = torch.tensor([1., 2.], requires_grad=True)
    with torch.autograd.detect_anomaly():
        y = (x * float("nan")).sum()
        g, = torch.autograd.grad(y, x)
    return g

def s_anomaly__anom_version(torch):
    x = torch.tensor([1., 2.], requires_grad=True)
    with torch.autograd.detect_anomaly():
        h = x * 1; y = h.exp(); h.add_(1)
        y.sum().backward()
def _anomaly_ae(torch):
    return getattr(torch, "is_anomaly_enabled", None) or torch.autograd.is_anomaly_enabled
def _anomaly_an(torch):
    return getattr(torch, "is_anomaly_check_nan_enabled", None) or torch.autograd.is_anomaly_check_nan_enabled
def s_anomaly__double_backward_anomaly(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x); return x ** 2
        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return _anomaly_nan(torch).apply(g * 2 * x)
    x = torch.tensor([1., 2.], requires_grad=True)
    with torch.autograd.detect_anomaly():
        g, = torch.autograd.grad(F.apply(x).sum(), x, create_graph=True)
        g.sum().backward()


# ---------------------------------------------------------------- misc
def _misc_x(torch): return torch.tensor([1., 2., 3.], requires_grad=True)

def s_misc__second_no_saved(torch):
    x = _misc_x(torch); y = (x + 1).sum(); y.backward(); y.backward(); return x.grad
def s_misc__second_sum(torch):
    x = _misc_x(torch); y = (x * 2).sum(); y.backward(); y.backward(); return x.grad
def s_misc__fn_backward(torch):
    x = _misc_x(torch); y = x * 2
    torch.autograd.backward([y], [torch.ones(3)]); return x.grad
def s_misc__fn_backward_tensor(torch):
    x = _misc_x(torch); torch.autograd.backward((x * x).sum()); return x.grad
def s_misc__grad_none_go(torch):
    x = _misc_x(torch)
    return torch.autograd.grad([(x * 2).sum(), x * 3], x, grad_outputs=[None, torch.ones(3)])
def s_misc__grad_none_go_nonscalar(torch):
    x = _misc_x(torch)
    return torch.autograd.grad([x * 2], x, grad_outputs=[None])
def s_misc__grad_create_graph_req(torch):
    x = _misc_x(torch)
    g, = torch.autograd.grad((x * 2).sum(), x, create_graph=True)
    return g
def s_misc__grad_create_graph_sq(torch):
    x = _misc_x(torch)
    g, = torch.autograd.grad((x * x).sum(), x, create_graph=True)
    return g
def s_misc__fn_mark_nd_input(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_non_differentiable(x)
            return x
        @staticmethod
        def backward(ctx, g):
            return g
    x = _misc_x(torch); y = F.apply(x)
    return y, y is x, x.requires_grad
def s_misc__fn_chain(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y); return x * y, x + y
        @staticmethod
        def backward(ctx, ga, gb):
            x, y = ctx.saved_tensors
            return ga * y + gb, ga * x + gb
    x = _misc_x(torch); z = torch.tensor([2., 2., 2.], requires_grad=True)
    a, b = F.apply(x, z)
    c, d = F.apply(a, b)
    (c.sum() + d.sum()).backward()
    return a, b, c, d, x.grad, z.grad
def s_misc__fn_partial_needs(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y
        @staticmethod
        def backward(ctx, g):
            return g * 2, g * 3
    x = _misc_x(torch); z = torch.tensor([2., 2., 2.])
    F.apply(x, z).sum().backward(); return x.grad, z.grad
def s_misc__fn_grad_only_one(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y
        @staticmethod
        def backward(ctx, g):
            return g * 2, g * 3
    x = _misc_x(torch); z = torch.tensor([2., 2., 2.], requires_grad=True)
    return torch.autograd.grad(F.apply(x, z).sum(), z)
def s_misc__fn_saved_modified(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x); return x * 2
        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors; return g * x
    x = _misc_x(torch); h = x * 1
    y = F.apply(h); h.add_(1); y.sum().backward()
def s_misc__fn_setup_ctx_kwargs(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(x, k=2.):
            return x * k
        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.k = inputs[1]
        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None
    x = _misc_x(torch); y = F.apply(x, k=5.); y.sum().backward(); return y, x.grad
def s_misc__fn_int_input(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, i):
            return x * i
        @staticmethod
        def backward(ctx, g):
            return g, None
    x = _misc_x(torch); y = F.apply(x, torch.tensor([1, 2, 3])); y.sum().backward(); return y, x.grad
def s_misc__fn_ctx_attrs_after(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.foo = 3; return x * 2
        @staticmethod
        def backward(ctx, g):
            return g * ctx.foo
    x = _misc_x(torch); y = F.apply(x); y.sum().backward(); return y.grad_fn.foo, x.grad
def s_misc__fn_returns_input_dirty_no(torch):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x, x * 2
        @staticmethod
        def backward(ctx, g1, g2):
            return g1 + g2 * 2
    x = _misc_x(torch); a, b = F.apply(x); (a.sum() + b.sum()).backward()
    return a, b, x.grad, a._base is x
def s_misc__grad_fn_metadata(torch):
    C = _function_mk(torch)
    x = _misc_x(torch); y = C.apply(x)
    return y.grad_fn.metadata, y.grad_fn._is_view() if hasattr(y.grad_fn, "_is_view") else None
def s_misc__leaf_grad_fn_none(torch):
    x = _misc_x(torch); return x.grad_fn, x.is_leaf, (x * 2).is_leaf
def s_misc__requires_grad_setter_nonleaf(torch):
    x = _misc_x(torch); y = x * 2; y.requires_grad = False
def s_misc__grad_of_int_input(torch):
    x = torch.tensor([1, 2]); x.requires_grad_(True)


_collect()


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_matches_torch(name):
    fn = SCENARIOS[name]
    expected = _run(torch_, fn)
    got = _run(rg, fn)
    assert got[0] == expected[0]
    assert got[1] == expected[1]


def test_backward_create_graph_warns_once_per_process():
    """PyTorch's TORCH_WARN_ONCE: the reference-cycle warning comes at most once per process."""
    def body(lib):
        texts = []
        for _ in range(2):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                x = lib.tensor([1., 2.], requires_grad=True)
                (x * x).sum().backward(create_graph=True)
            texts.append([_first_line(str(m.message)) for m in w])
        return x.grad, texts
    (tg, t_texts), (rg_g, r_texts) = body(torch_), body(rg)
    assert rg_g.tolist() == tg.tolist()
    assert r_texts[1] == t_texts[1] == []  # never a second time
    msg = ("Using backward() with create_graph=True will create a reference cycle between the parameter and its "
           "gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to "
           "avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters "
           "to None after use to break the cycle and avoid the leak.")
    assert all(t in ([], [msg]) for t in t_texts + r_texts)


@pytest.mark.parametrize("kw", [dict(allow_unused=True), dict(materialize_grads=True), {}])
def test_grad_wrt_gradient_edge(kw):
    def body(lib):
        x = lib.tensor([1., 2.], requires_grad=True)
        y, z = x * 2, x * 3
        unused = lib.autograd.graph.get_gradient_edge(z)
        used = lib.autograd.graph.get_gradient_edge(y)
        leaf = lib.autograd.graph.get_gradient_edge(x)
        return lib.autograd.grad((y * y).sum(), [used, leaf, unused, x], **kw)
    assert _run(rg, body) == _run(torch_, body)


# ---- Function.apply with keyword arguments: PyTorch binds them by name (its own messages) ----
def _kw_fn(lib):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k=2., *, z=1):
            return x * k * z

        @staticmethod
        def backward(ctx, g):
            return g, None
    return F


@pytest.mark.parametrize("args,kwargs", [
    ((True,), dict(k=3.)), ((True,), dict(z=3)), ((True, 1.), dict(k=2)), ((), {}), ((), dict(k=1)),
    ((True,), dict(y=1)), ((True, 1, 2), {}), ((True,), dict(z=2, k=3.)), ((), dict(x=True)),
])
def test_apply_kwargs_binding(args, kwargs):
    def body(lib):
        x = lib.tensor([1., 3.], requires_grad=True)
        a = tuple(x if v is True else v for v in args)
        kw = {k: (x if v is True else v) for k, v in kwargs.items()}
        y = _kw_fn(lib).apply(*a, **kw)
        y.sum().backward()
        return y, x.grad
    assert _run(rg, body) == _run(torch_, body)


def test_anomaly_no_forward_trace_full_text():
    def body(lib):
        class MyFn(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                raise ValueError("boom")
        y = MyFn.apply(lib.tensor([1.], requires_grad=True)).sum()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with lib.autograd.detect_anomaly():
                with pytest.raises(ValueError, match="boom"):
                    y.backward()
        return [str(x.message).split(" (Triggered internally")[0] for x in w]
    assert body(rg) == body(torch_)
