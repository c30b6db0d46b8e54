"""A whole LSTM layer (all time steps, one direction) as one op, as PyTorch's CPU LSTM records it.

PyTorch 2.13 runs a float32 ``nn.LSTM`` on the CPU through oneDNN, one node per layer and
direction (``MkldnnRnnLayerBackward0``, inputs: input, w_ih, w_hh, b_ih, b_hh, h0, c0;
outputs: all hidden states, h_T, c_T).  Recording one node per time step instead (see
nn_rnn_cell.py) paid the engine's per-node cost and one small weight-gradient GEMM per step.
Here the backward runs backpropagation through time in one NumPy loop and forms the weight
gradients with one GEMM each over all steps:

    gates_t = x_t W_ih^T + b_ih + b_hh + h_{t-1} W_hh^T;   i, f, g, o = split(gates_t, 4)
    c_t = sigmoid(f) c_{t-1} + sigmoid(i) tanh(g);          h_t = sigmoid(o) tanh(c_t)

    dW_ih = sum_t dgates_t^T x_t = D^T X,   dW_hh = D^T H_prev,   db = sum of D's rows

The rules recompute the layer from public ops and differentiate it with ``autograd.grad``, so
every derivative stays differentiable; the NumPy loop above is the op's declared fast path, which
a first-order backward runs.

>>> import retrograd as torch
>>> out, (h, c) = torch.nn.LSTM(3, 4)(torch.randn(5, 2, 3))
>>> type(out.grad_fn).__name__
'MkldnnRnnLayerBackward0'
"""
from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from .._registry import apply, primitive
from .recurrent_cell import _all_grads

__all__ = []


def _sigmoid_(v: np.ndarray) -> np.ndarray:
    """``1 / (1 + exp(-v))`` in place (PyTorch's formula; exp overflow gives the limit 0)."""
    np.negative(v, out=v)
    np.exp(v, out=v)
    v += 1
    return np.reciprocal(v, out=v)


def _steps(T: int, reverse: bool) -> range:
    return range(T - 1, -1, -1) if reverse else range(T)


def _layer_fw(x, w_ih, w_hh, b_ih, b_hh, h0, c0, *, reverse, stash):
    T, N, _ = x.shape
    H = w_hh.shape[1]
    dt = x.dtype
    gates = (x.reshape(T * N, -1) @ w_ih.T).reshape(T, N, 4 * H)  # every step's input part at once
    gates += b_ih
    gates += b_hh
    out = np.empty((T, N, H), dt)
    cs = np.empty((T, N, H), dt)  # c_t
    tcs = np.empty((T, N, H), dt)  # tanh(c_t)
    # (a C-contiguous copy of w_hh^T, made once: OpenBLAS multiplies a few rows by a transposed
    # view ~2.5x slower than by a contiguous matrix at these sizes, and the layer does it T times)
    w_hh_t = np.ascontiguousarray(w_hh.T)
    h, c = h0, c0
    for t in _steps(T, reverse):
        a = gates[t]  # becomes the activations sigmoid(i), sigmoid(f), tanh(g), sigmoid(o)
        a += h @ w_hh_t
        tg = np.tanh(a[:, 2 * H:3 * H])
        _sigmoid_(a)
        a[:, 2 * H:3 * H] = tg
        c_new = cs[t]
        np.multiply(a[:, H:2 * H], c, out=c_new)
        tg *= a[:, :H]
        c_new += tg
        np.tanh(c_new, out=tcs[t])
        np.multiply(a[:, 3 * H:], tcs[t], out=out[t])
        h, c = out[t], c_new
    stash.append((gates, cs, tcs, out))
    return out, h.copy(), c.copy()


def _previous(seq: np.ndarray, first: np.ndarray, reverse: bool) -> np.ndarray:
    """The state each step started from: ``first`` at the first step, then ``seq`` shifted."""
    prev = np.empty_like(seq)
    if reverse:
        prev[:-1] = seq[1:]
        prev[-1] = first
    else:
        prev[1:] = seq[:-1]
        prev[0] = first
    return prev


