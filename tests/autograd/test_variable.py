"""autograd.Variable and the legacy tensor constructors, against torch 2.13."""

import parity


def same(scenario):
    """``parity.same`` with tensor shapes in the log and dtypes by name."""
    return parity.same(scenario, shape=True, dtypes=True)


def attempt(log, f):
    try:
        log("ok", f())
    except (RuntimeError, TypeError) as e:
        log(type(e).__name__, str(e))


# ---------------------------------------------------------------- compatibility
def test_variable_and_legacy_constructors():
    def sc(lib, log):
        V = lib.autograd.Variable
        t = lib.tensor([1.0, 2.0])
        v = V(t, requires_grad=True)
        log(v is t, v.requires_grad, t.requires_grad, v.is_leaf, isinstance(t, V), isinstance(v, lib.Tensor),
            isinstance(3, V))
        v.data[0] = 5
        log(t, V(t).requires_grad)
        attempt(log, lambda: V([1.0, 2.0]))
        log(V(lib.tensor([1.0], requires_grad=True) * 2).grad_fn)
        log(lib.Tensor([1, 2]).dtype, lib.Tensor(2, 3).shape, lib.FloatTensor([1, 2]).dtype,
            lib.DoubleTensor([1.5]).dtype, lib.LongTensor([1, 2]).dtype, lib.LongTensor(3).shape,
            lib.Tensor().shape, lib.FloatTensor([1.0]).type(), isinstance(lib.FloatTensor([1.0]), lib.Tensor))

    same(sc)
