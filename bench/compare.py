"""retrograd vs torch vs hand-written NumPy (and the peers HIPS autograd and mygrad): one table.

The workloads of issue 19, where Python bookkeeping (not BLAS) decides the time:

==============  ==========================================================================
scalar_addmul   the seed's block ``a=h+1; b=h+2; c=a*b; d=c*x; h=d*y`` chained, 0-d float32
scalar_unary    ``a=sin(h); b=a*x; c=tanh(b); d=exp(c); h=d*y`` chained, 0-d float32
vec16_addmul    ``scalar_addmul`` on 16-element vectors (loss ``h.sum()``)
vec16_unary     ``scalar_unary`` on 16-element vectors
hvp             Hessian-vector product of ``0.5*|tanh(X W) a|^2`` in ``W`` (double backward)
hessian_rows    full Hessian of ``sum(tanh(A x))``, x of 100: ``create_graph`` + 100 row grads
hessian_fn      the same Hessian by ``autograd.functional.hessian`` (HIPS: ``autograd.hessian``)
chain_100k      ``h = h * c + d`` over 0-d float32, 100,000 ops (also resident memory of the graph)
cnn_step        conv 1-8-16 (3x3) + ReLU, linear, cross-entropy, SGD; 28x28, batch 32
model_*         bench_models.py's whole models (transformer, cnn-bn-pool, lstm, embedding bag)
==============  ==========================================================================

Every implementation runs in its own worker process (a collection walks every live Python
object, so a process that had also imported torch would charge its heap to retrograd), all
workers started at once and fed in interleaved rounds: round r times each implementation in
turn (the order rotating), ``--reps`` calls each, so load on a shared machine hits all of them
alike.  Reported: min and median per call over all rounds, and each implementation's ratio of
medians to torch and to NumPy in this run.  Before timing, each implementation's result
(values and gradients) is checked against the hand-written NumPy one (the ``model_*`` rows,
which have no NumPy version, against torch's from the same weights); a mismatch fails the run.

    python bench/compare.py [--quick] [--only W ...] [--impls I ...] [--rounds 5] [--reps R]
                            [--threads 1] [--clock cpu|wall] [--no-memory] [--json FILE]

``make bench`` runs it after installing the peers into ``.bench-peers`` (``make bench-peers``);
peers that are not installed, or cannot express a workload (mygrad has no higher derivatives,
neither peer has the CNN or the models), show as ``-``.  ``--quick`` shrinks every workload to
a smoke test of a few seconds (tests/bench/test_compare.py runs it in the suite; its times
mean nothing).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
PEERS = ROOT / ".bench-peers"  # (make bench-peers: pip install --target; never the test venv)
IMPLS = ("retrograd", "torch", "numpy", "autograd", "mygrad")
MODULES = {"retrograd": "retrograd", "torch": "torch", "numpy": "numpy", "autograd": "autograd", "mygrad": "mygrad"}
F32 = np.float32
X0, Y0, H0 = 0.2, 0.5, 1.0


# ------------------------------------------------------------------------------- sizes
def sizes(quick: bool) -> dict:
    """Workload sizes: full, or a smoke test's."""
    if quick:
        return {"blocks": 20, "chain": 500, "hess_n": 8, "hvp": (4, 6, 5), "cnn_batch": 2, "model_scale": True}
    return {"blocks": 2000, "chain": 100_000, "hess_n": 100, "hvp": (16, 32, 64), "cnn_batch": 32,
            "model_scale": False}


def _data(seed: int, *shape) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


# ------------------------------------------------------------------------------- scalar / vector chains
def _chain_init(n: int | None):
    if n is None:
        return F32(X0), F32(Y0), F32(H0)
    r = np.random.default_rng(3)  # (small spread: the map h -> (h+1)(h+2)xy keeps a stable fixed point)
    return tuple((v + r.uniform(-0.01, 0.01, n)).astype(F32) for v in (X0, Y0, H0))


