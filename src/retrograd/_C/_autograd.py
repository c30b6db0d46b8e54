"""``torch._C._autograd``: saved tensors and version-counter utilities."""
from __future__ import annotations

from ..autograd._toggles import _unsafe_set_version_counter  # noqa: F401
from ..autograd.graph import SavedTensor

__all__ = ["SavedTensor", "_make_saved_tensor", "_unsafe_set_version_counter", "_saved_tensors_hooks_is_enabled"]


def _saved_tensors_hooks_is_enabled() -> bool:
    """False inside ``disable_saved_tensors_hooks``."""
    from ..autograd import graph

    return graph._disabled_msg[0] is None


def _make_saved_tensor(tensor, *, is_output: bool = False) -> SavedTensor:
    """Save ``tensor`` as backward would (the active saved-tensor hooks pack it now)."""
    return SavedTensor(tensor, is_output)
