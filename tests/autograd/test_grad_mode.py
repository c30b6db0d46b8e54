"""Grad modes against torch 2.13: inference mode (its tensors, nesting, views and decorators),
set_grad_enabled, and the related warnings and anomaly-mode queries."""

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

import parity  # noqa: E402


def same(scenario):
    """``parity.same`` with tensor shapes in the log and dtypes by name."""
    return parity.same(scenario, shape=True, dtypes=True)


def attempt(log, f):
    try:
        log("ok", f())
    except (RuntimeError, TypeError) as e:
        log(type(e).__name__, str(e))


# ---------------------------------------------------------------- inference mode
def test_inference_tensors_and_their_errors():
    def sc(lib, log):
        with lib.inference_mode():
            t = lib.ones(2)
            u = lib.ones(2, requires_grad=True)
            log(lib.is_inference_mode_enabled(), lib.is_grad_enabled(), u.requires_grad, (u * 2).requires_grad)
        log(t.is_inference(), lib.ones(1).is_inference(), lib.is_inference_mode_enabled())
        w = lib.ones(2, requires_grad=True)
        attempt(log, lambda: t.clone().add_(1))
        try:
            t.add_(1)  # (PyTorch writes before it raises here; retrograd refuses before writing)
        except RuntimeError as e:
            log(str(e))
        with lib.inference_mode():
            t = lib.ones(2)
        attempt(log, lambda: (w * t).sum())
        attempt(log, lambda: (w + t).requires_grad)
        attempt(log, lambda: t.requires_grad_())
        attempt(log, lambda: t.clone().is_inference())
        attempt(log, lambda: (u * w).sum())
        with lib.inference_mode():
            t.add_(1)
            log(t)

    same(sc)


def test_inference_mode_nesting_and_views():
    def sc(lib, log):
        w = lib.ones(2, requires_grad=True)
        with lib.inference_mode():
            with lib.inference_mode(False):
                log(lib.is_inference_mode_enabled(), lib.is_grad_enabled(), lib.ones(1).is_inference())
            v = w[0:1]
            log(v.is_inference(), v.requires_grad, (w * 2).is_inference())
        attempt(log, lambda: v.mul_(2))
        ww = w * 1
        with lib.inference_mode():
            vv = ww[0:1]
        attempt(log, lambda: vv.mul_(2))
        with lib.no_grad():
            with lib.inference_mode(False):
                log("no_grad + inference_mode(False)", lib.is_grad_enabled())

    same(sc)


def test_inference_mode_decorators():
    def sc(lib, log):
        w = lib.ones(2, requires_grad=True)

        @lib.inference_mode()
        def f(a):
            return a * 2, lib.is_inference_mode_enabled()

        @lib.inference_mode
        def g(a):
            return a * 2

        @lib.inference_mode(False)
        def h(a):
            return lib.is_inference_mode_enabled()

        out, flag = f(w)
        log(out.is_inference(), flag, g(w).is_inference(), h(w), lib.is_inference_mode_enabled())

    same(sc)


def test_set_grad_enabled_bool_only_nonleaf_grad_warning_and_anomaly_queries_like_torch():
    import warnings

    torch = pytest.importorskip("torch")

    def run(T):
        out = []
        for m in (1, None, "yes", np.bool_(True)):
            try:
                T.set_grad_enabled(m)
                out.append("accepted")
            except TypeError as e:
                out.append(str(e))
        T.set_grad_enabled(True)
        x = T.ones(2, requires_grad=True)
        y = x * 2
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            y.grad  # unset on a non-leaf: warns
            y.grad = T.zeros(2)
            y.grad  # set: no warning (torch warns only when undefined)
        out.append(len(w))
        out.append((T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
        return out

    assert run(rg) == run(torch)


def test_view_of_an_inference_tensor_made_outside_the_mode_is_an_inference_tensor():
    torch = pytest.importorskip("torch")

    def run(T):
        with T.inference_mode():
            x = T.ones(3)
        v = x[1:]
        try:
            v.add_(1)
            err = None
        except RuntimeError as e:
            err = str(e)
        return v.is_inference(), x.view(3).is_inference(), err

    assert run(rg) == run(torch)
