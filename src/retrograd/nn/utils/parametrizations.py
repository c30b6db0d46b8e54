"""``nn.utils.parametrizations``: weight_norm and spectral_norm built on :mod:`parametrize`."""
from __future__ import annotations

import numpy as np

from ... import _ops as O
from ..._tensor import Tensor
from ...autograd import grad_mode
from .._util import const
from ..modules.module import Module
from . import parametrize
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["spectral_norm", "weight_norm"]


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """``module.<name>`` = g * v / ||v||, stored as ``parametrizations.<name>.original0`` (g) and ``original1`` (v).

    >>> import retrograd as torch
    >>> m = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(3, 2))
    >>> m.parametrizations.weight.original0.shape
    torch.Size([2, 1])
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                 error_msgs) -> None:
        # checkpoints of the older ``nn.utils.weight_norm`` store ``<name>_g`` / ``<name>_v``:
        # rename them to this parametrization's ``original0`` / ``original1`` before loading
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        from ... import _creation as C
        from .. import functional as F

        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            self.register_buffer("_u", F.normalize(C.randn(h, dtype=weight.dtype), dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(C.randn(w, dtype=weight.dtype), dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        from .. import functional as F

        with grad_mode.no_grad():
            weight_mat = weight_mat.detach()
            for _ in range(n_power_iterations):
                # in place, like PyTorch's out=: the buffers carry the estimate across calls
                self._u.copy_(F.normalize(O.mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(O.mv(weight_mat.t(), self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        from .. import functional as F

        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = O.dot(u, O.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    """``module.<name>`` divided by its largest singular value (power iteration on buffers ``_u``, ``_v``).

    >>> import retrograd as torch
    >>> m = torch.nn.utils.parametrizations.spectral_norm(torch.nn.Linear(3, 2))
    >>> m.parametrizations.weight[0]._u.shape
    torch.Size([2])
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


def _householder_product(A: Tensor, tau: Tensor) -> Tensor:
    """First k columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H, v_i = (0, .., 1, A[i+1:, i]) (composed ops)."""
    from ... import _creation as C

    n, k = A.shape[-2], A.shape[-1]
    Q = C.eye(n, dtype=A.dtype).expand(*A.shape[:-2], n, n)
    below = np.tril(np.ones((n, k), dtype=bool), -1)
    for i in range(k):
        e = np.zeros(n, dtype=A._data.dtype)
        e[i] = 1.0
        v = A[..., :, i] * const(below[:, i].astype(A._data.dtype)) + const(e)  # (..., n)
        Qv = O.matmul(Q, v.unsqueeze(-1))  # (..., n, 1)
        Q = Q - tau[..., i].unsqueeze(-1).unsqueeze(-1) * O.matmul(Qv, v.unsqueeze(-2))
    return Q[..., :, :k]


def _make_orthogonal(A: Tensor) -> Tensor:
    """Q of A = QR with R's diagonal made positive (no gradient needed: it only initialises ``base``)."""
    q, r = np.linalg.qr(A._data)
    d = np.sign(np.diagonal(r, axis1=-2, axis2=-1))
    d[d == 0] = 1
    return const(q * d[..., None, :])


class _Orthogonal(Module):
    def __init__(self, weight: Tensor, orthogonal_map: str, *, use_trivialization: bool = True) -> None:
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        from ... import _creation as C
        from ... import linalg

        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:
                X = O.cat([X, const(np.zeros((*X.shape[:-2], n, n - k), dtype=X._data.dtype))], -1)
            A = X - X.mT
            if self.orthogonal_map == "matrix_exp":
                Q = linalg.matrix_exp(A)
            else:
                Id = C.eye(n, dtype=A.dtype)
                Q = linalg.solve(Id - 0.5 * A, Id + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            sign = const(np.diagonal(X._data, axis1=-2, axis2=-1).astype(np.int64).astype(X._data.dtype))
            Q = Q * sign.unsqueeze(-2)
        if "base" in self._buffers:
            Q = O.matmul(self.base, Q)
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        if tuple(Q.shape) != tuple(self.shape):
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        with grad_mode.no_grad():
            Q_init = Q
            n, k = Q.shape[-2], Q.shape[-1]
            if n < k:
                Q = Q.mT
                n, k = k, n
            if "base" not in self._buffers:
                raise NotImplementedError("orthogonal without trivialization is not supported by retrograd")
            if n == k:
                q = Q._data
                eye = np.eye(k, dtype=q.dtype)
                ok = np.allclose(np.swapaxes(q, -2, -1) @ q, eye, rtol=1e-5, atol=10.0 * n * np.finfo(q.dtype).eps)
                Q = Q.detach().clone() if ok else _make_orthogonal(Q.detach())
            else:
                from ... import _creation as C

                N = C.randn(*Q.shape[:-2], n, n - k, dtype=Q.dtype)
                Q = _make_orthogonal(O.cat([Q.detach(), N], -1))
            self.base = Q
            neg_id = np.zeros(tuple(Q_init.shape), dtype=Q_init._data.dtype)
            idx = np.arange(min(neg_id.shape[-2:]))
            neg_id[..., idx, idx] = -1.0
            return const(neg_id)


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Constrain ``module.<name>`` to (semi-)orthogonal matrices via matrix_exp, cayley or householder.

    >>> import retrograd as torch
    >>> m = torch.nn.utils.parametrizations.orthogonal(torch.nn.Linear(3, 3))
    >>> bool(((m.weight.T @ m.weight) - torch.eye(3)).abs().max() < 1e-5)
    True
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] else "householder"
    if orthogonal_map not in ("matrix_exp", "cayley", "householder"):
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    if not use_trivialization:
        raise NotImplementedError("orthogonal(use_trivialization=False) is not supported by retrograd")
    parametrize.register_parametrization(module, name, _Orthogonal(weight, orthogonal_map,
                                                                   use_trivialization=use_trivialization),
                                         unsafe=True)
    return module
