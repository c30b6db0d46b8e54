"""Tests of retrograd.random, checked against PyTorch."""
from __future__ import annotations

import math

import numpy as np
import pytest

import retrograd
import retrograd as R
import retrograd.random as rrandom
from retrograd import _rng

torch = pytest.importorskip("torch")

from parity import assert_equal_to_torch_kernel  # noqa: E402


# ---------------------------------------------------------------------------- random
def test_random_seed_functions_delegate():
    g = rrandom.manual_seed(123)
    assert isinstance(g, retrograd.Generator)
    assert rrandom.initial_seed() == 123 == retrograd.initial_seed()
    a = retrograd.rand(3)
    rrandom.manual_seed(123)
    assert np.array_equal(retrograd.rand(3).numpy(), a.numpy())
    s = rrandom.seed()
    assert isinstance(s, int) and rrandom.initial_seed() == s
    state = rrandom.get_rng_state()
    assert state.dtype == retrograd.uint8
    b = retrograd.rand(4)
    rrandom.set_rng_state(state)
    assert np.array_equal(retrograd.rand(4).numpy(), b.numpy())
    assert rrandom.default_generator is retrograd.default_generator
    assert rrandom.Generator is retrograd.Generator


@pytest.mark.parametrize("lib", ["retrograd", "torch"])
def test_fork_rng_restores_the_state(lib):
    L = retrograd if lib == "retrograd" else torch
    L.random.manual_seed(5) if lib == "torch" else rrandom.manual_seed(5)
    fork = rrandom.fork_rng if lib == "retrograd" else torch.random.fork_rng
    expected = L.rand(2)
    (rrandom if lib == "retrograd" else torch.random).manual_seed(5)
    with fork():
        inner = L.rand(2)
    after = L.rand(2)
    assert np.array_equal(np.asarray(after.tolist()), np.asarray(expected.tolist()))
    assert np.array_equal(np.asarray(inner.tolist()), np.asarray(expected.tolist()))
    # restored on an exception too; enabled=False forks nothing
    (rrandom if lib == "retrograd" else torch.random).manual_seed(5)
    with pytest.raises(KeyError):
        with fork():
            L.rand(7)
            raise KeyError
    assert L.rand(2).tolist() == expected.tolist()
    (rrandom if lib == "retrograd" else torch.random).manual_seed(5)
    with fork(enabled=False):
        L.rand(2)
    assert L.rand(2).tolist() != expected.tolist()


def _np(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def same(fn, seed=0, tail=True):
    """Run ``fn(lib)`` under both libraries after ``manual_seed(seed)``; values must be equal
    bit for bit (where torch runs its vector kernels: parity.assert_equal_to_torch_kernel), and
    (``tail``) the next draws too, so the streams stayed in step."""
    torch.manual_seed(seed)
    R.manual_seed(seed)
    a, b = fn(torch), fn(R)
    if isinstance(a, (list, tuple)):
        assert a == b
    else:
        a, b = _np(a), _np(b)
        assert a.dtype == b.dtype and a.shape == b.shape
        assert_equal_to_torch_kernel(b, a)
    if tail:
        np.testing.assert_array_equal(torch.rand(5).numpy(), R.rand(5).numpy())


# ------------------------------------------------------------------ engine and seeding
def test_raw_words_are_mt19937():
    assert _rng.Engine(5489).words(3).tolist() == [3499211612, 581869302, 3890346734]


@pytest.mark.parametrize("seed", [0, 1, 42, 2 ** 32 + 5, 67280421310721, -1, 2 ** 64 - 1, -2 ** 63])
def test_seeds_and_initial_seed(seed):
    same(lambda t: t.rand(7), seed)
    torch.manual_seed(seed)
    R.manual_seed(seed)
    assert R.initial_seed() == torch.initial_seed()


def test_bad_seeds():
    for seed in (2 ** 64, -2 ** 63 - 1):
        with pytest.raises(ValueError, match="Overflow when unpacking long long"):
            torch.manual_seed(seed)
        with pytest.raises(ValueError, match="Overflow when unpacking long long"):
            R.manual_seed(seed)
    with pytest.raises(RuntimeError, match="manual_seed expected a long, but got float"):
        torch.Generator().manual_seed(1.5)
    with pytest.raises(RuntimeError, match="manual_seed expected a long, but got float"):
        R.Generator().manual_seed(1.5)
    torch.manual_seed(3.7)
    R.manual_seed(3.7)
    assert R.initial_seed() == torch.initial_seed() == 3


def test_generator_objects():
    g = R.Generator(device="cpu")
    assert g.initial_seed() == torch.Generator().initial_seed() == 67280421310721
    assert str(g.device) == "cpu"
    assert g.manual_seed(3) is g
    tg = torch.Generator().manual_seed(3)
    assert_equal_to_torch_kernel(R.randn(20, generator=g).numpy(), torch.randn(20, generator=tg).numpy())
    s = R.seed()
    assert R.initial_seed() == s and 0 <= s < 2 ** 64


# ------------------------------------------------------------------ creation functions
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 2, 3, 15, 16, 17, 31, 100, 1001])
def test_rand_randn(dtype, n):
    same(lambda t: t.rand(n, dtype=getattr(t, dtype)))
    same(lambda t: t.randn(n, dtype=getattr(t, dtype)))


