"""``differentiable=True`` optimizer steps: the update recorded by autograd.

The ordinary optimizer steps work on the parameters' NumPy buffers under ``no_grad``
(fast, and bit-faithful to PyTorch's kernels, see ``_kernels.py``).  With
``differentiable=True`` PyTorch instead runs its single-tensor algorithm with grad mode
on, so the step becomes part of the graph: gradients flow from the updated parameters
(and the updated state) back to the gradient, the old state and any hyper-parameter
given as a tensor that requires grad (meta-learning of ``lr``, ``weight_decay``,
``betas``).  This module holds those updates, written in retrograd tensor operations.
Each mirrors PyTorch's single-tensor path, in-place on parameters and state (so a
parameter being optimized must be a non-leaf, e.g. a ``clone()``, as in PyTorch).

>>> import retrograd as torch
>>> w0 = torch.tensor([1.0, 2.0], requires_grad=True)
>>> lr = torch.tensor(0.1, requires_grad=True)
>>> w = w0.clone()
>>> w.grad = 2 * w.detach()
>>> opt = torch.optim.SGD([w], lr=lr, differentiable=True)
>>> opt.step()
>>> w.sum().backward()
>>> lr.grad
tensor(-6.)
"""
from __future__ import annotations

from typing import Any, Callable

import retrograd

from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, no_grad

__all__ = ["supports", "step"]


# ----------------------------------------------------------------------------- helpers
def _is_tensor(x) -> bool:
    return isinstance(x, Tensor)


def _nonzero(x) -> bool:
    """Whether a hyper-parameter switches its term on (a tensor needing grad always does)."""
    if _is_tensor(x):
        return bool(x.requires_grad) or float(x.item()) != 0.0
    return x != 0


def _num(x):
    """A hyper-parameter as a Python number unless it is a tensor that needs its gradient."""
    if _is_tensor(x) and not x.requires_grad:
        return x.item()
    return x


def _add_scaled_(p: Tensor, coeff, t: Tensor) -> None:
    """``p += coeff * t``; a tensor ``coeff`` stays in the graph."""
    if _is_tensor(coeff):
        p.add_(t * coeff)
    else:
        p.add_(t, alpha=coeff)


def _weight_decay(p: Tensor, g: Tensor, wd) -> Tensor:
    """The L2 term ``g + wd * p`` (out of place, so ``p.grad`` itself is left alone)."""
    if _is_tensor(wd):
        # (a clone: the product saves it, and ``p`` is updated in place right after)
        return g + p.clone() * wd
    return g.add(p, alpha=wd)


def _tick(state: dict) -> float:
    """``state['step'] += 1`` outside the graph; returns the new step count."""
    step_t = state["step"]
    with no_grad():
        step_t.add_(1)
    return float(step_t.item())


# ----------------------------------------------------------------------------- updates
def _sgd(opt, group, p: Tensor, g: Tensor) -> None:
    lr, momentum, dampening = _num(group["lr"]), group["momentum"], group["dampening"]
    wd = _num(group["weight_decay"])
    if _nonzero(wd):
        g = _weight_decay(p, g, wd)
    if momentum != 0:
        state = opt.state[p]
        buf = state.get("momentum_buffer")
        if buf is None:
            buf = state["momentum_buffer"] = g.detach().clone()
        else:
            buf.mul_(momentum).add_(g, alpha=1 - dampening)
        g = g.add(buf, alpha=momentum) if group["nesterov"] else buf
    _add_scaled_(p, -lr, g)


def _adam(opt, group, p: Tensor, g: Tensor) -> None:
    state = opt._state_of(p, group)
    lr, wd, eps = _num(group["lr"]), _num(group["weight_decay"]), group["eps"]
    beta1, beta2 = (_num(b) for b in group["betas"])
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    _tick(state)
    if _nonzero(wd):
        if group["decoupled_weight_decay"]:
            p.mul_(1 - lr * wd)
        else:
            g = _weight_decay(p, g, wd)
    exp_avg.lerp_(g, 1 - beta1)
    if _is_tensor(beta2):
        exp_avg_sq.lerp_(g.square(), 1 - beta2)
    else:
        exp_avg_sq.mul_(beta2).addcmul_(g, g, value=1 - beta2)
    # PyTorch's differentiable path works with the step *tensor* (float32 unless the state
    # says otherwise), so the bias corrections are rounded in its dtype; same here.
    step_t = state["step"].clone()
    bias_correction1 = 1 - beta1 ** step_t
    bias_correction2_sqrt = (1 - beta2 ** step_t).sqrt()
    step_size_neg = -(lr / bias_correction1)
    if group["amsgrad"]:
        vmax = state["max_exp_avg_sq"]
        vmax.copy_(retrograd.maximum(vmax.clone(), exp_avg_sq))
        root = vmax.sqrt()
    else:
        root = exp_avg_sq.sqrt()
    denom = root / (bias_correction2_sqrt * step_size_neg) + eps / step_size_neg
    p.addcdiv_(exp_avg.clone(), denom)


