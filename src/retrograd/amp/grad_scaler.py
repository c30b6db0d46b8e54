"""``torch.amp.GradScaler``: dynamic loss scaling, with PyTorch's state machine and numbers.

Loss scaling protects float16 gradients from underflow.  retrograd computes in the tensors'
own precision, so on the CPU the scaler changes nothing numerically that matters, but
training loops written for mixed precision (``scaler.scale(loss).backward();
scaler.step(opt); scaler.update()``) run unchanged and take the same decisions as torch:
a step whose gradients hold inf/NaN is skipped and the scale backs off; after
``growth_interval`` clean steps it grows.  ``GradScaler("cuda")`` (the default device) is
disabled with torch's warning, as on a machine without CUDA.

>>> import retrograd as torch
>>> w = torch.ones(2, requires_grad=True)
>>> opt = torch.optim.SGD([w], lr=0.1)
>>> scaler = torch.amp.GradScaler("cpu", init_scale=4.0)
>>> scaler.scale((w * 3).sum()).backward()
>>> w.grad                       # scaled by 4
tensor([12., 12.])
>>> scaler.step(opt); scaler.update()
>>> w.detach(), scaler.get_scale()
(tensor([0.7000, 0.7000]), 4.0)
"""
from __future__ import annotations

import enum
import warnings
from collections import abc, defaultdict
from typing import Any

import numpy as np

__all__ = ["GradScaler", "OptState"]

_FIX = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."


class OptState(enum.Enum):
    """Where an optimizer is in the current iteration: gradients as produced, unscaled, stepped."""

    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state() -> dict:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """Scale the loss, unscale the gradients, skip steps with inf/NaN gradients, adapt the scale."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                          stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None  # a float32 0-d tensor, made by the first scale() (as in torch)
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None  # int32 0-d tensor: consecutive steps without inf/NaN
            self._per_optimizer_states: dict = defaultdict(_fresh_state)

    # ------------------------------------------------------------------ scaling
    def scale(self, outputs):
        """``outputs * scale`` for a tensor or (nested) iterable of tensors; unchanged when disabled."""
        from .._tensor import Tensor

        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            return outputs * self._scale_tensor()

        def scaled(val):
            if isinstance(val, Tensor):
                return val * self._scale_tensor()
            if isinstance(val, abc.Iterable):
                items = map(scaled, val)
                return type(val)(items) if isinstance(val, (list, tuple)) else items
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return scaled(outputs)

    def _scale_tensor(self):
        if self._scale is None:
            from .. import _creation, _dtype

            self._scale = _creation.full((), self._init_scale, dtype=_dtype.float32)
            self._growth_tracker = _creation.full((), self._init_growth_tracker, dtype=_dtype.int32)
        return self._scale

    def _check_scale_growth_tracker(self, funcname: str):
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + _FIX)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + _FIX)
        return self._scale, self._growth_tracker

    def unscale_(self, optimizer) -> None:
        """Divide ``optimizer``'s gradients by the scale in place, and note whether any is inf/NaN."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # torch takes the reciprocal in double, then rounds it to float32
        inv_scale = np.float32(1.0 / np.float64(self._scale._data))
        state["found_inf_per_device"] = {"cpu": self._unscale_grads(optimizer, inv_scale)}
        state["stage"] = OptState.UNSCALED

    @staticmethod
    def _unscale_grads(optimizer, inv_scale):
        from .. import _creation, _dtype
        from .._tensor import bump_version

        found = False
        for group in optimizer.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if g.dtype is _dtype.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                data = g._data
                if not found and not np.isfinite(data).all():
                    found = True
                np.multiply(data, inv_scale, out=data, casting="unsafe")
                bump_version(g)
        return _creation.full((), 1.0 if found else 0.0, dtype=_dtype.float32)

    # ------------------------------------------------------------------ stepping
    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step()`` unless this iteration's gradients hold inf/NaN (unscaling first if needed)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale: "float | Any | None" = None) -> None:
        """Set the scale for the next iteration: back off after inf/NaN, grow after a clean streak."""
        if not self._enabled:
            return
        scale, tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale._data[...] = new_scale
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                if new_scale.device.type != self._device or new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError(reason)
                scale._data[...] = new_scale._data.reshape(())
        else:
            found = [f for st in self._per_optimizer_states.values() for f in st["found_inf_per_device"].values()]
            if len(found) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            total = sum(float(f._data) for f in found)
            if total:
                scale._data[...] = scale._data * np.float32(self._backoff_factor)
                tracker._data[...] = 0
            else:
                streak = int(tracker._data) + 1
                if streak == self._growth_interval:
                    with np.errstate(over="ignore"):
                        grown = scale._data * np.float32(self._growth_factor)
                    if np.isfinite(grown):  # (torch keeps the old scale rather than overflow to inf)
                        scale._data[...] = grown
                    streak = 0
                tracker._data[...] = streak
        self._per_optimizer_states = defaultdict(_fresh_state)

    # ------------------------------------------------------------------ queries and state
    def get_scale(self) -> float:
        """The current scale as a Python float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale._data)

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else int(self._growth_tracker._data)

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict:
        """scale, growth_factor, backoff_factor, growth_interval, _growth_tracker ({} when disabled)."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale._data[...] = state_dict["scale"]
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker._data[...] = state_dict["_growth_tracker"]
