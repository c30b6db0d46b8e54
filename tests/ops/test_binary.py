"""The core ops against torch 2.13: forward (float32 and float64), gradients, second
derivatives, grad_fn names and next_functions, broadcasting, reflected operators,
int/float promotion, and shape errors.

Each case is a function ``f(T, *inputs)`` run once with ``T = retrograd`` and once with
``T = torch`` on the same input values; everything observable is compared.
"""
from __future__ import annotations

import numpy as np
import pytest

import retrograd
import retrograd as R

torch = pytest.importorskip("torch")

from ._elementwise_helpers import LIBS, _close, _short  # noqa: E402
from ._pointwise_helpers import EDGES, INF, NAN, _grads, _pair, _raises_like, _same  # noqa: E402
from ._compare_helpers import _both, _raises_like as _raises_like_ops, _same as _same_ops  # noqa: E402
from ._expression_helpers import B, F, I, _same_error  # noqa: E402
from ._differential_helpers import assert_same_layout  # noqa: E402

TOL = {"float32": dict(rtol=2e-5, atol=2e-6), "float64": dict(rtol=1e-10, atol=1e-12)}


# ------------------------------------------------------------------ helpers
def node_name(fn) -> str | None:
    return None if fn is None else fn.name().replace("torch::autograd::", "")


def structure(t, depth: int = 2):
    """grad_fn name and next_functions (names, output numbers) ``depth`` levels down."""
    fn = t.grad_fn if hasattr(t, "grad_fn") else t
    if fn is None:
        return None
    if depth == 0:
        return node_name(fn)
    return (node_name(fn), tuple((structure(c, depth - 1) if c is not None else None, nr)
                                 for c, nr in fn.next_functions))


def make(T, arr: np.ndarray, requires_grad: bool):
    t = T.tensor(arr)
    return t.requires_grad_() if requires_grad else t


def assert_same(r, t, tol=None) -> None:
    """retrograd value ``r`` equals torch value ``t`` (tensors: values, dtype, shape, flags)."""
    if isinstance(t, torch.Tensor):
        assert isinstance(r, R.Tensor), f"expected a Tensor, got {type(r)}"
        assert str(r.dtype).replace("torch.", "") == str(t.dtype).replace("torch.", "")
        assert tuple(r.shape) == tuple(t.shape)
        assert r.requires_grad == t.requires_grad
        assert node_name(r.grad_fn) == node_name(t.grad_fn)
        tl = tol or TOL.get(str(t.dtype).replace("torch.", ""), dict(rtol=0, atol=0))
        np.testing.assert_allclose(r.detach().numpy(), t.detach().numpy(), **tl)
    elif isinstance(t, (tuple, list)):
        assert len(r) == len(t)
        for a, b in zip(r, t):
            assert_same(a, b, tol)
    else:
        assert r == t


def run_both(f, arrays, requires_grad=True):
    """f(T, *inputs) for both libraries; returns ((r_out, r_inputs), (t_out, t_inputs))."""
    res = []
    for T in (R, torch):
        ins = [make(T, a, requires_grad) for a in arrays]
        res.append((f(T, *ins), ins))
    return res


# ------------------------------------------------------------------ the op specs
rng = np.random.default_rng(0)


def pos(*shape):
    return rng.uniform(0.5, 2.0, size=shape)


def any_(*shape):
    return rng.uniform(-2.0, 2.0, size=shape)


def nonzero(*shape):
    return rng.choice([-1.0, 1.0], size=shape) * rng.uniform(0.5, 2.0, size=shape)