def test_randn_shapes_and_like():
    same(lambda t: t.randn(4, 5, 6))
    same(lambda t: t.randn(512, 784), tail=False)
    same(lambda t: t.rand_like(t.zeros(3, 7, dtype=t.float64)))
    same(lambda t: t.randn_like(t.zeros(33)))
    same(lambda t: t.randint_like(t.zeros(9), 3, 11))


def test_small_randn_caches_second_normal():
    # an odd count of one-at-a-time normals leaves the Box-Muller sine value for the next call
    same(lambda t: t.cat([t.randn(3, dtype=t.float64), t.randn(5, dtype=t.float64), t.randn(1)]).double())
    same(lambda t: t.cat([t.randn(1, dtype=t.float64), t.empty(3, dtype=t.float64).log_normal_(),
                          t.empty(2).normal_()]).double(), seed=1)


@pytest.mark.parametrize("low,high", [(0, 10), (-7, 100), (0, 2 ** 28 - 1), (0, 2 ** 28), (-5, 2 ** 40)])
@pytest.mark.parametrize("dtype", ["int64", "int32", "float64"])
def test_randint(low, high, dtype):
    if dtype == "int32" and high > 2 ** 31:
        return
    same(lambda t: t.randint(low, high, (50,), dtype=getattr(t, dtype)))


def test_randint_small_dtypes():
    same(lambda t: t.randint(0, 200, (30,), dtype=t.uint8))
    same(lambda t: t.randint(0, 2, (30,), dtype=t.bool))
    same(lambda t: t.randint(5, (2, 3)))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 1000, 60000])
def test_randperm(n):
    same(lambda t: t.randperm(n))
    g1, g2 = torch.Generator().manual_seed(9), R.Generator().manual_seed(9)
    np.testing.assert_array_equal(torch.randperm(n, generator=g1).numpy(), R.randperm(n, generator=g2).numpy())


def test_normal_variants():
    m = np.arange(20, dtype=np.float32)
    s = (np.arange(20, dtype=np.float32) + 2) / 7
    same(lambda t: t.normal(2.0, 0.5, (3,)))
    same(lambda t: t.normal(2.0, 0.5, (300,)))
    same(lambda t: t.normal(t.tensor(m), t.tensor(s)))
    same(lambda t: t.normal(t.tensor(m[:5]), t.tensor(s[:5])))
    same(lambda t: t.normal(t.tensor(m), 0.7))
    same(lambda t: t.normal(0.3, t.tensor(s)))
    same(lambda t: t.normal(t.tensor(m, dtype=t.float64), 0.7))


