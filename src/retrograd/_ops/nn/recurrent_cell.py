"""One LSTM step as one op (two outputs: h', c'), for nn.LSTM.

Built from public ops, a step recorded about a dozen nodes (linear, split, three sigmoids,
two tanh, products and a sum), and a 2-layer LSTM over 20 steps paid per-op overhead on
some 800 small ops per training step.  Here the step is one node:

    gates = xp + h @ w.T + b;  i, f, g, o = split(gates, 4)
    c' = sigmoid(f) * c + sigmoid(i) * tanh(g);   h' = sigmoid(o) * tanh(c')

Its rules compute the backward from public ops (``_step_bw_ops``), so every derivative stays
differentiable; its declared fast path (a first-order backward) is one NumPy function for all
five inputs.  The five rules (or fast functions) of one node share one computation through a
one-entry cache keyed by the gradient list the engine hands them.
"""
from __future__ import annotations

import numpy as np

from .._registry import apply, primitive
from ..joining import chunk
from ..unary import _sigmoid_np, sigmoid, tanh

__all__ = []


def _gates(xp, h, w, b):
    gates = h @ w.T
    gates += b
    gates += xp  # (= xp + (h @ w.T + b): IEEE addition commutes)
    hs = gates.shape[1] // 4
    sif = _sigmoid_np(gates[:, :2 * hs])  # (input and forget gates: one call)
    return sif[:, :hs], sif[:, hs:], np.tanh(gates[:, 2 * hs:3 * hs]), _sigmoid_np(gates[:, 3 * hs:])


def _step_fw(xp, h, c, w, b, *, stash):
    # ``stash`` (a static of the node) keeps the gate activations for the backward, which
    # then need not recompute them (PyTorch's fused cell keeps a workspace the same way)
    si, sf, tg, so = _gates(xp, h, w, b)
    c2 = sf * c + si * tg
    tc = np.tanh(c2)
    stash.append((si, sf, tg, so, tc))
    return so * tc, c2


def _step_bw_np(gh, gc, xp, h, c, w, b, stash) -> tuple:
    """(d xp, d h, d c, d w, d b) from the gradients of h' and c'."""
    si, sf, tg, so, tc = stash[0]
    dc2 = gc + gh * so * (1 - tc * tc)
    d_gates = np.concatenate([dc2 * tg * si * (1 - si),     # input gate
                              dc2 * c * sf * (1 - sf),      # forget gate
                              dc2 * si * (1 - tg * tg),     # cell candidate
                              gh * tc * so * (1 - so)], 1)  # output gate
    return d_gates, d_gates @ w, dc2 * sf, d_gates.T @ h, d_gates.sum(0)


def _step_bw_ops(gh, gc, xp, h, c, w, b) -> tuple:
    """_step_bw_np written in public ops: differentiable, for a graph of the backward."""
    from .linear import linear_2d
    from ..joining import cat

    i, f, g, o = chunk(xp + linear_2d(h, w, b), 4, 1)
    si, sf, tg, so = sigmoid(i), sigmoid(f), tanh(g), sigmoid(o)
    tc = tanh(sf * c + si * tg)
    dc2 = gc + gh * so * (1 - tc * tc)
    d_gates = cat([dc2 * tg * si * (1 - si), dc2 * c * sf * (1 - sf), dc2 * si * (1 - tg * tg),
                   gh * tc * so * (1 - so)], 1)
    return d_gates, d_gates @ w, dc2 * sf, d_gates.t() @ h, d_gates.sum(0)


def _all_grads(slot: list, g, xp, compute) -> tuple:
    """Every input's gradient of one fused node, computed once.

    The node's rules (or, in a first-order backward, its fast functions) run one after
    another; the first computes all the gradients (``compute``) and leaves them in ``slot`` for
    the others.  The entry is keyed by the incoming gradient list and the node's own input
    ``xp``: one gradient may reach two nodes (through an addition, say).
    """
    entry = slot[0]
    if entry is None or entry[0] is not g or entry[2] is not xp:
        entry = slot[0] = (g, compute(), xp)
    return entry[1]


_last: list = [None]  # (gradient list, the five gradients, xp)


