"""Random-number state: ``Generator`` (PyTorch's CPU streams, number for number, from ``_rng``),
the ``default_generator`` and the seeding functions (``manual_seed``, ``seed``, ``initial_seed``,
``get_rng_state``, ``set_rng_state``).  The random factories (``rand``, ``randn`` ...) in
``_creation`` draw from here.

>>> import retrograd as torch
>>> g = torch.Generator().manual_seed(0)
>>> g.initial_seed()
0
"""
from __future__ import annotations

import numpy as np

from . import _rng
from ._size import check_device
from ._tensor import Tensor

__all__ = ["manual_seed", "seed", "initial_seed", "Generator", "default_generator", "get_rng_state",
           "set_rng_state"]

_wrap = Tensor._wrap


class Generator:
    """A CPU random number generator whose streams are PyTorch's, number for number.

    It is PyTorch's 32-bit Mersenne Twister (see ``retrograd._rng``): after the same seed,
    ``rand``, ``randn``, ``randint``, ``randperm``, ``normal_`` ... give exactly the values
    PyTorch gives, and ``get_state()`` is PyTorch's 5056-byte state.

    >>> import retrograd as torch
    >>> g = torch.Generator().manual_seed(0)
    >>> torch.rand(2, generator=g)
    tensor([0.4963, 0.7682])
    """

    def __init__(self, device="cpu") -> None:
        check_device(device)
        self._engine = _rng.Engine(_rng.DEFAULT_SEED)

    @property
    def device(self):
        from ._size import CPU

        return CPU

    @property
    def np(self) -> np.random.Generator:
        """A NumPy ``Generator`` drawing from this generator's own stream (for code that wants
        NumPy's distributions; its numbers are not PyTorch's)."""
        self._engine.fresh = False
        return self._engine.gen

    def manual_seed(self, seed: int) -> "Generator":
        """Reseed (the low 32 bits drive the stream; ``initial_seed`` keeps all 64)."""
        if isinstance(seed, float):
            raise RuntimeError("manual_seed expected a long, but got float")
        seed = _check_seed(seed)
        self._engine.manual_seed(seed)
        return self

    def seed(self) -> int:
        """Reseed from a non-deterministic source; returns the new seed."""
        import secrets

        s = secrets.randbits(64)
        self._engine.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._engine.seed

    def get_state(self) -> Tensor:
        """PyTorch's state bytes (a uint8 tensor of 5056 elements)."""
        return _wrap(self._engine.get_state(), False, None, 0)

    def set_state(self, new_state: Tensor) -> "Generator":
        """Restore from :meth:`get_state` (also accepts PyTorch's ``get_rng_state()`` bytes)."""
        if not isinstance(new_state, Tensor) or new_state._data.dtype != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = np.ascontiguousarray(new_state._data).reshape(-1).tobytes()
        if len(raw) != _rng.STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_rng.STATE_SIZE} but found the input "
                               f"RNG state size to be {len(raw)}")
        self._engine.set_state(raw)
        return self

    def __repr__(self) -> str:
        return f"<retrograd.Generator object at {hex(id(self))}>"


def _check_seed(seed) -> int:
    if isinstance(seed, Tensor):
        seed = seed.item()
    if not isinstance(seed, (int, np.integer)):
        raise TypeError(f"manual_seed expected a long, but got {type(seed).__name__}")
    seed = int(seed)
    if not -2 ** 63 <= seed < 2 ** 64:
        raise ValueError("Overflow when unpacking long long")
    return seed


default_generator = Generator()


def _eng(generator: Generator | None) -> _rng.Engine:
    """The engine behind ``generator`` (the default generator when None)."""
    if generator is None:
        return default_generator._engine
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a Generator, got {type(generator).__name__}")
    return generator._engine


def _draw_seed(generator: Generator | None) -> int:
    """``torch.empty((), dtype=torch.int64).random_(generator=...).item()``: the seed PyTorch's
    samplers and DataLoader draw (one 64-bit draw mod 2**63)."""
    return int(_rng.random_full(_eng(generator), 1, np.int64)[0])


def manual_seed(seed: int) -> Generator:
    """Seed the default generator; afterwards random calls give PyTorch's numbers for that seed.

    >>> import retrograd as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.randint(0, 10, (4,))
    tensor([4, 9, 3, 0])
    """
    if isinstance(seed, (float, str)):
        seed = int(seed)  # torch.manual_seed calls int() first
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the default generator non-deterministically; returns the seed.

    >>> import retrograd as torch
    >>> s = torch.seed(); s == torch.initial_seed()
    True
    """
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the default generator was last seeded with.

    >>> import retrograd as torch
    >>> _ = torch.manual_seed(-1); torch.initial_seed()
    18446744073709551615
    """
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state: PyTorch's 5056-byte layout, as a uint8 tensor.

    >>> import retrograd as torch
    >>> torch.get_rng_state().shape
    torch.Size([5056])
    """
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Restore the default generator from :func:`get_rng_state` (or PyTorch's bytes).

    >>> import retrograd as torch
    >>> s = torch.get_rng_state(); a = torch.rand(2); torch.set_rng_state(s)
    >>> bool((torch.rand(2) == a).all())
    True
    """
    default_generator.set_state(new_state)
