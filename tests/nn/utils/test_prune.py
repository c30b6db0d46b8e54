"""nn.utils.prune vs torch: masks (ties included), reparametrisation, state_dict keys, gradients,
iterative pruning, global pruning, remove, and error types/messages."""
from __future__ import annotations

import copy

import numpy as np
import pytest

import retrograd
import retrograd.nn.utils.prune as RP
from retrograd.nn.utils._topk_select import topk_indices

torch = pytest.importorskip("torch")
TP = pytest.importorskip("torch.nn.utils.prune")

rng = np.random.default_rng(0)


def _n(t):
    return t.detach().numpy()


def _pair(make, values=None):
    """The same module in both libraries (float64), with weights from ``values`` or torch's init."""
    torch.manual_seed(0)
    tm = make(torch.nn).double()
    rm = make(retrograd.nn).double()
    with torch.no_grad():
        for name, p in tm.named_parameters():
            if values is not None and name in values:
                p.copy_(torch.tensor(values[name]))
    rm.load_state_dict({k: retrograd.tensor(_n(v).copy()) for k, v in tm.state_dict().items()})
    return rm, tm


def _lin(nn):
    return nn.Linear(6, 4)


def _conv(nn):
    return nn.Conv2d(3, 5, 2)


def _same_masks(rm, tm):
    tb = dict(tm.named_buffers())
    rb = dict(rm.named_buffers())
    assert list(rb) == list(tb)
    for k in tb:
        assert rb[k].dtype == getattr(retrograd, str(tb[k].dtype).split(".")[1])
        np.testing.assert_array_equal(_n(rb[k]), _n(tb[k]), err_msg=k)


def _tied(shape, levels=3):
    return rng.integers(-levels, levels + 1, size=shape).astype(np.float64)


