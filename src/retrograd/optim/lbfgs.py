"""L-BFGS with an optional strong-Wolfe line search (a port of ``torch/optim/lbfgs.py``).

The algorithm works on one flat vector of all parameters.  Internally it uses NumPy
arrays and NumPy float scalars where PyTorch uses tensors and 0-d tensors (the same
dtypes, so the same roundings); the state it keeps between steps holds retrograd Tensors.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, no_grad
from . import _kernels as K
from .optimizer import Optimizer, _scalar

__all__ = ["LBFGS"]


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clamped to ``bounds``."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = np.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """Line search for a step ``t`` along ``d`` meeting the strong Wolfe conditions."""
    d_norm = np.abs(d).max()
    g = g.copy()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = np.dot(g_new, d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        # interpolate
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = np.dot(g_new, d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    # zoom phase: we now have a point satisfying the criteria or a bracket around it
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
        # guard against steps too close to the bracket ends
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                t = max(bracket) - eps if abs(t - max(bracket)) < abs(t - min(bracket)) else min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = np.dot(g_new, d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.copy(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos], bracket_gtd[high_pos] = bracket_g[low_pos], bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.copy(), gtd_new
    t = bracket[low_pos]
    return bracket_f[low_pos], bracket_g[low_pos], t, ls_func_evals


def _float(loss) -> float:
    """The closure's loss as a float (without the requires-grad conversion warning)."""
    return float(loss._data.reshape(())) if isinstance(loss, Tensor) else float(loss)


def _wrap(v):
    """NumPy values -> retrograd Tensors for the state (lists element-wise)."""
    if isinstance(v, list):
        return [_wrap(x) for x in v]
    if isinstance(v, (np.ndarray, np.generic)):
        return Tensor._wrap(np.asarray(v), False, None, 0)
    return v


def _unwrap(v):
    if isinstance(v, list):
        return [_unwrap(x) for x in v]
    if isinstance(v, Tensor):
        return v._data if v._data.ndim else v._data[()]
    return v


class LBFGS(Optimizer):
    """PyTorch's L-BFGS (one parameter group; ``step(closure)`` re-evaluates the loss).

    >>> import retrograd as torch
    >>> w = torch.tensor([3.], requires_grad=True)
    >>> opt = torch.optim.LBFGS([w], line_search_fn="strong_wolfe")
    >>> def closure():
    ...     opt.zero_grad(); loss = ((w - 1) ** 2).sum(); loss.backward(); return loss
    >>> _ = opt.step(closure); round(w.item(), 4)
    1.0
    """

    def __init__(self, params, lr=1, max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                        tolerance_change=tolerance_change, history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def _numel(self) -> int:
        if self._numel_cache is None:
            self._numel_cache = sum(p.numel() for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self) -> np.ndarray:
        return np.concatenate([p._grad._data.reshape(-1) if p._grad is not None
                               else np.zeros(p._data.size, p._data.dtype) for p in self._params], 0)

    def _add_grad(self, step_size, update: np.ndarray) -> None:
        offset = 0
        for p in self._params:
            n = p._data.size
            K.add(p._data, update[offset:offset + n].reshape(p._data.shape), step_size, out=p._data)
            K.touch(p)
            offset += n

    def _clone_param(self) -> list[np.ndarray]:
        return [p._data.copy() for p in self._params]

    def _set_param(self, params_data) -> None:
        for p, pdata in zip(self._params, params_data):
            np.copyto(p._data, pdata)
            K.touch(p)

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = _float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    @no_grad()
    def step(self, closure):  # type: ignore[override]
        """Run up to ``max_iter`` L-BFGS iterations; ``closure`` re-evaluates and returns the loss."""
        closure = enable_grad()(closure)
        group = self.param_groups[0]
        lr = _scalar(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = closure()
        loss = _float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if np.abs(flat_grad).max() <= tolerance_grad:
            return orig_loss

        d, t = _unwrap(state.get("d")), _unwrap(state.get("t"))
        old_dirs, old_stps = _unwrap(state.get("old_dirs")), _unwrap(state.get("old_stps"))
        ro, H_diag = _unwrap(state.get("ro")), _unwrap(state.get("H_diag"))
        prev_flat_grad, prev_loss = _unwrap(state.get("prev_flat_grad")), state.get("prev_loss")
        al = _unwrap(state.get("al"))

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            # compute the descent direction
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad - prev_flat_grad
                s = K.mul(d, t)
                ys = np.dot(y, s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / np.dot(y, y)
                num_old = len(old_dirs)
                if al is None:
                    al = [None] * history_size
                q = -flat_grad
                for i in range(num_old - 1, -1, -1):
                    al[i] = np.dot(old_stps[i], q) * ro[i]
                    K.add(q, old_dirs[i], -al[i], out=q)
                d = r = K.mul(q, H_diag)
                for i in range(num_old):
                    be_i = np.dot(old_dirs[i], r) * ro[i]
                    K.add(r, old_stps[i], al[i] - be_i, out=r)
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.copy()
            else:
                np.copyto(prev_flat_grad, flat_grad)
            prev_loss = loss

            # compute the step length
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr
            else:
                t = lr
            gtd = np.dot(flat_grad, d)
            if gtd > -tolerance_change:
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x, t, d):
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(obj_func, x_init, t, d, loss, flat_grad, gtd,
                                                                  max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = np.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    loss = _float(closure())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            # check conditions
            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if np.abs(K.mul(d, t)).max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state["d"], state["t"] = _wrap(d), _wrap(t)
        state["old_dirs"], state["old_stps"] = _wrap(old_dirs), _wrap(old_stps)
        state["ro"], state["H_diag"] = _wrap(ro), _wrap(H_diag)
        state["prev_flat_grad"], state["prev_loss"] = _wrap(prev_flat_grad), prev_loss
        if al is not None:
            state["al"] = _wrap(al)
        return orig_loss