def test_normal_with_grad_records_a_zero_gradient():
    def f(t, mean_grad, std_grad, name):
        mean = t.tensor([0.5, -1.0, 2.0], requires_grad=mean_grad)
        std = t.tensor([1.0, 2.0, 0.5], requires_grad=std_grad)
        out = t.normal(mean, std if std_grad else 2.0)
        assert type(out.grad_fn).__name__ == name
        out.sum().backward()
        return t.cat([out.detach(), mean.grad if mean_grad else t.zeros(3), std.grad if std_grad else t.zeros(3)])
    same(lambda t: f(t, True, False, "NormalBackward1"))
    same(lambda t: f(t, True, True, "NormalBackward3"))
    same(lambda t: t.normal(1.0, t.tensor([1.0, 2.0], requires_grad=True)).detach())
    out = R.normal(1.0, R.tensor([1.0, 2.0], requires_grad=True))
    assert type(out.grad_fn).__name__ == "NormalBackward2"


def test_bernoulli_and_multinomial():
    p = np.random.default_rng(0).random((6, 50)).astype(np.float32)
    same(lambda t: t.bernoulli(t.tensor(p)))
    same(lambda t: t.bernoulli(t.tensor(p, dtype=t.float64)))
    same(lambda t: t.bernoulli(t.zeros(40), 0.3))
    same(lambda t: t.multinomial(t.tensor([0.1, 0.0, 0.9]), 2))
    same(lambda t: t.multinomial(t.tensor(p), 10))
    same(lambda t: t.multinomial(t.tensor(p), 1, replacement=True))
    same(lambda t: t.multinomial(t.tensor(p), 100, replacement=True))
    same(lambda t: t.multinomial(t.tensor(p[0] * 1000, dtype=t.float64), 500, replacement=True))


def test_poisson():
    rates = np.concatenate([np.random.default_rng(1).random(200) * 25, [0, 0.1, 10, 1e4]]).astype(np.float32)
    same(lambda t: t.poisson(t.tensor(rates)))


# ------------------------------------------------------------------ in-place fills
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_inplace_fills(dtype):
    def mk(t, *shape):
        return t.empty(*shape, dtype=getattr(t, dtype))
    same(lambda t: mk(t, 5, 7).uniform_(-2, 3))
    same(lambda t: mk(t, 5000).uniform_(-0.37, 0.91))
    same(lambda t: mk(t, 5000).normal_(0.3, 1.7))
    same(lambda t: mk(t, 7).normal_(1.0, 3.0))
    same(lambda t: mk(t, 300).exponential_(2.5))
    same(lambda t: mk(t, 300).geometric_(0.3))
    same(lambda t: mk(t, 300).cauchy_(1.0, 2.0))
    same(lambda t: mk(t, 301).log_normal_(0.5, 0.3))
    same(lambda t: mk(t, 50).bernoulli_(0.25))
    same(lambda t: mk(t, 50).bernoulli_(t.rand(50)))


def test_fills_of_transposed_views_follow_memory_order():
    same(lambda t: t.empty(5, 7).t().uniform_(-1, 1))
    same(lambda t: t.empty(30, 20).t().normal_(1.0, 2.0))   # non-contiguous: one-at-a-time path
    same(lambda t: t.empty(5, 7).t().bernoulli_(t.rand(7, 1)))


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "uint8", "bool", "float32", "float64"])
def test_random_(dtype):
    same(lambda t: t.empty(40, dtype=getattr(t, dtype)).random_())
    same(lambda t: t.empty(40, dtype=getattr(t, dtype)).random_(2))
    if dtype not in ("bool", "uint8"):
        same(lambda t: t.empty(40, dtype=getattr(t, dtype)).random_(-3, 100))


def test_random_full_and_wide_ranges():
    same(lambda t: t.empty(40, dtype=t.int64).random_(-3, 2 ** 40))
    same(lambda t: t.empty(40, dtype=t.int64).random_(-2 ** 63, None))


# ------------------------------------------------------------------ state
def test_state_bytes_equal_torch():
    def f(t):
        t.randn(3, dtype=t.float64)  # leaves a cached normal in the state
        t.rand(700)
        return t.get_rng_state()
    same(f, tail=False)
    assert R.get_rng_state().dtype == R.uint8
    assert tuple(R.get_rng_state().shape) == (5056,)
    torch.manual_seed(11)
    R.manual_seed(11)
    np.testing.assert_array_equal(torch.get_rng_state().numpy(), R.get_rng_state().numpy())


