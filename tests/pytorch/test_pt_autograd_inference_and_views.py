"""Fixes found by running PyTorch's test/autograd/test_{functional,inference_mode,forward_mode,
node_lifecycle}.py on retrograd, each checked against torch 2.13: multi-root ``autograd.grad``,
``autograd.functional`` helpers, inference-tensor views, views rebased after in-place changes,
``out=`` refusals, forward-AD bits, ``Tensor._use_count`` and the test-infrastructure modules."""
from __future__ import annotations

import gc

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

TOL = {"rtol": 1e-12, "atol": 1e-12}


def _np(t):
    return t.detach().numpy()


def _msg(fn, lib_exc=RuntimeError):
    with pytest.raises(lib_exc) as info:
        fn()
    return type(info.value), str(info.value)


# ------------------------------------------------------------ engine: one root inside another's graph
def _first_grads(lib):
    a = lib.tensor([0.1, 0.2, 0.3], dtype=lib.float64, requires_grad=True)
    b = lib.tensor([0.1, 0.2, 0.3, 0.4], dtype=lib.float64, requires_grad=True)
    loss = (a + 3 * b.narrow(0, 0, 3)).exp().sum()
    ja, jb = lib.autograd.grad(loss, (a, b), create_graph=True)  # jb's graph contains ja's node
    return a, b, ja, jb


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_grad_with_root_inside_other_roots_graph(order):
    res = []
    for lib in (rg, torch):
        a, b, ja, jb = _first_grads(lib)
        roots = (ja, jb)
        seeds = (lib.ones(3, dtype=lib.float64), lib.tensor([1., 2., 3., 4.], dtype=lib.float64))
        ga, gb = lib.autograd.grad(tuple(roots[i] for i in order), (a, b), tuple(seeds[i] for i in order))
        res.append((_np(ga), _np(gb)))
    for x, y in zip(*res):
        np.testing.assert_allclose(x, y, **TOL)


def test_hvp_two_inputs_matches_torch():
    def run(lib):
        def f(a, b):
            return (a + 3 * b.narrow(0, 0, 3)).exp().sum()

        inputs = (lib.tensor([0.1, 0.5, 0.9], dtype=lib.float64, requires_grad=True),
                  lib.tensor([0.2, 0.4, 0.6, 0.8], dtype=lib.float64, requires_grad=True))
        v = (lib.tensor([1., -1., 2.], dtype=lib.float64, requires_grad=True),
             lib.tensor([0.5, 1., 1.5, 2.], dtype=lib.float64, requires_grad=True))
        out, hv = lib.autograd.functional.hvp(f, inputs, v, create_graph=True)
        _, vh = lib.autograd.functional.vhp(f, inputs, v)
        return out, hv, vh

    r_out, r_hv, r_vh = run(rg)
    t_out, t_hv, t_vh = run(torch)
    np.testing.assert_allclose(_np(r_out), _np(t_out), **TOL)
    for r, t in zip(r_hv + r_vh, t_hv + t_vh):
        np.testing.assert_allclose(_np(r), _np(t), **TOL)
    assert [type(h.grad_fn).__name__ for h in r_hv] == [type(h.grad_fn).__name__ for h in t_hv]


def test_construct_standard_basis_for():
    shapes, dtypes = [(2, 3), (), (4,)], ["float64", "float32", "float64"]
    got = rg.autograd.functional._construct_standard_basis_for(
        tuple(rg.zeros(s, dtype=getattr(rg, d)) for s, d in zip(shapes, dtypes)), (6, 1, 4))
    want = torch.autograd.functional._construct_standard_basis_for(
        tuple(torch.zeros(s, dtype=getattr(torch, d)) for s, d in zip(shapes, dtypes)), (6, 1, 4))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert str(g.dtype).split(".")[1] == str(w.dtype).split(".")[1]
        np.testing.assert_array_equal(_np(g), _np(w))


# ------------------------------------------------------------ inference tensors
def _inference_view_facts(lib, make):
    out = []
    for rq in (True, False):
        with lib.inference_mode():
            c = lib.ones(1, 2, 3, requires_grad=rq)
            v = make(c)
            out.append((v.requires_grad, v._is_view(), v.is_leaf, lib.is_inference(v), v._base is None))
        v = make(c)
        out.append((v.requires_grad, v._is_view(), v.is_leaf, lib.is_inference(v), v._base is None))
    return out


