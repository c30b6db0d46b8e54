"""Views and in-place writes.

A view shares memory and the version counter with its base (see ``_ops.shape._as_view``).
When a view of a tensor is written in place, the graph must learn that the *base*
changed too (PyTorch's CopySlices).  We handle the common pattern by rebasing: the
base's history becomes "old base with this region replaced by the view's new value".
"""
from __future__ import annotations

from ._tensor import Tensor

__all__ = ["after_inplace_on_view", "check_view_inplace"]


def check_view_inplace(view: Tensor) -> None:
    """PyTorch's refusals for in-place writes to views."""
    meta = view.__dict__.get("_view_meta")
    if meta == "no_grad" and view._base._requires_grad:
        raise RuntimeError(
            "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
            "This view is the output of a function that returns multiple views. Such functions do not allow "
            "the output views to be modified inplace. You should replace the inplace operation by an "
            "out-of-place one.")
    if meta == "multi":
        raise RuntimeError(
            "Output 0 of UnbindBackward0 is a view and is being modified inplace. This view is the output of a "
            "function that returns multiple views. Such functions do not allow the output views to be modified "
            "inplace. You should replace the inplace operation by an out-of-place one.")


def after_inplace_on_view(view: Tensor) -> None:
    """After ``view`` was written in place with grad recording: rebase its base's history.

    The base's new grad_fn is a CopySlices-like node: gradient flows to the old base
    everywhere except the written region, and through the view's new history there.
    """
    base = view._base
    if base is None:
        return
    from ._ops.views_inplace import rebase_history

    rebase_history(base, view)
