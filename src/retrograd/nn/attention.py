"""``torch.nn.attention``: the scaled-dot-product-attention backend enum and ``sdpa_kernel``.

retrograd has a single (math) implementation of ``F.scaled_dot_product_attention``, so choosing
a backend changes nothing about how attention is computed; ``sdpa_kernel`` still validates its
arguments like torch and keeps the enabled-backend state, so code written for torch runs as is.

>>> import retrograd as torch
>>> from retrograd.nn.attention import SDPBackend, sdpa_kernel
>>> with sdpa_kernel([SDPBackend.MATH]):
...     out = torch.nn.functional.scaled_dot_product_attention(torch.ones(1, 2, 4), torch.ones(1, 2, 4),
...                                                            torch.ones(1, 2, 4))
>>> out.shape
torch.Size([1, 2, 4])
"""
from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterable, Iterator

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

# torch's flag: whether to warn when a fused kernel cannot be used (nothing is fused here)
WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.Enum):
    """The attention backends torch knows (torch's names and integer values).

    >>> from retrograd.nn.attention import SDPBackend
    >>> SDPBackend.MATH, int(SDPBackend.FLASH_ATTENTION)
    (<SDPBackend.MATH: 0>, 1)
    """

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __int__(self) -> int:
        return self.value

    def __index__(self) -> int:
        return self.value


# Backends that have an on/off switch, in the order torch reports them.
_SWITCHED = (SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
             SDPBackend.MATH, SDPBackend.OVERRIDEABLE)
_enabled: dict = {b: True for b in _SWITCHED}
_priority: list = [1, 2, 0, 3, 4]  # torch's default priority order (by integer value)


def _cur_sdpa_kernel_backends(with_priority: bool = False) -> list:
    """The enabled backends (in priority order if ``with_priority``)."""
    backends = [b for b in _SWITCHED if _enabled[b]]
    if with_priority:
        backends.sort(key=lambda b: _priority.index(int(b)))
    return backends


def _sdpa_kernel(backends: Iterable, set_priority: bool = False) -> None:
    global _priority
    for b in _SWITCHED:
        _enabled[b] = b in backends
    if set_priority:
        # ERROR is not a kernel: it takes no place in the priority order
        user = [int(b) for b in backends if b is not SDPBackend.ERROR]
        _priority = user + [p for p in _priority if p not in user]


@contextlib.contextmanager
def sdpa_kernel(backends: list[SDPBackend] | SDPBackend, set_priority: bool = False) -> Iterator[dict]:
    """Enable only ``backends`` for scaled dot product attention inside the block (restored after).

    A no-op for the computation in retrograd (one math path), but arguments are checked like torch.

    >>> from retrograd.nn.attention import SDPBackend, sdpa_kernel
    >>> with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    ...     pass
    >>> with sdpa_kernel("math"):
    ...     pass
    Traceback (most recent call last):
    ...
    AssertionError: Backend must be an instance of SDPBackend or a list of SDPBackend instances, got str
    """
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
                             f"got {type(backends).__name__}")
    if isinstance(backends, SDPBackend):
        backends = [backends]
    backends = list(dict.fromkeys(backends))
    previous = _cur_sdpa_kernel_backends(with_priority=set_priority)
    try:
        _sdpa_kernel(backends, set_priority)
        yield {}
    finally:
        _sdpa_kernel(previous, set_priority)