def test_set_state_roundtrip_and_torch_state_loads():
    R.manual_seed(4)
    R.randn(5, dtype=R.float64)
    st = R.get_rng_state()
    a = R.randn(9, dtype=R.float64)
    R.set_rng_state(st)
    np.testing.assert_array_equal(a.numpy(), R.randn(9, dtype=R.float64).numpy())
    # a state saved by PyTorch, loaded into retrograd, continues PyTorch's stream
    torch.manual_seed(8)
    torch.randn(3, dtype=torch.float64)
    torch.rand(1000)
    tst = torch.get_rng_state()
    R.set_rng_state(R.tensor(tst.numpy()))
    np.testing.assert_array_equal(torch.randn(5, dtype=torch.float64).numpy(), R.randn(5, dtype=R.float64).numpy())
    g = R.Generator()
    g.set_state(R.tensor(tst.numpy()))
    assert g.initial_seed() == 8


def test_set_state_errors():
    for lib in (torch, R):
        with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
            lib.set_rng_state(lib.zeros(5056))
        with pytest.raises(RuntimeError, match="Expected a CPUGeneratorImplState of size 5056 but found the "
                                               "input RNG state size to be 10"):
            lib.set_rng_state(lib.zeros(10, dtype=lib.uint8))


def test_fork_rng_restores():
    from retrograd import random as rrandom
    R.manual_seed(0)
    with rrandom.fork_rng():
        R.rand(10)
    torch.manual_seed(0)
    np.testing.assert_array_equal(torch.rand(3).numpy(), R.rand(3).numpy())


# ------------------------------------------------------------------ nn
def _params(t, module):
    return t.cat([p.detach().reshape(-1) for p in module.parameters()])


def test_module_initialisation():
    same(lambda t: _params(t, t.nn.Linear(4, 3)))
    same(lambda t: _params(t, t.nn.Sequential(t.nn.Linear(784, 128), t.nn.ReLU(), t.nn.Linear(128, 10))))
    same(lambda t: _params(t, t.nn.Conv2d(3, 8, 3)))
    same(lambda t: _params(t, t.nn.Embedding(10, 5)))
    same(lambda t: _params(t, t.nn.LSTM(4, 5)))


def test_init_functions():
    same(lambda t: t.nn.init.xavier_uniform_(t.empty(30, 40)))
    same(lambda t: t.nn.init.xavier_normal_(t.empty(30, 40)))
    same(lambda t: t.nn.init.kaiming_uniform_(t.empty(30, 40), a=math.sqrt(5)))
    same(lambda t: t.nn.init.kaiming_normal_(t.empty(30, 40), mode="fan_out", nonlinearity="relu"))
    same(lambda t: t.nn.init.uniform_(t.empty(5), generator=t.Generator().manual_seed(3)))
    same(lambda t: t.nn.init.normal_(t.empty(50), 1.0, 0.1))
    same(lambda t: t.nn.init.trunc_normal_(t.empty(30, 40), std=0.02))
    same(lambda t: t.nn.init.trunc_normal_(t.empty(300, 40), std=1.0, a=-0.5, b=0.2))
    same(lambda t: t.nn.init.sparse_(t.empty(30, 40), 0.3))


@pytest.mark.parametrize("shape", [(30, 40), (40, 30), (6, 2, 3)])
def test_orthogonal_close(shape):
    # the draws are identical; the QR factorisation may differ in the last float bits
    torch.manual_seed(0)
    R.manual_seed(0)
    a = torch.nn.init.orthogonal_(torch.empty(*shape), gain=2.0).numpy()
    b = R.nn.init.orthogonal_(R.empty(*shape), gain=2.0).numpy()
    np.testing.assert_allclose(a, b, atol=1e-5, rtol=0)
    np.testing.assert_array_equal(torch.rand(5).numpy(), R.rand(5).numpy())


