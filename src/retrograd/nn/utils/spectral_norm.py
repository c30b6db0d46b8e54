"""Spectral normalisation as a forward pre-hook (the classic ``nn.utils.spectral_norm``): w / sigma(w),
sigma estimated by power iteration on buffers ``<name>_u`` / ``<name>_v`` while training."""
from __future__ import annotations

from ... import _ops as O
from ..._tensor import Tensor
from ...autograd import grad_mode
from ..parameter import Parameter, is_lazy

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook", "remove_spectral_norm",
           "spectral_norm"]


def _normalize(x: Tensor, eps: float) -> Tensor:
    from .. import functional as F

    return F.normalize(x, dim=0, eps=eps)


class SpectralNorm:
    _version = 1

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.ndim) if d != self.dim])
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module, do_power_iteration: bool) -> Tensor:
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with grad_mode.no_grad():
                for _ in range(self.n_power_iterations):
                    # in place, as PyTorch's normalize(..., out=v): the buffers carry the estimate forward
                    v.copy_(_normalize(O.mv(weight_mat.t(), u), self.eps))
                    u.copy_(_normalize(O.mv(weight_mat, v), self.eps))
                u = u.clone()
                v = v.clone()
        sigma = O.dot(u, O.mv(weight_mat, v))
        return weight / sigma

    def _solve_v_and_rescale(self, weight_mat: Tensor, u: Tensor, target_sigma: Tensor) -> Tensor:
        """The ``v`` with ``u = normalize(W v)`` (least squares), scaled so that ``u . W v`` is ``target_sigma``."""
        v = O.mv(O.pinverse(O.mm(weight_mat.t(), weight_mat)), O.mv(weight_mat.t(), u))
        return v.mul_(target_sigma / O.dot(u, O.mv(weight_mat, v)))

    def remove(self, module) -> None:
        with grad_mode.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name: str, n_power_iterations: int, dim: int, eps: float) -> SpectralNorm:
        from ... import _creation as C

        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if is_lazy(weight):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized parameters. "
                             "Make sure to run the dummy forward before applying spectral normalization")
        with grad_mode.no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = _normalize(C.randn(h, dtype=weight.dtype), fn.eps)
            v = _normalize(C.randn(w, dtype=weight.dtype), fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # a plain attribute until the first forward recomputes it (PyTorch stores weight.data)
        object.__setattr__(module, fn.name, weight.detach())
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Load pre-hook: a state dict saved before version 1 stored ``<name>`` (W / sigma) and no ``<name>_v``;
    rebuild ``<name>_v`` from it so that the loaded module computes the same weight."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs) -> None:
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        weight_key = prefix + fn.name
        if version is None and weight_key not in state_dict \
                and all(weight_key + s in state_dict for s in ("_orig", "_u", "_v")):
            return  # a current-format dict whose metadata was dropped: nothing to convert
        missing = [weight_key + s for s in ("_orig", "", "_u") if weight_key + s not in state_dict]
        if missing:
            if strict:
                missing_keys.extend(missing)
            return
        with grad_mode.no_grad():
            weight_orig = state_dict[weight_key + "_orig"]
            weight = state_dict.pop(weight_key)
            sigma = (weight_orig / weight).mean()
            weight_mat = fn.reshape_weight_to_matrix(weight_orig)
            u = state_dict[weight_key + "_u"]
            state_dict[weight_key + "_v"] = fn._solve_v_and_rescale(weight_mat, u, sigma)


class SpectralNormStateDictHook:
    """state_dict hook: records the format version under ``metadata['spectral_norm']['<name>.version']``."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata) -> None:
        entry = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in entry:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        entry[key] = self.fn._version


def spectral_norm(module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None):
    """Divide ``module.<name>`` by its largest singular value (estimated by power iteration).

    >>> import retrograd as torch
    >>> m = torch.nn.utils.spectral_norm(torch.nn.Linear(3, 2))
    >>> m.weight_u.shape, m.weight_v.shape
    (torch.Size([2]), torch.Size([3]))
    """
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name: str = "weight"):
    """Undo :func:`spectral_norm`: ``<name>`` becomes a plain Parameter holding w / sigma."""
    for k, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            # drop the state-dict hooks that apply() added for this parameter
            for k2, h in list(module._state_dict_hooks.items()):
                if isinstance(h, SpectralNormStateDictHook) and h.fn.name == name:
                    del module._state_dict_hooks[k2]
            for k2, h in list(module._load_state_dict_pre_hooks.items()):
                inner = getattr(h, "hook", h)
                if isinstance(inner, SpectralNormLoadStateDictPreHook) and inner.fn.name == name:
                    del module._load_state_dict_pre_hooks[k2]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
