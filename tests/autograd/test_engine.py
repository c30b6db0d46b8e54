"""The backward engine against torch 2.13: backward / autograd.backward / autograd.grad,
accumulation, retain_graph, create_graph, inputs=, grad modes, freeing saved tensors,
exception types and messages, and a 1,000,000-op chain.
"""
from __future__ import annotations

import gc
import threading
import weakref

import numpy as np
import pytest

import retrograd as R
import retrograd as rg

torch = pytest.importorskip("torch")

from parity import same_error, same_repr  # noqa: E402
import parity  # noqa: E402


@pytest.fixture(autouse=True, params=["fast", "reference"])
def backward_engine(request):
    """Every test here runs with both engines: the reference (engine.py) and the fast one (fast_engine.py)."""
    before = R.autograd.get_backward_engine()
    R.autograd.set_backward_engine(request.param)
    yield request.param
    R.autograd.set_backward_engine(before)


# ------------------------------------------------------------------ backward
def _nograd(T, f):
    with T.no_grad():
        return f()


def _seed_y(T):
    x = T.tensor(2., requires_grad=True)
    a = T.add(x, 1)
    b = T.add(x, 2)
    return x, a, b, T.mul(a, b)


def test_seed_attributes_after_backward():
    def f(T):
        x, a, b, y = _seed_y(T)
        y.backward()
        return ([t.requires_grad for t in (x, a, b, y)], [t.is_leaf for t in (x, a, b, y)],
                x.grad, [t.grad_fn for t in (x,)])
    same_repr(f)


BACKWARD = {
    "scalar": lambda T: (lambda x: ((x * x * 3).backward(), x.grad)[1])(T.tensor(2., requires_grad=True)),
    "accumulates": lambda T: (lambda x: ([(x * x).backward() for _ in range(3)], x.grad)[1])(
        T.tensor(2., requires_grad=True)),
    "gradient_arg": lambda T: (lambda x: ((x * x).backward(T.tensor([1., 0.5])), x.grad)[1])(
        T.tensor([1., 2.], requires_grad=True)),
    "gradient_ones_like": lambda T: (lambda x: ((x * x).backward(T.ones_like(x)), x.grad)[1])(
        T.tensor([1., 2.], requires_grad=True)),
    "autograd_backward": lambda T: (lambda x: (T.autograd.backward([(x * 2).sum(), (x * x).sum()]), x.grad)[1])(
        T.tensor([1., 2.], requires_grad=True)),
    "autograd_backward_grads": lambda T: (lambda x: (T.autograd.backward(x * 3, T.tensor([1., -1.])), x.grad)[1])(
        T.tensor([1., 2.], requires_grad=True)),
    "retain_graph_twice": lambda T: (lambda x: (lambda y: (y.backward(retain_graph=True), y.backward(), x.grad)[2])(
        (x * x).sum()))(T.tensor([1., 2.], requires_grad=True)),
    "inputs_subset": lambda T: (lambda x, y: ((x * y).backward(inputs=[x]), x.grad, y.grad)[1:])(
        T.tensor(2., requires_grad=True), T.tensor(3., requires_grad=True)),
    "inputs_single_tensor": lambda T: (lambda x, y: ((x * y).backward(inputs=y), x.grad, y.grad)[1:])(
        T.tensor(2., requires_grad=True), T.tensor(3., requires_grad=True)),
    "nonleaf_grad_none": lambda T: (lambda x: (lambda y: ((y * 2).sum().backward(), x.grad)[1])(x * 3))(
        T.ones(2, requires_grad=True)),
    "detach_cuts": lambda T: (lambda x: (lambda a, b: ((a * b).sum().backward(), x.grad)[1])(
        (x + 1).detach(), x + 2))(T.tensor([2.], requires_grad=True)),
    "diamond": lambda T: (lambda x: (lambda h: ((h * h + h.exp()).sum().backward(), x.grad)[1])(x.sin()))(
        T.tensor([0.5, 1.], requires_grad=True)),
    "same_input_twice": lambda T: (lambda x: ((x * x * x).backward(), x.grad)[1])(T.tensor(3., requires_grad=True)),
    "broadcast_grad": lambda T: (lambda x, w: ((x * w).sum().backward(), x.grad, w.grad)[1:])(
        T.tensor([[1.], [2.]], requires_grad=True), T.tensor([1., 2., 3.], requires_grad=True)),
    "create_graph_backward": lambda T: (lambda x: ((x * x * x).backward(create_graph=True), x.grad,
                                                   x.grad.requires_grad))(T.tensor(2., requires_grad=True)),
    "seed_18": lambda T: (lambda x, y: ((x * x * y).backward(create_graph=True), x.grad.backward(), x.grad)[2])(
        T.tensor(2., requires_grad=True), T.tensor(3., requires_grad=True)),
    "seed_6_zero": lambda T: (lambda x, y: ((x * x * y).backward(create_graph=True), x.grad.data.zero_(),
                                            x.grad.backward(), x.grad)[3])(
        T.tensor(2., requires_grad=True), T.tensor(3., requires_grad=True)),
    "int_output_mixed": lambda T: (lambda x: ((x * T.tensor([1, 2])).sum().backward(), x.grad)[1])(
        T.tensor([1., 1.], requires_grad=True)),
    "backward_inside_no_grad": lambda T: (lambda x: (lambda y: (_nograd(T, y.backward), x.grad)[1])(x * 2))(
        T.tensor(1., requires_grad=True)),
    "float64_leaf_float32_path": lambda T: (lambda x: ((x.float() * 2).sum().backward(), x.grad)[1])(
        T.tensor([1., 1.], dtype=T.float64, requires_grad=True)),
}