def chain_torchlike(torch, unary: bool, blocks: int, n: int | None):
    x0, y0, h0 = _chain_init(n)

    def step():
        x = torch.tensor(x0, requires_grad=True)
        y = torch.tensor(y0, requires_grad=True)
        h = torch.tensor(h0, requires_grad=True)
        add, mul, sin, tanh, exp = torch.add, torch.mul, torch.sin, torch.tanh, torch.exp
        for _ in range(blocks):
            if unary:
                h = mul(exp(tanh(mul(sin(h), x))), y)
            else:
                h = mul(mul(mul(add(h, 1), add(h, 2)), x), y)
        loss = h.sum() if n else h
        loss.backward()
        return [loss.detach().numpy(), x.grad.numpy(), y.grad.numpy()]
    return step


def chain_numpy(unary: bool, blocks: int, n: int | None):
    x0, y0, h0 = _chain_init(n)
    one, two = F32(1), F32(2)

    def step():
        x, y, h = np.asarray(x0), np.asarray(y0), np.asarray(h0)
        tape = []
        append = tape.append
        if unary:
            for _ in range(blocks):
                a = np.sin(h)
                b = a * x
                c = np.tanh(b)
                d = np.exp(c)
                append((h, a, c, d))
                h = d * y
        else:
            for _ in range(blocks):
                a = h + one
                b = h + two
                c = a * b
                d = c * x
                append((a, b, c, d))
                h = d * y
        gh = np.ones_like(h)
        gx = np.zeros_like(x)
        gy = np.zeros_like(y)
        if unary:
            for hp, a, c, d in reversed(tape):
                gy = gy + gh * d
                gd = gh * y
                gc = gd * d
                gb = gc * (1 - c * c)
                gx = gx + gb * a
                ga = gb * x
                gh = ga * np.cos(hp)
        else:
            for a, b, c, d in reversed(tape):
                gy = gy + gh * d
                gd = gh * y
                gx = gx + gd * c
                gc = gd * x
                gh = gc * b + gc * a
        return [h.sum(), gx, gy]
    return step


def chain_autograd(ag, unary: bool, blocks: int, n: int | None):
    anp = ag.numpy
    x0, y0, h0 = _chain_init(n)
    one, two = F32(1), F32(2)

    def f(xy):
        x, y = xy
        h = np.asarray(h0)
        for _ in range(blocks):
            if unary:
                h = anp.exp(anp.tanh(anp.sin(h) * x)) * y
            else:
                h = (h + one) * (h + two) * x * y
        return anp.sum(h) if n else h

    vg = ag.value_and_grad(f)

    def step():
        v, (gx, gy) = vg((np.asarray(x0), np.asarray(y0)))
        return [v, gx, gy]
    return step


def chain_mygrad(mg, unary: bool, blocks: int, n: int | None):
    x0, y0, h0 = _chain_init(n)

    def step():
        x, y, h = mg.tensor(x0), mg.tensor(y0), mg.tensor(h0)
        for _ in range(blocks):
            if unary:
                h = mg.exp(mg.tanh(mg.sin(h) * x)) * y
            else:
                h = (h + 1) * (h + 2) * x * y
        loss = mg.sum(h) if n else h
        loss.backward()
        return [loss.data, x.grad, y.grad]
    return step


# ------------------------------------------------------------------------------- hvp (double backward)
def _hvp_data(dims):
    n, d, m = dims
    return (_data(4, n, d).astype(F32), (0.3 * _data(5, d, m)).astype(F32), _data(6, m).astype(F32),
            _data(7, d, m).astype(F32))


def hvp_torchlike(torch, dims):
    X, W0, a, V = _hvp_data(dims)
    X, a, V = torch.tensor(X), torch.tensor(a), torch.tensor(V)

    def step():
        W = torch.tensor(W0, requires_grad=True)
        y = torch.tanh(X @ W) @ a
        loss = (y * y).sum() * 0.5
        g, = torch.autograd.grad(loss, W, create_graph=True)
        hv, = torch.autograd.grad((g * V).sum(), W)
        return [hv.numpy()]
    return step


def hvp_numpy(dims):
    X, W, a, V = _hvp_data(dims)

    def step():
        h = np.tanh(X @ W)
        y = h @ a
        dh_dz = 1 - h * h
        gh = np.outer(y, a)                     # dL/dh
        dz = X @ V                               # forward-mode of the gradient along V
        dh = dh_dz * dz
        dy = dh @ a
        dgz = np.outer(dy, a) * dh_dz + gh * (-2 * h * dh)
        return [X.T @ dgz]
    return step


