"""Anomaly detection: forward tracebacks for failing backward nodes, and NaN checks.

>>> import retrograd as torch
>>> with torch.autograd.detect_anomaly():
...     x = torch.tensor(1., requires_grad=True)
...     (x * 2).backward()
"""
from __future__ import annotations

import functools
import threading
import warnings

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]


class _State(threading.local):
    def __init__(self) -> None:
        self.enabled = False
        self.check_nan = True


anomaly_state = _State()


def is_anomaly_enabled() -> bool:
    return anomaly_state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return anomaly_state.check_nan


class detect_anomaly:
    """Context manager and decorator that turns anomaly detection on."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self.prev = (False, True)
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and "
            "should only be enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        self.prev = (anomaly_state.enabled, anomaly_state.check_nan)
        anomaly_state.enabled = True
        anomaly_state.check_nan = self.check_nan

    def __exit__(self, *exc) -> None:
        anomaly_state.enabled, anomaly_state.check_nan = self.prev

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return func(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Set anomaly detection on or off; works as a call or as a context manager."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = (anomaly_state.enabled, anomaly_state.check_nan)
        anomaly_state.enabled = bool(mode)
        anomaly_state.check_nan = check_nan

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        anomaly_state.enabled, anomaly_state.check_nan = self.prev