CREATE_GRAPH_WARNING = "ignore:Using backward\\(\\) with create_graph=True:UserWarning"


@pytest.mark.filterwarnings(CREATE_GRAPH_WARNING)
@pytest.mark.parametrize("name", list(BACKWARD))
def test_backward(name):
    same_repr(BACKWARD[name])


# ------------------------------------------------------------------ autograd.grad
GRAD = {
    "basic": lambda T: (lambda x: T.autograd.grad(x * x, x))(T.tensor(3., requires_grad=True)),
    "tuple_inputs": lambda T: (lambda x, y: T.autograd.grad(x * x * y, (x, y)))(
        T.tensor(2., requires_grad=True), T.tensor(3., requires_grad=True)),
    "list_outputs": lambda T: (lambda x: T.autograd.grad([x * 2, x * x], [x]))(T.tensor(3., requires_grad=True)),
    "grad_outputs": lambda T: (lambda x: T.autograd.grad(x * x, x, grad_outputs=T.ones_like(x)))(
        T.tensor([1., 2.], requires_grad=True)),
    "grad_outputs_list": lambda T: (lambda x: T.autograd.grad([x * x], [x], grad_outputs=[T.tensor([1., 3.])]))(
        T.tensor([1., 2.], requires_grad=True)),
    "does_not_touch_grad": lambda T: (lambda x: (T.autograd.grad(x * x, x), x.grad)[1])(
        T.tensor(3., requires_grad=True)),
    "retain_graph": lambda T: (lambda x, y: (lambda z: (T.autograd.grad(z, x, retain_graph=True),
                                                        T.autograd.grad(z, y)))(x * x * y))(
        T.tensor(2., requires_grad=True), T.tensor(3., requires_grad=True)),
    "create_graph": lambda T: (lambda x, y: (lambda g: (g, T.autograd.grad(g, x)))(
        T.autograd.grad(x * x * y, x, create_graph=True)[0]))(
        T.tensor(2., requires_grad=True), T.tensor(3., requires_grad=True)),
    "create_graph_backward": lambda T: (lambda x, y: (T.autograd.grad(x * x * y, x, create_graph=True)[0].backward(),
                                                      x.grad, y.grad)[1:])(
        T.tensor(2., requires_grad=True), T.tensor(3., requires_grad=True)),
    "third_derivative": lambda T: (lambda x: (lambda g1: (lambda g2: T.autograd.grad(g2, x))(
        T.autograd.grad(g1, x, create_graph=True)[0]))(T.autograd.grad(x ** 4, x, create_graph=True)[0]))(
        T.tensor(2., requires_grad=True)),
    "allow_unused": lambda T: (lambda x, y: T.autograd.grad(x * 2, [x, y], allow_unused=True))(
        T.tensor(1., requires_grad=True), T.tensor(1., requires_grad=True)),
    "materialize_grads": lambda T: (lambda x, y: T.autograd.grad(x * 2, [x, y], materialize_grads=True))(
        T.tensor(1., requires_grad=True), T.ones(2, requires_grad=True)),
    "extra_grad_outputs_ignored": lambda T: (lambda x: T.autograd.grad([x * 2], [x],
                                                                       grad_outputs=[T.ones(2), T.ones(2)]))(
        T.ones(2, requires_grad=True)),
    "nonleaf_input": lambda T: (lambda x: (lambda h: T.autograd.grad((h * h).sum(), h))(x * 3))(
        T.tensor([1., 2.], requires_grad=True)),
    "grad_of_output_itself": lambda T: (lambda x: (lambda y: T.autograd.grad(y, y))(x * 2))(
        T.tensor(1., requires_grad=True)),
    "no_create_graph_result_detached": lambda T: (lambda x, y: T.autograd.grad(x * y, x)[0].requires_grad)(
        T.tensor(1., requires_grad=True), T.tensor(2., requires_grad=True)),
}


