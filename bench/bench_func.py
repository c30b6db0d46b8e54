"""torch.func transforms: retrograd.func vs torch.func in the same run, single-threaded.

Cases (float32, the same weights and data for both libraries):

* per-sample gradients, ``vmap(grad(loss), in_dims=(None, 0, 0))`` over ``functional_call``
  (PyTorch's tutorial code): an MLP 64-128-10 (ReLU, cross-entropy) and a small CNN
  (conv 1->8 3x3, ReLU, max-pool 2, conv 8->16 3x3, ReLU, linear 144->10, cross-entropy on
  1x12x12 inputs), at batch 64 and 512;
* ``jacfwd`` and ``jacrev`` of ``x -> tanh(W @ x)``, 100 -> 100;
* ``hessian`` of ``x -> sum(tanh(W @ x) ** 2)``, 100-d.

Each result is checked against torch's before timing.  Times are medians of interleaved
blocks (``time_interleaved``), one BLAS thread for NumPy and torch; the table shows the
ratio retrograd / torch.func (target <= 1.5).

    .venv/bin/python bench/bench_func.py [--steps 30] [--clock cpu] [--only mlp cnn jac hessian]
"""
from __future__ import annotations

import argparse
import warnings

import numpy as np

import retrograd
from _common import blas_threads, real_torch, time_interleaved

TARGET = 1.5


def _mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))


def _cnn(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(8, 16, 3), nn.ReLU(),
                         nn.Flatten(), nn.Linear(144, 10))


def _per_sample(lib, model, x, y):
    """The tutorial's per-sample-gradient function, bound to data: returns a zero-argument call."""
    func = lib.func
    F = lib.nn.functional
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(params, sample, target):
        out = func.functional_call(model, params, (sample.unsqueeze(0),))
        return F.cross_entropy(out, target.unsqueeze(0))

    fn = func.vmap(func.grad(loss), in_dims=(None, 0, 0))
    return lambda: fn(params, x, y)


def _pair_models(build):
    t_model = build(real_torch)
    r_model = build(retrograd)
    r_model.load_state_dict({k: retrograd.tensor(v.detach().numpy()) for k, v in t_model.state_dict().items()})
    return r_model, t_model


def _check(r, t, what: str) -> None:
    if isinstance(r, dict):
        for k in r:
            _check(r[k], t[k], f"{what}[{k}]")
        return
    np.testing.assert_allclose(r.numpy(), t.detach().numpy(), rtol=2e-3, atol=2e-5, err_msg=what)


def _cases(only: list) -> list:
    rng = np.random.default_rng(0)
    cases = []
    if "mlp" in only or "cnn" in only:
        for kind, build, shape in (("mlp", _mlp, (64,)), ("cnn", _cnn, (1, 12, 12))):
            if kind not in only:
                continue
            r_model, t_model = _pair_models(build)
            for batch in (64, 512):
                x = rng.standard_normal((batch,) + shape).astype(np.float32)
                y = rng.integers(0, 10, batch)
                r = _per_sample(retrograd, r_model, retrograd.tensor(x), retrograd.tensor(y))
                t = _per_sample(real_torch, t_model, real_torch.tensor(x), real_torch.tensor(y))
                cases.append((f"per-sample grads {kind} batch {batch}", r, t))
    w = rng.standard_normal((100, 100)).astype(np.float32) / 10
    v = rng.standard_normal(100).astype(np.float32)
    for lib_name in ("jac", "hessian"):
        if lib_name not in only:
            continue
        pairs = []
        for lib in (retrograd, real_torch):
            W, x = lib.tensor(w), lib.tensor(v)
            if lib_name == "jac":
                f = (lambda W, lib: lambda x: lib.tanh(W @ x))(W, lib)
                pairs.append((lambda f=f, x=x, lib=lib: lib.func.jacfwd(f)(x),
                              lambda f=f, x=x, lib=lib: lib.func.jacrev(f)(x)))
            else:
                g = (lambda W, lib: lambda x: (lib.tanh(W @ x) ** 2).sum())(W, lib)
                pairs.append((lambda g=g, x=x, lib=lib: lib.func.hessian(g)(x),))
        names = ("jacfwd 100->100", "jacrev 100->100") if lib_name == "jac" else ("hessian 100-d",)
        for i, name in enumerate(names):
            cases.append((name, pairs[0][i], pairs[1][i]))
    return cases


def main(argv: list | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    ap.add_argument("--only", nargs="+", default=["mlp", "cnn", "jac", "hessian"])
    args = ap.parse_args(argv)
    if real_torch is None:
        raise SystemExit("bench_func compares with torch.func: install torch")
    _, ctx = blas_threads(1)
    rows = []
    with ctx, warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # (a vmap falling back per element would be a finding)
        for name, r, t in _cases(args.only):
            _check(r(), t(), name)
            times = time_interleaved({"retrograd": r, "torch": t}, args.steps, warmup=3, block=3, clock=args.clock)
            rows.append((name, times["retrograd"] * 1e3, times["torch"] * 1e3))
            print(f"{name:34s} retrograd {rows[-1][1]:9.2f} ms   torch.func {rows[-1][2]:8.2f} ms   "
                  f"ratio {rows[-1][1] / rows[-1][2]:6.2f}", flush=True)
    print(f"\n| case | retrograd ms | torch.func ms | ratio (target <= {TARGET}) |\n|---|---:|---:|---:|")
    for name, a, b in rows:
        print(f"| {name} | {a:.2f} | {b:.2f} | {a / b:.2f} |")


if __name__ == "__main__":
    main()