def _adamax(opt, group, p: Tensor, g: Tensor) -> None:
    state = opt._state_of(p, group)
    lr, wd, eps = _num(group["lr"]), _num(group["weight_decay"]), group["eps"]
    beta1, beta2 = (_num(b) for b in group["betas"])
    exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
    step = _tick(state)
    if _nonzero(wd):
        g = _weight_decay(p, g, wd)
    exp_avg.lerp_(g, 1 - beta1)
    # max(beta2 * u, |g| + eps) through amax over a stacked pair, as PyTorch's
    # differentiable path does (the subgradient goes to the larger entry).
    both = retrograd.cat([exp_inf.mul_(beta2).unsqueeze(0), (g.abs() + eps).unsqueeze(0)], 0)
    exp_inf.copy_(both.amax(0))
    clr = lr / (1 - beta1 ** step)
    _add_scaled_(p, -clr, exp_avg.clone() / exp_inf.clone())


def _rmsprop(opt, group, p: Tensor, g: Tensor) -> None:
    state = opt._state_of(p, group)
    lr, wd, eps, alpha = _num(group["lr"]), _num(group["weight_decay"]), group["eps"], group["alpha"]
    square_avg = state["square_avg"]
    _tick(state)
    if _nonzero(wd):
        g = _weight_decay(p, g, wd)
    square_avg.mul_(alpha).addcmul_(g, g, value=1 - alpha)
    if group["centered"]:
        grad_avg = state["grad_avg"]
        grad_avg.lerp_(g, 1 - alpha)
        avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt()
    else:
        avg = square_avg.sqrt()
    avg = avg.add(eps)
    if group["momentum"] > 0:
        buf = state["momentum_buffer"]
        buf.mul_(group["momentum"]).addcdiv_(g, avg)
        _add_scaled_(p, -lr, buf.clone())
    else:
        _add_scaled_(p, -lr, g / avg)


def _adadelta(opt, group, p: Tensor, g: Tensor) -> None:
    state = opt._state_of(p, group)
    lr, wd, eps, rho = _num(group["lr"]), _num(group["weight_decay"]), group["eps"], group["rho"]
    square_avg, acc_delta = state["square_avg"], state["acc_delta"]
    _tick(state)
    if _nonzero(wd):
        g = _weight_decay(p, g, wd)
    square_avg.mul_(rho).addcmul_(g, g, value=1 - rho)
    std = square_avg.add(eps).sqrt()
    delta = acc_delta.add(eps).sqrt() / std * g
    acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
    _add_scaled_(p, -lr, delta)


def _adagrad(opt, group, p: Tensor, g: Tensor) -> None:
    state = opt._state_of(p, group)
    lr, wd, eps = _num(group["lr"]), _num(group["weight_decay"]), group["eps"]
    state_sum = state["sum"]
    step = _tick(state)
    if _nonzero(wd):
        g = _weight_decay(p, g, wd)
    clr = lr / (1 + (step - 1) * group["lr_decay"])
    state_sum.addcmul_(g, g, value=1)
    std = state_sum.sqrt() + eps
    _add_scaled_(p, -clr, g / std)


def _asgd(opt, group, p: Tensor, g: Tensor) -> None:
    state = opt._state_of(p, group)
    lr, wd = _num(group["lr"]), _num(group["weight_decay"])
    lambd, alpha, t0 = group["lambd"], group["alpha"], group["t0"]
    eta, mu, ax = state["eta"], state["mu"], state["ax"]
    step = _tick(state)
    if _nonzero(wd):
        g = _weight_decay(p, g, wd)
    eta_value = float(eta.item())
    p.mul_(1 - lambd * eta_value)
    p.add_(g, alpha=-eta_value)
    if float(mu.item()) != 1:
        ax.add_(p.sub(ax).mul(mu))
    else:
        ax.copy_(p)
    lr = _scalar_value(lr)
    with no_grad():
        # (through ``as_tensor``, i.e. rounded to the default dtype, as PyTorch does)
        eta.copy_(retrograd.as_tensor(lr / ((1 + lambd * lr * step) ** alpha)))
        mu.copy_(retrograd.as_tensor(1 / max(1, step - t0)))


