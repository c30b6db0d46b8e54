"""Tests of retrograd.distributions.constraints, checked against PyTorch."""

import numpy as np
import pytest

import retrograd as R
import retrograd.distributions as RD

torch = pytest.importorskip("torch")

from ._families_helpers import TD as TD_families, close as close_families, pair  # noqa: E402


TD = torch.distributions


def close(a, b, rtol=1e-9, atol=1e-10):
    a = a.detach().numpy() if hasattr(a, "detach") else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)


CONSTRAINT_VALUES = [
    ("real", np.array([0.0, np.inf, np.nan])),
    ("positive", np.array([-1.0, 0.0, 2.0])),
    ("nonnegative", np.array([-1.0, 0.0, 2.0])),
    ("unit_interval", np.array([-0.1, 0.0, 1.0, 1.1])),
    ("boolean", np.array([0.0, 1.0, 0.5])),
    ("nonnegative_integer", np.array([-1.0, 0.0, 2.0, 2.5])),
    ("positive_integer", np.array([0.0, 1.0, 2.5])),
    ("simplex", np.array([[0.2, 0.8], [0.5, 0.6], [-0.1, 1.1]])),
    ("real_vector", np.array([[0.0, np.nan], [1.0, 2.0]])),
    ("one_hot", np.array([[0.0, 1.0], [1.0, 1.0], [0.5, 0.5]])),
    ("lower_cholesky", np.array([[[1.0, 0.0], [2.0, 3.0]], [[1.0, 1.0], [0.0, 1.0]], [[-1.0, 0.0], [0.0, 1.0]]])),
    ("lower_triangular", np.array([[[1.0, 0.0], [2.0, 3.0]], [[1.0, 1.0], [0.0, 1.0]]])),
    ("positive_definite", np.array([[[2.0, 0.5], [0.5, 1.0]], [[1.0, 2.0], [2.0, 1.0]]])),
    ("positive_semidefinite", np.array([[[1.0, 1.0], [1.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]])),
    ("symmetric", np.array([[[1.0, 2.0], [2.0, 1.0]], [[1.0, 2.0], [3.0, 1.0]]])),
]


@pytest.mark.parametrize("name,value", CONSTRAINT_VALUES, ids=[c[0] for c in CONSTRAINT_VALUES])
def test_constraints_check(name, value):
    rc, tc = getattr(RD.constraints, name), getattr(TD.constraints, name)
    close(rc.check(R.tensor(value)), tc.check(torch.tensor(value)))
    assert rc.event_dim == tc.event_dim and rc.is_discrete == tc.is_discrete
    for fac in ("interval", "half_open_interval", "integer_interval"):
        close(getattr(RD.constraints, fac)(0, 2).check(R.tensor([0.0, 1.5, 2.0])),
              getattr(TD.constraints, fac)(0, 2).check(torch.tensor([0.0, 1.5, 2.0])))
    assert RD.constraints.is_dependent(RD.Uniform.support) and RD.constraints.is_dependent(RD.constraints.dependent)


RNG = np.random.default_rng(1)


def simplex(*shape):
    x = RNG.uniform(0.1, 1.0, size=shape)
    return x / x.sum(-1, keepdims=True)


CONSTRAINTS = ["real", "positive", "nonnegative", "unit_interval", "simplex", "real_vector", "corr_cholesky",
               "lower_cholesky", "positive_definite", "greater_than(-1.5)", "greater_than_eq(2.0)", "less_than(3.0)",
               "interval(-2.0, 5.0)", "half_open_interval(0.0, 1.0)", "independent(positive, 1)",
               "cat([positive, real], 0, [2, 1])", "stack([positive, unit_interval], -1)"]


@pytest.mark.parametrize("expr", CONSTRAINTS)
@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
def test_constraint_registry(expr, registry):
    rc = eval(expr, vars(RD.constraints))
    tc = eval(expr, vars(TD_families.constraints))
    try:
        tt = getattr(TD_families, registry)(tc)
    except NotImplementedError as e:
        with pytest.raises(NotImplementedError, match=str(e)):
            getattr(RD, registry)(rc)
        return
    rt = getattr(RD, registry)(rc)
    assert repr(rt).replace("torch.", "") == repr(tt).replace("torch.", "")
    shape = {"corr_cholesky": (2, 3), "lower_cholesky": (3, 3), "positive_definite": (3, 3)}.get(expr, (2, 3))
    if expr.startswith("stack"):
        shape = (3, 2)
    if expr.startswith("cat"):
        shape = (3, 2)
    x = RNG.normal(size=shape)
    rx, tx = pair(x, grad=True)
    ry, ty = rt(rx), tt(tx)
    close_families(ry, ty, rtol=1e-8, atol=1e-10)
    assert bool(rc.check(ry.detach()).all())
    if tt.bijective:
        close_families(rt.log_abs_det_jacobian(rx, ry), tt.log_abs_det_jacobian(tx, ty), rtol=1e-8, atol=1e-10)
