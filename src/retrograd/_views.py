"""Views and in-place writes.

A view shares memory and the version counter with its base (``_base`` is the root
tensor that owns the memory; see ``_ops.shape._as_view``).  Two things keep the graph
right when any member of such a family is written in place with grad recording:

* written through a view: the base's history is rewritten (PyTorch's CopySlices): its
  gradient flows to the old base outside the written region and through the view's new
  history inside it (``_ops.views_inplace.rebase_history``);
* every other live view of the base gets a fresh ``grad_fn`` that reads its region of
  the base's *new* history (``AsStridedBackward0``), as PyTorch regenerates a view's
  grad_fn when its base's version changed.  Live views are found through weak
  references the base keeps (``register_view``).

This module also holds PyTorch's refusals of in-place writes on views
(``check_view_inplace``) and how a view is marked when it is created under ``no_grad``
or ``inference_mode``.
"""
from __future__ import annotations

import re
import weakref

from ._tensor import Tensor
from .autograd import grad_mode
from .autograd.graph import _inference_used

__all__ = ["register_view", "after_inplace_on_view", "check_view_inplace", "live_views"]

_state = grad_mode.state
_ref = weakref.ref

NO_GRAD_VIEW_MSG = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that this use "
    "case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and the "
    "inplace either both inside the no_grad block (if you don't want the inplace to be tracked) or both outside (if "
    "you want the inplace to be tracked).")
INFERENCE_VIEW_MSG = (
    "A view was created in inference mode and is being modified inplace in normal mode. Given that this use case "
    "is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and the "
    "inplace either both inside the inference_mode block (if you don't want the inplace to be tracked) or both "
    "outside (if you want the inplace to be tracked).")
MULTI_VIEW_TAIL = (
    "This view is the output of a function that returns multiple views. Such functions do not allow the output views "
    "to be modified inplace. You should replace the inplace operation by an out-of-place one.")
CUSTOM_FN_VIEW_TAIL = (
    "This view was created inside a custom Function (or because an input was returned as-is) and the autograd logic "
    "to handle view+inplace would override the custom backward associated with the custom Function, leading to "
    "incorrect gradients. This behavior is forbidden. You can fix this by cloning the output of the custom Function.")


def register_view(out: Tensor, base: Tensor) -> None:
    """Make ``out`` (whose data is a NumPy view of ``base``'s) a view of ``base``'s root.

    Called by view ops.  Shares the version counter, marks views made under no_grad /
    inference mode, and lets the root find its live views after in-place writes.
    """
    if _inference_used[0] and "_inference" in base.__dict__:
        # PyTorch: a view of an inference tensor (made in or out of the mode) is an inference
        # tensor outside autograd: no _base, no history, requires_grad False, no version counter.
        out.__dict__["_inference"] = True
        out._requires_grad = False
        out._grad_fn = None
        out._output_nr = 0
        return
    bb = base._base
    root = base if bb is None else bb
    out._vc = base._vcounter()
    out._base = root
    meta = None if bb is None else base.__dict__.get("_view_meta")
    if not _state.enabled:
        if _state.inference:
            out.__dict__.pop("_inference", None)  # a view of a normal tensor stays a normal tensor
            meta = "inference"
        else:
            meta = meta if meta == "inference" else "no_grad"
            out.__dict__["_view_nograd"] = True  # survives ops that re-mark their outputs "multi"
        # PyTorch: such a view still reports requires_grad of its base (it has no grad_fn)
        out._requires_grad = root._requires_grad or base._requires_grad
    if meta in ("no_grad", "inference") and _state.enabled and not _state.inference:
        # a view (made with grad recording) of a view made under no_grad / inference mode:
        # PyTorch refuses in-place on it with its own message
        meta = "vov_" + meta
    if meta is not None:
        out.__dict__["_view_meta"] = meta
    if root._grad_fn is None and root._requires_grad:
        return  # in-place on a leaf that requires grad (or its views) is refused: nothing to regenerate
    rd = root.__dict__
    refs = rd.get("_views")
    if refs is None:
        rd["_views"] = [_ref(out)]
    else:
        n = len(refs)
        if n >= 64 and not n & (n - 1):
            refs[:] = [r for r in refs if r() is not None]  # prune dead views now and then
        refs.append(_ref(out))


def live_views(root: Tensor) -> list:
    refs = root.__dict__.get("_views")
    if not refs:
        return []
    alive = [v for v in (r() for r in refs) if v is not None]
    refs[:] = [weakref.ref(v) for v in alive]
    return alive


