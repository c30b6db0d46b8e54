"""gradcheck / gradgradcheck: PyTorch's signature, return values and failure messages."""
import re
import warnings

import pytest

import retrograd as rg
from retrograd.autograd.gradcheck import GradcheckError

torch = pytest.importorskip("torch")


def _msg(lib, fn, inputs, **kw):
    try:
        return lib.autograd.gradcheck(fn, inputs, **kw)
    except Exception as e:  # noqa: BLE001 - we compare type and text
        return type(e).__name__, re.sub(r"(torch|retrograd)\.", "", str(e))


def _inputs(lib, *shapes, seed=0):
    import numpy as np

    rng = np.random.default_rng(seed)
    return tuple(lib.tensor(rng.standard_normal(s), dtype=lib.float64, requires_grad=True) for s in shapes)


def test_passes_on_correct_gradients():
    x, y = _inputs(rg, (2, 3), (3,))
    assert rg.autograd.gradcheck(lambda a, b: (a * b).sin() + a.exp(), (x, y)) is True
    assert rg.autograd.gradgradcheck(lambda a, b: (a * b).sin() + a.exp(), (x, y)) is True


def test_is_exposed_as_function_with_pytorch_signature():
    import inspect

    assert callable(rg.autograd.gradcheck) and callable(rg.autograd.gradgradcheck)
    ours = inspect.signature(rg.autograd.gradcheck).parameters
    theirs = inspect.signature(torch.autograd.gradcheck).parameters
    assert list(ours) == list(theirs)
    assert list(inspect.signature(rg.autograd.gradgradcheck).parameters) == list(
        inspect.signature(torch.autograd.gradgradcheck).parameters)
    assert issubclass(GradcheckError, RuntimeError)


def test_mismatch_message_matches_torch():
    def wrong(lib):
        return lambda a: a.detach() * 2 + a

    ours = _msg(rg, wrong(rg), _inputs(rg, (3,)))
    theirs = _msg(torch, wrong(torch), _inputs(torch, (3,)))
    assert ours == theirs
    assert ours[0] == "GradcheckError"
    assert ours[1].startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:")
    assert "\nanalytical:" in ours[1]


def test_mismatch_indices_name_output_and_input():
    def fn(a, b):
        return a * 2, a * b.detach()  # output 1 is wrong w.r.t. input 1

    ours = _msg(rg, fn, _inputs(rg, (2,), (2,)))
    theirs = _msg(torch, fn, _inputs(torch, (2,), (2,)))
    assert ours == theirs
    assert ours[1].startswith("Jacobian mismatch for output 1 with respect to input 1,")


def test_raise_exception_false_returns_false():
    (x,) = _inputs(rg, (3,))
    assert rg.autograd.gradcheck(lambda a: a.detach() * 2 + a, (x,), raise_exception=False) is False
    assert rg.autograd.gradgradcheck(lambda a: a.detach() * a * a + a, (x,), raise_exception=False) is False


def test_no_input_requires_grad_and_zero_numerical():
    x = rg.tensor([1.0, 2.0], dtype=rg.float64)
    with pytest.raises(ValueError, match="gradcheck expects at least one input tensor to require gradient"):
        rg.autograd.gradcheck(lambda a: a * 2, (x,))
    (y,) = _inputs(rg, (2,))
    assert _msg(rg, lambda a: a.detach() * 2, (y,)) == _msg(torch, lambda a: a.detach() * 2, _inputs(torch, (2,)))
    assert _msg(rg, lambda a: a.detach() * 2, (y,)) == ("GradcheckError",
                                                        "Numerical gradient for function expected to be zero")


def test_float32_input_warns_like_torch():
    x = rg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double precision"):
        rg.autograd.gradcheck(lambda a: a * 2, (x,), eps=1e-3, atol=1e-2, rtol=1e-2)


def test_tolerances_eps_and_single_tensor_input():
    (x,) = _inputs(rg, (4,))
    assert rg.autograd.gradcheck(lambda a: a.exp(), x, eps=1e-6, atol=1e-5, rtol=1e-3)
    # a deliberately huge eps breaks the central difference of exp beyond tight tolerances
    assert rg.autograd.gradcheck(lambda a: a.exp(), x, eps=0.5, atol=1e-8, rtol=1e-8,
                                 raise_exception=False) is False
    assert rg.autograd.gradcheck(lambda a: a.exp(), x, fast_mode=True)


def test_non_tensor_and_non_differentiable_outputs():
    (x,) = _inputs(rg, (3,))
    # integer outputs are ignored; non-float args pass through
    assert rg.autograd.gradcheck(lambda a, k: (a * k, (a > 0).long()), (x, 3))


def test_multiple_outputs_and_inputs_without_grad():
    x, y = _inputs(rg, (2, 2), (2,))
    z = rg.tensor([1.0, -1.0], dtype=rg.float64)
    assert rg.autograd.gradcheck(lambda a, b, c: (a @ b, (a * c).sum()), (x, y, z))
    assert rg.autograd.gradgradcheck(lambda a, b, c: (a @ b * c, a.sum()), (x, y, z))


def test_nondeterministic_backward_is_reported():
    calls = [0]

    class Flaky(rg.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            calls[0] += 1
            return g * (2 + (1e-7 if calls[0] % 3 == 0 else 0.0))

    (x,) = _inputs(rg, (2,))
    with pytest.raises(GradcheckError, match="Backward is not reentrant"):
        rg.autograd.gradcheck(Flaky.apply, (x,), atol=1e-3)
    assert rg.autograd.gradcheck(Flaky.apply, (x,), atol=1e-3, nondet_tol=1e-5)


def test_backward_not_multiplied_by_grad_output():
    class Bad(rg.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1

        @staticmethod
        def backward(ctx, g):
            return g * 0 + 1.0  # ignores g: correct only for g == 1

    (x,) = _inputs(rg, (1,))
    with pytest.raises(GradcheckError, match="backward not multiplied by grad_output"):
        rg.autograd.gradcheck(Bad.apply, (x,))


def test_undefined_grad_check():
    class NoNone(rg.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.set_materialize_grads(False)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            if g is None:
                raise RuntimeError("undefined grad")
            return g * 2

    (x,) = _inputs(rg, (2,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(GradcheckError, match="Expected backward function to handle undefined output grads"):
            rg.autograd.gradcheck(NoNone.apply, (x,))
    assert rg.autograd.gradcheck(NoNone.apply, (x,), check_undefined_grad=False)


def test_gradgradcheck_catches_wrong_second_derivative():
    class WrongSecond(rg.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a ** 3

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * 3 * a.detach() ** 2  # right value, but not differentiable w.r.t. a

    (x,) = _inputs(rg, (2,))
    assert rg.autograd.gradcheck(WrongSecond.apply, (x,))
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"):
        rg.autograd.gradgradcheck(WrongSecond.apply, (x,))


def test_gradgradcheck_with_given_grad_outputs():
    (x,) = _inputs(rg, (3,))
    go = rg.tensor([0.5, -1.0, 2.0], dtype=rg.float64, requires_grad=True)
    assert rg.autograd.gradgradcheck(lambda a: a.tanh() * a, (x,), (go,))


def test_stride_zero_input_is_refused():
    x = rg.tensor([1.0], dtype=rg.float64, requires_grad=True)
    y = x.expand(3).detach().requires_grad_()
    with pytest.raises(RuntimeError, match="The 0th input has a dimension with stride 0"):
        rg.autograd.gradcheck(lambda a: a * 2, (y,))