def hvp_autograd(ag, dims):
    anp = ag.numpy
    X, W0, a, V = _hvp_data(dims)

    def loss(W):
        y = anp.dot(anp.tanh(anp.dot(X, W)), a)
        return anp.sum(y * y) * 0.5
    gl = ag.grad(loss)
    hv = ag.grad(lambda W: anp.sum(gl(W) * V))
    return lambda: [hv(W0)]


# ------------------------------------------------------------------------------- full Hessian
def _hess_data(n):
    return (_data(8, n, n) / np.sqrt(n)), _data(9, n)  # float64: a Hessian to compare closely


def hessian_torchlike(torch, n, functional: bool):
    A0, x0 = _hess_data(n)
    A = torch.tensor(A0)

    def f(x):
        return torch.tanh(A @ x).sum()
    if functional:
        return lambda: [torch.autograd.functional.hessian(f, torch.tensor(x0)).numpy()]

    def step():
        x = torch.tensor(x0, requires_grad=True)
        g, = torch.autograd.grad(f(x), x, create_graph=True)
        return [np.stack([torch.autograd.grad(g[i], x, retain_graph=True)[0].numpy() for i in range(n)])]
    return step


def hessian_numpy(n):
    A, x = _hess_data(n)

    def step():
        t = np.tanh(A @ x)
        return [A.T @ ((-2 * t * (1 - t * t))[:, None] * A)]
    return step


def hessian_autograd(ag, n, functional: bool):
    anp = ag.numpy
    A, x0 = _hess_data(n)

    def f(x):
        return anp.sum(anp.tanh(anp.dot(A, x)))
    if functional:
        h = ag.hessian(f)
        return lambda: [h(x0)]
    g = ag.grad(f)
    rows = [ag.grad(lambda x, i=i: g(x)[i]) for i in range(n)]  # (the same 100 row backwards)
    return lambda: [np.stack([r(x0) for r in rows])]


# ------------------------------------------------------------------------------- 100k chain
C_MUL, C_ADD = F32(0.5), F32(0.25)
_after_forward = [None]  # the worker's probe: resident memory with the whole graph alive


def _probe() -> None:
    if _after_forward[0] is not None:
        _after_forward[0] = _rss()


