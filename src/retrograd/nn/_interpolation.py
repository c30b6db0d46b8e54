"""Resampling (``nn.functional``): ``interpolate`` (nearest, nearest-exact, linear, bilinear, bicubic,
trilinear, area) and the deprecated ``upsample*`` aliases.

>>> import retrograd as torch
>>> torch.nn.functional.interpolate(torch.tensor([[[1., 2.]]]), scale_factor=2)
tensor([[[1., 1., 2., 2.]]])
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .._tensor import Tensor
from ._util import const
from .._ops.nn import adaptive_pooling as _ops_nn_adaptive_pooling

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]


def _interp_indices(in_size: int, out_size: int, scale, mode: str, align_corners):
    """Source positions for each output position along one dim (PyTorch's formulas)."""
    dst = np.arange(out_size, dtype=np.float64)
    if mode in ("nearest", "nearest-exact"):
        s = (1.0 / scale) if scale is not None else in_size / out_size
        src = np.floor((dst + 0.5) * s) if mode == "nearest-exact" else np.floor(dst * s)
        return np.minimum(src.astype(np.int64), in_size - 1)
    if align_corners:
        s = (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
        src = dst * s
    else:
        s = (1.0 / scale) if scale is not None else in_size / out_size
        src = np.maximum((dst + 0.5) * s - 0.5, 0.0)
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    i1 = np.minimum(i0 + 1, in_size - 1)
    lam = src - i0
    return i0, i1, lam


def _bicubic_taps(in_size: int, out_size: int, scale, align_corners: bool):
    """Source rows and weights of PyTorch's bicubic kernel (A = -0.75, edge-clamped taps) along one dim."""
    dst = np.arange(out_size, dtype=np.float64)
    if align_corners:
        s = (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
        src = dst * s
    else:
        s = (1.0 / scale) if scale is not None and scale > 0 else in_size / out_size
        src = (dst + 0.5) * s - 0.5  # not clamped at 0 for cubic
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    t = np.clip(src - i0, 0.0, 1.0)
    a = -0.75

    def conv1(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def conv2(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    w = [conv2(t + 1.0), conv1(t), conv1(1.0 - t), conv2(2.0 - t)]
    idx = [np.clip(i0 - 1 + k, 0, in_size - 1) for k in range(4)]
    return idx, w


def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                recompute_scale_factor=None, antialias: bool = False) -> Tensor:
    """Resize the spatial dims: 'nearest', 'nearest-exact', 'linear', 'bilinear', 'trilinear', 'bicubic', 'area'."""
    nd = input.ndim - 2
    if mode in ("nearest", "nearest-exact", "area") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                         "bicubic | trilinear")
    if mode in ("linear", "bilinear", "trilinear") and align_corners is None:
        align_corners = False
    if mode == "bicubic" and align_corners is None:
        align_corners = False
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    spatial = input.shape[2:]
    if size is not None:
        if isinstance(size, (list, tuple)) and len(size) != nd:
            raise ValueError("Input and output must have the same number of spatial dimensions, but got input with "
                             f"spatial dimensions of {list(spatial)} and output size of {size}. Please provide input "
                             "tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
        out_size = tuple(size) if isinstance(size, (list, tuple)) else (size,) * nd
        scales = (None,) * nd
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)) and len(scale_factor) != nd:
            raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {list(spatial)} and scale_factor of shape {scale_factor}. "
                             "Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
                             "(s1, s2, ...,sK) format.")
        sf = tuple(scale_factor) if isinstance(scale_factor, (list, tuple)) else (scale_factor,) * nd
        out_size = tuple(int(math.floor(s * f)) for s, f in zip(spatial, sf))
        scales = (None,) * nd if recompute_scale_factor or mode == "area" else sf
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         "4-D tensor as input")
    wants = {"nearest": (3, 4, 5), "nearest-exact": (3, 4, 5), "area": (3, 4, 5), "linear": (3,), "bilinear": (4,),
             "trilinear": (5,), "bicubic": (4,)}
    if input.ndim not in wants.get(mode, ()):
        need = {"linear": 3, "bilinear": 4, "trilinear": 5}
        if input.ndim in (3, 4, 5) and mode in need:
            raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {need[mode]}D input")
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
                                  "the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
                                  f"nearest-exact (got {mode})")
    if antialias or mode == "lanczos":
        raise NotImplementedError("retrograd: interpolate with antialias=True is not implemented")
    if mode == "area":
        fn = (_ops_nn_adaptive_pooling.adaptive_avg_pool1d, _ops_nn_adaptive_pooling.adaptive_avg_pool2d, _ops_nn_adaptive_pooling.adaptive_avg_pool3d)[nd - 1]
        return fn(input, out_size)
    out = input
    for i in range(nd):
        ax = 2 + i
        key = (slice(None),) * ax
        if mode == "bicubic":
            idx, w = _bicubic_taps(spatial[i], out_size[i], scales[i], align_corners)
            shape = (-1,) + (1,) * (input.ndim - ax - 1)
            acc = None
            for k in range(4):
                term = out[key + (const(idx[k]),)] * const(w[k].reshape(shape).astype(input._data.dtype))
                acc = term if acc is None else acc + term
            out = acc
        elif mode.startswith("nearest"):
            idx = _interp_indices(spatial[i], out_size[i], scales[i], mode, align_corners)
            out = out[key + (const(idx),)]
        else:
            i0, i1, lam = _interp_indices(spatial[i], out_size[i], scales[i], mode, align_corners)
            shape = (-1,) + (1,) * (input.ndim - ax - 1)
            l1 = const(lam.reshape(shape).astype(input._data.dtype))
            out = out[key + (const(i0),)] * (1 - l1) + out[key + (const(i1),)] * l1
    return out


def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners=None) -> Tensor:
    """Deprecated alias of interpolate."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """Deprecated: interpolate(mode='nearest')."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """Deprecated: interpolate(mode='bilinear', align_corners=True)."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