# ---------------------------------------------------------------------------------------------- topk ties
@pytest.mark.parametrize("largest", [False, True])
def test_topk_selection_matches_torch_on_ties(largest):
    for n in [1, 3, 4, 9, 33, 200, 700]:
        for _ in range(6):
            a = rng.integers(0, rng.integers(1, 5), size=n).astype(np.float32)
            if n > 5:
                a[rng.integers(0, n, size=2)] = np.nan
            for k in sorted({0, 1, n // 64, n // 64 + 1, n // 3, n - 1, n}):
                if not 0 <= k <= n:
                    continue
                want = torch.topk(torch.tensor(a), k, largest=largest).indices.tolist()
                assert sorted(topk_indices(a, k, largest).tolist()) == sorted(want), (a, k)


# ---------------------------------------------------------------------------------------------- l1
@pytest.mark.parametrize("amount", [0, 3, 0.25, 0.5, 1.0, 24])
@pytest.mark.parametrize("ties", [False, True])
def test_l1_unstructured_mask(amount, ties):
    vals = {"weight": _tied((4, 6)) if ties else rng.standard_normal((4, 6))}
    rm, tm = _pair(_lin, vals)
    assert RP.l1_unstructured(rm, "weight", amount=amount) is rm
    TP.l1_unstructured(tm, "weight", amount=amount)
    _same_masks(rm, tm)
    np.testing.assert_array_equal(_n(rm.weight), _n(tm.weight))


def test_reparametrisation_state_dict_and_grads():
    rm, tm = _pair(_lin, {"weight": _tied((4, 6))})
    RP.l1_unstructured(rm, "weight", amount=0.4)
    TP.l1_unstructured(tm, "weight", amount=0.4)
    assert list(rm.state_dict()) == list(tm.state_dict()) == ["bias", "weight_orig", "weight_mask"]
    assert [n for n, _ in rm.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert isinstance(rm.weight_orig, retrograd.nn.Parameter)
    assert not isinstance(rm.weight, retrograd.nn.Parameter) and "weight" in rm.__dict__
    assert type(rm.weight.grad_fn).__name__ == type(tm.weight.grad_fn).__name__ == "MulBackward0"
    assert not rm.weight_mask.requires_grad
    # the hook refreshes ``weight`` from ``weight_orig`` before each forward
    with retrograd.no_grad():
        rm.weight_orig.mul_(2.0)
    with torch.no_grad():
        tm.weight_orig.mul_(2.0)
    x = rng.standard_normal((3, 6))
    ry = rm(retrograd.tensor(x))
    ty = tm(torch.tensor(x))
    np.testing.assert_allclose(_n(ry), _n(ty), rtol=1e-12)
    np.testing.assert_array_equal(_n(rm.weight), _n(tm.weight))
    (ry ** 2).sum().backward()
    (ty ** 2).sum().backward()
    np.testing.assert_allclose(_n(rm.weight_orig.grad), _n(tm.weight_orig.grad), rtol=1e-12)
    assert (_n(rm.weight_orig.grad)[_n(rm.weight_mask) == 0] == 0).all()
    np.testing.assert_allclose(_n(rm.bias.grad), _n(tm.bias.grad), rtol=1e-12)


def test_second_derivative_through_pruned_weight():
    rm, tm = _pair(_lin)
    RP.l1_unstructured(rm, "weight", amount=5)
    TP.l1_unstructured(tm, "weight", amount=5)
    x = rng.standard_normal((2, 6))
    outs = []
    for lib, m in [(retrograd, rm), (torch, tm)]:
        y = (m(lib.tensor(x)) ** 3).sum()
        (g,) = lib.autograd.grad(y, m.weight_orig, create_graph=True)
        (gg,) = lib.autograd.grad((g ** 2).sum(), m.weight_orig)
        outs.append((_n(g), _n(gg)))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-10)
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-10)


def test_importance_scores():
    rm, tm = _pair(_lin)
    scores = _tied((4, 6))
    RP.l1_unstructured(rm, "weight", 7, importance_scores=retrograd.tensor(scores))
    TP.l1_unstructured(tm, "weight", 7, importance_scores=torch.tensor(scores))
    s2 = rng.standard_normal((4, 6))
    RP.ln_structured(rm, "weight", 1, n=2, dim=0, importance_scores=retrograd.tensor(s2))
    TP.ln_structured(tm, "weight", 1, n=2, dim=0, importance_scores=torch.tensor(s2))
    _same_masks(rm, tm)


# ---------------------------------------------------------------------------------------------- structured
@pytest.mark.parametrize("n", [1, 2, 3, float("inf"), float("-inf")])
@pytest.mark.parametrize("dim", [0, 1, -1, -3])
def test_ln_structured_conv(n, dim):
    w = rng.standard_normal((5, 3, 2, 2))
    w[2] = 0.0  # whole zero channels tie
    w[:, 1] = w[:, 0]
    rm, tm = _pair(_conv, {"weight": w})
    for amount in [1, 0.4]:
        RP.ln_structured(rm, "weight", amount, n=n, dim=dim)
        TP.ln_structured(tm, "weight", amount, n=n, dim=dim)
        _same_masks(rm, tm)
    np.testing.assert_array_equal(_n(rm.weight), _n(tm.weight))


def test_ln_structured_fro():
    w = rng.standard_normal((4, 6))
    w[1] = w[3]
    rm, tm = _pair(_lin, {"weight": w})
    RP.ln_structured(rm, "weight", 2, n="fro", dim=0)
    TP.ln_structured(tm, "weight", 2, n="fro", dim=0)
    _same_masks(rm, tm)
    rc, tc = _pair(_conv)  # "fro" over three dims is a matrix-norm error in both
    _check_same_error(lambda: RP.ln_structured(rc, "weight", 1, n="fro", dim=0),
                      lambda: TP.ln_structured(tc, "weight", 1, n="fro", dim=0), RuntimeError)


def test_ln_structured_zero_amount_keeps_mask():
    rm, tm = _pair(_lin)
    RP.ln_structured(rm, "weight", 0, n=1, dim=0)
    TP.ln_structured(tm, "weight", 0, n=1, dim=0)
    _same_masks(rm, tm)


def test_random_structured_and_unstructured_counts():
    m = retrograd.nn.Conv2d(3, 6, 2)
    RP.random_structured(m, "weight", amount=2, dim=0)
    kept = _n(m.weight_mask).reshape(6, -1)
    assert set(kept.min(1)) <= {0.0, 1.0} and (kept.min(1) == kept.max(1)).all() and kept[:, 0].sum() == 4
    RP.random_structured(m, "weight", amount=0.5, dim=0)  # half of the 4 kept channels
    kept2 = _n(m.weight_mask).reshape(6, -1)[:, 0]
    assert kept2.sum() == 2 and (kept2 <= kept[:, 0]).all()
    lin = retrograd.nn.Linear(5, 4)
    RP.random_unstructured(lin, "weight", amount=0.3)
    first = _n(lin.weight_mask).copy()
    assert first.sum() == 14
    RP.random_unstructured(lin, "weight", amount=4)
    second = _n(lin.weight_mask)
    assert second.sum() == 10 and (second <= first).all()
    RP.random_unstructured(lin, "bias", amount=0)
    assert _n(lin.bias_mask).tolist() == [1.0] * 4


# ---------------------------------------------------------------------------------------------- iterative
def test_iterative_pruning_container():
    w = _tied((5, 3, 2, 2), levels=4)
    rm, tm = _pair(_conv, {"weight": w})
    steps = [("l1_unstructured", dict(amount=0.3)), ("ln_structured", dict(amount=1, n=1, dim=0)),
             ("l1_unstructured", dict(amount=5)), ("ln_structured", dict(amount=0.5, n=2, dim=1)),
             ("custom_from_mask", dict(mask=(rng.random(w.shape) > 0.3).astype(np.float64))),
             ("identity", {})]
    for fn, kw in steps:
        rk = {k: retrograd.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        tk = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        getattr(RP, fn)(rm, "weight", **rk)
        getattr(TP, fn)(tm, "weight", **tk)
        _same_masks(rm, tm)
    (hook,) = [h for h in rm._forward_pre_hooks.values()]
    (thook,) = [h for h in tm._forward_pre_hooks.values()]
    assert isinstance(hook, RP.PruningContainer) and len(hook) == len(thook) == len(steps)
    assert [type(h).__name__ for h in hook] == [type(h).__name__ for h in thook]
    assert hook[0]._tensor_name == "weight" and list(rm.state_dict()) == list(tm.state_dict())
    x = rng.standard_normal((2, 3, 4, 4))
    ry, ty = rm(retrograd.tensor(x)), tm(torch.tensor(x))
    np.testing.assert_allclose(_n(ry), _n(ty), rtol=1e-10, atol=1e-12)
    ry.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(_n(rm.weight_orig.grad), _n(tm.weight_orig.grad), rtol=1e-10, atol=1e-12)


def test_container_construction_errors():
    a = RP.L1Unstructured(1)
    a._tensor_name = "weight"
    b = RP.L1Unstructured(1)
    b._tensor_name = "bias"
    ta = TP.L1Unstructured(1)
    ta._tensor_name = "weight"
    tb = TP.L1Unstructured(1)
    tb._tensor_name = "bias"
    c, tc = RP.PruningContainer(a), TP.PruningContainer(ta)
    with pytest.raises(ValueError) as t:
        tc.add_pruning_method(tb)
    with pytest.raises(ValueError) as r:
        c.add_pruning_method(b)
    assert str(r.value).split(" to PruningContainer")[0] == str(t.value).split(" to PruningContainer")[0]
    assert str(r.value).endswith("Found 'bias'")
    with pytest.raises(TypeError, match="is not a BasePruningMethod subclass"):
        c.add_pruning_method(3)
    with pytest.raises(TypeError, match="is not a BasePruningMethod subclass"):
        tc.add_pruning_method(3)


def test_prune_method_on_tensor():
    t = _tied((3, 4))
    d = (rng.random((3, 4)) > 0.2).astype(np.float64)
    r = RP.L1Unstructured(0.5).prune(retrograd.tensor(t), default_mask=retrograd.tensor(d))
    want = TP.L1Unstructured(0.5).prune(torch.tensor(t), default_mask=torch.tensor(d))
    np.testing.assert_array_equal(_n(r), _n(want))
    with pytest.raises(AssertionError, match=r"importance_scores should have the same shape as tensor t, "
                                             r"got torch.Size\(\[2\]\) vs torch.Size\(\[3, 4\]\)"):
        RP.L1Unstructured(1).prune(retrograd.tensor(t), importance_scores=retrograd.ones(2))


# ---------------------------------------------------------------------------------------------- global
def test_global_unstructured():
    net_vals = {"0.weight": _tied((4, 3)), "2.weight": _tied((2, 4))}

    def make(nn):
        return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))

    torch.manual_seed(0)
    tm = make(torch.nn).double()
    rm = make(retrograd.nn).double()
    with torch.no_grad():
        for k, v in net_vals.items():
            tm.get_parameter(k).copy_(torch.tensor(v))
    rm.load_state_dict({k: retrograd.tensor(_n(v).copy()) for k, v in tm.state_dict().items()})
    RP.l1_unstructured(rm[2], "weight", 2)  # an already-pruned parameter takes part too
    TP.l1_unstructured(tm[2], "weight", 2)
    scores = _tied((4,))
    RP.global_unstructured([(rm[0], "weight"), (rm[2], "weight"), (rm[0], "bias")], RP.L1Unstructured,
                           importance_scores={(rm[0], "bias"): retrograd.tensor(scores)}, amount=0.4)
    TP.global_unstructured([(tm[0], "weight"), (tm[2], "weight"), (tm[0], "bias")], TP.L1Unstructured,
                           importance_scores={(tm[0], "bias"): torch.tensor(scores)}, amount=0.4)
    for a, b in [(rm[0], tm[0]), (rm[2], tm[2])]:
        _same_masks(a, b)
    assert [type(h).__name__ for h in rm[0]._forward_pre_hooks.values()] == ["CustomFromMask"] * 2
    assert list(rm.state_dict()) == list(tm.state_dict())
    RP.global_unstructured([(rm[0], "weight")], RP.RandomUnstructured, amount=3)
    assert _n(rm[0].weight_mask).sum() == _n(tm[0].weight_mask).sum() - 3