@pytest.mark.parametrize("make", [lambda c: c.view(-1), lambda c: c.transpose(0, 1), lambda c: c[0],
                                  lambda c: c.detach(), lambda c: c.view_as(c)])
def test_views_of_inference_tensors(make):
    assert _inference_view_facts(rg, make) == _inference_view_facts(torch, make)


def test_detach_in_inference_mode_of_normal_tensor_is_normal():
    facts = []
    for lib in (rg, torch):
        n = lib.ones(2, requires_grad=True).clone()
        with lib.inference_mode():
            d = n.detach()
        facts.append((lib.is_inference(d), d.requires_grad))
    assert facts[0] == facts[1]


def test_inference_tensor_version_raises():
    msgs = []
    for lib in (rg, torch):
        with lib.inference_mode():
            c = lib.ones(2)
        msgs.append(_msg(lambda: c._version))
        msgs.append(_msg(lambda: c.view(-1)._version))
    assert str(msgs[0][1]) == str(msgs[2][1]) and msgs[1][1] == msgs[3][1]


@pytest.mark.parametrize("mode", ["inference_mode", "no_grad"])
@pytest.mark.parametrize("inplace", [lambda x: x.add_(2), lambda x: x.transpose_(0, 1)])
def test_view_made_in_mode_then_base_changed_in_place(mode, inplace):
    got = []
    for lib in (rg, torch):
        s = lib.ones(1, 2, 3, requires_grad=True)
        a = s.clone()
        with getattr(lib, mode)():
            v = a.view(-1)
        inplace(a)
        got.append((_msg(lambda: v.grad_fn), _msg(lambda: v.is_leaf), v.requires_grad))
    assert got[0] == got[1]
    with pytest.raises(RuntimeError, match="A view was created in"):  # a backward through it refuses too
        (v * 2).sum().backward()


def test_view_made_in_inference_mode_base_not_requiring_grad_is_fine():
    for lib in (rg, torch):
        a = lib.ones(1, 2, 3).clone()
        with lib.inference_mode():
            v = a.view(-1)
        a.add_(2)
        assert v.grad_fn is None


def test_transpose_inplace_regenerates_views():
    res = []
    for lib in (rg, torch):
        s = lib.arange(6., dtype=lib.float64, requires_grad=True)
        a = (s * 1).view(2, 3)
        v = a[:, 1]
        a.t_()
        name = type(v.grad_fn).__name__
        a.mul_(2)
        (v * lib.tensor([1., 5.], dtype=lib.float64)).sum().backward()
        res.append((name, _np(s.grad).tolist(), _np(a).tolist()))
    assert res[0] == res[1]


# ------------------------------------------------------------ out= refusals
@pytest.mark.parametrize("op", ["mul", "add", "sub", "div", "true_divide", "pow", "atan2", "maximum", "exp", "sin",
                                "neg", "sigmoid"])
def test_out_with_inputs_requiring_grad_is_refused(op):
    got = []
    for lib in (rg, torch):
        s = lib.ones(2, requires_grad=True)
        f = getattr(lib, op)
        args = (s, s) if op in ("mul", "add", "sub", "div", "true_divide", "pow", "atan2", "maximum") else (s,)
        got.append(_msg(lambda: f(*args, out=lib.zeros(2))))
        with lib.no_grad():
            o = lib.zeros(2)
            f(*args, out=o)  # fine without grad recording
        got.append(o.requires_grad)
    assert got[:2] == got[2:]


def test_out_grad_check_comes_before_inference_check():
    got = []
    for lib in (rg, torch):
        s = lib.ones(1, 2, 3, requires_grad=True)
        with lib.inference_mode():
            c = lib.ones(1, 2, 3)
        got.append(_msg(lambda: lib.mul(s, s, out=c)))
        got.append(_msg(lambda: lib.mul(s.detach(), s.detach(), out=c)))
    assert got[:2] == got[2:]


def test_non_differentiable_out_with_grad_inputs_is_allowed():
    for lib in (rg, torch):
        x = lib.ones(2, requires_grad=True)
        o = lib.zeros(2, dtype=lib.bool)
        assert lib.eq(x, x, out=o) is o


