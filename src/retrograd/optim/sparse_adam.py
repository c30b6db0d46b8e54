"""SparseAdam: Adam for sparse gradients (retrograd has dense gradients only, so ``step`` raises like torch)."""
from __future__ import annotations

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """PyTorch's SparseAdam: the constructor validates like torch; ``step`` with a dense gradient raises
    ``RuntimeError`` exactly as torch does (retrograd gradients are always dense).

    >>> import retrograd as torch
    >>> w = torch.zeros(2, requires_grad=True)
    >>> opt = torch.optim.SparseAdam([w]); w.grad = torch.ones(2)
    >>> try:
    ...     opt.step()
    ... except RuntimeError as e:
    ...     print(e)
    SparseAdam does not support dense gradients, please consider Adam instead
    """

    def __init__(self, params, lr=1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 maximize: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        sparse, complex_ = [], []
        for i, group in enumerate(self.param_groups):
            for j, p in enumerate(group["params"]):
                if p.is_sparse:
                    sparse.append([i, j])
                if p.is_complex():
                    complex_.append([i, j])
        if sparse:
            raise ValueError(f"Sparse params at indices {sparse}: SparseAdam requires dense parameter tensors")
        if complex_:
            raise ValueError(f"Complex params at indices {complex_}: SparseAdam does not support complex parameters")

    @no_grad()
    def step(self, closure=None):
        """Raises for any (dense) gradient, as torch does; with no gradients it only runs ``closure``."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is not None and not p._grad.is_sparse:
                    raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
        return loss