def test_global_unstructured_errors():
    m = retrograd.nn.Linear(3, 2)
    tm = torch.nn.Linear(3, 2)
    for args, kw in [((5, RP.L1Unstructured), {}),
                     (([(m, "weight")], RP.L1Unstructured), dict(importance_scores=[1], amount=1)),
                     (([(m, "weight")], RP.LnStructured), dict(amount=1, n=1))]:
        targs = tuple(TP.L1Unstructured if a is RP.L1Unstructured else TP.LnStructured if a is RP.LnStructured
                      else [(tm, "weight")] if isinstance(a, list) else a for a in args)
        with pytest.raises(TypeError) as t:
            TP.global_unstructured(*targs, **kw)
        with pytest.raises(TypeError) as r:
            RP.global_unstructured(*args, **kw)
        assert str(r.value).replace("retrograd.nn.utils.prune", "torch.nn.utils.prune") == str(t.value)


# ---------------------------------------------------------------------------------------------- remove etc.
def test_remove_makes_pruning_permanent():
    rm, tm = _pair(_lin)
    RP.l1_unstructured(rm, "weight", 0.5)
    RP.l1_unstructured(rm, "bias", 1)
    TP.l1_unstructured(tm, "weight", 0.5)
    TP.l1_unstructured(tm, "bias", 1)
    assert RP.is_pruned(rm) and RP.is_pruned(retrograd.nn.Sequential(rm))
    orig = rm.weight_orig
    assert RP.remove(rm, "weight") is rm
    TP.remove(tm, "weight")
    assert rm.weight is orig and isinstance(rm.weight, retrograd.nn.Parameter)
    assert list(rm.state_dict()) == list(tm.state_dict()) == ["bias_orig", "weight", "bias_mask"]
    np.testing.assert_array_equal(_n(rm.weight), _n(tm.weight))
    assert len(rm._forward_pre_hooks) == 1
    RP.remove(rm, "bias")
    assert not RP.is_pruned(rm) and not rm._forward_pre_hooks
    x = retrograd.tensor(rng.standard_normal((2, 6)))
    rm(x).sum().backward()
    assert rm.weight.grad is not None


