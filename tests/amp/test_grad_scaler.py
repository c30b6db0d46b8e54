"""torch.amp.GradScaler / custom_fwd / custom_bwd and the torch.cuda.amp aliases, against torch."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import retrograd as rg
from parity import error_of

torch = pytest.importorskip("torch")


def _training_run(T, inject_inf_at=(2, 5), steps=8, **scaler_kwargs):
    """A scaled SGD loop; some steps get an inf gradient. Returns scales, trackers, params, states."""
    T.manual_seed(0)
    w = T.nn.Parameter(T.tensor([[0.5, -1.0], [2.0, 0.25]]))
    b = T.nn.Parameter(T.tensor([0.1, -0.2]))
    opt = T.optim.SGD([w, b], lr=0.1, momentum=0.9)
    scaler = T.amp.GradScaler("cpu", **scaler_kwargs)
    x = T.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
    log = []
    for step in range(steps):
        opt.zero_grad()
        loss = ((x @ w.t() + b) ** 2).mean()
        if step in inject_inf_at:
            loss = loss * T.tensor(float("inf"))
        scaler.scale(loss).backward()
        if step == 3:  # unscale explicitly (e.g. to clip) before step
            scaler.unscale_(opt)
            T.nn.utils.clip_grad_norm_([w, b], 1.0)
        scaler.step(opt)
        scaler.update()
        log.append((scaler.get_scale(), scaler._get_growth_tracker(), w.detach().numpy().copy(),
                    b.detach().numpy().copy()))
    return log, scaler.state_dict()


@pytest.mark.parametrize("kwargs", [dict(init_scale=8.0, growth_interval=2),
                                    dict(init_scale=2.0 ** 16, growth_factor=4.0, backoff_factor=0.25,
                                         growth_interval=3)])
def test_scaled_training_matches_torch(kwargs):
    (ours, our_state), (theirs, their_state) = _training_run(rg, **kwargs), _training_run(torch, **kwargs)
    assert our_state == their_state
    for (s1, t1, w1, b1), (s2, t2, w2, b2) in zip(ours, theirs):
        assert (s1, t1) == (s2, t2)
        np.testing.assert_allclose(w1, w2, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(b1, b2, rtol=1e-6, atol=1e-7)


def test_scale_of_iterables_and_bad_outputs():
    for T in (rg, torch):
        s = T.amp.GradScaler("cpu", init_scale=2.0)
        a, b = s.scale([T.ones(1), (T.ones(2) * 3,)])
        assert a.tolist() == [2.0] and b[0].tolist() == [6.0, 6.0]
    assert error_of(rg, lambda T: T.amp.GradScaler("cpu").scale(3.0)) == \
        error_of(torch, lambda T: T.amp.GradScaler("cpu").scale(3.0))


def _errors(T):
    out = []

    def attempt(f):
        try:
            f()
            out.append(None)
        except Exception as exc:  # noqa: BLE001 - comparing the type and text
            out.append((type(exc).__name__, str(exc)))

    w = T.nn.Parameter(T.ones(2))
    opt = T.optim.SGD([w], lr=0.1)
    s = T.amp.GradScaler("cpu")
    attempt(lambda: s.step(opt))  # step before scale()
    attempt(lambda: s.update())
    s.scale(w.sum()).backward()
    s.unscale_(opt)
    attempt(lambda: s.unscale_(opt))  # twice
    s.step(opt)
    attempt(lambda: s.step(opt))  # twice
    attempt(lambda: s.unscale_(opt))  # after step
    attempt(lambda: s.step(opt, closure=lambda: None))
    s.update()
    attempt(lambda: s.update(T.ones(2)))
    s.update(3.0)
    out.append(s.get_scale())
    attempt(lambda: s.load_state_dict({}))
    attempt(lambda: T.amp.GradScaler("cpu", growth_factor=1.0))
    attempt(lambda: T.amp.GradScaler("cpu", backoff_factor=1.0))
    w16 = T.nn.Parameter(T.ones(2, dtype=T.float16))
    opt16 = T.optim.SGD([w16], lr=0.1)
    s16 = T.amp.GradScaler("cpu")
    s16.scale(w16.float().sum()).backward()
    attempt(lambda: s16.unscale_(opt16))
    return out


def test_state_machine_errors_match_torch():
    assert _errors(rg) == _errors(torch)


def test_disabled_scalers_and_warnings_match_torch():
    def run(T):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            s = T.amp.GradScaler()  # "cuda": disabled with a warning here
            c = T.cuda.amp.GradScaler()
            with T.cuda.amp.autocast():
                pass
            off = T.amp.GradScaler("cpu", enabled=False)
        p = T.nn.Parameter(T.ones(1))
        opt = T.optim.SGD([p], lr=1.0)
        loss = s.scale(p * 2)
        loss.backward()
        s.step(opt)
        s.update()
        return ([(x.category.__name__, str(x.message)) for x in w], s.is_enabled(), c.is_enabled(),
                off.is_enabled(), s.get_scale(), s.state_dict(), p.tolist(), loss is not None)

    assert run(rg) == run(torch)


def test_custom_fwd_bwd():
    def run(T):
        class Square(T.autograd.Function):
            @staticmethod
            @T.amp.custom_fwd(device_type="cpu", cast_inputs=T.float32)
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @T.amp.custom_bwd(device_type="cpu")
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g

        x = T.tensor([1.5, -2.0], requires_grad=True)
        Square.apply(x).sum().backward()
        return x.grad.tolist()

    assert run(rg) == run(torch)
    assert error_of(rg, lambda T: T.amp.custom_fwd(device_type=1)) == \
        error_of(torch, lambda T: T.amp.custom_fwd(device_type=1))


def test_data_parallel_without_accelerators_as_torch():
    def run(T):
        T.manual_seed(0)
        inner = T.nn.Linear(2, 1)
        m = T.nn.DataParallel(inner, device_ids=[0])
        out = m(T.ones(3, 2))
        return (repr(m), list(m.state_dict()), m.device_ids, m.module is inner,
                out.tolist() == inner(T.ones(3, 2)).tolist(), T.nn.DataParallel is T.nn.parallel.DataParallel)

    assert run(rg) == run(torch)
    same = error_of(rg, lambda T: T.nn.parallel.DistributedDataParallel(T.nn.Linear(2, 1)))
    assert same == error_of(torch, lambda T: T.nn.parallel.DistributedDataParallel(T.nn.Linear(2, 1)))
