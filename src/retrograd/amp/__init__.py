"""``torch.amp``: automatic mixed precision, as far as a NumPy CPU library can follow it.

``autocast("cuda")`` is disabled with PyTorch's warning (there is no CUDA here), exactly as
torch's CPU build does.  ``autocast("cpu")`` is accepted so training code runs unchanged,
but computes in the tensors' own precision (NumPy has no bfloat16 arithmetic), and says so
once with a UserWarning.  ``enabled=False`` is a plain no-op, as in torch.

>>> import retrograd as torch
>>> with torch.autocast("cpu", enabled=False):
...     torch.is_autocast_enabled()
False
"""
from __future__ import annotations

import functools
import warnings


__all__ = ["autocast", "is_autocast_available", "is_autocast_enabled"]

_DEVICE_TYPES = ("cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, "
                 "mps, meta, hpu, mtia, privateuseone")
_enabled: dict = {}  # device type -> whether an autocast region is active (per process, like the dtype)
_dtypes: dict = {}  # device type -> the autocast dtype set by a region's dtype= or torch.set_autocast_dtype
_cache = [True]  # torch.set_autocast_cache_enabled (no weight cast cache exists here: a flag only)
_warned_cpu = [False]


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast can run on ``device_type`` here (the CPU only)."""
    return device_type == "cpu"


class autocast:
    """Context manager / decorator for mixed-precision regions (see the module docstring)."""

    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled: bool | None = None) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if device_type.split(":")[0] not in _DEVICE_TYPES.split(", "):
            raise RuntimeError(f"Expected one of {_DEVICE_TYPES} device type at start of device string: "
                               f"{device_type}")
        self.device = device_type
        self.fast_dtype = dtype
        self._enabled = enabled
        if enabled and device_type != "cpu":
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", UserWarning,
                          stacklevel=2)
            self._enabled = False
        elif enabled and not _warned_cpu[0]:
            _warned_cpu[0] = True
            warnings.warn("retrograd: autocast('cpu') computes in the tensors' own precision (no bfloat16/float16 "
                          "arithmetic on NumPy)", UserWarning, stacklevel=2)

    def __enter__(self):
        self._prev = _enabled.get(self.device, False)
        self._prev_dtype = _dtypes.get(self.device)
        _enabled[self.device] = self._enabled
        if self.fast_dtype is not None:
            _dtypes[self.device] = self.fast_dtype
        return self

    def __exit__(self, *exc) -> None:
        _enabled[self.device] = self._prev
        if self._prev_dtype is None:
            _dtypes.pop(self.device, None)
        else:
            _dtypes[self.device] = self._prev_dtype

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled):
                return func(*args, **kwargs)
        return wrapper


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether an enabled autocast region for ``device_type`` (default: CUDA) is active."""
    return _enabled.get(device_type or "cuda", False)



def get_autocast_dtype(device_type: str):
    """The dtype an autocast region on ``device_type`` would use (torch's defaults: bfloat16 / float16)."""
    from .. import _dtype

    if device_type in _dtypes:
        return _dtypes[device_type]
    return _dtype.bfloat16 if device_type in ("cpu", "xla") else _dtype.float16


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """Decorator for a custom Function's ``forward`` under autocast (torch's API).

    Outside an enabled autocast region it is a no-op; inside one with ``cast_inputs``, the
    forward runs with autocast disabled (retrograd computes in the inputs' own precision, so
    no cast is needed).

    >>> import retrograd as torch
    >>> class Double(torch.autograd.Function):
    ...     @staticmethod
    ...     @torch.amp.custom_fwd(device_type="cpu")
    ...     def forward(ctx, x):
    ...         return x * 2
    ...     @staticmethod
    ...     @torch.amp.custom_bwd(device_type="cpu")
    ...     def backward(ctx, g):
    ...         return g * 2
    >>> Double.apply(torch.ones(1, requires_grad=True))
    tensor([2.], grad_fn=<DoubleBackward>)
    """
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        active = is_autocast_enabled(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = active
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if active:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*args, **kwargs)
        return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """Decorator for ``backward``: runs it in the autocast state its forward ran in (torch's API)."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=device_type, enabled=getattr(ctx, "_fwd_used_autocast", False),
                      dtype=getattr(ctx, "_dtype", None)):
            return bwd(*args, **kwargs)

    return decorate_bwd


from .grad_scaler import GradScaler  # noqa: E402

__all__ += ["GradScaler", "custom_fwd", "custom_bwd", "get_autocast_dtype"]


# ---------------------------------------------------------------- torch.cuda.amp (deprecated aliases)
class _CudaGradScaler(GradScaler):
    """``torch.cuda.amp.GradScaler``: deprecated spelling of ``torch.amp.GradScaler("cuda", ...)``."""

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


_CudaGradScaler.__name__ = _CudaGradScaler.__qualname__ = "GradScaler"


class _CudaAutocast(autocast):
    """``torch.cuda.amp.autocast``: deprecated spelling of ``torch.amp.autocast("cuda", ...)``."""

    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True) -> None:
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


_CudaAutocast.__name__ = _CudaAutocast.__qualname__ = "autocast"


def _cuda_custom_fwd(fwd=None, *, cast_inputs=None):
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning, stacklevel=2)
    return custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def _cuda_custom_bwd(bwd=None):
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning, stacklevel=2)
    return custom_bwd(bwd, device_type="cuda")
