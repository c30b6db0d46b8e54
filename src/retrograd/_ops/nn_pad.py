"""Reflection and replication padding as primitives (PyTorch's ReflectionPad{1,2,3}DBackward0 and
ReplicationPad{1,2,3}DBackward0 nodes).

Both modes are a gather along each padded dim with a fixed source index per output position
(``index[ax]``, precomputed by the caller); the backward is the transposed sum over those
indices, and the backward's own rule is the gather again.  Under ``create_graph=True`` the input
gradient stays linked to the input, as in PyTorch (see _keep_graph.py).
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ._keep_graph import keep_graph
from ._registry import apply, primitive

__all__: list[str] = []


def _gather_fw(x, *, index):
    out = x
    for ax, idx in index:
        out = np.take(out, idx, axis=ax)
    return out


def _scatter_fw(g, *, index, sizes):
    # the transpose of _gather_fw: per dim, sum the output positions that read each source
    out = g
    for (ax, idx), size in reversed(list(zip(index, sizes))):
        m = np.zeros((len(idx), size), dtype=g.dtype)
        m[np.arange(len(idx)), idx] = 1
        out = np.moveaxis(np.tensordot(np.moveaxis(out, ax, -1), m, axes=([-1], [0])), -1, ax)
    return np.ascontiguousarray(out)


def _make(kind: str, nd: int) -> tuple:
    fw_node = f"{kind}Pad{nd}DBackward0"
    bw_node = f"{kind}Pad{nd}DBackwardBackward0"
    ops: dict = {}
    ops["fw"] = primitive(
        f"{kind.lower()}_pad{nd}d", _gather_fw, node=fw_node,
        x=lambda g, x, x_shape, index: keep_graph(apply(ops["bw"], (g,), {
            "index": index, "sizes": tuple(x_shape[ax] for ax, _ in index)}), x, node=bw_node))
    ops["bw"] = primitive(
        f"{kind.lower()}_pad{nd}d_backward", _scatter_fw, node=bw_node,
        g=lambda g, index: apply(ops["fw"], (g,), {"index": index}))
    return ops["fw"]


_OPS = {(kind, nd): _make(kind, nd) for kind in ("Reflection", "Replication") for nd in (1, 2, 3)}


def gather_pad(input: Tensor, index: tuple, mode: str, npad: int) -> Tensor:
    """``input`` padded by reading, along each dim ``ax``, positions ``idx`` (``index``: pairs
    (ax, int64 idx)); ``mode`` 'reflect' or 'replicate' names the node."""
    kind = "Reflection" if mode == "reflect" else "Replication"
    return apply(_OPS[(kind, npad)], (input,), {"index": index})