def check_view_inplace(view: Tensor, others: tuple = ()) -> None:
    """PyTorch's refusals for in-place writes to views (grad mode is on here)."""
    base = view._base
    # (a view taken before its base was made to require grad still writes into that leaf)
    requires_grad = view._requires_grad or base._requires_grad or any(
        getattr(o, "_requires_grad", False) for o in others)
    if not requires_grad:
        return
    d = view.__dict__
    meta = d.get("_view_meta")
    if meta is not None:
        gf = view._grad_fn
        if meta in ("vov_no_grad", "vov_inference"):
            name = re.sub(r"Backward\d*$", "", gf.name()) if gf is not None else "view"
            if meta == "vov_no_grad":
                raise RuntimeError(
                    f"Output {view._output_nr} of {name} is a view of a view which was created in no_grad mode and is "
                    "being modified inplace with grad mode enabled. Given that this use case is ambiguous and "
                    "error-prone, it is forbidden. You can clarify your code by moving both the view and the inplace "
                    "either both inside the no_grad block (if you don't want the inplace to be tracked) or both outside "
                    "(if you want the inplace to be tracked).")
            raise RuntimeError(
                f"Output {view._output_nr} of {name} is a view of a view which was created in inference mode and is "
                "being modified inplace in normal mode. Given that this use case is ambiguous and error-prone, it is "
                "forbidden. You can clarify your code by moving both the view and the inplace either both inside the "
                "inference_mode block (if you don't want the inplace to be tracked) or both outside (if you want the "
                "inplace to be tracked).")
        if meta == "inference":
            raise RuntimeError(INFERENCE_VIEW_MSG)
        if meta == "no_grad" or d.get("_view_nograd"):
            raise RuntimeError(NO_GRAD_VIEW_MSG)
        if meta in ("multi", "custom_fn"):
            tail = MULTI_VIEW_TAIL if meta == "multi" else CUSTOM_FN_VIEW_TAIL
            if gf is None:
                raise RuntimeError("A view was created in no_grad mode and is being modified inplace with grad mode "
                                   "enabled. " + tail)
            name = re.sub(r"Backward\d*$", "", gf.name())
            raise RuntimeError(f"Output {view._output_nr} of {name} is a view and is being modified inplace. " + tail)
    base = view._base
    if base._grad_fn is None and base._requires_grad:  # (even a view taken before the base required grad)
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    if view._requires_grad and view._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def after_inplace_on_view(target: Tensor) -> None:
    """After ``target`` was written in place with grad recording (its grad_fn is the new node).

    Moves ``retain_grad`` to the new history; when ``target`` is a view, rewrites its base's
    history (CopySlices); then regenerates the grad_fn of the family's other live views.
    """
    # the node that held target's retain_grad is an input of the in-place node
    old_nodes = [c for c, _ in target._grad_fn.next_functions if c is not None] if target._retains_grad else ()
    base = target._base
    if base is None:
        if target._retains_grad:
            _move_retains(target, old_nodes)
        if target.__dict__.get("_views"):
            for v in live_views(target):
                if v is not target:
                    _regenerate(v, target)
        return
    from ._ops.views_inplace import rebase_history

    old_base_node = base._grad_fn
    rebase_history(base, target)
    if target._retains_grad:
        _move_retains(target, old_nodes)
    if base._retains_grad and old_base_node is not None:
        _move_retains(base, (old_base_node,))
    for v in live_views(base):
        if v is not target:
            _regenerate(v, base)


INFERENCE_VIEW_REBASE_MSG = (
    "A view was created in inference mode and its base or another view of its base has been modified inplace in "
    "normal mode. Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code "
    "by moving both the view and the inplace either both inside the inference_mode block (if you don't want the "
    "inplace to be tracked) or both outside (if you want the inplace to be tracked).")
NO_GRAD_VIEW_REBASE_MSG = (
    "A view was created in no_grad mode and its base or another view of its base has been modified inplace with "
    "grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
    "code by moving both the view and the inplace either both inside the no_grad block (if you don't want the "
    "inplace to be tracked) or both outside (if you want the inplace to be tracked).")


def _regenerate(view: Tensor, root: Tensor) -> None:
    from ._ops.views_inplace import regenerate_view

    old = view._grad_fn
    regenerate_view(view, root)
    if view._retains_grad and old is not None:
        _move_retains(view, (old,))
    d = view.__dict__
    meta = d.get("_view_meta")
    if view._grad_fn is not None and (meta in ("inference", "no_grad") or d.get("_view_nograd")):
        # PyTorch refuses to give such a view a history: its grad_fn (and is_leaf) raise, and
        # so does a backward through it (here when the backward reaches it).
        msg = INFERENCE_VIEW_REBASE_MSG if meta == "inference" else NO_GRAD_VIEW_REBASE_MSG
        d["_view_error"] = msg

        def refuse(grads, msg=msg):
            raise RuntimeError(msg)

        view._grad_fn.register_prehook(refuse)


def _move_retains(t: Tensor, old_nodes) -> None:
    """retain_grad follows the tensor to its new grad_fn (PyTorch: .grad is w.r.t. the new value)."""
    new = t._grad_fn
    for node in old_nodes:
        retains = node._retains
        if not retains:
            continue
        for nr, ref in list(retains.items()):
            if ref() is t:
                del retains[nr]
                if new._retains is None:
                    new._retains = {}
                new._retains[t._output_nr] = weakref.ref(t)
                return