def _scalar_value(x) -> float:
    return float(x.item()) if _is_tensor(x) else float(x)


def _rprop(opt, group, p: Tensor, g: Tensor) -> None:
    state = opt._state_of(p, group)
    etaminus, etaplus = group["etas"]
    step_size_min, step_size_max = group["step_sizes"]
    prev, step_size = state["prev"], state["step_size"]
    _tick(state)
    # The sign pattern has zero derivative: build it outside the graph.
    with no_grad():
        s = (g * prev).sign()
        factor = retrograd.ones_like(step_size)  # (in the state's dtype, as PyTorch's masked fill is)
        factor[s > 0] = etaplus
        factor[s < 0] = etaminus
    step_size.mul_(factor).clamp_(step_size_min, step_size_max)
    g = g * (factor != etaminus).to(g.dtype)
    p.addcmul_(g.sign(), step_size.clone(), value=-1)
    prev.copy_(g)


def _nadam(opt, group, p: Tensor, g: Tensor) -> None:
    state = opt._state_of(p, group)
    lr, wd, eps = _num(group["lr"]), _num(group["weight_decay"]), group["eps"]
    beta1, beta2 = (_num(b) for b in group["betas"])
    exp_avg, exp_avg_sq, mu_product = state["exp_avg"], state["exp_avg_sq"], state["mu_product"]
    step = _tick(state)
    bias_correction2 = 1 - beta2 ** step
    if _nonzero(wd):
        if group["decoupled_weight_decay"]:
            p.mul_(1 - lr * wd)
        else:
            g = _weight_decay(p, g, wd)
    decay = group["momentum_decay"]
    mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * decay)))
    mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * decay)))
    mu_product.mul_(mu)
    exp_avg.lerp_(g, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(g, g, value=1 - beta2)
    denom = exp_avg_sq.div(bias_correction2).sqrt().add(eps)
    mu_product_next = mu_product * mu_next
    p.addcdiv_(g * (-lr * (1.0 - mu) / (1.0 - mu_product)), denom)
    p.addcdiv_(exp_avg * (-lr * mu_next / (1.0 - mu_product_next)), denom)


def _radam(opt, group, p: Tensor, g: Tensor) -> None:
    state = opt._state_of(p, group)
    lr, wd, eps = _num(group["lr"]), _num(group["weight_decay"]), group["eps"]
    beta1, beta2 = (_num(b) for b in group["betas"])
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    step = _tick(state)
    if _nonzero(wd):
        if group["decoupled_weight_decay"]:
            p.mul_(1 - lr * wd)
        else:
            g = _weight_decay(p, g, wd)
    exp_avg.lerp_(g, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(g, g, value=1 - beta2)
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    corrected = exp_avg / bias_correction1
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
    if rho_t > 5.0:
        rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
        adaptive = (bias_correction2 ** 0.5) / exp_avg_sq.sqrt().add(eps)
        p.add_(corrected * lr * adaptive * rect, alpha=-1.0)
    else:
        p.add_(corrected * lr, alpha=-1.0)


_UPDATES: dict[str, Callable] = {
    "SGD": _sgd, "Adam": _adam, "Adamax": _adamax, "RMSprop": _rmsprop, "Adadelta": _adadelta,
    "Adagrad": _adagrad, "ASGD": _asgd, "Rprop": _rprop, "NAdam": _nadam, "RAdam": _radam,
}


def _update_for(opt) -> Callable | None:
    for cls in type(opt).__mro__:
        if cls.__module__.startswith("retrograd.optim.") and cls.__name__ in _UPDATES:
            return _UPDATES[cls.__name__]
    return None


def supports(opt) -> bool:
    """Whether ``opt``'s class (a built-in optimizer or a subclass) has a differentiable step."""
    return _update_for(opt) is not None


def step(opt, closure: Callable | None = None) -> Any:
    """One step of ``opt`` with grad mode on, recorded by autograd (``differentiable=True``)."""
    loss = None
    if closure is not None:
        with enable_grad():
            loss = closure()
    update = _update_for(opt)
    with enable_grad():
        for group in opt.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if group.get("maximize", False):
                    g = -g
                update(opt, group, p, g)
    return loss
