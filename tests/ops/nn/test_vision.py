"""The vision ops (src/retrograd/nn/_grid_sample.py, nn/_top_level.py): grid_sample and affine grids, against torch."""

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

from .._nn_linalg_helpers import _close, _pair  # noqa: E402


# ------------------------------------------------------- grid_sample
GRID_CASES = [(mode, pad, ac, nd) for nd in (2, 3) for mode in ("bilinear", "nearest", "bicubic")
              for pad in ("zeros", "border", "reflection") for ac in (False, True)
              if not (mode == "bicubic" and nd == 3)]


@pytest.mark.parametrize("mode,padding,align,nd", GRID_CASES)
def test_grid_sample(mode, padding, align, nd):
    spatial = (4, 5) if nd == 2 else (3, 4, 5)
    xt, xr = _pair((2, 3) + spatial, 1)
    gt, gr = _pair((2,) + spatial[:-1] + (3, nd), 2, low=-1.6, high=1.6)
    outs = [lib.nn.functional.grid_sample(x, g, mode=mode, padding_mode=padding, align_corners=align)
            for lib, x, g in ((torch, xt, gt), (rg, xr, gr))]
    _close(outs[0], outs[1])
    go = np.random.default_rng(5).standard_normal(tuple(outs[0].shape))
    dt = torch.autograd.grad(outs[0], (xt, gt), torch.tensor(go))
    dr = rg.autograd.grad(outs[1], (xr, gr), rg.tensor(go), allow_unused=True)
    _close(dt[0], dr[0])
    if mode == "nearest":  # torch: zeros; retrograd: the grid takes no part
        assert dr[1] is None or float(dr[1].abs().sum()) == 0
    else:
        _close(dt[1], dr[1], 1e-8)


def test_grid_sample_second_order():
    # bilinear with reflection: the grid's gradient is differentiable again (in input and grid)
    res = []
    for k, lib in enumerate((torch, rg)):
        x = _pair((1, 2, 4, 4), 3)[k]
        g = _pair((1, 3, 2, 2), 4, low=-1.5, high=1.5)[k]
        out = lib.nn.functional.grid_sample(x, g, padding_mode="reflection", align_corners=False)
        gx, gg = lib.autograd.grad(out.sum(), (x, g), create_graph=True)
        res.append(lib.autograd.grad((gg * gg).sum() + (gx * gx).sum(), (x, g)))
    for a, b in zip(*res):
        _close(a, b, 1e-8)


@pytest.mark.parametrize("src", [
    "F.grid_sample(T.zeros(1, 1, 2, 2, 2), T.zeros(1, 2, 2, 2, 3), mode='bicubic', align_corners=False)",
    "F.grid_sample(T.zeros(1, 1, 2, 2), T.zeros(1, 2, 2, 3), align_corners=False)",
    "F.grid_sample(T.zeros(1, 1, 2, 2), T.zeros(2, 2, 2, 2), align_corners=False)",
    "F.grid_sample(T.zeros(1, 1, 2, 2), T.zeros(1, 2, 2, 2, 2), align_corners=False)",
    "F.grid_sample(T.zeros(1, 1, 0, 2), T.zeros(1, 2, 2, 2), align_corners=False)",
    "F.grid_sample(T.zeros(1, 1, 2, 2), T.zeros(1, 2, 2, 2, dtype=T.float64), align_corners=False)",
    "F.grid_sample(T.zeros(1, 1, 2, 2), T.zeros(1, 2, 2, 2), mode='cubic', align_corners=False)",
])
def test_grid_sample_errors(src):
    errs = []
    for lib in (torch, rg):
        with pytest.raises(Exception) as ei:
            eval(src, {"T": lib, "F": lib.nn.functional})
        errs.append((ei.type.__name__, str(ei.value)))
    assert errs[0] == errs[1]
