"""Single-step recurrent cells: RNNCell, LSTMCell, GRUCell (PyTorch's parameter names and init).

>>> import retrograd as torch
>>> torch.nn.GRUCell(3, 4)(torch.ones(2, 3)).shape
torch.Size([2, 4])
"""
from __future__ import annotations

import math

from ... import _creation as C
from ... import _ops as O
from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


class RNNCellBase(Module):
    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(C.empty(num_chunks * hidden_size, input_size, dtype=dtype))
        self.weight_hh = Parameter(C.empty(num_chunks * hidden_size, hidden_size, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(C.empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(C.empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _prep(self, input: Tensor, hx, name: str):
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        if hx is not None and not isinstance(hx, tuple) and hx.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.ndim}D instead")
        if isinstance(hx, tuple):  # LSTMCell's (h, c)
            for idx, value in enumerate(hx):
                if value.ndim not in (1, 2):
                    raise ValueError(f"{name}: Expected hx[{idx}] to be 1D or 2D, got {value.ndim}D instead")
        batched = input.ndim == 2
        if not batched:
            input = input.unsqueeze(0)
        return input, batched

    def _check(self, input: Tensor, *hs: Tensor) -> None:
        # torch's check_rnn_cell_forward_input / _hidden, in its order and words
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {self.input_size}")
        for i, h in enumerate(hs):
            if input.shape[0] != h.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{i} batch size "
                                   f"{h.shape[0]}")
            if h.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {h.shape[1]}, expected "
                                   f"{self.hidden_size}")

    def _zeros(self, input: Tensor) -> Tensor:
        return C.zeros(input.shape[0], self.hidden_size, dtype=input.dtype)

    def _gates(self, input: Tensor, hx: Tensor) -> tuple[Tensor, Tensor]:
        return F.linear(input, self.weight_ih, self.bias_ih), F.linear(hx, self.weight_hh, self.bias_hh)


class RNNCell(RNNCellBase):
    """h' = nonlinearity(x W_ih^T + b_ih + h W_hh^T + b_hh), nonlinearity 'tanh' or 'relu'."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, batched = self._prep(input, hx, "RNNCell")
        hx = self._zeros(input) if hx is None else (hx if batched else hx.unsqueeze(0))
        self._check(input, hx)
        gi, gh = self._gates(input, hx)
        if self.nonlinearity == "tanh":
            ret = O.tanh(gi + gh)
        elif self.nonlinearity == "relu":
            ret = F.relu(gi + gh)
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return ret if batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: returns (h', c')."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: tuple | None = None) -> tuple[Tensor, Tensor]:
        input, batched = self._prep(input, tuple(hx) if hx is not None else None, "LSTMCell")
        if hx is None:
            z = self._zeros(input)
            hx = (z, z)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h, c = hx
        self._check(input, h, c)
        gi, gh = self._gates(input, h)
        gates = gi + gh
        n = self.hidden_size
        i = O.sigmoid(gates.narrow(1, 0, n))
        f = O.sigmoid(gates.narrow(1, n, n))
        g = O.tanh(gates.narrow(1, 2 * n, n))
        o = O.sigmoid(gates.narrow(1, 3 * n, n))
        c1 = f * c + i * g
        h1 = o * O.tanh(c1)
        if not batched:
            return h1.squeeze(0), c1.squeeze(0)
        return h1, c1


class GRUCell(RNNCellBase):
    """One GRU step: h' = (1 - z) * n + z * h."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, batched = self._prep(input, hx, "GRUCell")
        hx = self._zeros(input) if hx is None else (hx if batched else hx.unsqueeze(0))
        self._check(input, hx)
        gi, gh = self._gates(input, hx)
        n = self.hidden_size
        r = O.sigmoid(gi.narrow(1, 0, n) + gh.narrow(1, 0, n))
        z = O.sigmoid(gi.narrow(1, n, n) + gh.narrow(1, n, n))
        nn_ = O.tanh(gi.narrow(1, 2 * n, n) + r * gh.narrow(1, 2 * n, n))
        h1 = (1 - z) * nn_ + z * hx
        return h1 if batched else h1.squeeze(0)