@pytest.mark.parametrize("name", list(GRAD))
def test_autograd_grad(name):
    same_repr(GRAD[name])


# ------------------------------------------------------------------ graph structure
def _walk(T, y):
    """All (node name, [(child name or None, nr)]) reachable from y, breadth first."""
    seen, order, queue = set(), [], [y.grad_fn]
    while queue:
        n = queue.pop(0)
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        order.append((n.name(), [(c.name() if c is not None else None, nr) for c, nr in n.next_functions]))
        queue.extend(c for c, _ in n.next_functions)
    return order


GRAPHS = {
    "seed": lambda T: _seed_y(T)[3],
    "scalar_ops": lambda T: (lambda x: (2 - x) * 3 / (x + 1) ** 2)(T.tensor(1., requires_grad=True)),
    "two_leaves": lambda T: (lambda x, y: x * x * y)(T.tensor(2., requires_grad=True),
                                                     T.tensor(3., requires_grad=True)),
    "one_leaf_const": lambda T: (lambda x: x * T.tensor(3.) + T.ones(1))(T.tensor(2., requires_grad=True)),
    "reductions": lambda T: (lambda x: x.sum(0).mean() + x.mean(1, keepdim=True).sum())(
        T.ones(2, 3, requires_grad=True)),
    "shapes": lambda T: (lambda x: x.reshape(3, 2).t().unsqueeze(0).squeeze(0).transpose(0, 1).expand(2, 3, 2)[1:, 0])(
        T.ones(2, 3, requires_grad=True)),
    "unary": lambda T: (lambda x: T.relu(T.sigmoid(T.tanh(x.exp().log().sqrt().sin().cos().tan().abs()))))(
        T.ones(2, requires_grad=True)),
    "matmul": lambda T: (lambda a, b: (a @ b).sum())(T.ones(2, 3, requires_grad=True),
                                                     T.ones(3, 2, requires_grad=True)),
    "clone_neg": lambda T: (-T.ones(2, requires_grad=True)).clone(),
    "inplace": lambda T: (lambda x: x.mul_(2).add_(1))(T.ones(2, requires_grad=True) * 1),
    "create_graph_grad": lambda T: (lambda x: T.autograd.grad((x * x).sum(), x, create_graph=True)[0])(
        T.ones(2, requires_grad=True)),
    "copy_backwards": lambda T: (lambda x: ((x * x).sum().backward(create_graph=True), x.grad)[1])(
        T.ones(2, requires_grad=True)),
}