def _layer_bw_np(g_out, g_h, g_c, x, w_ih, w_hh, h0, c0, reverse, stash) -> tuple:
    """(dx, dw_ih, dw_hh, db_ih, db_hh, dh0, dc0) by backpropagation through time."""
    acts, cs, tcs, out = stash[0]
    T, N, H = out.shape
    si, sf, tg, so = acts[..., :H], acts[..., H:2 * H], acts[..., 2 * H:3 * H], acts[..., 3 * H:]
    c_prev = _previous(cs, c0, reverse)
    # Per-step factors that do not depend on the recurrence, for all steps at once:
    # d c_t += d h_t * so (1 - tanh(c_t)^2);  d gates = d c_t * [tg si(1-si), c_prev sf(1-sf), si(1-tg^2)]
    # and d o = d h_t * tanh(c_t) so (1 - so).
    dh_to_dc = so * (1 - tcs * tcs)
    dc_to_gates = np.empty((T, N, 3, H), out.dtype)
    np.multiply(tg, si * (1 - si), out=dc_to_gates[:, :, 0])
    np.multiply(c_prev, sf * (1 - sf), out=dc_to_gates[:, :, 1])
    np.multiply(si, 1 - tg * tg, out=dc_to_gates[:, :, 2])
    dh_to_do = tcs * so * (1 - so)
    D = np.empty((T, N, 4 * H), out.dtype)
    dh = g_h.copy()
    dc = g_c.copy()
    w = w_hh
    for t in _steps(T, not reverse):
        dh += g_out[t]
        dc += dh * dh_to_dc[t]
        d = D[t]
        np.multiply(dc_to_gates[t], dc[:, None, :], out=d[:, :3 * H].reshape(N, 3, H))
        np.multiply(dh, dh_to_do[t], out=d[:, 3 * H:])
        dh = d @ w
        dc *= sf[t]
    D2 = D.reshape(T * N, 4 * H)
    dx = (D2 @ w_ih).reshape(x.shape)
    dw_ih = D2.T @ x.reshape(T * N, -1)
    dw_hh = D2.T @ _previous(out, h0, reverse).reshape(T * N, H)
    db = D2.sum(0)
    return dx, dw_ih, dw_hh, db, db.copy(), dh, dc


def _layer_bw_ops(grads, x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse) -> tuple:
    """The same gradients as a graph: recompute the layer from public ops, then ``autograd.grad``."""
    from ...autograd import grad_mode

    building = grad_mode.state.enabled  # (a graph of the backward is wanted: keep the recomputation's)
    with grad_mode.set_grad_enabled(True):  # (the recomputation is differentiated even in a first-order pass)
        return _layer_bw_graph(grads, x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse, building)


def _layer_bw_graph(grads, x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse, building: bool) -> tuple:
    from ...autograd import grad as _grad
    from .linear import linear_2d
    from ..unary import sigmoid, tanh
    from ..shape import reshape
    from ..joining import chunk, stack, unbind

    T, N, _ = x.shape
    gates_x = reshape(linear_2d(reshape(x, (T * N, -1)), w_ih, b_ih), (T, N, -1)) + b_hh
    xs = unbind(gates_x, 0)
    h, c = h0, c0
    hs = [None] * T
    for t in _steps(T, reverse):
        i, f, g, o = chunk(xs[t] + linear_2d(h, w_hh), 4, 1)
        c = sigmoid(f) * c + sigmoid(i) * tanh(g)
        h = sigmoid(o) * tanh(c)
        hs[t] = h
    outs = (stack(hs, 0), h, c)
    inputs = (x, w_ih, w_hh, b_ih, b_hh, h0, c0)
    wanted = [k for k, v in enumerate(inputs) if v.requires_grad]
    got = _grad(outs, [inputs[k] for k in wanted], grads, create_graph=building, allow_unused=True,
                materialize_grads=True)
    res: list = [None] * 7
    for k, gk in zip(wanted, got):
        res[k] = gk
    return tuple(res)


_last: list = [None]  # (gradient list, the seven gradients, x)


def _rule(k: int):
    def rule(g, x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse, stash):
        return _all_grads(_last, g, x, lambda: _layer_bw_ops(g, x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse))[k]
    return rule


def _fast(k: int):
    def fast(g, x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse, stash):
        return _all_grads(_last, g, x, lambda: _layer_bw_np(g[0], g[1], g[2], x, w_ih, w_hh, h0, c0, reverse,
                                                            stash))[k]
    return fast


_NAMES = ("x", "w_ih", "w_hh", "b_ih", "b_hh", "h0", "c0")
# The fast path: backpropagation through time in one NumPy loop (bench_models.py's LSTM)
_layer_op = primitive("lstm_layer", _layer_fw, node="MkldnnRnnLayerBackward0", n_out=3,
                      fast={name: _fast(k) for k, name in enumerate(_NAMES)},
                      x=_rule(0), w_ih=_rule(1), w_hh=_rule(2), b_ih=_rule(3), b_hh=_rule(4), h0=_rule(5),
                      c0=_rule(6))


def lstm_layer(x: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor, b_hh: Tensor, h0: Tensor, c0: Tensor,
               reverse: bool = False) -> tuple:
    """(all h_t (T, N, H), h_T, c_T) of one LSTM layer and direction over ``x`` (T, N, I)."""
    return apply(_layer_op, (x, w_ih, w_hh, b_ih, b_hh, h0, c0), {"reverse": reverse, "stash": []})
