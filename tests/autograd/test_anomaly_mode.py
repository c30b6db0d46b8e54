"""Anomaly mode: the forward traceback warning, NaN detection, parents of double-backward
nodes, and the mode switches, compared with torch running the same code."""
import warnings

import pytest

import retrograd as rg
from parity import trim_to_torch

torch = pytest.importorskip("torch")


def run(lib, body):
    """(events, warnings) of ``body(lib)``; warnings keep the user's frames only."""
    events = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            body(lib, events)
        except Exception as e:  # noqa: BLE001 - compared across libraries
            events.append((type(e).__name__, str(e)))
    msgs = []
    for w in caught:
        m = str(w.message)
        m = m.split(" (Triggered internally")[0]
        # keep the frames of this file only (PyTorch also shows its own engine frames)
        keep, skip = [], False
        for ln in m.split("\n"):
            if ln.startswith("  File "):
                skip = __file__ not in ln
            if not skip:
                keep.append(ln)
        msgs.append((w.category.__name__, "\n".join(keep).rstrip("\n")))
    return events, msgs


def same(body):
    ours, theirs = run(rg, body), run(torch, body)
    ours = trim_to_torch(ours, theirs)  # (PyTorch's messages; retrograd's added lines aside)
    assert ours == theirs
    return ours


def bad_fn(lib):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")

    return Bad


def nan_fn(lib):
    class NanF(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    return NanF


def test_error_in_backward_shows_forward_traceback():
    def body(lib, ev):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.detect_anomaly():
            y = bad_fn(lib).apply(x)
            y.sum().backward()

    events, msgs = same(body)
    assert events == [("ValueError", "boom")]
    assert msgs[1][1].startswith("Error detected in BadBackward. Traceback of forward call that caused the error:\n")
    assert "y = bad_fn(lib).apply(x)" in msgs[1][1]


def test_nan_detection_and_check_nan_off():
    def body(lib, ev):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.detect_anomaly(check_nan=False):
            nan_fn(lib).apply(x).sum().backward()
        ev.append((x.grad != x.grad).all().item())
        with lib.autograd.detect_anomaly():
            z = nan_fn(lib).apply(x).exp()
            z.sum().backward()

    events, msgs = same(body)
    assert events[-1] == ("RuntimeError", "Function 'NanFBackward' returned nan values in its 0th output.")


def test_builtin_node_nan_and_previous_calculation():
    def body(lib, ev):
        a = lib.tensor([0.0], requires_grad=True)
        with lib.autograd.detect_anomaly():
            out = a ** 1.5
            (g,) = lib.autograd.grad(out.sum(), a, create_graph=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's own 0 * inf warning
                (g * 0).sum().backward()

    events, msgs = same(body)
    assert events == [("RuntimeError", "Function 'PowBackward0' returned nan values in its 0th output.")]
    assert any(m.startswith("\n\nPrevious calculation was induced by PowBackward0.") for _, m in msgs)


def test_no_anomaly_no_traceback():
    def body(lib, ev):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = bad_fn(lib).apply(x)
        y.sum().backward()

    events, msgs = same(body)
    assert msgs == []


def test_mode_switches():
    def flags(lib):
        f = getattr(lib, "is_anomaly_enabled", None) or lib.autograd.is_anomaly_enabled
        c = getattr(lib, "is_anomaly_check_nan_enabled", None) or lib.autograd.is_anomaly_check_nan_enabled
        return f(), c()

    def body(lib, ev):
        ev.append(flags(lib))
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            ev.append(flags(lib))
        ev.append(flags(lib))
        lib.autograd.set_detect_anomaly(True)
        ev.append(flags(lib))
        lib.autograd.set_detect_anomaly(False)
        with lib.autograd.detect_anomaly():
            ev.append(flags(lib))
        ev.append(flags(lib))

    events, msgs = same(body)
    assert events[:3] == [(False, True), (True, False), (False, True)]


def test_detect_anomaly_is_not_a_decorator_like_torch():
    # torch 2.13: 'detect_anomaly' object is not callable (use it as a context manager)
    torch = pytest.importorskip("torch")
    msgs = []
    for T in (rg, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(TypeError) as e:
                T.autograd.detect_anomaly()(lambda: None)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
