"""Small Tensor methods and flags that PyTorch code touches, compared with torch."""
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")


def _both(fn):
    return fn(rg), fn(torch)


@pytest.mark.parametrize("case", [
    lambda L: L.zeros(3, 3).fill_diagonal_(5).tolist(),
    lambda L: L.zeros(7, 3).fill_diagonal_(1, wrap=True).tolist(),
    lambda L: L.zeros(7, 3).fill_diagonal_(1).tolist(),
    lambda L: L.zeros(2, 2, 2).fill_diagonal_(2).tolist(),
    lambda L: L.tensor([0.2, -1.0, 3.0]).hardshrink(0.5).tolist(),
    lambda L: L.tensor([0.2, -1.0, 3.0]).prelu(L.tensor([0.25])).tolist(),
    lambda L: [L.ones(2).is_mps, L.ones(2).is_xpu, L.ones(2).is_nested, L.ones(2).is_sparse_csr,
               L.ones(2).is_distributed()],
    lambda L: tuple(L.ones(2, 3).adjoint().shape),
    lambda L: L.ones(2).to_dense().tolist(),
])
def test_matches_torch(case):
    ours, theirs = _both(case)
    assert ours == pytest.approx(theirs) if isinstance(theirs, list) and theirs and isinstance(theirs[0], float) \
        else ours == theirs


def test_fill_diagonal_errors_match_torch():
    for L in (rg, torch):
        with pytest.raises(RuntimeError, match="dimensions must larger than 1"):
            L.zeros(3).fill_diagonal_(1)
        with pytest.raises(RuntimeError, match="all dimensions of input must be of equal length"):
            L.zeros(2, 3, 2).fill_diagonal_(1)


def test_fill_diagonal_is_differentiable_like_torch():
    grads = []
    for L in (rg, torch):
        x = L.ones(3, 3, requires_grad=True)
        y = (x * 2).fill_diagonal_(0.0)
        (y * L.arange(9.).reshape(3, 3)).sum().backward()
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1]


def test_as_subclass_shares_data_and_history():
    class MyTensor(rg.Tensor):
        pass
    x = rg.tensor([1., 2.], requires_grad=True)
    y = (x * 2).as_subclass(MyTensor)
    assert type(y) is MyTensor and y.grad_fn is not None
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_transpose_properties_nodes_and_errors_like_torch():
    import warnings


    def run(T):
        out = []
        for shape in ((2, 3), (3,), (2, 3, 4), ()):
            x = T.ones(*shape, requires_grad=True) if shape else T.tensor(1., requires_grad=True)
            for a in ("T", "mT", "H", "mH"):
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        y = getattr(x, a)
                    out.append((shape, a, type(y.grad_fn).__name__ if y.grad_fn else None, tuple(y.shape), y is x))
                except RuntimeError as e:
                    out.append((shape, a, "RuntimeError", str(e)))
        return out

    assert run(rg) == run(torch)  # 2-d .T is PermuteBackward0, .H TransposeBackward0, 0-d is itself


def test_type_complex_and_to_errors_like_torch():
    def run(T):
        out = []
        x = T.ones(2)
        for a in ["torch.Foo", float, "float", "torch.DoubleTensor", "torch.LongTensor"]:
            try:
                out.append((repr(a), str(x.type(a).dtype).split(".")[-1]))
            except Exception as e:  # noqa: BLE001 (the exception itself is compared)
                out.append((repr(a), type(e).__name__, str(e)))
        for f in (lambda: complex(x), lambda: x.to(0), lambda: complex(T.ones(1))):
            try:
                out.append(f())
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e)))
        return out

    assert run(rg) == run(torch)


def test_where_method_takes_self_as_the_true_branch():
    def run(T):
        x = T.tensor([0., -1.], requires_grad=True)
        out = x.where(T.tensor([True, False]), T.tensor([5., 6.]))
        out.sum().backward()
        return out.tolist(), x.grad.tolist(), type(out.grad_fn).__name__, x.detach().where(T.tensor([False, True]), 2.).tolist()

    assert run(rg) == run(torch)