# ------------------------------------------------------------ forward AD
@pytest.mark.parametrize("case", ["out_is_dual", "input_is_dual", "unary"])
def test_forward_ad_out_variant_is_refused(case):
    got = []
    for lib in (rg, torch):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            foo = fw.make_dual(lib.rand(2), lib.rand(2))
            bar = lib.rand(2)
            call = {"out_is_dual": lambda: lib.add(bar, bar, out=foo),
                    "input_is_dual": lambda: lib.mul(foo, bar, out=bar),
                    "unary": lambda: lib.sin(foo, out=bar)}[case]
            got.append(_msg(call))
            assert lib.add(bar, bar, out=lib.empty(2)) is not None  # plain out= still works
    assert got[0] == (NotImplementedError, got[1][1]) and got[1][0] is NotImplementedError


def test_forward_ad_current_level():
    levels = []
    for lib in (rg, torch):
        fw = lib.autograd.forward_ad
        seen = [fw._current_level]
        with fw.dual_level():
            seen.append(fw._current_level)
        seen.append(fw._current_level)
        levels.append(seen)
    assert levels[0] == levels[1] == [-1, 0, -1]


def test_detach_inplace_drops_tangent():
    got = []
    for lib in (rg, torch):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            dual = fw.make_dual(lib.ones(2), lib.ones(2)).clone()
            dual.detach_()
            got.append(fw.unpack_dual(dual * 2).tangent is None)
    assert got == [True, True]


# ------------------------------------------------------------ node lifetimes
def _use_counts(lib):
    a = lib.randn(4, requires_grad=True)
    counts = [a._use_count()]
    b = a * 2
    counts.append(a._use_count())
    c0, c1 = (a * 3).split(2)
    del b
    counts.append(a._use_count())
    del c0
    counts.append(a._use_count())
    del c1
    gc.collect()
    counts.append(a._use_count())
    x = lib.randn(2)
    y = x.view(2)
    counts.append(x._use_count())
    del y
    counts.append(x._use_count())
    return counts


def test_use_count_follows_the_graph():
    assert _use_counts(rg) == _use_counts(torch)


# ------------------------------------------------------------ test infrastructure
def test_logging_tensor_behaves_like_its_tensor():
    from retrograd.testing._internal import logging_tensor as rlt
    from torch.testing._internal import logging_tensor as tlt

    grads = []
    for lib, mod in ((rg, rlt), (torch, tlt)):
        x = mod.LoggingTensor(lib.tensor([1., 2.], dtype=lib.float64), requires_grad=True)
        assert isinstance(x, lib.Tensor) and x.requires_grad
        (x * x).sum().backward()
        grads.append(getattr(x.grad, "elem", x.grad).tolist())  # (torch's grad is a LoggingTensor too)
        jac = lib.autograd.functional.jacobian(lambda t: t ** 2, mod.LoggingTensor(lib.tensor([3.], dtype=lib.float64)))
        grads.append(getattr(jac, "elem", jac).tolist())
    assert grads[:2] == grads[2:]
    with pytest.raises(NotImplementedError, match="__torch_dispatch__"):
        rlt.capture_logs()
    with pytest.raises(TypeError):
        rlt.LoggingTensor([1.0])


def test_hardware_classification_members():
    from retrograd.testing._internal.common_utils import HardwareClassification

    assert [m.name for m in HardwareClassification] == ["GENERIC", "ACCELERATOR", "CPU", "CUDA", "MPS", "XPU"]


# ------------------------------------------------------------ from test/autograd/test_device_type.py
@pytest.mark.parametrize("make", [lambda a: a.unbind(0), lambda a: a.view_as(a).unbind(0),
                                  lambda a: (a.unbind(0)[0].view_as(a.unbind(0)[0]),)])
def test_inplace_on_zero_dim_multi_output_views_is_refused(make):
    got = []
    for lib in (rg, torch):
        a = lib.rand(10, dtype=lib.float64, requires_grad=True).clone()
        v = make(a)[0]
        got.append((v._is_view(), _msg(lambda: v.mul_(2))))
    assert got[0] == got[1]


@pytest.mark.parametrize("call", [lambda F, a: F.elu_(a, alpha=-2), lambda F, a: F.celu_(a, alpha=-2),
                                  lambda F, a: F.leaky_relu_(a, -2), lambda F, a: F.rrelu_(a, -5.0, 1.0)])
def test_inplace_activation_negative_slope_fails_in_backward(call):
    got = []
    for lib in (rg, torch):
        a = lib.tensor([-1., 1.], requires_grad=True)
        b = call(lib.nn.functional, a.clone())  # the forward is allowed
        got.append((type(b.grad_fn).__name__, _msg(lambda: b.backward(lib.ones(2)))))
    assert got[0] == got[1]


