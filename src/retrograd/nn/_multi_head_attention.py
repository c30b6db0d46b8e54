"""Attention (``nn.functional``): ``scaled_dot_product_attention`` and ``multi_head_attention_forward``
(the function behind ``nn.MultiheadAttention``), composed from public ops.

>>> import retrograd as torch
>>> q = torch.ones(1, 2, 4)
>>> torch.nn.functional.scaled_dot_product_attention(q, q, q).shape
torch.Size([1, 2, 4])
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .. import _ops as O
from .._ops.shape import reshape_to as _reshape_to
from .._tensor import Tensor
from ._util import cat, const
from .._ops.nn import activation as _ops_nn_activation

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _F():
    # nn.functional imports this module (for its public names), so it is reached lazily
    from . import functional

    return functional


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(q k^T * scale + mask) v, with a boolean (True = keep) or additive float mask."""
    L, S = query.shape[-2], key.shape[-2]
    scale_factor = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    if enable_gqa and key.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        rep = query.shape[-3] // key.shape[-3]
        key = _repeat_heads(key, rep)
        value = _repeat_heads(value, rep)
    scores = O.matmul(query, key.transpose(-2, -1)) * scale_factor
    if is_causal:
        keep = np.tril(np.ones((L, S), dtype=bool))
        scores = O.where(const(keep), scores, -math.inf)
    if attn_mask is not None:
        if attn_mask.dtype is D.bool_:
            scores = O.where(attn_mask, scores, -math.inf)
        else:
            scores = scores + attn_mask
    attn = _safe_softmax(scores)
    if dropout_p > 0.0:
        attn = _F().dropout(attn, dropout_p, True)
    return O.matmul(attn, value)


def _safe_softmax(scores: Tensor) -> Tensor:
    """Softmax over the last dim where rows with every entry masked (-inf) give zeros, not NaN.

    PyTorch's SDPA does this; the masked rows are replaced before the softmax so that no NaN
    reaches the backward pass either.
    """
    dead = np.isneginf(scores._data).all(axis=-1, keepdims=True)
    if not dead.any():
        return _ops_nn_activation.softmax(scores, -1)
    dead_t = const(dead)
    attn = _ops_nn_activation.softmax(O.where(dead_t, 0.0, scores), -1)
    return attn * const((~dead).astype(scores._data.dtype))


def _repeat_heads(x: Tensor, rep: int) -> Tensor:
    shape = x.shape
    x = x.unsqueeze(-3).expand(*shape[:-2], rep, *shape[-2:])
    return x.reshape(*shape[:-3], shape[-3] * rep, *shape[-2:])


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads) -> bool:
    # torch's _mha_shape_check (same messages); returns whether the input is batched
    if query.ndim not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D query "
                             "tensor")
    b = query.ndim == 3
    kind = "batched (3-D)" if b else "unbatched (2-D)"
    if key.ndim != query.ndim or value.ndim != query.ndim:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {query.ndim}-D but found "
                             f"{key.ndim}-D and {value.ndim}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.ndim != query.ndim - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or {query.ndim - 1}-D "
                             f"but found {key_padding_mask.ndim}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.ndim not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                                 f"{attn_mask.ndim}-D tensor instead")
        if not b and attn_mask.ndim == 3 and tuple(attn_mask.shape) != (num_heads, query.shape[0], key.shape[0]):
            raise AssertionError(f"Expected `attn_mask` shape to be {(num_heads, query.shape[0], key.shape[0])} but "
                                 f"got {attn_mask.shape}")
    return b


def _mha_static(t: Tensor, name: str, bh: int, head_dim: int) -> Tensor:
    """A precomputed (batch * heads, S, head_dim) key or value, checked as PyTorch does."""
    if t.shape[0] != bh:
        raise AssertionError(f"expecting {name}.size(0) of {bh}, but got {t.shape[0]}")
    if t.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {t.shape[2]}")
    return t


