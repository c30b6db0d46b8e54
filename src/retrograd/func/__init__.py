"""``retrograd.func``: composable function transforms (PyTorch's ``torch.func``).

``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``linearize``, ``jacrev``, ``jacfwd``,
``hessian``, ``vmap``, ``functional_call``, ``stack_module_state`` and ``functionalize``.
They compose (``grad(grad(f))``,
``vmap(grad(f))``, ``jacrev(jacrev(f))``) and accept pytrees (tuples, lists, dicts) of
tensors.  ``grad``/``vjp``/``jacrev`` run on retrograd's reverse-mode tape, ``jvp``/``jacfwd``/
``linearize`` on ``autograd.forward_ad``'s dual numbers, ``hessian`` forward-over-reverse;
``vmap`` traces its function once and replays the ops batched by their batching rules.
See docs/func.md for the differences from PyTorch.

>>> import retrograd as torch
>>> from retrograd.func import grad, vmap
>>> vmap(grad(lambda x: (x ** 2).sum()))(torch.tensor([[1., 2.], [3., 4.]]))
tensor([[2., 4.],
        [6., 8.]])
"""
from ._functional_call import functional_call, stack_module_state
from ._functionalize import functionalize
from ._forward import hessian, jacfwd, jvp, linearize
from ._grad import grad, grad_and_value, vjp
from ._jac import jacrev
from ._vmap import vmap

__all__ = ["functional_call", "functionalize", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "linearize", "stack_module_state", "vjp", "vmap"]
