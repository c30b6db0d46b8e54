"""Tests of retrograd.nn.utils.convert_parameters, checked against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd
import retrograd.nn as rnn

torch = pytest.importorskip("torch")


def _np(t):
    return t.detach().numpy()


def test_parameters_to_vector_and_back():
    torch.manual_seed(0)
    tm = torch.nn.Linear(3, 2)
    rm = rnn.Linear(3, 2)
    rm.load_state_dict({k: retrograd.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    tv = torch.nn.utils.parameters_to_vector(tm.parameters())
    rv = rnn.utils.parameters_to_vector(rm.parameters())
    np.testing.assert_array_equal(_np(rv), _np(tv))
    assert rv.requires_grad
    (rv * retrograd.arange(8.0)).sum().backward()
    assert rm.weight.grad.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and rm.bias.grad.tolist() == [6.0, 7.0]
    new = retrograd.arange(8.0)
    w_obj = rm.weight
    rnn.utils.vector_to_parameters(new, rm.parameters())
    assert rm.weight is w_obj and rm.weight.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert rm.bias.tolist() == [6.0, 7.0]
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        rnn.utils.vector_to_parameters([1.0], rm.parameters())
