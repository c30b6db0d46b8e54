"""autograd.functional (jacobian, hessian, vjp, jvp, hvp, vhp) and autograd.grad with
is_grads_batched: values, nesting of the returned tuples, strict-mode and argument errors,
all compared with torch running the same code."""
import pytest

import retrograd as rg
from parity import trim_to_torch, norm

torch = pytest.importorskip("torch")


def outcome(lib, f):
    try:
        return norm(f(lib), shape=True, digits=6)
    except Exception as e:  # noqa: BLE001 - compared across libraries
        return "raised", type(e).__name__, norm(str(e))


def check(f):
    theirs = outcome(torch, f)
    ours = trim_to_torch(outcome(rg, f), theirs)  # (PyTorch's message; retrograd's added lines aside)
    assert ours == theirs
    return ours


def x_(lib):
    return lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)


def y_(lib):
    return lib.tensor([0.5, -1.0], dtype=lib.float64)


def ones(lib, n):
    return lib.ones(n, dtype=lib.float64)


def f2(a, b):
    return a.sum() * b, a * 2


def f4(a, b):
    return (a ** 2).sum() * (b ** 3).sum()


CASES = {
    "jac_single": lambda L: L.autograd.functional.jacobian(lambda a: a ** 2, x_(L)),
    "jac_tuple": lambda L: L.autograd.functional.jacobian(f2, (x_(L), y_(L))),
    "jac_vectorize": lambda L: L.autograd.functional.jacobian(f2, (x_(L), y_(L)), vectorize=True),
    "jac_fwd": lambda L: L.autograd.functional.jacobian(lambda a: a.exp(), x_(L), strategy="forward-mode",
                                                        vectorize=True),
    "jac_fwd_novec": lambda L: L.autograd.functional.jacobian(lambda a: a, x_(L), strategy="forward-mode"),
    "jac_fwd_graph": lambda L: L.autograd.functional.jacobian(lambda a: a, x_(L), strategy="forward-mode",
                                                              create_graph=True),
    "jac_bad_strategy": lambda L: L.autograd.functional.jacobian(lambda a: a, x_(L), strategy="bad"),
    "jac_create_graph": lambda L: L.autograd.functional.jacobian(lambda a: a ** 2, x_(L), create_graph=True),
    "jac_strict_unused": lambda L: L.autograd.functional.jacobian(lambda a, b: a * 2, (x_(L), y_(L)), strict=True),
    "jac_unused": lambda L: L.autograd.functional.jacobian(lambda a, b: a * 2, (x_(L), y_(L))),
    "jac_strict_nograd": lambda L: L.autograd.functional.jacobian(lambda a: a.detach(), x_(L), strict=True),
    "jac_strict_graph": lambda L: L.autograd.functional.jacobian(lambda a: a * 2, x_(L), strict=True,
                                                                 create_graph=True),
    "jac_strict_vec": lambda L: L.autograd.functional.jacobian(lambda a: a * 2, x_(L), strict=True, vectorize=True),
    "jac_non_tensor_out": lambda L: L.autograd.functional.jacobian(lambda a: 3, x_(L)),
    "jac_list_in": lambda L: L.autograd.functional.jacobian(lambda a: a, [x_(L)]),
    "jac_non_tensor_in": lambda L: L.autograd.functional.jacobian(lambda a, b: a, (x_(L), 3)),
    "hess_single": lambda L: L.autograd.functional.hessian(lambda a: (a ** 3).sum(), x_(L)),
    "hess_tuple": lambda L: L.autograd.functional.hessian(f4, (x_(L), y_(L))),
    "hess_graph": lambda L: L.autograd.functional.hessian(f4, (x_(L), y_(L)), create_graph=True),
    "hess_not_scalar": lambda L: L.autograd.functional.hessian(lambda a: a * 2, x_(L)),
    "hess_tuple_out": lambda L: L.autograd.functional.hessian(lambda a: (a, a), x_(L)),
    "hess_strict_linear": lambda L: L.autograd.functional.hessian(lambda a: a.sum() * 2, x_(L), strict=True),
    "vjp": lambda L: L.autograd.functional.vjp(lambda a: a ** 2, x_(L), ones(L, 3)),
    "vjp_tuple": lambda L: L.autograd.functional.vjp(f2, (x_(L), y_(L)), (ones(L, 2), ones(L, 3))),
    "vjp_no_v": lambda L: L.autograd.functional.vjp(lambda a: a ** 2, x_(L)),
    "vjp_scalar": lambda L: L.autograd.functional.vjp(lambda a: (a ** 3).sum(), x_(L)),
    "vjp_bad_size": lambda L: L.autograd.functional.vjp(lambda a: a, x_(L), ones(L, 2)),
    "vjp_bad_len": lambda L: L.autograd.functional.vjp(f2, (x_(L), y_(L)), (ones(L, 2),)),
    "vjp_bad_entry": lambda L: L.autograd.functional.vjp(f2, (x_(L), y_(L)), (ones(L, 2), ones(L, 2))),
    "jvp": lambda L: L.autograd.functional.jvp(lambda a: a ** 2, x_(L), ones(L, 3)),
    "jvp_tuple": lambda L: L.autograd.functional.jvp(f2, (x_(L), y_(L)), (ones(L, 3), ones(L, 2))),
    "jvp_graph": lambda L: L.autograd.functional.jvp(lambda a: a ** 2, x_(L), ones(L, 3), create_graph=True),
    "hvp": lambda L: L.autograd.functional.hvp(f4, (x_(L), y_(L)), (ones(L, 3), ones(L, 2))),
    "vhp": lambda L: L.autograd.functional.vhp(f4, (x_(L), y_(L)), (ones(L, 3), ones(L, 2))),
    "vhp_no_v": lambda L: L.autograd.functional.vhp(lambda a: (a ** 3).sum(), x_(L)),
    "hvp_not_scalar": lambda L: L.autograd.functional.hvp(lambda a: a ** 2, x_(L), ones(L, 3)),
    "vhp_strict_linear": lambda L: L.autograd.functional.vhp(lambda a: a.sum(), x_(L), ones(L, 3), strict=True),
    "hvp_linear": lambda L: L.autograd.functional.hvp(lambda a: a.sum(), x_(L), ones(L, 3)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_functional_matches_torch(case):
    check(CASES[case])


def test_jacobian_create_graph_is_differentiable():
    x = rg.tensor([1.0, 2.0], dtype=rg.float64, requires_grad=True)
    jac = rg.autograd.functional.jacobian(lambda a: a ** 3, x, create_graph=True)
    (g,) = rg.autograd.grad(jac.sum(), x)
    assert g.tolist() == [6.0, 12.0]


def batched(L, **kw):
    w = L.tensor([1.0, 2.0], dtype=L.float64, requires_grad=True)
    u = L.tensor([1.0], dtype=L.float64, requires_grad=True)
    z = w ** 3
    ins = [w, u] if kw.pop("unused", False) else w
    return L.autograd.grad(z, ins, L.eye(2, dtype=L.float64), is_grads_batched=True, **kw)


@pytest.mark.parametrize("kw", [{}, {"create_graph": True}, {"unused": True, "allow_unused": True},
                                {"unused": True, "materialize_grads": True}, {"unused": True}])
def test_grad_is_grads_batched(kw):
    check(lambda L: batched(L, **dict(kw)))