@pytest.mark.parametrize("slope", [0.1, 0.0])
def test_inplace_activations_gradients(slope):
    grads = []
    for lib in (rg, torch):
        F = lib.nn.functional
        for f in (lambda a: F.rrelu_(a, slope, slope), lambda a: F.leaky_relu_(a, slope),
                  lambda a: F.elu_(a, slope)):
            a = lib.tensor([-1., 1., 0., -0.5], dtype=lib.float64, requires_grad=True)
            f(a.clone()).sum().backward()
            grads.append(_np(a.grad).tolist())
    assert grads[:3] == grads[3:]


def test_grad_self_assignment_is_refused():
    got = []
    for lib in (rg, torch):
        x = lib.randn(5, 5)

        def assign(x=x):
            x.grad = x
        got.append(_msg(assign))
    assert got[0] == got[1]


def test_set_():
    res = []
    for lib in (rg, torch):
        d, e = lib.zeros(3), lib.arange(4.)
        v0 = d._version
        r = d.set_(e)
        e[0] = 7.
        out = [r is d, d.tolist(), d._version - v0]
        x = lib.zeros(4)
        x.set_(lib.arange(6.), 1, (2, 2), (2, 1))
        out.append(x.tolist())
        out.append(tuple(lib.zeros(2).set_().shape))
        with lib.no_grad():
            p = lib.nn.Parameter(lib.ones(4, dtype=lib.float64))
            p.set_(p[1:])
        lib.cat((p, p)).sum().backward()
        out += [type(p).__name__, p.grad.tolist()]
        out.append(_msg(lambda: lib.ones(3, requires_grad=True).set_(lib.zeros(2))))
        out.append(_msg(lambda: lib.zeros(2).set_(lib.zeros(2, dtype=lib.float64))))
        res.append(out)
    assert res[0] == res[1]


def test_cudnn_flags_context():
    seen = []
    for lib in (rg, torch):
        cudnn = lib.backends.cudnn
        before = (cudnn.enabled, cudnn.deterministic)
        with cudnn.flags(enabled=False, deterministic=True):
            inside = (cudnn.enabled, cudnn.deterministic)
        seen.append((before, inside, (cudnn.enabled, cudnn.deterministic)))
    assert seen[0] == seen[1]


@pytest.mark.parametrize("target_lengths", [[0, 0, 0], [0, 2, 1]])
def test_ctc_loss_with_empty_targets(target_lengths):
    res = []
    for lib in (rg, torch):
        lp = lib.log_softmax(lib.linspace(-1, 1, 60, dtype=lib.float64).reshape(5, 3, 4), 2).requires_grad_()
        loss = lib.nn.functional.ctc_loss(lp, lib.tensor([[1, 2], [2, 2], [3, 1]]), [5, 4, 3], target_lengths,
                                          reduction="none")
        g, = lib.autograd.grad(loss.sum(), lp)
        res.append((_np(loss), _np(g)))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fa", ["contiguous_format", "channels_last"])
@pytest.mark.parametrize("fb", ["contiguous_format", "channels_last"])
def test_leaf_grad_takes_leaf_layout(fa, fb):
    strides = []
    for lib in (rg, torch):
        a = lib.rand((2, 3, 4, 5)).to(memory_format=getattr(lib, fa)).requires_grad_()
        b = lib.rand((2, 3, 4, 5)).to(memory_format=getattr(lib, fb)).requires_grad_()
        a.sum().backward()
        s = [a.grad.stride()]
        a.grad = None
        (a * b).sum().backward()
        s += [a.grad.stride(), b.grad.stride()]
        c = lib.empty_strided((2, 2), (4, 2)).copy_(lib.rand((2, 2))).requires_grad_()
        (c * lib.rand((2, 2))).sum().backward()
        s.append(c.grad.stride())
        strides.append(s)
    assert strides[0] == strides[1]


def test_emit_nvtx_needs_cuda():
    got = []
    for lib in (rg, torch):
        with lib.autograd.profiler.emit_nvtx(enabled=False):
            pass
        got.append(_msg(lambda: lib.autograd.profiler.emit_nvtx().__enter__(), AssertionError))
    assert got[0] == got[1]


def test_cuda_memory_leak_check_has_no_devices():
    from retrograd.testing._internal.common_utils import CudaMemoryLeakCheck

    assert CudaMemoryLeakCheck.get_cuda_memory_usage() == []
    with CudaMemoryLeakCheck(None):
        pass