def test_dropout_family():
    x = np.random.default_rng(2).standard_normal((8, 6, 5, 5)).astype(np.float32)
    same(lambda t: t.nn.functional.dropout(t.tensor(x), 0.3))
    same(lambda t: t.nn.Dropout(0.5)(t.tensor(x)))
    same(lambda t: t.nn.functional.dropout(t.tensor(x), 1.0))
    same(lambda t: t.nn.functional.dropout2d(t.tensor(x), 0.3))
    same(lambda t: t.nn.functional.dropout1d(t.tensor(x[0]), 0.3))
    same(lambda t: t.nn.functional.alpha_dropout(t.tensor(x), 0.3, True))
    same(lambda t: t.nn.functional.feature_alpha_dropout(t.tensor(x), 0.3, True))
    same(lambda t: t.nn.functional.rrelu(t.tensor(x), training=True))
    same(lambda t: t.nn.RReLU(0.1, 0.3)(t.tensor(x)))


def test_dropout_and_rrelu_grads():
    x = np.random.default_rng(3).standard_normal((4, 9)).astype(np.float32)

    def g(fn):
        def run(t):
            a = t.tensor(x, requires_grad=True)
            fn(t, a).sum().backward()
            return a.grad
        return run
    same(g(lambda t, a: t.nn.functional.dropout(a, 0.4)))
    same(g(lambda t, a: t.nn.functional.rrelu(a, training=True)))
    torch.manual_seed(0)
    R.manual_seed(0)
    ta = torch.tensor(x, requires_grad=True)
    ra = R.tensor(x, requires_grad=True)
    assert type(torch.nn.functional.dropout(ta, 0.4).grad_fn).__name__ == \
        type(R.nn.functional.dropout(ra, 0.4).grad_fn).__name__ == "MulBackward0"


def test_gumbel_softmax_close():
    x = np.random.default_rng(4).standard_normal((3, 10)).astype(np.float32)
    torch.manual_seed(0)
    R.manual_seed(0)
    a = torch.nn.functional.gumbel_softmax(torch.tensor(x), tau=0.5).numpy()
    b = R.nn.functional.gumbel_softmax(R.tensor(x), tau=0.5).numpy()
    np.testing.assert_allclose(a, b, atol=1e-6, rtol=0)


# ------------------------------------------------------------------ data
def test_data_shuffling():
    from torch.utils import data as td

    from retrograd.utils import data as rd
    items = list(range(100))

    def epochs(d, lib):
        loader = d.DataLoader(items, batch_size=7, shuffle=True)
        return [[b.tolist() for b in loader] for _ in range(2)] + [lib.rand(2).tolist()]
    torch.manual_seed(0)
    R.manual_seed(0)
    assert epochs(td, torch) == epochs(rd, R)
    torch.manual_seed(1)
    R.manual_seed(1)
    assert [list(s) for s in td.random_split(items, [0.7, 0.3])] == [list(s) for s in rd.random_split(items, [0.7, 0.3])]
    assert list(td.RandomSampler(items)) == list(rd.RandomSampler(items))
    assert list(td.RandomSampler(items, replacement=True, num_samples=70)) == \
        list(rd.RandomSampler(items, replacement=True, num_samples=70))
    assert list(td.SubsetRandomSampler(items[:20])) == list(rd.SubsetRandomSampler(items[:20]))
    tl = td.DataLoader(items, batch_size=5, shuffle=True, generator=torch.Generator().manual_seed(5))
    rl = rd.DataLoader(items, batch_size=5, shuffle=True, generator=R.Generator().manual_seed(5))
    assert [b.tolist() for b in tl] == [b.tolist() for b in rl]


def test_make_tensor():
    for dt in ("float32", "float64", "int64", "bool"):
        same(lambda t: t.testing.make_tensor(3, 4, dtype=getattr(t, dt), device="cpu"))


# ------------------------------------------------------------------ errors unchanged
def test_errors_match_torch():
    cases = [lambda t: t.randint(5, 3, (2,)), lambda t: t.randperm(-1), lambda t: t.rand(2, dtype=t.int64),
             lambda t: t.empty(3).uniform_(2, 1), lambda t: t.normal(0.0, -1.0, (2,))]
    for case in cases:
        with pytest.raises(Exception) as te:
            case(torch)
        with pytest.raises(Exception) as re_:
            case(R)
        assert type(te.value) is type(re_.value)
        assert str(te.value).split("\n")[0] == str(re_.value).split("\n")[0]