# name -> (function, input makers).  Inputs are float64 arrays; cast per test.
OPS = {
    "add": (lambda T, a, b: T.add(a, b), (any_(3, 4), any_(3, 4))),
    "add_alpha": (lambda T, a, b: T.add(a, b, alpha=2.5), (any_(3, 4), any_(4))),
    "add_scalar": (lambda T, a: T.add(a, 3), (any_(3),)),
    "sub": (lambda T, a, b: T.sub(a, b), (any_(2, 3), any_(2, 3))),
    "sub_alpha": (lambda T, a, b: a.sub(b, alpha=-1.5), (any_(2, 3), any_(3))),
    "mul": (lambda T, a, b: T.mul(a, b), (any_(2, 3), any_(2, 3))),
    "mul_scalar": (lambda T, a: a.mul(0.5), (any_(4),)),
    "div": (lambda T, a, b: T.div(a, b), (any_(2, 3), nonzero(2, 3))),
    "div_scalar": (lambda T, a: a / 4, (any_(3),)),
    "neg": (lambda T, a: T.neg(a), (any_(2, 2),)),
    "neg_op": (lambda T, a: -a, (any_(2, 2),)),
    "pow_tensor": (lambda T, a, b: T.pow(a, b), (pos(3), any_(3))),
    "pow_scalar": (lambda T, a: a.pow(3), (any_(3),)),
    "pow_scalar_float": (lambda T, a: a ** 2.5, (pos(3),)),
    "pow_scalar_neg": (lambda T, a: a ** -1, (nonzero(3),)),
    "rpow": (lambda T, a: 2 ** a, (any_(3),)),
    "rpow_float": (lambda T, a: T.pow(1.5, a), (any_(3),)),
    "sqrt": (lambda T, a: T.sqrt(a), (pos(3, 2),)),
    "exp": (lambda T, a: T.exp(a), (any_(3, 2),)),
    "log": (lambda T, a: T.log(a), (pos(3, 2),)),
    "sin": (lambda T, a: T.sin(a), (any_(4),)),
    "cos": (lambda T, a: T.cos(a), (any_(4),)),
    "tan": (lambda T, a: T.tan(a), (rng.uniform(-1, 1, size=4),)),
    "tanh": (lambda T, a: T.tanh(a), (any_(4),)),
    "sigmoid": (lambda T, a: T.sigmoid(a), (any_(4),)),
    "relu": (lambda T, a: T.relu(a), (nonzero(5),)),
    "abs": (lambda T, a: T.abs(a), (nonzero(5),)),
    "abs_op": (lambda T, a: abs(a), (nonzero(5),)),
    "sum": (lambda T, a: T.sum(a), (any_(2, 3),)),
    "sum_dim": (lambda T, a: a.sum(1), (any_(2, 3),)),
    "sum_dim_keep": (lambda T, a: a.sum(-1, keepdim=True), (any_(2, 3),)),
    "sum_dims": (lambda T, a: a.sum((0, 2)), (any_(2, 3, 4),)),
    "mean": (lambda T, a: T.mean(a), (any_(2, 3),)),
    "mean_dim": (lambda T, a: a.mean(0), (any_(2, 3),)),
    "mean_dim_keep": (lambda T, a: a.mean(dim=(0, 1), keepdim=True), (any_(2, 3, 2),)),
    "matmul_mm": (lambda T, a, b: a @ b, (any_(2, 3), any_(3, 4))),
    "matmul_mv": (lambda T, a, b: T.matmul(a, b), (any_(2, 3), any_(3))),
    "matmul_vm": (lambda T, a, b: a @ b, (any_(3), any_(3, 2))),
    "matmul_dot": (lambda T, a, b: a @ b, (any_(3), any_(3))),
    "matmul_batched": (lambda T, a, b: a @ b, (any_(2, 2, 3), any_(3, 4))),
    "matmul_bcast": (lambda T, a, b: T.matmul(a, b), (any_(2, 1, 2, 3), any_(3, 3, 2))),
    "reshape": (lambda T, a: a.reshape(3, 2), (any_(2, 3),)),
    "reshape_infer": (lambda T, a: T.reshape(a, (-1,)), (any_(2, 3),)),
    "view": (lambda T, a: a.view(6), (any_(2, 3),)),
    "transpose": (lambda T, a: a.transpose(0, 1), (any_(2, 3),)),
    "transpose_neg": (lambda T, a: T.transpose(a, -1, 0), (any_(2, 3, 4),)),
    "t": (lambda T, a: a.t(), (any_(2, 3),)),
    "expand": (lambda T, a: a.expand(3, 4), (any_(3, 1),)),
    "expand_new_dim": (lambda T, a: a.expand(2, -1), (any_(3),)),
    "unsqueeze": (lambda T, a: a.unsqueeze(1), (any_(2, 3),)),
    "squeeze": (lambda T, a: a.squeeze(), (any_(2, 1, 3),)),
    "squeeze_dim": (lambda T, a: a.squeeze(1), (any_(2, 1, 3),)),
    "slice_select": (lambda T, a: a[1:, 0], (any_(3, 4),)),
    "slice_step": (lambda T, a: a[::2], (any_(5),)),
    "select_neg": (lambda T, a: a[-1], (any_(3, 2),)),
    "slice_none": (lambda T, a: a[:, None, 1:3], (any_(2, 4),)),
    "composite": (lambda T, a, b: T.tanh(a * b + T.exp(-a)).sum(0) / 2,
                  (any_(3, 2), any_(2))),
}


# Broadcast batched matmul: torch's internal expand/clone/view chain below Bmm is an
# implementation detail; compare the top two levels only.
STRUCT_DEPTH = {"matmul_bcast": 1}


def _cast(arrays, dtype: str):
    return [a.astype(dtype) for a in arrays]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(OPS))
def test_forward_and_grad_fn(name, dtype):
    f, arrays = OPS[name]
    (r, _), (t, _) = run_both(f, _cast(arrays, dtype))
    assert_same(r, t)
    depth = STRUCT_DEPTH.get(name, 3)
    assert structure(r, depth) == structure(t, depth)


@pytest.mark.parametrize("name", list(OPS))
def test_forward_without_grad(name):
    f, arrays = OPS[name]
    (r, _), (t, _) = run_both(f, _cast(arrays, "float32"), requires_grad=False)
    assert_same(r, t)
    assert r.grad_fn is None


def _weight(T, out, dtype="float64"):
    """A fixed non-uniform weight shaped like ``out``, so every output element counts differently."""
    shape = tuple(out.shape)
    return T.tensor(np.linspace(0.5, 1.5, max(int(np.prod(shape)), 1)).reshape(shape).astype(dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(OPS))
def test_gradients(name, dtype):
    f, arrays = OPS[name]
    results = []
    for T in (R, torch):
        ins = [make(T, a, True) for a in _cast(arrays, dtype)]
        out = f(T, *ins)
        (out * _weight(T, out, dtype)).sum().backward()
        results.append([x.grad for x in ins])
    assert_same(*results)


@pytest.mark.parametrize("name", list(OPS))
def test_second_derivatives(name):
    """d/dx of <grad(f)(x), v> (a Hessian-vector product) matches torch, float64."""
    f, arrays = OPS[name]
    results = []
    for T in (R, torch):
        ins = [make(T, a, True) for a in _cast(arrays, "float64")]
        out = f(T, *ins)
        grads = T.autograd.grad((out * _weight(T, out)).sum(), ins, create_graph=True)
        flags = [g.requires_grad for g in grads]
        total = None
        for g, a in zip(grads, arrays):
            if g.requires_grad:
                v = T.tensor(np.cos(np.arange(a.size)).reshape(a.shape))
                total = (g * v).sum() if total is None else total + (g * v).sum()
        second = T.autograd.grad(total, ins, allow_unused=True) if total is not None else ()
        results.append((grads, flags, second))
    (rg, rflags, rsec), (tg, tflags, tsec) = results
    assert rflags == tflags
    for a, b in zip(rg, tg):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), **TOL["float64"])
    assert len(rsec) == len(tsec)
    for a, b in zip(rsec, tsec):
        if b is None:  # torch: this input does not reach the first derivative
            assert a is None or not np.any(a.numpy())
        else:  # (torch may answer an all-zero "ZeroTensor": force=True reads it)
            assert a is not None
            np.testing.assert_allclose(a.numpy(), b.numpy(force=True), **TOL["float64"])


