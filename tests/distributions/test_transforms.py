"""Tests of retrograd.distributions.transforms, checked against PyTorch."""

import numpy as np
import pytest

import retrograd as R
import retrograd.distributions as RD

torch = pytest.importorskip("torch")

from ._families_helpers import TD, close, pair  # noqa: E402


RNG = np.random.default_rng(1)


def pos(*shape, lo=0.5, hi=3.0):
    return RNG.uniform(lo, hi, size=shape)


TRANSFORMS = [
    ("AbsTransform", lambda M: M.AbsTransform(), RNG.normal(size=(3,)), False),
    ("PowerTransform", lambda M: M.PowerTransform(M_tensor(M, [0.5, 2.0, -1.5])), pos(2, 3), True),
    ("SoftmaxTransform", lambda M: M.SoftmaxTransform(), RNG.normal(size=(2, 3)), False),
    ("StickBreakingTransform", lambda M: M.StickBreakingTransform(), RNG.normal(size=(2, 3)), True),
    ("LowerCholeskyTransform", lambda M: M.LowerCholeskyTransform(), RNG.normal(size=(2, 3, 3)), False),
    ("PositiveDefiniteTransform", lambda M: M.PositiveDefiniteTransform(), RNG.normal(size=(3, 3)), False),
    ("CorrCholeskyTransform", lambda M: M.CorrCholeskyTransform(), RNG.normal(size=(2, 6)), True),
    ("CatTransform", lambda M: M.CatTransform([M.ExpTransform(), M.AffineTransform(1.0, 2.0)], dim=1,
                                              lengths=[2, 1]), RNG.normal(size=(2, 3)), True),
    ("StackTransform", lambda M: M.StackTransform([M.ExpTransform(), M.SigmoidTransform()], dim=-1),
     RNG.normal(size=(3, 2)), True),
    ("ReshapeTransform", lambda M: M.ReshapeTransform((6,), (2, 3)), RNG.normal(size=(4, 6)), True),
    ("IndependentTransform", lambda M: M.IndependentTransform(M.SigmoidTransform(), 1), RNG.normal(size=(2, 3)), True),
    ("CumulativeDistributionTransform",
     lambda M: M.CumulativeDistributionTransform((RD if M is RD.transforms else TD).Normal(0.5, 2.0)),
     RNG.normal(size=(3,)), True),
]


def M_tensor(M, v):
    return R.tensor(v, dtype=R.float64) if M is RD.transforms else torch.tensor(v, dtype=torch.float64)


@pytest.mark.parametrize("case", TRANSFORMS, ids=[t[0] for t in TRANSFORMS])
def test_transforms(case):
    name, make, x, has_jac = case
    rt, tt = make(RD.transforms), make(TD.transforms)
    rx, tx = pair(x, grad=True)
    ry, ty = rt(rx), tt(tx)
    close(ry, ty)
    close(rt.inv(ry), tt.inv(ty))
    assert rt.bijective == tt.bijective
    assert rt.domain.event_dim == tt.domain.event_dim and rt.codomain.event_dim == tt.codomain.event_dim
    assert tuple(rt.forward_shape(rx.shape)) == tuple(tt.forward_shape(tx.shape))
    assert tuple(rt.inverse_shape(ry.shape)) == tuple(tt.inverse_shape(ty.shape))
    r_loss, t_loss = ry.sum(), ty.sum()
    if has_jac:
        rj, tj = rt.log_abs_det_jacobian(rx, ry), tt.log_abs_det_jacobian(tx, ty)
        close(rj, tj)
        r_loss, t_loss = r_loss + rj.sum(), t_loss + tj.sum()
    close(R.autograd.grad(r_loss, [rx])[0], torch.autograd.grad(t_loss, [tx])[0], rtol=1e-7, atol=1e-9)
    assert (rt == make(RD.transforms)) == (tt == make(TD.transforms))
    assert bool(rt.codomain.check(ry.detach()).all())


def test_transform_errors_and_names():
    for m in (RD, RD.transforms):
        assert m.identity_transform is RD.transforms.identity_transform
    with pytest.raises(ValueError, match="in_shape, out_shape have different numbers of elements"):
        RD.transforms.ReshapeTransform((2,), (3,))
    with pytest.raises(ValueError, match="Input is not a flattend lower-diagonal number"):
        RD.transforms.CorrCholeskyTransform().forward_shape((4,))
    with pytest.raises(ValueError, match="Too few dimensions on input"):
        RD.transforms.StickBreakingTransform().forward_shape(())
    assert repr(RD.transforms.IndependentTransform(RD.transforms.ExpTransform(), 2)) == \
        repr(TD.transforms.IndependentTransform(TD.transforms.ExpTransform(), 2))
