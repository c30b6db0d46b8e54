"""``nn.functional.grid_sample``: sample a 4-D or 5-D input at normalised grid points; and
``affine_grid``, the sampling grid of a batch of affine maps (the two halves of a spatial transformer).

Modes 'bilinear' (trilinear for 5-D), 'nearest' and 'bicubic' (4-D only); padding modes
'zeros', 'border' and 'reflection', with PyTorch's coordinate rules.  Composed from public
ops (gather, floor-free arithmetic on the grid), so it is twice differentiable in the input
and the grid.  The integer tap positions are constants (NumPy); the interpolation weights
are Tensors of the grid.

>>> import retrograd as torch
>>> img = torch.arange(4.).reshape(1, 1, 2, 2)
>>> torch.nn.functional.grid_sample(img, torch.zeros(1, 1, 1, 2), align_corners=True)
tensor([[[[1.5000]]]])
"""
from __future__ import annotations

import itertools
import math
import warnings

import numpy as np

from .. import _ops as O
from .._tensor import Tensor
from ._util import const

__all__ = ["grid_sample", "affine_grid"]

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                  "grid_sample for details.")

_CUBIC_A = -0.75  # PyTorch's (and OpenCV's) cubic convolution constant


def _reflect(x: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """Fold x into [twice_low / 2, twice_high / 2] by mirroring at the ends (PyTorch's reflect_coordinates)."""
    if twice_low == twice_high:
        return x * 0
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    t = O.abs(x - lo)
    flips = np.floor(t._data / span)  # how many mirrorings: a constant (piecewise) of the grid
    extra = t - const(flips * span)
    even = const((np.fmod(flips, 2) == 0))
    return O.where(even, extra + lo, (span + lo) - extra)


def _pad_coord(x: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    if padding_mode == "border":
        return O.clamp(x, 0, size - 1)
    if padding_mode == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        return O.clamp(x, 0, size - 1)
    return x


def _pad_coord_np(x: np.ndarray, size: int, padding_mode: str, align_corners: bool) -> np.ndarray:
    # the same on constant (integer) tap positions, for bicubic
    return _pad_coord(const(x), size, padding_mode, align_corners)._data


def _unnormalize(coord: Tensor, size: int, align_corners: bool) -> Tensor:
    if align_corners:
        return (coord + 1) * ((size - 1) / 2)
    return ((coord + 1) * size - 1) / 2


def _cubic_coeffs(t: Tensor) -> list[Tensor]:
    a = _CUBIC_A

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _check(input: Tensor, grid: Tensor, mode: str) -> None:
    nd = input.ndim
    if grid.ndim >= 1 and input.ndim >= 1 and input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != nd - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {nd - 2} in last dimension, but got grid "
                           f"with sizes {list(grid.shape)}")
    for i in range(2, nd):
        if input.shape[i] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {list(input.shape)} with dimension {i} being empty")
    if nd not in (4, 5) or grid.ndim != nd:
        want = "4D" if nd == 4 else "5D"
        raise RuntimeError(f"grid_sampler(): expected {want} input and grid with same number of dimensions, but got "
                           f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if mode == "bicubic" and nd != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"expected scalar type {_c_name(input.dtype)} but found {_c_name(grid.dtype)}")


def _c_name(dtype) -> str:
    from .._tensor import _scalar_type_name

    return _scalar_type_name(dtype)


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """Sample input (N, C, H, W) or (N, C, D, H, W) at grid (N, Ho, Wo, 2) / (N, Do, Ho, Wo, 3).

    The grid's last dim holds (x, y[, z]) in [-1, 1]; points outside are padded by
    ``padding_mode``.  Twice differentiable in input and grid (the taps are constants).

    >>> import retrograd as torch
    >>> img = torch.arange(4.).reshape(1, 1, 2, 2)
    >>> torch.nn.functional.grid_sample(img, torch.tensor([[[[0.5, -1.]]]]), align_corners=True)
    tensor([[[[0.7500]]]])
    """
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    _check(input, grid, mode)
    n, c = input.shape[:2]
    spatial = tuple(input.shape[2:])  # (D,) H, W
    nd = len(spatial)
    out_sp = tuple(grid.shape[1:-1])
    m = math.prod(out_sp)
    flat = input.reshape(n, c, math.prod(spatial))
    dt = input._data.dtype
    # grid[..., 0] is x (the last spatial dim), grid[..., 1] y, grid[..., 2] z
    raw = [_unnormalize(grid[..., nd - 1 - a], spatial[a], align_corners) for a in range(nd)]

    def tap(idx: list[np.ndarray]) -> Tensor:
        """input at integer positions idx (one array (N, *out) per spatial dim), 0 outside."""
        valid = np.ones(idx[0].shape, dtype=bool)
        lin = np.zeros(idx[0].shape, dtype=np.int64)
        for a in range(nd):
            valid &= (idx[a] >= 0) & (idx[a] < spatial[a])
            lin = lin * spatial[a] + np.clip(idx[a], 0, spatial[a] - 1)
        lin = np.broadcast_to(lin.reshape(n, 1, m), (n, c, m)).copy()
        vals = O.gather(flat, 2, const(lin)).reshape(n, c, *out_sp)
        if valid.all():
            return vals
        return vals * const(valid[:, None].astype(dt))

    if mode == "bicubic":
        base = [np.floor(r._data) for r in raw]
        coeffs = [_cubic_coeffs((r - const(b.astype(dt))).unsqueeze(1)) for r, b in zip(raw, base)]
        out = None
        for j in range(4):  # rows (y), each a cubic in x, then a cubic across the rows
            row = None
            for i in range(4):
                yi = _pad_coord_np(base[0] - 1 + j, spatial[0], padding_mode, align_corners)
                xi = _pad_coord_np(base[1] - 1 + i, spatial[1], padding_mode, align_corners)
                v = tap([np.trunc(yi).astype(np.int64), np.trunc(xi).astype(np.int64)]) * coeffs[1][i]
                row = v if row is None else row + v
            term = row * coeffs[0][j]
            out = term if out is None else out + term
        return out
    src = [_pad_coord(r, s, padding_mode, align_corners) for r, s in zip(raw, spatial)]
    if mode == "nearest":
        return tap([np.rint(s._data).astype(np.int64) for s in src])
    lo = [np.floor(s._data) for s in src]
    hi_w = [(s - const(b.astype(dt))).unsqueeze(1) for s, b in zip(src, lo)]  # weight of the upper tap
    lo_i = [b.astype(np.int64) for b in lo]
    out = None
    for corner in itertools.product((0, 1), repeat=nd):
        wt = None
        for a, up in enumerate(corner):
            w = hi_w[a] if up else 1 - hi_w[a]
            wt = w if wt is None else wt * w
        term = tap([lo_i[a] + up for a, up in enumerate(corner)]) * wt
        out = term if out is None else out + term
    return out


def _base_coords(n: int, align_corners: bool) -> np.ndarray:
    if n <= 1:
        return np.zeros(max(n, 0))
    v = np.linspace(-1.0, 1.0, n)
    return v if align_corners else v * (n - 1) / n


def affine_grid(theta: Tensor, size, align_corners: bool | None = None) -> Tensor:
    """Sampling grid (N, H, W, 2) or (N, D, H, W, 3) of the affine maps ``theta`` (N, 2, 3) / (N, 3, 4).

    >>> import retrograd as torch
    >>> theta = torch.tensor([[[1., 0., 0.], [0., 1., 0.]]])
    >>> torch.nn.functional.affine_grid(theta, (1, 1, 2, 2), align_corners=True)[0, :, :, 0]
    tensor([[-1.,  1.],
            [-1.,  1.]])
    """
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(int(v) for v in size)
    if len(size) == 4:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {list(size)}. "
                             f"Got {list(theta.shape)}.")
        n, _, h, w = size
        xs, ys = _base_coords(w, align_corners), _base_coords(h, align_corners)
        base = np.stack(np.broadcast_arrays(xs[None, :], ys[:, None], np.ones((h, w))), -1)  # (H, W, 3)
        spatial = (h, w)
    elif len(size) == 5:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {list(size)}. "
                             f"Got {list(theta.shape)}.")
        n, _, d, h, w = size
        xs, ys, zs = (_base_coords(w, align_corners), _base_coords(h, align_corners),
                      _base_coords(d, align_corners))
        base = np.stack(np.broadcast_arrays(xs[None, None, :], ys[None, :, None], zs[:, None, None],
                                            np.ones((d, h, w))), -1)
        spatial = (d, h, w)
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {list(size)}.")
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {list(size)}")
    k = base.shape[-1]
    b = const(base.reshape(1, -1, k).astype(theta._data.dtype))
    grid = O.matmul(b, theta.transpose(1, 2))
    return grid.reshape(n, *spatial, k - 1)
