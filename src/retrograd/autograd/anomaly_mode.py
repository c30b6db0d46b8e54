"""Anomaly detection: forward tracebacks for failing backward nodes, and NaN checks.

While enabled, every node records the stack of the forward call that made it.  When a
node's backward raises (or, with ``check_nan``, returns NaN), a UserWarning shows
"Error detected in XBackward0. Traceback of forward call that caused the error:" and that
stack; for nodes made during a ``create_graph`` backward, the node whose backward made
them is reported too ("Previous calculation was induced by ...").

>>> import retrograd as torch
>>> with torch.autograd.detect_anomaly():
...     x = torch.tensor(1., requires_grad=True)
...     (x * 2).backward()
"""
from __future__ import annotations

import sys
import threading
import traceback
import warnings

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]


class _State(threading.local):
    def __init__(self) -> None:
        self.enabled = False
        self.check_nan = True
        self.current_node = None  # the node whose backward is running (parents of new nodes)


anomaly_state = _State()


def is_anomaly_enabled() -> bool:
    """True while anomaly detection is on (in this thread)."""
    return anomaly_state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """True when anomaly detection also checks backward outputs for NaN."""
    return anomaly_state.check_nan


class detect_anomaly:
    """Context manager that turns anomaly detection on (not a decorator, as in torch 2.13).

    >>> import retrograd as torch, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with torch.autograd.detect_anomaly():
    ...         torch.is_anomaly_enabled()
    True
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self.prev = anomaly_state.enabled
        self.prev_check_nan = anomaly_state.check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and "
            "should only be enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        self.prev = anomaly_state.enabled
        self.prev_check_nan = anomaly_state.check_nan
        anomaly_state.enabled = True
        anomaly_state.check_nan = self.check_nan

    def __exit__(self, *exc) -> None:
        anomaly_state.enabled = self.prev
        anomaly_state.check_nan = self.prev_check_nan


class set_detect_anomaly:
    """Set anomaly detection on or off; works as a call or as a context manager.

    >>> import retrograd as torch
    >>> _ = torch.autograd.set_detect_anomaly(False)
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = anomaly_state.enabled
        self.prev_check_nan = anomaly_state.check_nan
        anomaly_state.enabled = bool(mode)
        anomaly_state.check_nan = check_nan

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        anomaly_state.enabled = self.prev
        anomaly_state.check_nan = self.prev_check_nan


# ---- what the registry (recording) and the engine (reporting) call ---------------------------
def _user_stack() -> list[str]:
    """The current stack, formatted, without retrograd's own frames at the top."""
    f = sys._getframe(1)
    while f is not None and f.f_globals.get("__name__", "").startswith("retrograd"):
        f = f.f_back
    if f is None:
        return []
    return traceback.format_stack(f)


def record_trace(node) -> None:
    """Remember where ``node`` was made (and which backward made it, if any)."""
    node._trace = (_user_stack(), anomaly_state.current_node)


def report_anomaly(node) -> None:
    """Warn with the forward traceback of ``node`` (and of the nodes that induced it)."""
    trace = node._trace
    stack, parent = trace if trace else (None, None)
    if trace is None:  # (the forward ran with anomaly mode off: PyTorch's text)
        msg = (f"Error detected in {node.name()}. No forward pass information available. Enable detect anomaly "
               "during forward pass for more information.")
    else:
        msg = f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n"
        msg += "".join(stack)
    _warn(msg)
    seen = set()
    while parent is not None and id(parent) not in seen:
        seen.add(id(parent))
        stack, nxt = parent._trace if parent._trace else (None, None)
        msg = (f"\n\nPrevious calculation was induced by {parent.name()}. Traceback of forward call that induced "
               "the previous calculation:\n")
        msg += "".join(stack) if stack else ""
        _warn(msg)
        parent = nxt


def _warn(msg: str) -> None:
    """Warn while an error propagates; a warning filter that turns it into an exception must not
    replace that error (PyTorch then prints the warning to stderr)."""
    try:
        warnings.warn(msg, UserWarning, stacklevel=5)
    except Warning as w:
        print(f"{type(w).__name__}: {w}", file=sys.stderr)
