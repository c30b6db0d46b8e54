"""Tests of the ldl ops (src/retrograd/_ops/linalg/ldl.py), checked against PyTorch."""

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

from .._nn_linalg_helpers import _close  # noqa: E402


# ------------------------------------------------------- ldl_factor / ldl_solve
@pytest.mark.parametrize("n,kind", [(1, "plain"), (4, "plain"), (6, "zero_diag"), (9, "plain"), (70, "plain"),
                                    (5, "batch"), (0, "plain")])
def test_ldl_factor_and_solve(n, kind):
    rng = np.random.default_rng(n)
    shape = (3, n, n) if kind == "batch" else (n, n)
    a = rng.standard_normal(shape)
    a = a + np.swapaxes(a, -1, -2)  # symmetric, indefinite
    if kind == "zero_diag":
        a[..., range(n), range(n)] = 0  # forces 2x2 pivots
    b = rng.standard_normal(shape[:-1] + (2,))
    res = []
    for lib in (torch, rg):
        LD, piv, info = lib.linalg.ldl_factor_ex(lib.tensor(a))
        x = lib.linalg.ldl_solve(LD, piv, lib.tensor(b))
        res.append((LD, piv, info, x))
    (lt, pt, it, xt), (lr, pr, ir, xr) = res
    _close(lt, lr, 1e-10)
    assert pr.tolist() == pt.tolist() and str(pr.dtype).split(".")[-1] == "int32"
    assert ir.tolist() == it.tolist()
    _close(xt, xr, 1e-9)


def test_ldl_singular_and_no_derivative():
    ld, piv, info = rg.linalg.ldl_factor_ex(rg.zeros(3, 3))
    t = torch.linalg.ldl_factor_ex(torch.zeros(3, 3))
    assert (ld.tolist(), piv.tolist(), info.item()) == (t.LD.tolist(), t.pivots.tolist(), t.info.item())
    with pytest.raises(RuntimeError, match="ldl_factor: Unknown error code: 1"):
        rg.linalg.ldl_factor(rg.zeros(3, 3))
    errs = []
    for lib in (torch, rg):
        a = lib.tensor([[2.0, 1.0], [1.0, -3.0]], requires_grad=True)
        LD, _ = lib.linalg.ldl_factor(a)
        assert LD.requires_grad and type(LD.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError) as ei:
            LD.sum().backward()
        errs.append(str(ei.value))
    assert errs[0] == errs[1]


@pytest.mark.parametrize("src", [
    "T.linalg.ldl_factor(T.zeros(3, 2))",
    "T.linalg.ldl_factor(T.zeros(3))",
    "T.linalg.ldl_factor(T.zeros(3, 3, dtype=T.long))",
    "T.linalg.ldl_solve(*T.linalg.ldl_factor(T.eye(3)), T.zeros(2, 2))",
    "T.linalg.ldl_solve(*T.linalg.ldl_factor(T.eye(3)), T.zeros(3))",
    "T.linalg.ldl_solve(*T.linalg.ldl_factor(T.eye(3, dtype=T.float64)), T.zeros(3, 2))",
])
def test_ldl_errors(src):
    errs = []
    for lib in (torch, rg):
        with pytest.raises(Exception) as ei:
            eval(src, {"T": lib})
        errs.append((ei.type.__name__, str(ei.value)))
    assert errs[0] == errs[1]
