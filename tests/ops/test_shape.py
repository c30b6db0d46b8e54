"""Tests of the shape ops (src/retrograd/_ops/shape.py), checked against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd
import retrograd as rg

torch = pytest.importorskip("torch")

from ._reduce_shape_helpers import _same  # noqa: E402
from parity import same_error  # noqa: E402
from ._indexing_helpers import LIBS  # noqa: E402
from ._expression_helpers import _same_error  # noqa: E402


# ------------------------------------------------------------------ shape ops
def test_sum_to_size_dtype_nodes_and_identity():
    for a, size in [(True, ()), ([True, False], (1,)), ([[1, 2]], (1, 1)), (np.ones((3, 4, 2)) > 0, (4, 1))]:
        _same(rg.tensor(a).sum_to_size(size), torch.tensor(a).sum_to_size(size))
    x = rg.tensor([1.0, 2.0])
    assert x.sum_to_size(2) is x
    for shape, size in [((), ()), ((2, 3), (1, 3)), ((1, 2, 3), (2, 3)), ((2, 3), (2, 1))]:
        r = rg.ones(shape, requires_grad=True).sum_to_size(size)
        t = torch.ones(shape, requires_grad=True).sum_to_size(size)
        _same(r, t)
        assert type(r.grad_fn).__name__ == type(t.grad_fn).__name__


def test_meshgrid_warns_without_indexing():
    for lib in LIBS:
        with pytest.warns(UserWarning, match="torch.meshgrid: in an upcoming release, it will be required to pass "
                                             "the indexing argument."):
            lib.meshgrid(lib.zeros(2), lib.zeros(3))


@pytest.mark.parametrize("name,args", [("t_", ()), ("transpose_", (0, 1)), ("swapaxes_", (1, 0)),
                                       ("swapdims_", (0, 1)), ("unsqueeze_", (1,)), ("squeeze_", ())])
def test_inplace_views_share_memory_and_grads(name, args):
    res = []
    for lib in (retrograd, torch):
        x = lib.tensor(np.arange(6.).reshape(2, 3) if name != "squeeze_" else np.arange(6.).reshape(2, 1, 3),
                       requires_grad=True)
        y = x * 1
        z = getattr(y, name)(*args)
        assert z is y
        (y * lib.tensor(np.arange(6.).reshape(tuple(y.shape)))).sum().backward()
        res.append((tuple(y.shape), y.detach().numpy().copy(), x.grad.numpy().copy()))
    (s1, v1, g1), (s2, v2, g2) = res
    assert s1 == s2 and np.array_equal(v1, v2) and np.array_equal(g1, g2)


# ---------------------------------------------------------------- 6. concatenate / movedim / softmax / adjoint
@pytest.mark.parametrize("src", [
    "T.concatenate([T.ones(2), T.zeros(1)], dim=0)", "T.concatenate([T.ones(2), T.zeros(1)], axis=0)",
    "T.concatenate([T.ones(1, 2), T.zeros(1, 2)], dim=1)",
    "T.movedim(T.tensor(1.), 0, -1)", "T.moveaxis(T.tensor(1.), 0, 0)", "T.movedim(T.tensor(1.), (0,), (-1,))",
    "T.ones(2, 3).permute(1, 0)", "T.ones(2).permute(0)", "T.permute(T.ones(2, 3), (1, 0))",
    "T.ones(2, 3).adjoint()", "T.ones(2, 3, 4).adjoint()",
])
def test_shape_values(src):
    t = eval(src, {"T": torch})
    r = eval(src, {"T": retrograd})
    assert tuple(r.shape) == tuple(t.shape)
    np.testing.assert_allclose(r.numpy(), t.numpy())


@pytest.mark.parametrize("src", [
    "T.movedim(T.tensor(1.), 1, 0)", "T.permute(T.ones(2, 3), 0)", "T.permute(T.ones(2), 0)", "T.ones(2).permute()",
    "T.softmax(T.tensor(1.), 1)", "T.log_softmax(T.tensor(1.), -2)", "T.tensor([1., 2.]).adjoint()",
])
def test_shape_errors(src):
    _same_error(src)


def test_adjoint_0d_returns_self_with_warning():
    for lib in (torch, retrograd):
        x = lib.tensor(1.)
        with pytest.warns(UserWarning, match="adjoint\\(\\) is deprecated on 0-D tensors"):
            assert x.adjoint() is x


def test_movedim_0d_is_an_alias_view():
    for lib in (torch, retrograd):
        x = lib.tensor(2., dtype=lib.float64, requires_grad=True)
        y = lib.movedim(x, 0, -1)
        assert type(y.grad_fn).__name__ == "AliasBackward0"
        g, = lib.autograd.grad(y * 3, x)
        assert g.item() == 3.


# ---- found by the differential fuzzer (tests/fuzz)
@pytest.mark.parametrize("shape, sizes", [((2, 3), (2, 3)), ((1, 3), (1, 1, 3)), ((2, 3), (-1, 3))])
def test_in_place_through_an_expand_that_shares_no_memory(shape, sizes):
    out = []
    for L in (rg, torch):
        base = L.zeros(shape)
        v = base.expand(*sizes)
        v.add_(1).mul_(3)
        out.append((v.tolist(), base.tolist()))
    assert out[0] == out[1]


def test_in_place_through_an_overlapping_expand_still_raises():
    same_error(lambda L: L.zeros(1, 3).expand(2, 3).add_(1))


def test_expand_without_sizes_is_a_type_error():
    same_error(lambda L: L.tensor(1.0).expand())


def test_in_place_on_an_expanded_empty_tensor():
    out = []
    for L in (rg, torch):
        y = L.zeros(3, 0, 1).expand(3, 0, 2)
        y.tanh_()
        out.append(tuple(y.shape))
    assert out[0] == out[1]
