"""Tests of retrograd.optim.muon, checked against PyTorch."""

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

from parity import TORCH_RUNS_VECTOR_KERNELS  # noqa: E402

from .._behaviour_compare import raises_like  # noqa: E402


# ------------------------------------------------------------------ 2. optim.Muon
def _muon_run(lib, kw, shape, steps=20, dtype="float32", seed=0):
    rng = np.random.default_rng(seed)
    w0 = rng.standard_normal(shape).astype(dtype)
    targets = [rng.standard_normal(shape).astype(dtype) for _ in range(steps)]
    w = lib.nn.Parameter(lib.tensor(w0.copy()))
    opt = lib.optim.Muon([w], **kw)
    for t in targets:
        opt.zero_grad()
        (w * w * lib.tensor(t)).sum().backward()
        opt.step()
    return w.detach().numpy().copy(), opt


@pytest.mark.parametrize("shape", [(4, 7), (9, 3), (16, 16), (6, 12)])
@pytest.mark.parametrize("kw", [dict(lr=0.02), dict(lr=0.05, nesterov=False, weight_decay=0.01),
                                dict(lr=rg.tensor(0.01), adjust_lr_fn="match_rms_adamw", ns_steps=3),
                                dict(lr=0.03, momentum=0.5, adjust_lr_fn="original", eps=1e-3)])
def test_muon_20_steps_match_torch(shape, kw):
    tkw = {k: (torch.tensor(v.item()) if isinstance(v, rg.Tensor) else v) for k, v in kw.items()}
    t, topt = _muon_run(torch, tkw, shape)
    r, ropt = _muon_run(rg, kw, shape)
    # The Newton-Schulz iteration runs in bfloat16: a float32 accumulation near a bfloat16 rounding
    # tie can round the other way (one bfloat16 ulp); everything else is bit-identical.
    # torch's DEFAULT kernels (a CPU without AVX2) add the GEMM's float32 terms in another order,
    # so ties flip more often and 20 steps spread them to about 1e-3 (docs/optim_data_io.md, Muon).
    np.testing.assert_allclose(r, t, rtol=0, atol=1e-4 if TORCH_RUNS_VECTOR_KERNELS else 2e-3)
    sd_t, sd_r = topt.state_dict(), ropt.state_dict()
    assert list(sd_r["state"][0]) == list(sd_t["state"][0]) == ["momentum_buffer"]
    assert sorted(sd_r["param_groups"][0]) == sorted(sd_t["param_groups"][0])


def test_muon_float64_and_exact_bits_small():
    t, _ = _muon_run(torch, dict(lr=0.02), (5, 8), dtype="float64")
    r, _ = _muon_run(rg, dict(lr=0.02), (5, 8), dtype="float64")
    np.testing.assert_allclose(r, t, rtol=0, atol=1e-12)
    t, _ = _muon_run(torch, dict(lr=0.02), (5, 8), steps=3)
    r, _ = _muon_run(rg, dict(lr=0.02), (5, 8), steps=3)
    np.testing.assert_array_equal(r, t)


def test_muon_newton_schulz_matches_torch_bf16():
    from torch.optim._muon import _zeropower_via_newtonschulz as tns

    from retrograd.optim.muon import _newton_schulz

    rng = np.random.default_rng(3)
    total = bad = 0
    for shape in [(8, 8), (33, 20), (20, 33), (5, 17), (64, 48)]:
        g = rng.standard_normal(shape).astype(np.float32)
        ref = tns(torch.from_numpy(g), (3.4445, -4.7750, 2.0315), 5, 1e-7).float().numpy()
        ours = _newton_schulz(g, (3.4445, -4.7750, 2.0315), 5, 1e-7)
        np.testing.assert_allclose(ours, ref, rtol=0, atol=0.02)  # at most a few bfloat16 ulps
        if g.size < 1000:  # (long float32 sums: GEMM order decides more near-tie roundings)
            total += ref.size
            bad += int((ref != ours).sum())
    assert bad <= total * 0.01


def test_muon_errors_match_torch():
    tp, rp = torch.nn.Parameter(torch.ones(2, 2)), rg.nn.Parameter(rg.ones(2, 2))
    for kw in [dict(lr=-1.0), dict(momentum=-0.1), dict(weight_decay=-1.0), dict(adjust_lr_fn="x")]:
        raises_like(lambda: torch.optim.Muon([tp], **kw), lambda: rg.optim.Muon([rp], **kw))
    raises_like(lambda: torch.optim.Muon([torch.nn.Parameter(torch.ones(3))]),
                lambda: rg.optim.Muon([rg.nn.Parameter(rg.ones(3))]))
    raises_like(lambda: torch.optim.Muon([tp], lr=torch.ones(2)), lambda: rg.optim.Muon([rp], lr=rg.ones(2)))

    def step(lib, p, **kw):
        p.grad = lib.ones(2, 2)
        lib.optim.Muon([p], **kw).step()
    raises_like(lambda: step(torch, tp, ns_steps=100), lambda: step(rg, rp, ns_steps=100))
    raises_like(lambda: step(torch, tp, ns_coefficients=(1.0, 2.0)), lambda: step(rg, rp, ns_coefficients=(1.0, 2.0)))