def test_remove_errors():
    m, tm = retrograd.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    with pytest.raises(ValueError) as t:
        TP.remove(tm, "weight")
    with pytest.raises(ValueError) as r:
        RP.remove(m, "weight")
    assert str(r.value) == str(t.value)
    assert str(r.value).startswith("Parameter 'weight' of module Linear(in_features=3")


def test_custom_from_mask_identity_and_dtypes():
    rm, tm = _pair(_lin)
    mask = (rng.random(4) > 0.5)
    RP.custom_from_mask(rm, "bias", retrograd.tensor(mask))
    TP.custom_from_mask(tm, "bias", torch.tensor(mask))
    RP.identity(rm, "weight")
    TP.identity(tm, "weight")
    _same_masks(rm, tm)
    np.testing.assert_array_equal(_n(rm.bias), _n(tm.bias))
    m32 = retrograd.nn.Linear(3, 2)
    RP.l1_unstructured(m32, "weight", 2)
    assert m32.weight_mask.dtype == retrograd.float32 and m32.weight.dtype == retrograd.float32


def test_deepcopy_of_pruned_module():
    # torch refuses: the pruned ``weight`` attribute is a non-leaf tensor
    _check_same_error(lambda: copy.deepcopy(RP.l1_unstructured(retrograd.nn.Linear(3, 2), "weight", 2)),
                      lambda: copy.deepcopy(TP.l1_unstructured(torch.nn.Linear(3, 2), "weight", 2)), RuntimeError)
    # after ``remove`` it copies, and the copy is independent
    m = RP.remove(RP.l1_unstructured(retrograd.nn.Linear(3, 2), "weight", 2), "weight")
    c = copy.deepcopy(m)
    with retrograd.no_grad():
        c.weight.fill_(5.0)
    assert (_n(m.weight) != 5.0).all() and not RP.is_pruned(c)


