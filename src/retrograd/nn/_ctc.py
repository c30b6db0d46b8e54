"""Connectionist temporal classification loss, as the forward (alpha) recursion in log space built from
public ops (so autograd supplies the gradient)."""
from __future__ import annotations

import numpy as np

from .. import _ops as O
from .._tensor import Tensor
from ._util import const

__all__ = ["ctc_loss"]

# "log 0": finite so logsumexp never sees -inf - -inf (NaN grads); paths through it weigh exp(-1e30) = 0
_NEG = -1e30


def _ints(x) -> np.ndarray:
    a = x._data if isinstance(x, Tensor) else x
    return np.asarray(a, dtype=np.int64).reshape(-1)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """-log p(target | log_probs) summed over all CTC alignments.

    log_probs: (T, N, C) (or (T, C)); targets: (N, S) padded or 1-D concatenated.

    >>> import retrograd as torch
    >>> lp = torch.zeros(2, 1, 2).log_softmax(2)
    >>> torch.nn.functional.ctc_loss(lp, torch.tensor([[1]]), [2], [1], reduction="sum")
    tensor(0.2877)
    """
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    unbatched = log_probs.ndim == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
    T, N, C = log_probs.shape
    if not 0 <= blank < C:
        raise RuntimeError("blank must be in label range")
    in_len, tgt_len = _ints(input_lengths), _ints(target_lengths)
    tg = np.asarray(targets._data, dtype=np.int64)
    if unbatched:
        tg = tg.reshape(1, -1)
    for v in in_len:
        if v > T:
            raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value {int(v)} "
                               "(while checking arguments for ctc_loss_allocate_outputs)")
    if tg.ndim == 1:  # concatenated targets
        offs = np.concatenate([[0], np.cumsum(tgt_len)])
        rows = [tg[offs[i]:offs[i + 1]] for i in range(N)]
    else:
        for v in tgt_len:
            if v > tg.shape[1]:
                raise RuntimeError(f"Expected tensor to have size at least {int(v)} at dimension 1, but got size "
                                   f"{tg.shape[1]} for argument #2 'targets' (while checking arguments for "
                                   "ctc_loss_allocate_outputs)")
        rows = [tg[i, :tgt_len[i]] for i in range(N)]
    S = int(tgt_len.max()) if N else 0
    L = 2 * S + 1
    ext = np.full((N, L), blank, dtype=np.int64)
    skip = np.zeros((N, L), dtype=bool)
    for i, r in enumerate(rows):
        ext[i, 1:2 * len(r):2] = r
        for s in range(3, 2 * len(r), 2):  # a label may be reached from two back unless it repeats
            skip[i, s] = ext[i, s] != ext[i, s - 2]
    dtype = log_probs._data.dtype
    E = O.gather(log_probs, 2, const(np.broadcast_to(ext, (T, N, L)).copy()))  # (T, N, L)

    def neg(*shape):
        return const(np.full(shape, _NEG, dtype=dtype))

    start = np.zeros((N, L), dtype=bool)
    start[:, 0] = True
    if L > 1:  # (all targets empty: the blank path is the only one)
        start[:, 1] = tgt_len > 0
    alpha = O.where(const(start), E[0], neg(N, L))
    skip_t = const(skip)
    for t in range(1, T):
        a1 = O.cat([neg(N, 1), alpha[:, :-1]], 1)
        a2 = O.where(skip_t, O.cat([neg(N, 2), alpha[:, :-2]], 1), neg(N, L)) if L > 2 else neg(N, L)
        new = O.logsumexp(O.stack([alpha, a1, a2], -1), -1) + E[t]
        alpha = O.where(const((t < in_len)[:, None]), new, alpha)
    last = const((2 * tgt_len)[:, None])
    prev = const(np.maximum(2 * tgt_len - 1, 0)[:, None])
    end_prev = O.where(const((tgt_len > 0)[:, None]), O.gather(alpha, 1, prev), neg(N, 1))
    end = O.logsumexp(O.cat([O.gather(alpha, 1, last), end_prev], 1), 1)
    nll = -end
    # PyTorch's backward returns exp(log_probs) - posterior, the gradient w.r.t. the logits of a log_softmax
    # (the same result once it flows through log_softmax); a zero-valued term reproduces it for log_probs
    tmask = const((np.arange(T)[:, None] < in_len[None, :])[:, :, None].astype(dtype))
    quirk = (O.exp(log_probs) * tmask).sum((0, 2))
    nll = nll + (quirk - quirk.detach())
    infeasible = const(end._data < _NEG / 10)
    inf = const(np.full(N, np.inf if not zero_infinity else 0.0, dtype=dtype))
    nll = O.where(infeasible, inf, nll)
    if reduction == "mean":
        return (nll / const(np.maximum(tgt_len, 1).astype(dtype))).mean()
    if reduction == "sum":
        return nll.sum()
    return nll.squeeze(0) if unbatched else nll
