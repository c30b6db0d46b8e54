"""``retrograd.random``: the random-number state functions of ``torch.random``.

Everything delegates to retrograd's top-level ``manual_seed`` / ``seed`` / ``initial_seed`` /
``get_rng_state`` / ``set_rng_state`` (looked up at call time, so a new generator behind them
needs no change here).  There are no CUDA generators: ``fork_rng`` saves and restores the CPU
state only, and its ``devices`` / ``device_type`` arguments are accepted and ignored.

>>> import retrograd as torch
>>> with torch.random.fork_rng():
...     _ = torch.rand(2)
"""
from __future__ import annotations

import contextlib
from typing import Iterator

__all__ = ["manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "fork_rng"]


def _rg():
    import retrograd  # at call time: this module is imported while retrograd itself loads

    return retrograd


def manual_seed(seed: int):
    """Seed the default generator; returns it.

    >>> import retrograd as torch
    >>> _ = torch.random.manual_seed(0)
    >>> torch.random.initial_seed()
    0
    """
    return _rg().manual_seed(seed)


def seed() -> int:
    """Seed the default generator non-deterministically; returns the seed.

    >>> import retrograd as torch
    >>> isinstance(torch.random.seed(), int)
    True
    """
    return _rg().seed()


def initial_seed() -> int:
    """The seed the default generator was last seeded with.

    >>> import retrograd as torch
    >>> _ = torch.random.manual_seed(7)
    >>> torch.random.initial_seed()
    7
    """
    return _rg().initial_seed()


def get_rng_state():
    """The default generator's state as a uint8 Tensor.

    >>> import retrograd as torch
    >>> torch.random.get_rng_state().dtype == torch.uint8
    True
    """
    return _rg().get_rng_state()


def set_rng_state(new_state) -> None:
    """Restore a state from :func:`get_rng_state`.

    >>> import retrograd as torch
    >>> s = torch.random.get_rng_state()
    >>> a = torch.rand(1); torch.random.set_rng_state(s); bool((torch.rand(1) == a).all())
    True
    """
    _rg().set_rng_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled: bool = True, _caller: str = "fork_rng", _devices_kw: str = "devices",
             device_type: str | None = None) -> Iterator[None]:
    """A context in which random draws do not disturb the outer stream: the CPU generator's
    state is saved on entry and restored on exit (also on an exception).  ``enabled=False``
    makes it a no-op.

    >>> import retrograd as torch
    >>> _ = torch.random.manual_seed(0)
    >>> with torch.random.fork_rng():
    ...     _ = torch.rand(3)
    >>> a = torch.rand(1); _ = torch.random.manual_seed(0); bool((torch.rand(1) == a).all())
    True
    """
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def __getattr__(name: str):
    # torch.random.Generator / default_generator: whatever retrograd exposes under those names
    if name in ("Generator", "default_generator"):
        return getattr(_rg(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