class _OddEntries:
    """A user-defined method in both libraries: prune every other flat entry."""

    @staticmethod
    def make(base):
        class Odd(base):
            PRUNING_TYPE = "unstructured"

            def compute_mask(self, t, default_mask):
                mask = default_mask.clone()
                mask.view(-1)[1::2] = 0
                return mask
        return Odd


def test_user_defined_method_joins_container():
    rm, tm = _pair(_lin)
    RP.l1_unstructured(rm, "weight", 3)
    TP.l1_unstructured(tm, "weight", 3)
    _OddEntries.make(RP.BasePruningMethod).apply(rm, "weight")
    _OddEntries.make(TP.BasePruningMethod).apply(tm, "weight")
    _same_masks(rm, tm)


# ---------------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize("amount", [-1, 1.5, -0.1, "a", None, 2.0])
def test_amount_validation(amount):
    for cls in ["L1Unstructured", "RandomUnstructured"]:
        with pytest.raises((TypeError, ValueError)) as t:
            getattr(TP, cls)(amount)
        with pytest.raises(type(t.value)) as r:
            getattr(RP, cls)(amount)
        assert str(r.value) == str(t.value)
    with pytest.raises(type(t.value), match="amount="if isinstance(t.value, ValueError) else "Invalid type"):
        RP.ln_structured(retrograd.nn.Linear(2, 2), "weight", amount, n=1, dim=0)


def _check_same_error(rcall, tcall, exc):
    with pytest.raises(exc) as t:
        tcall()
    with pytest.raises(exc) as r:
        rcall()
    assert str(r.value).replace("torch.Size", "torch.Size") == str(t.value)


def test_errors_match_torch_and_module_is_restored():
    rm, tm = _pair(_lin)
    _check_same_error(lambda: RP.l1_unstructured(rm, "weight", 25), lambda: TP.l1_unstructured(tm, "weight", 25),
                      ValueError)
    # a failed first pruning leaves the parameter in place (and moves it to the end, like torch)
    assert list(rm.state_dict()) == list(tm.state_dict()) == ["bias", "weight"]
    assert isinstance(rm.weight, retrograd.nn.Parameter) and not rm._forward_pre_hooks
    _check_same_error(lambda: RP.ln_structured(rm, "bias", 1, n=1, dim=0),
                      lambda: TP.ln_structured(tm, "bias", 1, n=1, dim=0), ValueError)
    _check_same_error(lambda: RP.random_structured(rm, "bias", 1, dim=0),
                      lambda: TP.random_structured(tm, "bias", 1, dim=0), ValueError)
    _check_same_error(lambda: RP.ln_structured(rm, "weight", 1, n=1, dim=2),
                      lambda: TP.ln_structured(tm, "weight", 1, n=1, dim=2), IndexError)
    _check_same_error(lambda: RP.ln_structured(rm, "weight", 7, n=1, dim=1),
                      lambda: TP.ln_structured(tm, "weight", 7, n=1, dim=1), ValueError)
    with pytest.raises(AssertionError, match=r"importance_scores should have the same shape as parameter weight "
                                             r"of Linear\(in_features=6, out_features=4, bias=True\), got "
                                             r"torch.Size\(\[3\]\) vs torch.Size\(\[4, 6\]\)"):
        RP.l1_unstructured(rm, "weight", 1, importance_scores=retrograd.ones(3))
    with pytest.raises(AssertionError):
        TP.l1_unstructured(tm, "weight", 1, importance_scores=torch.ones(3))
    # structured pruning after a first pruning goes through the container's dim check
    RP.l1_unstructured(rm, "weight", 1)
    TP.l1_unstructured(tm, "weight", 1)
    _check_same_error(lambda: RP.custom_from_mask(rm, "weight", retrograd.ones(3)),
                      lambda: TP.custom_from_mask(tm, "weight", torch.ones(3)), AssertionError)
    # as in torch, a failed later pruning has dropped the hook but kept ``_orig`` / ``_mask``
    assert not rm._forward_pre_hooks and not tm._forward_pre_hooks
    assert list(rm.state_dict()) == list(tm.state_dict())
    rm, tm = _pair(_lin)
    RP.l1_unstructured(rm, "weight", 1)
    TP.l1_unstructured(tm, "weight", 1)
    _check_same_error(lambda: RP.ln_structured(rm, "weight", 1, n=1, dim=-3),
                      lambda: TP.ln_structured(tm, "weight", 1, n=1, dim=-3), IndexError)
    with pytest.raises(TypeError, match="Can't instantiate abstract class"):
        RP.BasePruningMethod()