def multi_head_attention_forward(query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int,
                                 num_heads: int, in_proj_weight: Tensor | None, in_proj_bias: Tensor | None,
                                 bias_k: Tensor | None, bias_v: Tensor | None, add_zero_attn: bool,
                                 dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Tensor | None,
                                 training: bool = True, key_padding_mask: Tensor | None = None,
                                 need_weights: bool = True, attn_mask: Tensor | None = None,
                                 use_separate_proj_weight: bool = False, q_proj_weight: Tensor | None = None,
                                 k_proj_weight: Tensor | None = None, v_proj_weight: Tensor | None = None,
                                 static_k=None, static_v=None, average_attn_weights: bool = True,
                                 is_causal: bool = False) -> tuple:
    """Multi-head attention on (L, N, E) inputs (or unbatched (L, E)); returns (output, weights)."""
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if use_separate_proj_weight:
        b = (None, None, None) if in_proj_bias is None else (
            in_proj_bias.narrow(0, 0, embed_dim), in_proj_bias.narrow(0, embed_dim, embed_dim),
            in_proj_bias.narrow(0, 2 * embed_dim, embed_dim))
        q = _F().linear(query, q_proj_weight, b[0])
        k = _F().linear(key, k_proj_weight, b[1])
        v = _F().linear(value, v_proj_weight, b[2])
    else:
        ws = [in_proj_weight.narrow(0, i * embed_dim, embed_dim) for i in range(3)]
        bs = [None] * 3 if in_proj_bias is None else [in_proj_bias.narrow(0, i * embed_dim, embed_dim)
                                                      for i in range(3)]
        q = _F().linear(query, ws[0], bs[0])
        k = _F().linear(key, ws[1], bs[1])
        v = _F().linear(value, ws[2], bs[2])
    # masks -> one additive float mask of shape (bsz, heads, tgt, src) or broadcastable
    mask = None
    if attn_mask is not None:
        want = (tgt_len, src_len) if attn_mask.ndim == 2 else (bsz * num_heads, tgt_len, src_len)
        if tuple(attn_mask.shape) != want:
            raise RuntimeError(f"The shape of the {attn_mask.ndim}D attn_mask is {attn_mask.shape}, but should be "
                               f"{want}.")
        if attn_mask.dtype is D.bool_:
            attn_mask = const(np.where(attn_mask._data, -np.inf, 0.0).astype(q._data.dtype))
        if attn_mask.ndim == 3:
            attn_mask = attn_mask.reshape(bsz, num_heads, tgt_len, src_len)
        mask = attn_mask
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.expand(1, bsz, embed_dim)], 0)
        v = cat([v, bias_v.expand(1, bsz, embed_dim)], 0)
        if mask is not None:
            mask = _F().pad(mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = _F().pad(key_padding_mask, (0, 1))
    # (L, N, E) -> (N * heads, L, head_dim); static_k / static_v come in that layout already
    bh = bsz * num_heads
    q = _reshape_to(q, (tgt_len, bh, head_dim)).transpose(0, 1)
    k = _reshape_to(k, (k.shape[0], bh, head_dim)).transpose(0, 1) if static_k is None \
        else _mha_static(static_k, "static_k", bh, head_dim)
    v = _reshape_to(v, (v.shape[0], bh, head_dim)).transpose(0, 1) if static_v is None \
        else _mha_static(static_v, "static_v", bh, head_dim)
    if add_zero_attn:
        zeros = const(np.zeros((bh, 1, head_dim), dtype=k._data.dtype))
        k = cat([k, zeros], 1)
        v = cat([v, zeros], 1)
        if mask is not None:
            mask = _F().pad(mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = _F().pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        for i, want in enumerate((bsz, src_len)):
            if key_padding_mask.shape[i] != want:
                raise AssertionError(f"Expected key_padded_mask.shape[{i}] to be {want}, but got "
                                     f"{key_padding_mask.shape[i]}")
        kpm = key_padding_mask._data
        kpm = np.where(kpm, -np.inf, 0.0) if kpm.dtype == bool else kpm
        kpm = const(kpm.astype(q._data.dtype).reshape(bsz, 1, 1, src_len))
        mask = kpm if mask is None else mask + kpm
    if is_causal and attn_mask is None:
        causal = np.triu(np.full((tgt_len, src_len), -np.inf), 1).astype(q._data.dtype)
        mask = const(causal) if mask is None else mask + const(causal)
    q = _reshape_to(q, (bsz, num_heads, tgt_len, head_dim))
    k = _reshape_to(k, (bsz, num_heads, src_len, head_dim))
    v = _reshape_to(v, (bsz, num_heads, src_len, head_dim))
    scores = O.matmul(q * (1.0 / math.sqrt(head_dim)), k.transpose(-2, -1))
    if mask is not None:
        scores = scores + mask
    # like PyTorch: the need_weights=False path (SDPA) gives zeros for fully masked rows, the other NaN
    attn = _ops_nn_activation.softmax(scores, -1) if need_weights else _safe_softmax(scores)
    if dropout_p > 0.0 and training:
        attn = _F().dropout(attn, dropout_p, True)
    out = O.matmul(attn, v)  # (N, heads, L, head_dim)
    out = _reshape_to(out.permute(2, 0, 1, 3), (tgt_len * bsz, embed_dim))
    out = _reshape_to(_F().linear(out, out_proj_weight, out_proj_bias), (tgt_len, bsz, embed_dim))
    weights = None
    if need_weights:
        weights = attn.mean(1) if average_attn_weights else attn
        if not batched:
            weights = weights.squeeze(0)
    if not batched:
        out = out.squeeze(1)
    return out, weights
