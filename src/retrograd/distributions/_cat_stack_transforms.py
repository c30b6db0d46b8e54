"""``CatTransform`` and ``StackTransform``: a list of transforms, each applied to its own slice of a
tensor along one dim (pieces of ``cat`` sizes, or the entries along a ``stack`` dim).

Re-exported by ``retrograd.distributions.transforms`` (import them from there).

>>> import retrograd as torch
>>> from retrograd.distributions.transforms import ExpTransform, StackTransform
>>> from retrograd.distributions.transforms import identity_transform
>>> StackTransform([ExpTransform(), identity_transform])(torch.zeros(2))
tensor([1., 0.])
"""
from __future__ import annotations

from typing import Sequence

import retrograd as torch
from retrograd import Tensor

from . import constraints
from .transforms import Transform
from .utils import _sum_rightmost

__all__ = ["CatTransform", "StackTransform"]


class CatTransform(Transform):
    """Apply ``tseq[i]`` to the ``i``-th chunk (of ``lengths[i]``) of ``dim``, then concatenate.

    >>> import retrograd as torch
    >>> from retrograd.distributions.transforms import CatTransform, ExpTransform, identity_transform
    >>> CatTransform([ExpTransform(), identity_transform], dim=0, lengths=[1, 1])(torch.zeros(2))
    tensor([1., 0.])
    """

    def __init__(self, tseq: Sequence[Transform], dim: int = 0, lengths: Sequence[int] | None = None,
                 cache_size: int = 0) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("all parts of a CatTransform must be Transforms")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        if lengths is None:
            lengths = [1] * len(self.transforms)
        self.lengths = list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError("CatTransform needs one length per transform")
        self.dim = dim

    @property
    def event_dim(self) -> int:
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self) -> int:
        return sum(self.lengths)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _check_dim(self, x: Tensor) -> None:
        if not -x.dim() <= self.dim < x.dim():
            raise AssertionError(f"CatTransform dim {self.dim} is out of range for a {x.dim()}-d input")
        if x.size(self.dim) != self.length:
            raise AssertionError(f"CatTransform expects size {self.length} along dim {self.dim}, "
                                 f"got {x.size(self.dim)}")

    def _map(self, x: Tensor, fns) -> Tensor:
        self._check_dim(x)
        out, start = [], 0
        for fn, length in zip(fns, self.lengths):
            out.append(fn(x.narrow(self.dim, start, length)))
            start += length
        return torch.cat(out, dim=self.dim)

    def _call(self, x: Tensor) -> Tensor:
        return self._map(x, self.transforms)

    def _inverse(self, y: Tensor) -> Tensor:
        return self._map(y, [t.inv for t in self.transforms])

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        self._check_dim(x)
        self._check_dim(y)
        terms, start = [], 0
        for t, length in zip(self.transforms, self.lengths):
            term = t.log_abs_det_jacobian(x.narrow(self.dim, start, length), y.narrow(self.dim, start, length))
            if t.event_dim < self.event_dim:
                term = _sum_rightmost(term, self.event_dim - t.event_dim)
            terms.append(term)
            start += length
        dim = self.dim - x.dim() if self.dim >= 0 else self.dim
        dim += self.event_dim
        # The cat dim survives in the Jacobian only when it is a batch dim.
        if dim < 0:
            return torch.cat(terms, dim=dim)
        return sum(terms)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self) -> constraints.Constraint:
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self) -> constraints.Constraint:
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Apply ``tseq[i]`` to slice ``i`` of ``dim``, then stack the results along ``dim``.

    >>> import retrograd as torch
    >>> from retrograd.distributions.transforms import ExpTransform, StackTransform, identity_transform
    >>> StackTransform([ExpTransform(), identity_transform], dim=0)(torch.zeros(2))
    tensor([1., 0.])
    """

    def __init__(self, tseq: Sequence[Transform], dim: int = 0, cache_size: int = 0) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("all parts of a StackTransform must be Transforms")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, z: Tensor) -> list[Tensor]:
        if not -z.dim() <= self.dim < z.dim():
            raise AssertionError(f"StackTransform dim {self.dim} is out of range for a {z.dim()}-d input")
        if z.size(self.dim) != len(self.transforms):
            raise AssertionError(f"StackTransform expects size {len(self.transforms)} along dim "
                                 f"{self.dim}, got {z.size(self.dim)}")
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _call(self, x: Tensor) -> Tensor:
        return torch.stack([t(s) for t, s in zip(self.transforms, self._slices(x))], dim=self.dim)

    def _inverse(self, y: Tensor) -> Tensor:
        return torch.stack([t.inv(s) for t, s in zip(self.transforms, self._slices(y))], dim=self.dim)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        parts = zip(self.transforms, self._slices(x), self._slices(y))
        return torch.stack([t.log_abs_det_jacobian(a, b) for t, a, b in parts], dim=self.dim)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self) -> constraints.Constraint:
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self) -> constraints.Constraint:
        return constraints.stack([t.codomain for t in self.transforms], self.dim)