# ------------------------------------------------------------------ broadcasting
BCAST = [((3, 4), (4,)), ((2, 1, 3), (4, 1)), ((), (3,)), ((5, 1), (1, 5)), ((1,), (2, 3))]


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "pow"])
@pytest.mark.parametrize("shapes", BCAST, ids=str)
def test_broadcasting_binary(op, shapes):
    sa, sb = shapes
    arrays = [pos(*sa), pos(*sb)]
    results = []
    for T in (R, torch):
        a, b = [make(T, x, True) for x in arrays]
        out = getattr(T, op)(a, b)
        out.sum().backward()
        results.append((out, a.grad, b.grad))
    assert_same(*results)


# ------------------------------------------------------------------ reflected operators
REFLECTED = {
    "radd": lambda T, a: 2 + a,
    "rsub": lambda T, a: 2 - a,
    "rsub_float": lambda T, a: 0.5 - a,
    "rmul": lambda T, a: 3 * a,
    "rdiv": lambda T, a: 2 / a,
    "rpow": lambda T, a: 3 ** a,
    "radd_bool": lambda T, a: True + a,
    "sub_scalar": lambda T, a: a - 1,
    "iadd_chain": lambda T, a: (a * 1) + 1.5 * a - a / 3,
}


@pytest.mark.parametrize("name", list(REFLECTED))
def test_reflected_operators(name):
    f = REFLECTED[name]
    results = []
    for T in (R, torch):
        a = T.tensor([0.5, 1.5, -2.0], requires_grad=True)
        out = f(T, a)
        out.sum().backward()
        results.append((out, a.grad, structure(out)))
    assert_same(*results)


# ------------------------------------------------------------------ type promotion
PROMO = {
    "int_plus_float_scalar": lambda T: T.tensor([1, 2]) + 2.5,
    "int_times_int_scalar": lambda T: T.tensor([1, 2]) * 3,
    "float32_plus_float_scalar": lambda T: T.tensor([1., 2.]) + 1e-3,
    "float32_plus_int_scalar": lambda T: T.tensor([1., 2.]) + 7,
    "float32_plus_float64_0d": lambda T: T.tensor([1., 2.]) + T.tensor(1., dtype=T.float64),
    "float32_plus_float64_1d": lambda T: T.tensor([1., 2.]) + T.tensor([1.], dtype=T.float64),
    "int32_plus_int64_0d": lambda T: T.tensor([1, 2], dtype=T.int32) + T.tensor(5),
    "int_plus_float_0d": lambda T: T.tensor([1, 2]) + T.tensor(0.5),
    "bool_plus_int": lambda T: T.tensor([True, False]) + 1,
    "bool_plus_bool_tensor": lambda T: T.tensor([True, False]) + T.tensor([True, True]),
    "int_div_int": lambda T: T.tensor([3, 4]) / T.tensor([2, 2]),
    "int_div_scalar": lambda T: T.tensor([3, 4]) / 2,
    "int_pow_float": lambda T: T.tensor([3, 4]) ** 0.5,
    "int_pow_int": lambda T: T.tensor([3, 4]) ** 2,
    "int_sqrt": lambda T: T.sqrt(T.tensor([4, 9])),
    "int_exp": lambda T: T.exp(T.tensor([0, 1])),
    "int_sum": lambda T: T.tensor([[1, 2], [3, 4]], dtype=T.int32).sum(0),
    "bool_sum": lambda T: T.tensor([True, True, False]).sum(),
    "int_neg": lambda T: -T.tensor([1, -2]),
    "int_abs": lambda T: T.tensor([1, -2], dtype=T.int8).abs(),
    "int_relu": lambda T: T.relu(T.tensor([1, -2])),
    "float64_scalar_rmul": lambda T: 2.5 * T.tensor([1, 2], dtype=T.float64),
    "int_matmul": lambda T: T.tensor([[1, 2]]) @ T.tensor([[3], [4]]),
    "float16_plus_float": lambda T: T.tensor([1., 2.], dtype=T.float16) + 0.1,
    "int8_plus_int_wraps": lambda T: T.tensor([1, 100], dtype=T.int8) + 200,
    "int32_plus_big_int_wraps": lambda T: T.tensor([1], dtype=T.int32) + 2 ** 40,
    "int64_plus_2_63_wraps": lambda T: T.ones(1, dtype=T.int64) + 2 ** 63,
    "uint8_minus_one": lambda T: T.tensor([0, 1], dtype=T.uint8) - 1,
    "bool_plus_big_int": lambda T: T.tensor([True]) + 2 ** 40,
    "float32_times_huge": lambda T: T.ones(2) * 1e300,
    "float16_times_big": lambda T: T.ones(2, dtype=T.float16) * 1e5,
    "numpy_scalar": lambda T: T.ones(2) * np.float64(2.5),
    "numpy_int_scalar": lambda T: T.tensor([1, 2], dtype=T.int16) * np.int64(3),
}


