"""RNN, LSTM, GRU (multi-layer, bidirectional, batch_first), with PyTorch's parameter names.

The input projection of a whole sequence is one matrix product; only the hidden-state
recurrence runs step by step.
"""
from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from ... import _creation as C
from ... import _ops as O
from ..._ops.nn.recurrent_cell import gru_step as _gru_step, lstm_step as _lstm_step
from ..._ops.nn.recurrent_layer import lstm_layer as _lstm_layer
from ..._tensor import Tensor
from .. import functional as F
from .. import init
from .._util import cat, chunk, const, stack
from ..parameter import Parameter
from ..utils.rnn import PackedSequence, _forward_packed
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU"]


class RNNBase(Module):
    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size"]

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=2)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        gate_size = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}.get(mode)
        if gate_size is None:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size *= hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        real_hidden = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                params = [Parameter(C.empty((gate_size, layer_input), dtype=dtype)),
                          Parameter(C.empty((gate_size, real_hidden), dtype=dtype))]
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    params += [Parameter(C.empty(gate_size, dtype=dtype)), Parameter(C.empty(gate_size, dtype=dtype))]
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    params.append(Parameter(C.empty((proj_size, hidden_size), dtype=dtype)))
                    names.append("weight_hr_l{}{}")
                suffix = "_reverse" if direction == 1 else ""
                names = [n.format(layer, suffix) for n in names]
                for n, p in zip(names, params):
                    setattr(self, n, p)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, n, None) for n in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        return [[getattr(self, w) for w in ws] for ws in self._all_weights]

    def flatten_parameters(self) -> None:
        """No-op (cuDNN only)."""

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # ------------------------------------------------------------------ shared machinery
    def _check_input(self, input: Tensor) -> None:
        w = self._flat_weights[0]
        if input.dtype is not w.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({w.dtype}). "
                             f"Convert input: input.to({w.dtype}), or convert model: model.to({input.dtype})")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.size(-1)}")

    def _check_hidden(self, hx: Tensor, expected: tuple, msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.shape) != expected:
            raise RuntimeError(msg.format(expected, list(hx.shape)))

    def _layer_weights(self, layer: int, direction: int) -> dict:
        suffix = "_reverse" if direction == 1 else ""
        get = lambda n: getattr(self, f"{n}_l{layer}{suffix}", None)  # noqa: E731
        return {"w_ih": get("weight_ih"), "w_hh": get("weight_hh"), "b_ih": get("bias_ih"),
                "b_hh": get("bias_hh"), "w_hr": get("weight_hr")}

    def _run(self, x: Tensor, states: list) -> tuple[Tensor, list]:
        """x: (T, N, I); states[k]: per (layer, direction) initial state(s). Returns output, final states."""
        num_dirs = 2 if self.bidirectional else 1
        finals = []
        layer_in = x
        T = x.shape[0]
        for layer in range(self.num_layers):
            outs = []
            for d in range(num_dirs):
                w = self._layer_weights(layer, d)
                state = states[layer * num_dirs + d]
                if self._fused_layer(layer_in, w):
                    # float32 LSTM: one node per layer and direction, as PyTorch's oneDNN path
                    zeros = None if w["b_ih"] is not None else const(np.zeros(w["w_ih"].shape[0], np.float32))
                    seq, h_t, c_t = _lstm_layer(layer_in, w["w_ih"], w["w_hh"], w["b_ih"] if zeros is None else zeros,
                                                w["b_hh"] if zeros is None else zeros, state[0], state[1], d == 1)
                    outs.append(seq)
                    finals.append((h_t, c_t))
                    continue
                # input projection for all steps at once
                proj = F.linear(layer_in, w["w_ih"], w["b_ih"])
                steps = range(T - 1, -1, -1) if d == 1 else range(T)
                hs = [None] * T
                # one split of the projections (its backward is one stack, not T scatters)
                xs = O.unbind(proj, 0)
                for t in steps:
                    state = self._cell(xs[t], state, w)
                    hs[t] = state[0] if isinstance(state, tuple) else state
                outs.append(stack(hs, 0))
                finals.append(state)
            layer_in = outs[0] if num_dirs == 1 else cat(outs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_in = F.dropout(layer_in, self.dropout, True)
        return layer_in, finals

    def _fused_layer(self, x: Tensor, w: dict) -> bool:
        """Whether an LSTM layer runs as one ``MkldnnRnnLayerBackward0`` node (float32, no projection)."""
        if self.mode != "LSTM" or w["w_hr"] is not None or x._data.dtype != np.float32:
            return False
        return all(t is None or t._data.dtype == np.float32 for t in w.values())

    def _prep(self, input: Tensor, hx):
        if input.dim() not in (2, 3):
            tensor_word = "tensor " if self.mode.startswith("RNN") else ""
            raise ValueError(f"{self.mode.split('_')[0]}: Expected input to be 2D or 3D, got {input.dim()}D "
                             f"{tensor_word}instead")
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
        self._check_input(input)
        if self.batch_first:
            input = input.transpose(0, 1)
        return input, batched


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu).

    >>> import retrograd as torch
    >>> torch.nn.RNN(3, 4, 2, batch_first=True)
    RNN(3, 4, num_layers=2, batch_first=True)
    """

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def _cell(self, xp: Tensor, h: Tensor, w: dict) -> Tensor:
        pre = xp + F.linear(h, w["w_hh"], w["b_hh"])
        return O.tanh(pre) if self.mode == "RNN_TANH" else O.relu(pre)

    def forward(self, input: Tensor, hx: Tensor | None = None):
        if isinstance(input, PackedSequence): return _forward_packed(self, input, hx)  # noqa: E701
        x, batched = self._prep(input, hx)
        num_dirs = 2 if self.bidirectional else 1
        n = x.shape[1]
        expected = (self.num_layers * num_dirs, n, self.hidden_size)
        if hx is None:
            hx = C.zeros(expected, dtype=input.dtype)
        else:
            if batched and hx.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
            if not batched:
                if hx.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
                hx = hx.unsqueeze(1)
            self._check_hidden(hx, expected)
        out, finals = self._run(x, [hx[i] for i in range(hx.shape[0])])
        h_n = stack(finals, 0)
        if self.batch_first:
            out = out.transpose(0, 1)
        if not batched:
            out = out.squeeze(0 if self.batch_first else 1)
            h_n = h_n.squeeze(1)
        return out, h_n


class LSTM(RNNBase):
    """Long short-term memory; gates (i, f, g, o) stacked in weight_ih/weight_hh as PyTorch does.

    >>> import retrograd as torch
    >>> lstm = torch.nn.LSTM(3, 4)
    >>> out, (h, c) = lstm(torch.zeros(5, 2, 3))
    >>> out.shape, h.shape
    (torch.Size([5, 2, 4]), torch.Size([1, 2, 4]))
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def _cell(self, xp: Tensor, state: tuple, w: dict) -> tuple:
        h, c = state
        w_hh, b_hh = w["w_hh"], w["b_hh"]
        dt = xp._data.dtype
        if dt.kind == "f" and h._data.dtype == dt and c._data.dtype == dt and w_hh._data.dtype == dt and (
                b_hh is None or b_hh._data.dtype == dt):
            # one node per step (see _ops/nn/recurrent_cell.py)
            b = b_hh if b_hh is not None else const(np.zeros(w_hh._data.shape[0], dtype=dt))
            h, c = _lstm_step(xp, h, c, w_hh, b)
            if w["w_hr"] is not None:
                h = F.linear(h, w["w_hr"])
            return (h, c)
        gates = xp + F.linear(h, w_hh, b_hh)
        i, f, g, o = chunk(gates, 4, 1)
        c = O.sigmoid(f) * c + O.sigmoid(i) * O.tanh(g)
        h = O.sigmoid(o) * O.tanh(c)
        if w["w_hr"] is not None:
            h = F.linear(h, w["w_hr"])
        return (h, c)

    def forward(self, input: Tensor, hx=None):
        if isinstance(input, PackedSequence): return _forward_packed(self, input, hx)  # noqa: E701
        x, batched = self._prep(input, hx)
        num_dirs = 2 if self.bidirectional else 1
        n = x.shape[1]
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        exp_h = (self.num_layers * num_dirs, n, real_hidden)
        exp_c = (self.num_layers * num_dirs, n, self.hidden_size)
        if hx is None:
            h0 = C.zeros(exp_h, dtype=input.dtype)
            c0 = C.zeros(exp_c, dtype=input.dtype)
        else:
            h0, c0 = hx
            if batched:
                if h0.dim() != 3 or c0.dim() != 3:
                    raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but got "
                                       f"({h0.dim()}-D, {c0.dim()}-D) tensors")
            else:
                if h0.dim() != 2 or c0.dim() != 2:
                    raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D but got "
                                       f"({h0.dim()}-D, {c0.dim()}-D) tensors")
                h0, c0 = h0.unsqueeze(1), c0.unsqueeze(1)
            self._check_hidden(h0, exp_h, "Expected hidden[0] size {}, got {}")
            self._check_hidden(c0, exp_c, "Expected hidden[1] size {}, got {}")
        out, finals = self._run(x, [(h0[i], c0[i]) for i in range(h0.shape[0])])
        h_n = stack([s[0] for s in finals], 0)
        c_n = stack([s[1] for s in finals], 0)
        if self.batch_first:
            out = out.transpose(0, 1)
        if not batched:
            out = out.squeeze(0 if self.batch_first else 1)
            h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
        return out, (h_n, c_n)


class GRU(RNNBase):
    """Gated recurrent unit; gates (r, z, n) as in PyTorch."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def _cell(self, xp: Tensor, h: Tensor, w: dict) -> Tensor:
        w_hh, b_hh = w["w_hh"], w["b_hh"]
        dt = xp._data.dtype
        if dt.kind == "f" and h._data.dtype == dt and w_hh._data.dtype == dt and (
                b_hh is None or b_hh._data.dtype == dt):
            # one node per step (see _ops/nn/recurrent_cell.py)
            b = b_hh if b_hh is not None else const(np.zeros(w_hh._data.shape[0], dtype=dt))
            return _gru_step(xp, h, w_hh, b)
        hp = F.linear(h, w["w_hh"], w["b_hh"])
        xr, xz, xn = chunk(xp, 3, 1)
        hr, hz, hn = chunk(hp, 3, 1)
        r = O.sigmoid(xr + hr)
        z = O.sigmoid(xz + hz)
        nn_ = O.tanh(xn + r * hn)
        return (1 - z) * nn_ + z * h

    forward = RNN.forward
