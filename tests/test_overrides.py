"""Tests of retrograd.overrides, checked against PyTorch."""

import pytest

import retrograd

torch = pytest.importorskip("torch")


# ------------------------------------------------------------------ overrides
class _Wrapper:
    def __init__(self, v):
        self.v = v

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return ("handled", func.__name__, len(args))


def test_overrides_helpers():
    for lib in (retrograd, torch):
        O = lib.overrides
        x, w = lib.ones(1), _Wrapper(1)
        assert O.has_torch_function((x,)) is False
        assert O.has_torch_function((x, w)) is True
        assert O.has_torch_function_unary(w) and not O.has_torch_function_unary(x)
        assert O.has_torch_function_variadic(x, w)
        assert O.is_tensor_like(x) and O.is_tensor_like(w) and not O.is_tensor_like(1.0)

        def f(a, b):
            return O.handle_torch_function(f, (a, b), a, b)
        assert f(x, w) == ("handled", "f", 2)
        assert lib.typename in O.get_ignored_functions()


def test_handle_torch_function_all_not_implemented():
    class Refuses:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    def g(a):
        return retrograd.overrides.handle_torch_function(g, (a,), a)
    with pytest.raises(TypeError, match="no implementation found for"):
        g(Refuses())
