"""The functional recurrent ops (src/retrograd/nn/_recurrent.py): torch.lstm with projections
against the nn.LSTM module, as in torch."""

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

from ..._error_compare import _np  # noqa: E402


def test_functional_lstm_matches_module_with_projection():
    torch.manual_seed(0)
    m = torch.nn.LSTM(3, 4, proj_size=2, num_layers=2, bidirectional=True).double()
    x = torch.randn(5, 2, 3, dtype=torch.float64)
    h0 = torch.randn(4, 2, 2, dtype=torch.float64)
    c0 = torch.randn(4, 2, 4, dtype=torch.float64)
    want = torch.lstm(x, [h0, c0], list(m._flat_weights), True, 2, 0.0, False, True, False)
    R = retrograd
    params = [R.tensor(p.detach().numpy()) for p in m._flat_weights]
    got = R.lstm(R.tensor(x.numpy()), [R.tensor(h0.numpy()), R.tensor(c0.numpy())], params, True, 2, 0.0, False,
                 True, False)
    for a, b in zip(got, want):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-10, atol=1e-12)