@pytest.mark.parametrize("name", list(PROMO))
def test_type_promotion(name):
    assert_same(PROMO[name](R), PROMO[name](torch), tol=dict(rtol=1e-3, atol=1e-3))


def test_mixed_dtype_grads_are_cast_back():
    results = []
    for T in (R, torch):
        a = T.tensor([1., 2.], requires_grad=True)
        b = T.tensor([3., 4.], dtype=T.float64, requires_grad=True)
        out = a * b
        out.sum().backward()
        results.append((out, a.grad, b.grad))
    assert_same(*results)


# ------------------------------------------------------------------ errors
def _error(T, f):
    try:
        f(T)
    except Exception as exc:  # noqa: BLE001 - compared with torch's below
        return type(exc), str(exc)
    return None


ERRORS = {
    "add_shapes": lambda T: T.ones(2, 3) + T.ones(4),
    "mul_shapes": lambda T: T.mul(T.ones(3, 2), T.ones(3, 4)),
    "sub_shapes_3d": lambda T: T.ones(2, 3, 4) - T.ones(5, 4),
    "div_shapes_grad": lambda T: T.ones(3, requires_grad=True) / T.ones(2),
    "matmul_2d": lambda T: T.ones(2, 3) @ T.ones(4, 5),
    "matmul_mv": lambda T: T.ones(2, 3) @ T.ones(4),
    "matmul_vm": lambda T: T.ones(3) @ T.ones(4, 5),
    "matmul_dot": lambda T: T.ones(3) @ T.ones(4),
    "matmul_0d": lambda T: T.ones(()) @ T.ones(3),
    "reshape_bad": lambda T: T.ones(2, 3).reshape(4, 2),
    "view_two_infer": lambda T: T.ones(2, 3).view(-1, -1),
    "transpose_dim": lambda T: T.ones(2, 3).transpose(0, 2),
    "expand_bad": lambda T: T.ones(3).expand(2, 4),
    "unsqueeze_dim": lambda T: T.ones(2).unsqueeze(3),
    "sum_dim": lambda T: T.ones(2).sum(1),
    "index_out_of_range": lambda T: T.ones(3)[3],
    "too_many_indices": lambda T: T.ones(3)[0, 0],
    "t_3d": lambda T: T.ones(2, 2, 2).t(),
    "pow_int_negative": lambda T: T.tensor([2, 3]) ** -1,
    "mean_int": lambda T: T.tensor([1, 2]).mean(),
    "int_too_big": lambda T: T.ones(1) * 10 ** 40,
    "int_beyond_uint64": lambda T: T.ones(1, dtype=T.int64) + 2 ** 64,
    "int_below_int64": lambda T: T.ones(1) - 2 ** 63 * 3,
    "sub_bools": lambda T: T.tensor([True]) - T.tensor([False]),
    "neg_bool": lambda T: -T.tensor([True]),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(name):
    theirs = _error(torch, ERRORS[name])
    assert theirs is not None
    assert _error(R, ERRORS[name]) == theirs


def test_matmul_batched_shape_error_names_both_shapes():
    # torch names the batch shapes it could not multiply; retrograd too (type + message)
    f = lambda T: T.ones(2, 2, 3) @ T.ones(2, 4, 5)  # noqa: E731
    assert _error(R, f) == _error(torch, f)


# ------------------------------------------------------------------ methods and functions agree
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow", "matmul"])
def test_function_method_operator_agree(name):
    a = R.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    b = R.tensor([[0.5, -1.], [2., 1.5]])
    fn = getattr(R, name)(a, b)
    meth = getattr(a, name)(b)
    op = {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b, "pow": a ** b, "matmul": a @ b}[name]
    for x in (meth, op):
        np.testing.assert_array_equal(fn.detach().numpy(), x.detach().numpy())
        assert fn.grad_fn.name() == x.grad_fn.name()


@pytest.mark.parametrize("name", ["sqrt", "exp", "log", "sin", "cos", "tan", "tanh", "sigmoid",
                                  "relu", "abs", "neg"])
def test_unary_method_matches_function(name):
    a = R.tensor([0.5, 1.5], requires_grad=True)
    np.testing.assert_array_equal(getattr(a, name)().detach().numpy(),
                                  getattr(R, name)(a).detach().numpy())


def test_leaf_grad_with_scalar_graph_from_the_seed():
    """y = (x + 1)(x + 2) and z = x * x * y: grads and second derivative."""
    x = R.tensor(2., requires_grad=True)
    y = R.mul(R.add(x, 1), R.add(x, 2))
    y.backward()
    assert x.grad.item() == 7.0
    x = R.tensor(2.).requires_grad_()
    yy = R.tensor(3.).requires_grad_()
    z = x * x * yy
    (gx,) = R.autograd.grad(z, x, create_graph=True)
    assert gx.item() == 12.0
    (gxx,) = R.autograd.grad(gx, x)
    assert gxx.item() == 6.0


# ====================================================================== integer alpha
def test_integer_alpha_wraps_or_refuses_like_torch():
    ok = [("add", "uint8", -3), ("sub", "uint8", -2), ("rsub", "uint8", -3), ("add", "uint8", -255),
          ("add", "int8", -128), ("sub", "int8", 127), ("add", "int16", 300)]
    for op, dt, alpha in ok:
        r, t = (getattr(L, op)(L.tensor([5, 1, 6], dtype=getattr(L, dt)), L.tensor([2, 1, 9], dtype=getattr(L, dt)),
                               alpha=alpha) for L in LIBS)
        assert r.tolist() == t.tolist() and _short(r.dtype) == _short(t.dtype), (op, dt, alpha)
    r, t = (L.rsub(L.tensor([5, 1, 6], dtype=L.uint8), 3, alpha=-3) for L in LIBS)
    assert r.tolist() == t.tolist()
    bad = [("add", "int8", 128, "int8_t"), ("sub", "int8", -128, "int8_t"), ("add", "uint8", -256, "uint8_t"),
           ("add", "int16", 40000, "int16_t"), ("add", "int32", 2 ** 31, "int"), ("rsub", "int8", 200, "int8_t")]
    for op, dt, alpha, cname in bad:
        msgs = []
        for L in LIBS:
            a = L.tensor([5, 1, 6], dtype=getattr(L, dt))
            with pytest.raises(RuntimeError) as e:
                getattr(L, op)(a, a, alpha=alpha)
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1] == f"value cannot be converted to type {cname} without overflow"