def _rule(k: int):
    def rule(g, xp, h, c, w, b, stash):
        return _all_grads(_last, g, xp, lambda: _step_bw_ops(g[0], g[1], xp, h, c, w, b))[k]
    return rule


def _fast(k: int):
    def fast(g, xp, h, c, w, b, stash):
        return _all_grads(_last, g, xp, lambda: _step_bw_np(g[0], g[1], xp, h, c, w, b, stash))[k]
    return fast


_step_op = primitive("lstm_step", _step_fw, node="ThnnFusedLstmCellBackward0", n_out=2,
                     fast={"xp": _fast(0), "h": _fast(1), "c": _fast(2), "w": _fast(3), "b": _fast(4)},
                     xp=_rule(0), h=_rule(1), c=_rule(2), w=_rule(3), b=_rule(4))


def lstm_step(xp, h, c, w, b) -> tuple:
    """(h', c') of one LSTM step for (N, 4H) input projections ``xp`` (see the module docstring)."""
    return apply(_step_op, (xp, h, c, w, b), {"stash": []})


# ---------------------------------------------------------------- GRU
# r = sigmoid(xr + hr), z = sigmoid(xz + hz), n = tanh(xn + r * hn), h' = (1 - z) n + z h,
# with (hr, hz, hn) = h @ w.T + b: one node per step, like the LSTM step above.
def _gru_parts(xp, h, w, b):
    hp = h @ w.T
    hp += b
    k = hp.shape[1] // 3
    r = _sigmoid_np(xp[:, :k] + hp[:, :k])
    z = _sigmoid_np(xp[:, k:2 * k] + hp[:, k:2 * k])
    hn = hp[:, 2 * k:]
    n = np.tanh(xp[:, 2 * k:] + r * hn)
    return r, z, n, hn


def _gru_fw(xp, h, w, b):
    r, z, n, _ = _gru_parts(xp, h, w, b)
    return (1 - z) * n + z * h


def _gru_bw_np(gh, xp, h, w, b) -> tuple:
    """(d xp, d h, d w, d b) from the gradient of h'."""
    r, z, n, hn = _gru_parts(xp, h, w, b)
    dn = gh * (1 - z) * (1 - n * n)
    dr = dn * hn * r * (1 - r)
    dz = gh * (h - n) * z * (1 - z)
    d_xp = np.concatenate([dr, dz, dn], 1)
    d_hp = np.concatenate([dr, dz, dn * r], 1)
    return d_xp, gh * z + d_hp @ w, d_hp.T @ h, d_hp.sum(0)


def _gru_bw_ops(gh, xp, h, w, b) -> tuple:
    """_gru_bw_np written in public ops (for a graph of the backward)."""
    from .linear import linear_2d
    from ..joining import cat

    xr, xz, xn = chunk(xp, 3, 1)
    hr, hz, hn = chunk(linear_2d(h, w, b), 3, 1)
    r, z = sigmoid(xr + hr), sigmoid(xz + hz)
    n = tanh(xn + r * hn)
    dn = gh * (1 - z) * (1 - n * n)
    dr = dn * hn * r * (1 - r)
    dz = gh * (h - n) * z * (1 - z)
    d_hp = cat([dr, dz, dn * r], 1)
    return cat([dr, dz, dn], 1), gh * z + d_hp @ w, d_hp.t() @ h, d_hp.sum(0)


_gru_last: list = [None]


def _gru_rule(k: int):
    def rule(g, xp, h, w, b):
        return _all_grads(_gru_last, g, xp, lambda: _gru_bw_ops(g, xp, h, w, b))[k]
    return rule


def _gru_fast(k: int):
    def fast(g, xp, h, w, b):
        return _all_grads(_gru_last, g, xp, lambda: _gru_bw_np(g, xp, h, w, b))[k]
    return fast


_gru_op = primitive("gru_step", _gru_fw, node="ThnnFusedGruCellBackward0",
                    fast={"xp": _gru_fast(0), "h": _gru_fast(1), "w": _gru_fast(2), "b": _gru_fast(3)},
                    xp=_gru_rule(0), h=_gru_rule(1), w=_gru_rule(2), b=_gru_rule(3))


def gru_step(xp, h, w, b):
    """h' of one GRU step for (N, 3H) input projections ``xp``."""
    return apply(_gru_op, (xp, h, w, b))
