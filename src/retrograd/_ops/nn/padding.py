"""Constant_pad_nd, gather_pad (reflect/replicate/circular)."""
from __future__ import annotations

import numpy as np

from ..._layout import copied
from ..._tensor import Tensor
from .._keep_graph import keep_graph
from .._registry import apply, primitive

__all__ = ["constant_pad_nd"]


# ====================================================================== padding
def _const_pad_fw(x, *, pad, value):
    # pad = (last_lo, last_hi, prev_lo, prev_hi, ...) as in PyTorch; negative values crop.
    nd = len(pad) // 2
    crop = [slice(None)] * x.ndim
    widths = [(0, 0)] * x.ndim
    for i in range(nd):
        ax = x.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        crop[ax] = slice(max(-lo, 0), x.shape[ax] - max(-hi, 0))
        widths[ax] = (max(lo, 0), max(hi, 0))
    y = x[tuple(crop)]
    if any(w != (0, 0) for w in widths):
        out = np.full(tuple(s + a + b for s, (a, b) in zip(y.shape, widths)), value, dtype=x.dtype)
        out[tuple(slice(a, a + s) for s, (a, _) in zip(y.shape, widths))] = y
        return out
    return copied(y, None)  # (no padding: PyTorch's clone, laid out as the input)


_const_pad_op = primitive("constant_pad_nd", _const_pad_fw, node="ConstantPadNdBackward0",
                          x=lambda g, pad: apply(_const_pad_op, (g,), {"pad": tuple(-p for p in pad), "value": 0}), batch="trailing")


def constant_pad_nd(input: Tensor, pad, value=0) -> Tensor:
    """Pad the last len(pad)//2 dims with ``value`` (negative pads crop)."""
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Length of pad must be even but instead it equals " + str(len(pad)))
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(f"Length of pad should be no more than twice the number of dimensions of the input. "
                           f"Pad length is {len(pad)} while the input has {input.ndim} dimensions.")
    for i in range(len(pad) // 2):
        s = input.shape[input.ndim - 1 - i] + pad[2 * i] + pad[2 * i + 1]
        if s < 0:
            raise RuntimeError(f"The input size {input.shape[input.ndim - 1 - i]}, plus negative padding "
                               f"{pad[2 * i]} and {pad[2 * i + 1]} resulted in a negative output size, which is "
                               f"invalid. Check dimension {input.ndim - 1 - i} of your input.")
    return apply(_const_pad_op, (input,), {"pad": pad, "value": value})


def _gather_fw(x, *, index):
    out = x
    for ax, idx in index:
        out = np.take(out, idx, axis=ax)
    return out


def _scatter_fw(g, *, index, sizes):
    # the transpose of _gather_fw: per dim, sum the output positions that read each source
    # (by index, not a product with a 0/1 matrix: 0 * inf would put NaN where nothing was read)
    out = g
    for (ax, idx), size in reversed(list(zip(index, sizes))):
        moved = np.moveaxis(out, ax, 0)
        acc = np.zeros((size,) + moved.shape[1:], dtype=g.dtype)
        np.add.at(acc, idx, moved)
        out = np.moveaxis(acc, 0, ax)
    return np.ascontiguousarray(out)


def _make(name: str, bw_name: str, fw_node: str, bw_node: str):
    ops: dict = {}
    ops["fw"] = primitive(
        name, _gather_fw, node=fw_node,
        x=lambda g, x, x_shape, index: keep_graph(apply(ops["bw"], (g,), {
            "index": index, "sizes": tuple(x_shape[ax] for ax, _ in index)}), x, node=bw_node))
    ops["bw"] = primitive(
        bw_name, _scatter_fw, node=bw_node,
        g=lambda g, index: apply(ops["fw"], (g,), {"index": index}))
    return ops["fw"]


_OPS = {
    ("Reflection", 1): _make("reflection_pad1d", "reflection_pad1d_backward", "ReflectionPad1DBackward0",
                       "ReflectionPad1DBackwardBackward0"),
    ("Reflection", 2): _make("reflection_pad2d", "reflection_pad2d_backward", "ReflectionPad2DBackward0",
                       "ReflectionPad2DBackwardBackward0"),
    ("Reflection", 3): _make("reflection_pad3d", "reflection_pad3d_backward", "ReflectionPad3DBackward0",
                       "ReflectionPad3DBackwardBackward0"),
    ("Replication", 1): _make("replication_pad1d", "replication_pad1d_backward", "ReplicationPad1DBackward0",
                        "ReplicationPad1DBackwardBackward0"),
    ("Replication", 2): _make("replication_pad2d", "replication_pad2d_backward", "ReplicationPad2DBackward0",
                        "ReplicationPad2DBackwardBackward0"),
    ("Replication", 3): _make("replication_pad3d", "replication_pad3d_backward", "ReplicationPad3DBackward0",
                        "ReplicationPad3DBackwardBackward0"),
}


def gather_pad(input: Tensor, index: tuple, mode: str, npad: int) -> Tensor:
    """``input`` padded by reading, along each dim ``ax``, positions ``idx`` (``index``: pairs
    (ax, int64 idx)); ``mode`` 'reflect' or 'replicate' names the node."""
    kind = "Reflection" if mode == "reflect" else "Replication"
    return apply(_OPS[(kind, npad)], (input,), {"index": index})