@pytest.mark.filterwarnings(CREATE_GRAPH_WARNING)
@pytest.mark.parametrize("name", list(GRAPHS))
def test_graph_structure(name):
    def f(T):
        return _walk(T, GRAPHS[name](T))
    same_repr(f)


def test_accumulate_grad_node_is_shared_per_leaf():
    x = R.ones(2, requires_grad=True)
    y = x * 2
    z = x * 3
    assert y.grad_fn.next_functions[0][0] is z.grad_fn.next_functions[0][0]
    assert y.grad_fn.next_functions[0][0].variable is x


# ------------------------------------------------------------------ errors
ERRORS = {
    "non_scalar_no_gradient": lambda T: (T.tensor([1., 2.], requires_grad=True) + 1).backward(),
    "second_backward": lambda T: (lambda y: (y.backward(), y.backward()))((T.tensor(2., requires_grad=True) ** 2)),
    "second_grad": lambda T: (lambda x, y: (lambda z: (T.autograd.grad(z, x), T.autograd.grad(z, y)))(x * x * y))(
        T.tensor(2., requires_grad=True), T.tensor(3., requires_grad=True)),
    "grad_of_grad_without_create_graph": lambda T: (lambda x, y: T.autograd.grad(
        T.autograd.grad(x * x * y, x, retain_graph=True), x))(T.tensor(2., requires_grad=True),
                                                              T.tensor(3., requires_grad=True)),
    "backward_no_grad_output": lambda T: T.tensor(2.).backward(),
    "output_made_under_no_grad": lambda T: (lambda x: _nograd(T, lambda: x * 2).backward())(
        T.tensor(1., requires_grad=True)),
    "grad_output_no_grad": lambda T: T.autograd.grad(T.tensor(2.) * 2, T.tensor(1., requires_grad=True)),
    "grad_input_no_grad": lambda T: T.autograd.grad(T.tensor(2., requires_grad=True) * 2, T.tensor(1.)),
    "unused_input": lambda T: (lambda x, y: T.autograd.grad(x * 2, [x, y]))(
        T.tensor(1., requires_grad=True), T.tensor(1., requires_grad=True)),
    "unused_allow_unused_false": lambda T: (lambda x, y: T.autograd.grad(x * 2, y, allow_unused=False))(
        T.tensor(1., requires_grad=True), T.tensor(1., requires_grad=True)),
    "materialize_with_allow_unused_false": lambda T: (lambda x: T.autograd.grad(
        x * 2, x, allow_unused=False, materialize_grads=True))(T.tensor(1., requires_grad=True)),
    "grad_shape_mismatch": lambda T: (T.ones(2, requires_grad=True) * 2).backward(T.ones(3)),
    "grad_outputs_shape": lambda T: (lambda x: T.autograd.grad(x * 2, x, grad_outputs=T.ones(3)))(
        T.ones(2, requires_grad=True)),
    "grad_outputs_too_few": lambda T: (lambda x: T.autograd.grad([x * 2, x * 3], [x], grad_outputs=[T.ones(2)]))(
        T.ones(2, requires_grad=True)),
    "backward_grads_too_few": lambda T: (lambda x: T.autograd.backward([x * 2, x * 3], [T.ones(2)]))(
        T.ones(2, requires_grad=True)),
    "grad_empty_inputs": lambda T: (lambda x: T.autograd.grad(x * 2, []))(T.ones(1, requires_grad=True)),
    "backward_inputs_empty": lambda T: (T.ones(1, requires_grad=True) * 2).backward(inputs=[]),
    "non_scalar_grad": lambda T: (lambda x: T.autograd.grad(x * 2, x))(T.ones(2, requires_grad=True)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(name):
    same_error(ERRORS[name])


def test_saved_tensors_are_freed_after_backward():
    x = R.ones(3, requires_grad=True)
    big = x * 2
    ref = weakref.ref(big)
    y = (big * x).sum()  # MulBackward0 saves ``big``
    del big
    gc.collect()
    assert ref() is not None  # kept alive by the graph
    y.backward()
    gc.collect()
    assert ref() is None  # freed once backward released the saved tensors


def test_retain_graph_keeps_saved_tensors():
    x = R.ones(3, requires_grad=True)
    big = x * 2
    ref = weakref.ref(big)
    y = (big * x).sum()
    del big
    y.backward(retain_graph=True)
    gc.collect()
    assert ref() is not None
    y.backward()
    assert x.grad.tolist() == [8., 8., 8.]


def test_graph_is_freed_without_gc():
    """No reference cycles: dropping the output frees every node by refcount alone."""
    gc.disable()
    try:
        x = R.ones(2, requires_grad=True)
        y = (x * 2 + 1).exp().sum()
        ref = weakref.ref(y.grad_fn)
        del y
        assert ref() is None
        y = (x * x).sum()
        y.backward()
        ref = weakref.ref(y.grad_fn)
        del y
        assert ref() is None
    finally:
        gc.enable()


# ------------------------------------------------------------------ grad modes
def test_no_grad_context_and_decorator():
    x = R.ones(2, requires_grad=True)
    with R.no_grad():
        y = x * 2
        assert not R.is_grad_enabled()
    assert R.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None

    @R.no_grad()
    def f(t):
        return t * 2

    @R.no_grad
    def g(t):
        return t * 2

    assert not f(x).requires_grad and not g(x).requires_grad
    assert (x * 2).requires_grad


def test_enable_grad_and_set_grad_enabled():
    x = R.ones(2, requires_grad=True)
    with R.no_grad():
        with R.enable_grad():
            assert (x * 2).requires_grad
        assert not (x * 2).requires_grad

        @R.enable_grad()
        def f(t):
            return t * 2

        assert f(x).requires_grad
    with R.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert R.is_grad_enabled()
    R.set_grad_enabled(False)
    try:
        assert not R.is_grad_enabled()
    finally:
        R.set_grad_enabled(True)

    @R.set_grad_enabled(False)
    def h(t):
        return t * 2

    assert not h(x).requires_grad and R.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = []

    def worker():
        seen.append(R.is_grad_enabled())

    with R.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert not R.is_grad_enabled()
    assert seen == [True]


def test_grad_mode_restored_after_exception():
    with pytest.raises(ValueError):
        with R.no_grad():
            raise ValueError
    assert R.is_grad_enabled()


def test_requires_grad_survives_no_grad_leaf_creation():
    with R.no_grad():
        w = R.ones(2, requires_grad=True)
    assert w.requires_grad and w.is_leaf
    (w * 2).sum().backward()
    assert w.grad.tolist() == [2., 2.]


# ------------------------------------------------------------------ deep graphs
def test_million_op_chain_backward_and_free():
    # The cyclic GC is off: it plays no part in correctness (and would only slow the
    # test down walking a million live nodes), and it proves refcounting alone frees
    # the graph, i.e. the graph holds no reference cycles.
    gc.collect()
    gc.disable()
    try:
        x = R.tensor(1.0, requires_grad=True)
        y = -x
        deepest = weakref.ref(y.grad_fn)  # the node next to the leaf
        for _ in range(999_999):
            y = -y
        top = weakref.ref(y.grad_fn)
        y.backward()
        assert x.grad.item() == 1.0  # 1,000,000 negations
        del y
        assert top() is None and deepest() is None  # the whole chain was freed, without recursion
    finally:
        gc.enable()


def test_deep_graph_with_create_graph():
    x = R.tensor(0.5, dtype=R.float64, requires_grad=True)
    y = x
    for _ in range(2000):
        y = R.sin(y) * 0.5 + y * 0.5
    (g,) = R.autograd.grad(y, x, create_graph=True)
    (gg,) = R.autograd.grad(g, x)
    tx = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    ty = tx
    for _ in range(2000):
        ty = torch.sin(ty) * 0.5 + ty * 0.5
    (tg,) = torch.autograd.grad(ty, tx, create_graph=True)
    (tgg,) = torch.autograd.grad(tg, tx)
    np.testing.assert_allclose([g.item(), gg.item()], [tg.item(), tgg.item()], rtol=1e-10)


def test_saved_attributes_use_pytorchs_schema_names():
    """grad_fn._saved_self / _other / _result / _self_sym_sizes / _dim, as in torch 2.13."""
    got = []
    for lib in (torch, R):
        x = lib.tensor([1., 2.], requires_grad=True)
        w = lib.tensor([3., 4.], requires_grad=True)
        y, z, s = x * w, x.exp(), x.sum(0)
        got.append([y.grad_fn._saved_self.tolist(), y.grad_fn._saved_other.tolist(),
                    z.grad_fn._saved_result.tolist(), tuple(s.grad_fn._saved_self_sym_sizes),
                    tuple(s.grad_fn._saved_dim), x.pow(3).grad_fn._saved_exponent])
        with pytest.raises(AttributeError):
            z.grad_fn._saved_self  # exp saves only its result
        y.sum().backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.grad_fn._saved_self
    np.testing.assert_allclose(got[1][2], got[0][2], rtol=1e-6)  # (exp's last bit may differ)
    got[0][2] = got[1][2]
    assert got[0] == got[1]


def same(scenario):
    """``parity.same`` with tensor shapes in the log and dtypes by name."""
    return parity.same(scenario, shape=True, dtypes=True)


def attempt(log, f):
    try:
        log("ok", f())
    except (RuntimeError, TypeError) as e:
        log(type(e).__name__, str(e))


def test_backward_inputs():
    def sc(lib, log):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = lib.tensor([3.0, 4.0], requires_grad=True)
        z = (x * y).sum()
        z.backward(inputs=[x], retain_graph=True)
        log(x.grad, y.grad)
        lib.autograd.backward([z], inputs=y)
        log(x.grad, y.grad)
        attempt(log, lambda: z.backward(inputs=[]))

    same(sc)


@pytest.mark.parametrize("make", [
    lambda T, x: T.nn.functional.cross_entropy(x, T.tensor([0, 1])),          # no edge for the target
    lambda T, x: T.nn.functional.nll_loss(x, T.tensor([0, 1]), weight=T.ones(3)),  # nor the class weights
    lambda T, x: T.where(T.tensor([True, False, True]), x, T.zeros(3)),        # nor the condition
    lambda T, x: T.index_select(x, 0, T.tensor([0])),
    lambda T, x: T.gather(x, 1, T.tensor([[0], [1]])),
    lambda T, x: x * T.ones(3),                                                # a constant operand keeps (None, 0)
    lambda T, x: x[T.tensor([0])],
    lambda T, x: T.embedding(x, T.tensor([0, 1])),
    lambda T, x: x.masked_fill(T.tensor([True, False, True]), 0.),
    lambda T, x: x.scatter(1, T.tensor([[0], [1]]), 2.),
    lambda T, x: T.clamp(x, T.zeros(3), T.ones(3)),
    lambda T, x: T.nn.functional.binary_cross_entropy(T.sigmoid(x), T.ones(2, 3)),  # BCE's target is differentiable
    lambda T, x: T.nn.functional.mse_loss(x, T.ones(2, 3)),
])
def test_next_functions_list_the_inputs_torch_lists(make):
    def edges(T):
        x = T.ones(2, 3, requires_grad=True)
        return tuple((type(n).__name__ if n is not None else None, nr) for n, nr in make(T, x).grad_fn.next_functions)

    assert edges(rg) == edges(torch)


def test_grad_outputs_are_cast_to_the_outputs_dtype():
    def run(T):
        x = T.tensor([1., 2., 3.], requires_grad=True)
        g, = T.autograd.grad(x * x, x, T.ones(3, dtype=T.float64))
        y = T.tensor([1., 2.], dtype=T.float64, requires_grad=True)
        h, = T.autograd.grad(y * y, y, T.ones(2))
        return str(g.dtype).split(".")[-1], g.tolist(), str(h.dtype).split(".")[-1], h.tolist()

    assert run(rg) == run(torch)
