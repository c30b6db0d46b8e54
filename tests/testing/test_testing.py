"""retrograd.testing.assert_close / make_tensor vs torch.testing."""
import pytest

import retrograd as rg
from parity import norm

torch = pytest.importorskip("torch")

CASES = [
    (lambda L: (L.ones(2), L.ones(2) * 1.1), {}),
    (lambda L: (L.ones(2), L.ones(3)), {}),
    (lambda L: (L.ones(2), L.ones(2, dtype=L.float64)), {}),
    (lambda L: (L.tensor([1., 2., 3.]), L.tensor([1., 2.5, 3.])), {}),
    (lambda L: (L.tensor([1., 2., 3.]), L.tensor([1., 2.5, 3.])), {"rtol": 0.5, "atol": 0.0}),
    (lambda L: (L.tensor([1., float("nan")]), L.tensor([1., float("nan")])), {}),
    (lambda L: (L.tensor([1., float("nan")]), L.tensor([1., float("nan")])), {"equal_nan": True}),
    (lambda L: (L.tensor([1, 2]), L.tensor([1, 3])), {}),
    (lambda L: (L.tensor([1., 2.], dtype=L.float64), L.tensor([1., 2. + 1e-9], dtype=L.float64)), {}),
    (lambda L: ([L.ones(2), {"a": L.zeros(1)}], [L.ones(2), {"a": L.zeros(1)}]), {}),
    (lambda L: (1.0, 1.0 + 1e-9), {}),
    (lambda L: (L.tensor([True, False]), L.tensor([True, True])), {}),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_assert_close_matches_torch(i):
    make, kw = CASES[i]
    out = []
    for lib in (rg, torch):
        a, e = make(lib)
        try:
            lib.testing.assert_close(a, e, **kw)
            out.append("ok")
        except Exception as exc:  # noqa: BLE001 - compared across libraries
            out.append((type(exc).__name__, norm(str(exc))))
    assert out[0] == out[1]


def test_make_tensor():
    t = rg.testing.make_tensor(2, 3, dtype=rg.float64, device="cpu", low=-1, high=1, requires_grad=True)
    assert t.shape == (2, 3) and t.dtype is rg.float64 and t.requires_grad
    assert float(t.abs().max()) <= 1
    i = rg.testing.make_tensor((4,), dtype=rg.int64, device=None, low=0, high=3)
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'device'"):
        rg.testing.make_tensor(2, dtype=rg.float32)  # (as in torch: device has no default)
    assert i.dtype is rg.int64 and int(i.max()) < 3 and int(i.min()) >= 0


@pytest.mark.parametrize("case", [
    lambda T: (T.tensor([1., float("inf")]), T.tensor([1., float("-inf")]), {}),  # inf vs -inf: not close
    lambda T: (T.tensor([1., float("inf")]), T.tensor([1., float("inf")]), {}),  # same infinity: close
    lambda T: (T.tensor(1.), T.tensor(2.), {}),  # 0-d: reported as scalars
    lambda T: (1.0, 2.0, {}),
    lambda T: (1, 2, {}),
    lambda T: (T.tensor([1., 2.]), T.tensor([1., 3.]), {"rtol": 0, "atol": 0}),  # equality: no tolerances shown
    lambda T: (T.tensor([1, 2]), T.tensor([1, 3]), {}),
    lambda T: (1.0, 1.5, {"rtol": 0, "atol": 0}),
    lambda T: (T.tensor([float("nan")]), T.tensor([float("nan")]), {"equal_nan": True}),
    lambda T: (T.tensor([float("nan")]), T.tensor([float("nan")]), {"rtol": 0, "atol": 0, "equal_nan": True}),
    lambda T: (T.tensor(0.), T.tensor(0.5, dtype=T.float64), {"check_dtype": False}),
])
def test_assert_close_verdicts_and_messages_match_torch(case):
    def run(T):
        a, b, kw = case(T)
        try:
            T.testing.assert_close(a, b, **kw)
        except AssertionError as exc:
            return str(exc)
        return None

    assert run(rg) == run(torch)