def long_torchlike(torch, n):
    def step():
        x = torch.tensor(F32(0.3), requires_grad=True)
        h = x
        for _ in range(n // 2):
            h = h * C_MUL + C_ADD  # (two ops; a Python float32 scalar, as the others use)
        _probe()
        h.backward()
        return [h.detach().numpy(), x.grad.numpy()]
    return step


def long_numpy(n):
    def step():
        h = F32(0.3)
        for _ in range(n // 2):
            h = h * C_MUL + C_ADD
        _probe()
        g = F32(1)
        for _ in range(n // 2):  # (d/dh of h * c + d is c: no tape needed, but walk it as a tape would)
            g = g * C_MUL
        return [h, g]
    return step


def long_autograd(ag, n):
    def f(x):
        h = x
        for _ in range(n // 2):
            h = h * C_MUL + C_ADD
        _probe()
        return h
    vg = ag.value_and_grad(f)
    return lambda: list(vg(F32(0.3)))


def long_mygrad(mg, n):
    def step():
        x = mg.tensor(F32(0.3))
        h = x
        for _ in range(n // 2):
            h = h * C_MUL + C_ADD
        _probe()
        h.backward()
        return [h.data, x.grad]
    return step


# ------------------------------------------------------------------------------- small CNN step
LR = 0.01


def _cnn_params(batch):
    rng = np.random.default_rng(0)
    shapes = [(8, 1, 3, 3), (8,), (16, 8, 3, 3), (16,), (10, 16 * 24 * 24), (10,)]
    params = []
    for i in range(0, 6, 2):
        bound = 1.0 / np.sqrt(int(np.prod(shapes[i][1:])))
        params += [rng.uniform(-bound, bound, shapes[i]).astype(F32), rng.uniform(-bound, bound, shapes[i + 1]).astype(F32)]
    x = rng.standard_normal((batch, 1, 28, 28)).astype(F32)
    y = rng.integers(0, 10, batch).astype(np.int64)
    return params, x, y


def cnn_torchlike(torch, batch):
    params, x, y = _cnn_params(batch)
    nn = torch.nn
    m = nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.Conv2d(8, 16, 3), nn.ReLU(), nn.Flatten(),
                      nn.Linear(16 * 24 * 24, 10))
    with torch.no_grad():
        for p, a in zip(m.parameters(), params):
            p.copy_(torch.from_numpy(a.copy()))
    opt = torch.optim.SGD(m.parameters(), lr=LR)
    loss_fn = nn.CrossEntropyLoss()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    def step():
        opt.zero_grad()
        loss = loss_fn(m(xt), yt)
        loss.backward()
        opt.step()
        return [loss.detach().numpy()] + [p.detach().numpy() for p in m.parameters()]
    return step


def _windows(x: np.ndarray) -> np.ndarray:
    """(N, C, H, W) -> (N, C*9, Ho*Wo) per-sample columns (one copy of the 3x3 windows)."""
    from numpy.lib.stride_tricks import sliding_window_view

    n, c, h, w = x.shape
    return sliding_window_view(x, (3, 3), axis=(2, 3)).transpose(0, 1, 4, 5, 2, 3).reshape(n, c * 9, -1)


def _col2im(cols: np.ndarray, c: int, h: int, w: int) -> np.ndarray:
    n, ho, wo = cols.shape[0], h - 2, w - 2
    d = cols.reshape(n, c, 3, 3, ho, wo)
    out = np.zeros((n, c, h, w), dtype=cols.dtype)
    for i in range(3):
        for j in range(3):
            out[:, :, i:i + ho, j:j + wo] += d[:, :, i, j]
    return out


def cnn_numpy(batch):
    """The NumPy limit: im2col with batched GEMMs, the forward's columns kept for the weight gradient."""
    params, x, y = _cnn_params(batch)
    params = [p.copy() for p in params]
    rows = np.arange(batch)

    def step():
        w1, b1, w2, b2, w3, b3 = params
        n = x.shape[0]
        c1 = _windows(x)
        h1 = np.matmul(w1.reshape(8, -1), c1)
        h1 += b1[:, None]
        np.maximum(h1, 0, out=h1)
        c2 = _windows(h1.reshape(n, 8, 26, 26))
        h2 = np.matmul(w2.reshape(16, -1), c2)
        h2 += b2[:, None]
        np.maximum(h2, 0, out=h2)
        a2 = h2.reshape(n, -1)
        z = a2 @ w3.T + b3
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        s = e.sum(axis=1, keepdims=True)
        loss = np.log(s).mean() - z[rows, y].mean()
        dz = e / s
        dz[rows, y] -= 1
        dz *= F32(1 / n)
        g = [None] * 6
        g[4], g[5] = dz.T @ a2, dz.sum(axis=0)
        dh2 = (dz @ w3).reshape(n, 16, -1)
        dh2 *= h2 > 0
        g[2] = np.matmul(dh2, c2.transpose(0, 2, 1)).sum(axis=0).reshape(w2.shape)
        g[3] = dh2.sum(axis=(0, 2))
        dh1 = _col2im(np.matmul(w2.reshape(16, -1).T, dh2), 8, 26, 26).reshape(n, 8, -1)
        dh1 *= h1 > 0
        g[0] = np.matmul(dh1, c1.transpose(0, 2, 1)).sum(axis=0).reshape(w1.shape)
        g[1] = dh1.sum(axis=(0, 2))
        for p, gp in zip(params, g):
            p -= F32(LR) * gp
        return [np.asarray(loss, F32)] + params
    return step


# ------------------------------------------------------------------------------- whole models
def model_torchlike(torch, name: str, small: bool):
    """bench_models.py's models, with weights and inputs drawn from NumPy (the same for both)."""
    nn, F = torch.nn, torch.nn.functional
    rng = np.random.default_rng(11)
    b = 2 if small else 1

    def t(*shape, ints=None):
        a = rng.integers(0, ints, shape) if ints else rng.standard_normal(shape).astype(F32)
        return torch.from_numpy(a)
    if name == "transformer":
        m = nn.TransformerEncoderLayer(64, 4, 128, batch_first=True, dropout=0.0)
        x = t(8 // b, 16, 64)
        opt = torch.optim.SGD(m.parameters(), lr=0.01)
        loss = lambda: m(x).pow(2).mean()  # noqa: E731
    elif name == "cnn_bn_pool":
        m = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                          nn.Flatten(), nn.Linear(32, 10))
        x, y = t(16 // b, 3, 32 // b, 32 // b), t(16 // b, ints=10)
        opt = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
        loss = lambda: F.cross_entropy(m(x), y)  # noqa: E731
    elif name == "lstm":
        lstm, head = nn.LSTM(32, 64, num_layers=2, batch_first=True), nn.Linear(64, 10)
        m = nn.ModuleList([lstm, head])
        x, y = t(16 // b, 20 // b, 32), t(16 // b, ints=10)
        opt = torch.optim.Adam(m.parameters(), lr=1e-3)
        loss = lambda: F.cross_entropy(head(lstm(x)[0][:, -1]), y)  # noqa: E731
    else:  # embedding bag
        e, lin = nn.Embedding(1000, 64), nn.Linear(64, 2)
        m = nn.ModuleList([e, lin])
        idx, y = t(32 // b, 20, ints=1000), t(32 // b, ints=2)
        opt = torch.optim.AdamW(m.parameters())
        loss = lambda: F.cross_entropy(lin(e(idx).mean(1)), y)  # noqa: E731
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy((0.1 * rng.standard_normal(tuple(p.shape))).astype(F32)))

    def step():
        opt.zero_grad()
        v = loss()
        v.backward()
        opt.step()
        return [v.detach().numpy()] + [p.detach().numpy() for p in m.parameters()]
    return step


MODELS = ("transformer", "cnn_bn_pool", "lstm", "embedding")


# ------------------------------------------------------------------------------- the table of workloads
def build(workload: str, impl: str, mod, sz: dict):
    """A zero-argument step for ``impl`` (its module ``mod``), or None when it cannot run the workload."""
    torchlike = impl in ("retrograd", "torch")
    if workload.startswith(("scalar_", "vec16_")):
        unary = workload.endswith("unary")
        n = None if workload.startswith("scalar") else 16
        args = (unary, sz["blocks"], n)
        return (chain_torchlike(mod, *args) if torchlike else chain_numpy(*args) if impl == "numpy"
                else chain_autograd(mod, *args) if impl == "autograd" else chain_mygrad(mod, *args))
    if workload == "hvp":
        return (hvp_torchlike(mod, sz["hvp"]) if torchlike else hvp_numpy(sz["hvp"]) if impl == "numpy"
                else hvp_autograd(mod, sz["hvp"]) if impl == "autograd" else None)  # (mygrad: first order only)
    if workload.startswith("hessian_"):
        fn = workload == "hessian_fn"
        n = sz["hess_n"]
        return (hessian_torchlike(mod, n, fn) if torchlike else hessian_numpy(n) if impl == "numpy"
                else hessian_autograd(mod, n, fn) if impl == "autograd" else None)
    if workload == "chain_100k":
        n = sz["chain"]
        return (long_torchlike(mod, n) if torchlike else long_numpy(n) if impl == "numpy"
                else long_autograd(mod, n) if impl == "autograd" else long_mygrad(mod, n))
    if workload == "cnn_step":
        b = sz["cnn_batch"]
        return cnn_torchlike(mod, b) if torchlike else cnn_numpy(b) if impl == "numpy" else None
    if workload.startswith("model_"):
        return model_torchlike(mod, workload[6:], sz["model_scale"]) if torchlike else None
    raise ValueError(f"unknown workload {workload!r}")


WORKLOADS = ("scalar_addmul", "scalar_unary", "vec16_addmul", "vec16_unary", "hvp", "hessian_rows", "hessian_fn",
             "chain_100k", "cnn_step") + tuple(f"model_{m}" for m in MODELS)
OPS = {"scalar_addmul": 5, "scalar_unary": 5, "vec16_addmul": 5, "vec16_unary": 5}  # ops per block (us/op column)


# ------------------------------------------------------------------------------- worker side
def _rss() -> int | None:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return None


def _load(impl: str):
    if impl in ("autograd", "mygrad") and PEERS.is_dir():
        sys.path.append(str(PEERS))
    if impl == "numpy":
        return np
    if impl == "retrograd":
        sys.path.insert(0, str(ROOT / "src"))
    import importlib

    mod = importlib.import_module(MODULES[impl])
    if impl == "autograd":
        import autograd.numpy  # noqa: F401  (the module's numpy wrapper, used as ag.numpy)
    return mod


def worker(impl: str, threads: int, clock: str) -> None:
    """Serve timing requests on stdin/stdout (one JSON object a line)."""
    try:
        from threadpoolctl import threadpool_limits
        limits = threadpool_limits(limits=threads)  # noqa: F841  (kept alive: the limit holds while it exists)
    except ImportError:
        if threads != 1:
            raise SystemExit("--threads needs threadpoolctl") from None
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        mod = _load(impl)
    except ImportError as exc:
        print(json.dumps({"error": f"not installed: {exc}"}), flush=True)
        return
    if impl == "torch":
        mod.set_num_threads(threads)
    perf = time.process_time if clock == "cpu" else time.perf_counter
    steps: dict = {}
    print(json.dumps({"ready": impl}), flush=True)
    for line in sys.stdin:
        req = json.loads(line)
        w = req["workload"]
        try:
            if req["cmd"] == "setup":
                sz = sizes(req["quick"])
                step = build(w, impl, mod, sz)
                if step is None:
                    print(json.dumps({"skip": True}), flush=True)
                    continue
                rss0 = _after_forward[0] = _rss()
                res = step()  # the first call: the result checked, and a warm-up
                rss = None if rss0 is None or _after_forward[0] is rss0 else _after_forward[0] - rss0
                _after_forward[0] = None
                steps[w] = step
                step()
                print(json.dumps({"result": [np.asarray(r, dtype=float).ravel().tolist() for r in res],
                                  "rss": rss}), flush=True)
            else:
                step = steps[w]
                times = []
                for _ in range(req["reps"]):
                    t0 = perf()
                    step()
                    times.append(perf() - t0)
                print(json.dumps({"times": times}), flush=True)
        except Exception as exc:  # a peer that cannot run a workload: reported, not fatal
            import traceback

            print(json.dumps({"error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()}), flush=True)


# ------------------------------------------------------------------------------- main side
class Worker:
    def __init__(self, impl: str, threads: int, clock: str) -> None:
        self.impl = impl
        self.proc = subprocess.Popen([sys.executable, __file__, "--worker", impl, "--threads", str(threads),
                                      "--clock", clock], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.error = self._read().get("error")

    def _read(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.impl} worker died")
        return json.loads(line)

    def ask(self, **req) -> dict:
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


TOL = {"hessian_rows": 1e-9, "hessian_fn": 1e-9}


def check(workload: str, impl: str, got: list, ref: list) -> None:
    """``got`` (an implementation's result) against the reference, or AssertionError."""
    tol = TOL.get(workload, 1e-4 if workload.startswith("model_") or workload == "cnn_step" else 2e-4)
    if len(got) != len(ref):
        raise AssertionError(f"{workload}: {impl} returned {len(got)} values, reference {len(ref)}")
    for k, (a, b) in enumerate(zip(got, ref)):
        a, b = np.asarray(a), np.asarray(b)
        scale = max(1.0, float(np.abs(b).max(initial=0)))
        if a.shape != b.shape or not np.allclose(a, b, rtol=tol, atol=tol * scale):
            raise AssertionError(f"{workload}: {impl}'s result {k} differs from the reference "
                                 f"(max |diff| {float(np.abs(a - b).max()) if a.shape == b.shape else 'shape'})")


def compare(workloads, impls, rounds: int, reps: int | None, quick: bool, threads: int, clock: str,
            memory: bool = True, out=print) -> list[dict]:
    """Run everything; returns one row per (workload, impl) with times in seconds per call."""
    workers = {i: Worker(i, threads, clock) for i in impls}
    for i, wk in workers.items():
        if wk.error:  # (asked for but not runnable here: said, not silently dropped)
            out(f"  {i}: {wk.error}" + (" (make bench-peers installs it)" if i in ("autograd", "mygrad") else ""))
    rows = []
    try:
        for w in workloads:
            results, mem = {}, {}
            for i, wk in workers.items():
                if wk.error:
                    continue
                r = wk.ask(cmd="setup", workload=w, quick=quick)
                if "error" in r:
                    out(f"  {w}: {i} failed: {r['error']}")
                elif not r.get("skip"):
                    results[i], mem[i] = r["result"], r["rss"]
            ref_impl = "numpy" if "numpy" in results else "torch"
            if ref_impl not in results:
                out(f"  {w}: no reference implementation ran; skipped")
                continue
            for i, res in results.items():
                if i != ref_impl:
                    check(w, i, res, results[ref_impl])
            n_reps = reps or (1 if quick else _default_reps(w))
            times: dict = {i: [] for i in results}
            order = list(results)
            for r in range(rounds):
                for i in order[r % len(order):] + order[:r % len(order)]:  # (rotating: no one always first)
                    times[i] += workers[i].ask(cmd="time", workload=w, reps=n_reps)["times"]
            for i in results:
                ts = times[i]
                rows.append({"workload": w, "impl": i, "min": min(ts), "median": float(np.median(ts)),
                             "n": len(ts), "checked_against": None if i == ref_impl else ref_impl,
                             "rss": mem[i] if (memory and w == "chain_100k") else None})
            out(f"  {w}: done ({', '.join(results)})")
    finally:
        for wk in workers.values():
            wk.close()
    return rows


def _default_reps(workload: str) -> int:
    return {"chain_100k": 1, "hessian_rows": 2, "hessian_fn": 2}.get(workload, 5)


def table(rows: list[dict], sz: dict) -> str:
    """The rows as a text table: median and min ms, us per op for the chains, ratios to torch and NumPy."""
    by = {(r["workload"], r["impl"]): r for r in rows}
    head = ["workload", "impl", "median ms", "min ms", "us/op", "x torch", "x numpy", "memory MB"]
    body = []
    for r in rows:
        w = r["workload"]
        t, n = by.get((w, "torch")), by.get((w, "numpy"))
        ops = OPS.get(w, 0) * sz["blocks"] or (sz["chain"] if w == "chain_100k" else 0)
        body.append([w, r["impl"], f"{r['median'] * 1e3:.3f}", f"{r['min'] * 1e3:.3f}",
                     f"{r['median'] / ops * 1e6:.2f}" if ops else "-",
                     f"{r['median'] / t['median']:.2f}" if t else "-",
                     f"{r['median'] / n['median']:.2f}" if n else "-",
                     f"{r['rss'] / 2**20:.1f}" if r["rss"] is not None else "-"])
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    lines = ["  ".join(c.ljust(wd) if k < 2 else c.rjust(wd) for k, (c, wd) in enumerate(zip(line, widths)))
             for line in [head, ["-" * wd for wd in widths]] + body]
    return "\n".join(line.rstrip() for line in lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="tiny sizes, one round: a smoke test (times mean nothing)")
    ap.add_argument("--only", nargs="+", choices=WORKLOADS, metavar="W", help=f"workloads: {', '.join(WORKLOADS)}")
    ap.add_argument("--impls", nargs="+", choices=IMPLS, default=list(IMPLS), help="implementations")
    ap.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 5; --quick: 1)")
    ap.add_argument("--reps", type=int, default=None, help="timed calls per implementation per round")
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads for NumPy and torch")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu", help="process CPU time or wall time")
    ap.add_argument("--no-memory", action="store_true", help="leave out the memory column")
    ap.add_argument("--json", help="also write the rows to this file")
    ap.add_argument("--worker", choices=IMPLS, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.worker, args.threads, args.clock)
        return 0
    if "numpy" not in args.impls:
        ap.error("--impls must include numpy: every result is checked against it")
    rounds = args.rounds or (1 if args.quick else 5)
    sz = sizes(args.quick)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"bench/compare.py: {rounds} rounds, BLAS threads {args.threads}, {args.clock} clock, "
          f"load average {load:.1f} on {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, NumPy {np.__version__}")
    rows = compare(args.only or WORKLOADS, args.impls, rounds, args.reps, args.quick, args.threads, args.clock,
                   memory=not args.no_memory)
    print(table(rows, sz))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