def test_python2_division_names():
    for name in ("__div__", "__rdiv__"):
        r, t = (getattr(L.tensor([-2.0, 0.5, 4.0], dtype=L.float64, requires_grad=True), name)(2.0) for L in LIBS)
        _close(r, t)
        assert type(r.grad_fn).__name__ == type(t.grad_fn).__name__


# ---------------------------------------------------------------- rounding division
@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_rounding_div_integers_stay_integers(mode):
    for a, b in (([7, -7, 6, -6, 0], [2, 2, -4, -4, 3]), ([7, -7], 2), ([7, -7], 2.5)):
        r, t = _pair(a, "int64")
        if isinstance(b, list):
            rb, tb = _pair(b, "int64")
        else:
            rb, tb = b, b
        _same(retrograd.div(r, rb, rounding_mode=mode), torch.div(t, tb, rounding_mode=mode))
    for dt in ("int32", "int8", "uint8"):
        r, t = _pair([7, 9, 100], dt)
        _same(retrograd.div(r, 3, rounding_mode=mode), torch.div(t, 3, rounding_mode=mode))


@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_rounding_div_float_edges_grads_and_errors(mode):
    a = [-0.5, 0.5, 1.0, -1.0, 5.0, 0.0, INF, NAN, 7.5]
    b = [2.0, -2.0, INF, INF, 0.0, 0.0, 3.0, 1.0, -2.0]
    (ra, ta), (rb, tb) = _pair(a, grad=True), _pair(b, grad=True)
    ours, theirs = retrograd.div(ra, rb, rounding_mode=mode), torch.div(ta, tb, rounding_mode=mode)
    _same(ours, theirs)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__ == "DivBackward2"
    ours.sum().backward()
    assert ra.grad.tolist() == [0.0] * len(a) and rb.grad.tolist() == [0.0] * len(b)
    _raises_like(lambda lib: lib.div(lib.tensor([7, 1]), lib.tensor([0, 1]), rounding_mode=mode), RuntimeError)
    _raises_like(lambda lib: lib.div(lib.tensor([True]), lib.tensor([True]), rounding_mode=mode), NotImplementedError)
    x = retrograd.tensor([7.0, -7.0])
    assert x.div_(2, rounding_mode=mode) is x
    assert x.tolist() == torch.tensor([7.0, -7.0]).div_(2, rounding_mode=mode).tolist()


def test_rounding_div_rejects_unknown_mode():
    _raises_like(lambda lib: lib.div(lib.tensor([1.0]), 2.0, rounding_mode="round"), RuntimeError)


def test_floor_divide_remainder_fmod_edges():
    a = [-3.0, 3.0, -0.0, 5.0, INF, -INF, 1.0, -1.0, NAN, 7.5]
    b = [2.0, -2.0, 2.0, 0.0, 3.0, 2.0, INF, INF, 1.0, -0.5]
    for name in ("floor_divide", "remainder", "fmod"):
        (ra, ta), (rb, tb) = _pair(a), _pair(b)
        _same(getattr(retrograd, name)(ra, rb), getattr(torch, name)(ta, tb))
        _same(getattr(retrograd, name)(ra, 0.0), getattr(torch, name)(ta, 0.0))
        _raises_like(lambda lib: getattr(lib, name)(lib.tensor([7, -7]), 0), RuntimeError)
        _raises_like(lambda lib: getattr(lib, name)(lib.tensor([7, -7]), lib.tensor(0)), RuntimeError)
        _raises_like(lambda lib: getattr(lib, name)(lib.tensor([True]), lib.tensor([True])), NotImplementedError)


