"""retrograd's ``torch.testing._internal.common_nn``: the helpers PyTorch's nn test files import.

PyTorch's module of this name also carries a large table of module/criterion test specs
(``module_tests``, ``criterion_tests``, ``NewModuleTest`` ...) that drives its generated tests;
that table is not provided here.  What ``test/nn/*.py`` import by name is: ``NNTestCase`` (a
``TestCase`` with small gradient helpers), ``freeze_rng_state``, ``_create_basic_net``,
``_test_module_empty_input`` and ``_test_bfloat16_ops``.

>>> import retrograd as torch
>>> from retrograd.testing._internal.common_nn import _create_basic_net
>>> layer, net, seq = _create_basic_net()
>>> sorted(name for name, _ in net.named_buffers())
['dummy_buf', 'l1.layer_dummy_buf']
"""
from __future__ import annotations

import retrograd
from retrograd import nn
from retrograd._tensor import Tensor

from .common_utils import TestCase, freeze_rng_state

__all__ = ["NNTestCase", "freeze_rng_state", "_create_basic_net", "_test_module_empty_input", "_test_bfloat16_ops"]


class NNTestCase(TestCase):
    """``TestCase`` for nn tests: adds helpers to flatten, zero and Jacobian-size tensor inputs.

    The module-spec machinery of PyTorch's class (``_forward``/``_backward`` overridden by
    generated test classes, ``check_jacobian``) is left to subclasses that define those hooks.
    """

    # PyTorch's CUDA memory-leak / non-default-stream checks; no CUDA here, kept as plain flags.
    _do_cuda_memory_leak_check = False
    _do_cuda_non_default_stream = False

    def _forward(self, module, input):
        raise NotImplementedError("NNTestCase._forward is defined by the subclass that uses it")

    def _backward(self, module, input, output, grad_output, create_graph=False):
        raise NotImplementedError("NNTestCase._backward is defined by the subclass that uses it")

    def _get_parameters(self, module):
        raise NotImplementedError("NNTestCase._get_parameters is defined by the subclass that uses it")

    def _zero_grad_parameters(self, module):
        raise NotImplementedError("NNTestCase._zero_grad_parameters is defined by the subclass that uses it")

    def _jacobian(self, input, num_out):
        """A zero matrix (input elements x ``num_out``) per tensor, nested like ``input``."""
        if isinstance(input, tuple):
            return tuple(self._jacobian(elem, num_out) for elem in input)
        if isinstance(input, list):
            return [self._jacobian(elem, num_out) for elem in input]
        return retrograd.zeros(input.nelement(), num_out)

    def _flatten_tensors(self, x):
        """``x`` viewed as 1-D (a tensor) or a tuple of such views (a nested sequence)."""
        if isinstance(x, Tensor):
            return x.reshape(-1)
        return tuple(self._flatten_tensors(a) for a in x)

    def _zero_grad_input(self, input):
        """Zero (and detach) the ``.grad`` of every tensor in ``input`` that has one."""
        if isinstance(input, Tensor):
            if input.requires_grad and input.grad is not None:
                input.grad.zero_()
                input.grad.detach_()
        else:
            for item in input:
                self._zero_grad_input(item)


def _create_basic_net():
    """A small module tree for hook/registration tests: ``(layer, net, Sequential(net, net))``.

    ``layer`` owns one parameter and one buffer; ``net`` owns a parameter, a buffer and a ``layer``.
    """

    class Layer(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layer_dummy_param = nn.Parameter(retrograd.empty(3, 5))
            self.layer_dummy_buf = nn.Buffer(retrograd.zeros(1, 3, 3, 7))

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.l1 = Layer()
            self.dummy_param = nn.Parameter(retrograd.empty(3, 5))
            self.dummy_buf = nn.Buffer(retrograd.zeros(7, 3, 3, 1))

    layer = Layer()
    net = Net()
    return layer, net, nn.Sequential(net, net)


def _test_module_empty_input(test_case, module, inp, check_size: bool = True, inference: bool = False) -> None:
    """Run ``module`` on an input with zero elements; the output (and every gradient) must be zeros.

    >>> import retrograd as torch
    >>> from retrograd.testing._internal.common_nn import NNTestCase, _test_module_empty_input
    >>> _test_module_empty_input(NNTestCase(), torch.nn.ReLU(), torch.ones(0, 3))
    """
    if not inference:
        inp.requires_grad_(True)
    out = module(inp)
    if not inference:
        out.backward(retrograd.rand_like(out))
    if check_size:
        test_case.assertEqual(out.size(), inp.size())
    if not inference:
        for p in module.parameters():
            if p.requires_grad:
                test_case.assertEqual(p.grad, retrograd.zeros_like(p.grad))
        test_case.assertEqual(inp.grad, retrograd.zeros_like(inp))


def _test_bfloat16_ops(test_case, op, device, inp_dims=(), prec: float = 1e-2, scale_factor=None) -> None:
    """``op`` on a bfloat16 input matches ``op`` on the same float32 input (forward and backward) within ``prec``.

    >>> import retrograd as torch
    >>> from retrograd.testing._internal.common_nn import NNTestCase, _test_bfloat16_ops
    >>> _test_bfloat16_ops(NNTestCase(), torch.nn.ReLU(), "cpu", inp_dims=(3, 4))
    """
    input1 = retrograd.randn(inp_dims, dtype=retrograd.float32, device=device, requires_grad=True)
    if scale_factor is not None:
        input1 = (retrograd.rand(inp_dims, dtype=retrograd.bfloat16, device=device) * scale_factor).float() \
            .requires_grad_()
    out1 = op(input1)
    grad_input1 = retrograd.randn_like(out1, device=device)
    out1.backward(grad_input1)

    op_bfp16 = op.bfloat16() if hasattr(op, "bfloat16") else op
    input2 = input1.detach().bfloat16().requires_grad_()
    grad_input2 = grad_input1.bfloat16()
    out2 = op_bfp16(input2)
    out2.backward(grad_input2)

    test_case.assertEqual(out1, out2, atol=prec, rtol=prec, exact_dtype=False)
    test_case.assertEqual(input1.grad.data, input2.grad.data, atol=prec, rtol=prec, exact_dtype=False)
