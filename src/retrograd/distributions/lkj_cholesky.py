"""LKJ distribution over Cholesky factors of correlation matrices."""
from __future__ import annotations

import math
from typing import Sequence

import retrograd as torch
from retrograd import Size, Tensor

from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """LKJ distribution (shape ``concentration``) of the lower Cholesky factor of a ``dim x dim``
    correlation matrix; ``concentration = 1`` is uniform over correlation matrices.

    Sampling is the onion method: row ``i`` is a random direction scaled by the square root of a
    Beta draw, with the diagonal entry completing the row to unit norm.

    >>> import retrograd as torch
    >>> from retrograd.distributions import LKJCholesky
    >>> LKJCholesky(3, 0.5).log_prob(torch.eye(3))
    tensor(-2.5310)
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration: Tensor | float = 1.0, validate_args: bool | None = None) -> None:
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        # Row i's squared off-diagonal norm is Beta(i/2, c + (dim-2)/2 - (i-1)/2) (row 0 unused).
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = torch.arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = torch.cat([torch.zeros(1, dtype=offset.dtype), offset])
        self._beta = Beta(offset + 0.5, marginal_conc.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.size(), Size((dim, dim)), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance=None) -> "LKJCholesky":
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        return self._finish_expand(LKJCholesky, new, batch_shape)

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        with torch.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u_normal = torch.randn(self._extended_shape(sample_shape), dtype=y.dtype).tril(-1)
            u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
            # Row 0 has no off-diagonal entries (its 0/0 norm above is nan).
            row0 = torch.arange(self.dim) == 0
            u_hypersphere = torch.where(row0.unsqueeze(-1), torch.zeros_like(u_hypersphere), u_hypersphere)
            w = torch.sqrt(y) * u_hypersphere
            eps = torch.finfo(w.dtype).tiny
            diag = torch.clamp(1 - torch.sum(w ** 2, dim=-1), min=eps).sqrt()
            return w + torch.diag_embed(diag)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        diag = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = torch.arange(2, self.dim + 1)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = torch.sum(order * diag.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalize = 0.5 * dm1 * math.log(math.pi) + torch.mvlgamma(alpha - 0.5, dm1) - torch.lgamma(alpha) * dm1
        return unnormalized - normalize