def test_nondifferentiable_binary_forms_raise_in_backward_like_torch():
    for call in (lambda lib, x: lib.floor_divide(x, 2.0), lambda lib, x: lib.floor_divide(2.0, x),
                 lambda lib, x: 5.0 // x, lambda lib, x: lib.remainder(2.0, x), lambda lib, x: 3.0 % x):
        r, t = _pair([1.5, 2.5], grad=True)
        out_r, out_t = call(retrograd, r), call(torch, t)
        assert type(out_r.grad_fn).__name__ == type(out_t.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError) as theirs:
            out_t.sum().backward()
        with pytest.raises(RuntimeError) as ours:
            out_r.sum().backward()
        assert str(ours.value) == str(theirs.value)


def test_remainder_fmod_grad_fn_names():
    r, t = _pair([1.5, -2.5], grad=True)
    for name, other in (("remainder", 2.0), ("remainder", [0.7, 0.9]), ("fmod", 2.0), ("fmod", [0.7, 0.9]),
                        ("xlogy", 2.0), ("copysign", -1.0)):
        o_r = retrograd.tensor(other, dtype=retrograd.float64) if isinstance(other, list) else other
        o_t = torch.tensor(other, dtype=torch.float64) if isinstance(other, list) else other
        assert type(getattr(retrograd, name)(r, o_r).grad_fn).__name__ == \
            type(getattr(torch, name)(t, o_t).grad_fn).__name__


# ---------------------------------------------------------------- integer and bool dtypes
@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8"])
def test_rounding_ops_keep_integer_dtypes(dtype):
    r, t = _pair([1, 2, 7], dtype)
    for name in ("floor", "ceil", "round", "trunc", "fix", "sgn", "sign", "nan_to_num", "positive"):
        ours = getattr(retrograd, name)(r)
        _same(ours, getattr(torch, name)(t))
        if name != "positive":
            assert ours is not r
    for name in ("exp2", "log1p", "erf", "lgamma", "sinc", "deg2rad", "logit", "rsqrt"):
        _same(getattr(retrograd, name)(r), getattr(torch, name)(t), rtol=1e-6)


def test_refused_dtypes_match_torch():
    cases = [
        lambda lib: lib.floor(lib.tensor([True])),
        lambda lib: lib.round(lib.tensor([True])),
        lambda lib: lib.round(lib.tensor([1, 2]), decimals=0),
        lambda lib: lib.round(lib.tensor([1, 2]), decimals=1),
        lambda lib: lib.frac(lib.tensor([1, 2])),
        lambda lib: lib.frac(lib.tensor([1], dtype=lib.int8)),
        lambda lib: lib.hypot(lib.tensor([3]), lib.tensor([4])),
        lambda lib: lib.logaddexp(lib.tensor([3]), lib.tensor([4])),
        lambda lib: lib.lerp(lib.tensor([1, 2]), lib.tensor([3, 4]), 0.5),
        lambda lib: lib.lerp(lib.tensor([1, 2]), lib.tensor([3, 4]), lib.tensor([1, 1])),
        lambda lib: lib.addcmul(lib.tensor([True]), lib.tensor([True]), lib.tensor([True])),
        lambda lib: lib.bitwise_and(lib.tensor([1.0]), 3),
        lambda lib: lib.bitwise_or(lib.tensor([1]), lib.tensor([1.0])),
        lambda lib: lib.bitwise_not(lib.tensor([1.0])),
        lambda lib: lib.tensor([1.0]) << 2,
        lambda lib: lib.tensor([True]) >> lib.tensor([True]),
        lambda lib: lib.tensor([1.0]).bitwise_xor_(lib.tensor([1])),
    ]
    for call in cases:
        _raises_like(call, NotImplementedError)
    _raises_like(lambda lib: lib.tensor([1]).exp2_(), RuntimeError)
    _raises_like(lambda lib: lib.tensor([1]).atan2_(lib.tensor([1])), RuntimeError)
    _raises_like(lambda lib: ~lib.tensor([1.0]), TypeError)
    _raises_like(lambda lib: lib.positive(lib.tensor([True])), RuntimeError)


def test_type_promotion_results():
    i, f32 = retrograd.tensor([3, -4]), retrograd.tensor([1.5, 2.0])
    f64 = retrograd.tensor([1.5, 2.0], dtype=retrograd.float64)
    ti, tf32, tf64 = torch.tensor([3, -4]), torch.tensor([1.5, 2.0]), torch.tensor([1.5, 2.0], dtype=torch.float64)
    for name in ("remainder", "fmod", "floor_divide", "xlogy", "copysign", "float_power"):
        f, g = getattr(retrograd, name), getattr(torch, name)
        for (a, b), (c, d) in (((i, 2.5), (ti, 2.5)), ((i, i), (ti, ti)), ((f32, f64), (tf32, tf64)),
                               ((f32, f64[0]), (tf32, tf64[0])), ((i, f32), (ti, tf32))):
            _same(f(a, b), g(c, d), rtol=1e-6)
    for name in ("atan2", "maximum", "fmin", "hypot", "logaddexp"):
        f, g = getattr(retrograd, name), getattr(torch, name)
        _same(f(f32, f64), g(tf32, tf64))
        _same(f(i, f64[0]), g(ti, tf64[0]), rtol=1e-6)
    _same(retrograd.addcmul(i, i, f64), torch.addcmul(ti, ti, tf64))
    _same(retrograd.addcmul(i, i, i, value=2.5), torch.addcmul(ti, ti, ti, value=2.5))
    _same(retrograd.lerp(f32, f32, f64[0]), torch.lerp(tf32, tf32, tf64[0]))


# ---------------------------------------------------------------- argument errors
def test_argument_errors_match_torch():
    t = lambda lib, v=(1.0, 2.0): lib.tensor(list(v))  # noqa: E731
    type_errors = [
        lambda lib: lib.atan2(t(lib), 2.0), lambda lib: lib.maximum(2.0, t(lib)),
        lambda lib: lib.hypot(t(lib), [1.0, 2.0]), lambda lib: lib.exp2(2.0), lambda lib: lib.isnan(1.0),
        lambda lib: lib.fmod(2.0, t(lib)), lambda lib: lib.copysign(2.0, t(lib)), lambda lib: lib.xlogy(2.0, 3.0),
        lambda lib: lib.remainder(2.0, 3.0), lambda lib: lib.float_power(2.0, 3.0),
        lambda lib: lib.lerp(t(lib), 3.0, 0.5), lambda lib: lib.addcmul(t(lib), 2.0, t(lib)),
        lambda lib: lib.isclose(t(lib), 1.0), lambda lib: lib.equal(t(lib), 1),
        lambda lib: lib.logical_and(t(lib), 1), lambda lib: lib.where(t(lib) > 0, t(lib)),
        lambda lib: lib.where(True, t(lib), 0.0),
    ]
    for call in type_errors:
        _raises_like(call, TypeError)
    runtime_errors = [
        lambda lib: lib.lerp(t(lib), t(lib).double(), 0.5),
        lambda lib: lib.lerp(t(lib), lib.tensor([3, 4]), 0.5),
        lambda lib: lib.lerp(t(lib), t(lib), lib.tensor([0.5], dtype=lib.float64)),
        lambda lib: t(lib).lerp_(lib.tensor([[3.0, 4.0]]), 0.5),
        lambda lib: lib.addcdiv(t(lib), lib.tensor([3, 4]), lib.tensor([3, 4])),
        lambda lib: lib.isclose(t(lib), t(lib).double()),
        lambda lib: lib.allclose(t(lib), lib.tensor([1, 2])),
        lambda lib: lib.isclose(t(lib), t(lib), rtol=-1),
        lambda lib: lib.isclose(t(lib), t(lib), atol=-0.5),
        lambda lib: lib.polygamma(-1, t(lib)),
        lambda lib: t(lib).float_power_(2),
        lambda lib: lib.where(lib.tensor([1, 0]), 1.0, 0.0),
        lambda lib: lib.where(lib.tensor([1.0, 0.0]), 1.0, 0.0),
    ]
    for call in runtime_errors:
        _raises_like(call, RuntimeError)


@pytest.mark.parametrize("name", ["erf", "erfc", "lgamma", "digamma", "sinc", "expm1", "log1p", "rsqrt", "exp2",
                                  "log2", "log10", "asin", "acos", "atanh", "acosh", "frac", "logit", "sgn", "sign",
                                  "round", "nan_to_num", "deg2rad"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_edge_values_match_torch(name, dtype):
    r, t = _pair(EDGES, dtype)
    rtol = 1e-12 if dtype == "float64" else 2e-6
    _same(getattr(retrograd, name)(r), getattr(torch, name)(t), rtol=rtol)


def test_grads_at_special_points():
    cases = [
        ("logit", [[0.0, 0.05, 0.5, 1.0, 1.5, -0.5]], (), {}),
        ("logit", [[0.0, 0.05, 0.1, 0.5, 0.9, 1.0]], (0.1,), {}),
        ("sinc", [[0.0, 1.0, 0.5, -2.0]], (), {}),
        ("xlogy", [[0.0, 0.0, 1.0, 2.0, 0.0], [0.0, 1.0, 0.0, 3.0, NAN]], (), {}),
        ("copysign", [[0.0, -0.0, 1.0, -2.0], [-1.0, 1.0, -0.0, 3.0]], (), {}),
        ("hypot", [[0.0, 3.0, INF], [0.0, 4.0, 1.0]], (), {}),
        ("logaddexp", [[INF, -INF, 0.0, 1000.0], [INF, -INF, -1000.0, 1000.0]], (), {}),
        ("frac", [[-1.5, 2.25, 3.0]], (), {}),
        ("floor", [[-1.5, 2.0]], (), {}),
        ("erfinv", [[-1.0, 0.0, 0.5, 1.0]], (), {}),
        ("lgamma", [[-2.5, 0.5, 1.0, 2.0]], (), {}),
        ("digamma", [[-2.5, 0.5, 1.0, 2.0]], (), {}),
    ]
    for name, values, extra, kw in cases:
        for ours, theirs in _grads(name, values, *extra, **kw):
            _same(ours, theirs, rtol=1e-10)


def test_second_derivatives_at_ties_and_through_special_functions():
    def gg(lib, name, *vals):
        xs = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in vals]
        out = getattr(lib, name)(*xs)
        g = lib.autograd.grad(out.sum(), xs, create_graph=True)
        total = sum((gi * gi).sum() for gi in g if gi is not None and gi.requires_grad)
        return lib.autograd.grad(total, xs, allow_unused=True) if not isinstance(total, int) else None

    for name, vals in (("lgamma", ([0.7, 3.2],)), ("digamma", ([0.7, 3.2],)), ("erfinv", ([0.3, -0.6],)),
                       ("logit", ([0.3, 0.6],)), ("maximum", ([1.0, 2.0], [1.0, 3.0])),
                       ("lerp", ([1.0, 2.0], [3.0, 5.0], [0.3, 0.9])), ("atan2", ([1.0, -2.0], [0.5, 0.7]))):
        ours, theirs = gg(retrograd, name, *vals), gg(torch, name, *vals)
        if theirs is None:
            assert ours is None
            continue
        for o, t in zip(ours, theirs):
            if t is None:
                assert o is None or not o.numpy().any()
            else:
                _same(o, t, rtol=1e-10)


def test_operators_and_inplace_forms():
    ri, ti = _pair([12, -10, 7], "int64")
    rb, tb = _pair([True, False, True], "bool")
    for f in (lambda x, b: x & 6, lambda x, b: 6 & x, lambda x, b: x | 3, lambda x, b: 3 | x, lambda x, b: x ^ 5,
              lambda x, b: 5 ^ x, lambda x, b: ~x, lambda x, b: x % 5, lambda x, b: 50 % x, lambda x, b: x // 3,
              lambda x, b: 50 // x, lambda x, b: 2 << (x & 3), lambda x, b: x >> 1, lambda x, b: 64 >> (x & 3)):
        _same(f(ri, rb), f(ti, tb))
    _same(rb & rb, tb & tb)
    _same(~rb, ~tb)
    x, y = ri.clone(), ti.clone()
    for f in ("__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__", "__imod__", "__ifloordiv__"):
        assert getattr(x, f)(3) is x
        getattr(y, f)(3)
        _same(x, y)
    assert x._version == 7


def test_float_power_and_inplace():
    r, t = _pair([1.5, 2.0], "float32", grad=True)
    ours, theirs = retrograd.float_power(r, 2), torch.float_power(t, 2)
    _same(ours, theirs)
    ours.sum().backward()
    theirs.sum().backward()
    _same(r.grad, t.grad)
    x, y = retrograd.tensor([2.0, 3.0], dtype=retrograd.float64), torch.tensor([2.0, 3.0], dtype=torch.float64)
    assert x.float_power_(retrograd.tensor([2.0, 0.5])) is x
    _same(x, y.float_power_(torch.tensor([2.0, 0.5])))


def test_heaviside_at_zero_and_grad_refused():
    r, t = _both(np.array([-1.0, 0.0, 2.0, 0.0]))
    v = _both(np.array([0.25, 0.5, 0.75, 1.0]))
    _same_ops(retrograd.heaviside(r, v[0]), torch.heaviside(t, v[1]))
    _raises_like_ops(lambda L: L.heaviside(L.tensor([1.0]), L.tensor([1])))
    x = retrograd.tensor([0.0, 1.0], requires_grad=True)
    y = retrograd.heaviside(x, retrograd.tensor([0.5, 0.5]))
    assert type(y.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="not implemented"):
        y.sum().backward()


def test_integer_ops_and_inplace_dtype_rules():
    a, b = _both(np.array([0, -4, 6, 15])), _both(np.array([0, 6, -4, 10]))
    _same_ops(retrograd.gcd(a[0], b[0]), torch.gcd(a[1], b[1]))
    _same_ops(retrograd.lcm(a[0], b[0]), torch.lcm(a[1], b[1]))
    _raises_like_ops(lambda L: L.gcd(L.tensor([1.0]), L.tensor([2.0])))
    _raises_like_ops(lambda L: L.tensor([1, 2]).ldexp_(L.tensor([1, 1])))
    _raises_like_ops(lambda L: L.tensor([1, 2]).i0_())
    x, e = _both(np.array([1.0, -3.0])), _both(np.array([2, -1]))
    _same_ops(retrograd.ldexp(x[0], e[0]), torch.ldexp(x[1], e[1]))
    _same_ops(retrograd.ldexp(e[0], e[0]), torch.ldexp(e[1], e[1]))


# ---------------------------------------------------------------- 2. alpha
@pytest.mark.parametrize("src", [
    f"T.add({I}, {I}, alpha=0.5)", f"T.sub({I}, {I}, alpha=0.5)", f"T.add({I}, 2, alpha=0.5)",
    f"T.add({B}, {B}, alpha=0.5)", f"{I}.add_({I}, alpha=0.5)", f"{I}.sub({I}, alpha=2.0)",
    f"T.add({I}, {I}, alpha=True)", f"T.sub({I}, {I}, alpha=True)", f"T.add({F}, {F}, alpha=True)",
    f"T.rsub({I}, {I}, alpha=0.5)", f"T.rsub({I}, 2, alpha=0.5)", f"T.add({I}, {I}, alpha=T.tensor(0.5))",
])
def test_alpha_errors(src):
    _same_error(src)


@pytest.mark.parametrize("src", [
    f"T.add({I}, 2.5, alpha=2)", f"T.add({B}, {B}, alpha=True)", f"T.add({B}, {B}, alpha=2)",
    f"T.add({I}, {I}, alpha=3)", f"T.add({F}, {F}, alpha=0.5)", f"T.sub({F}, {I}[:2], alpha=2)",
])
def test_alpha_values(src):
    t = eval(src, {"T": torch})
    r = eval(src, {"T": retrograd})
    assert str(t.dtype).split(".")[-1] == str(r.dtype).split(".")[-1]
    np.testing.assert_allclose(r.numpy(), t.numpy())


def test_alpha_grad():
    for lib in (torch, retrograd):
        a = lib.tensor([1., 2.], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([3., 4.], dtype=lib.float64, requires_grad=True)
        ga, gb = lib.autograd.grad(lib.sub(a, b, alpha=0.5).sum(), (a, b))
        np.testing.assert_allclose(ga.numpy(), [1., 1.])
        np.testing.assert_allclose(gb.numpy(), [-0.5, -0.5])


# ---- found by the differential fuzzer (tests/fuzz)
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow", "atan2", "hypot", "maximum", "minimum"])
def test_operands_of_conflicting_layouts_give_the_first_ones_layout(name):
    # torch's TensorIterator orders the dims by the first operand whose strides tell them apart
    assert_same_layout(lambda L, x: getattr(L, name)(x, x.contiguous().abs() + 1))
    assert_same_layout(lambda L, x: getattr(L, name)(x.contiguous(), x.abs() + 1))
    assert_same_layout(lambda L, x: getattr(L, name)(x, x[..., :1].abs() + 1))
