"""torch's functional recurrent ops: one step (``rnn_tanh_cell``, ``rnn_relu_cell``,
``lstm_cell``, ``gru_cell``) and whole multi-layer runs over a padded sequence (``rnn_tanh``,
``rnn_relu``, ``lstm``, ``gru``: ATen's ``input`` overloads, flat weight lists as
``nn.RNN._flat_weights`` holds them).  Composed from public ops; no gradients are defined here.
"""
from __future__ import annotations

from .._tensor import Tensor

__all__ = ["rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell", "rnn_tanh", "rnn_relu", "lstm", "gru"]


def _F():
    from . import functional  # (nn.functional imports the table; this module sits above both)

    return functional


def _gates(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih, b_hh) -> tuple[Tensor, Tensor]:
    F = _F()
    return F.linear(input, w_ih, b_ih), F.linear(hx, w_hh, b_hh)


def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
                  b_hh: Tensor | None = None) -> Tensor:
    """One Elman step: ``tanh(input @ w_ih.T + b_ih + hx @ w_hh.T + b_hh)``.

    >>> import retrograd as torch
    >>> torch.rnn_tanh_cell(torch.zeros(1, 2), torch.zeros(1, 3), torch.ones(3, 2), torch.ones(3, 3))
    tensor([[0., 0., 0.]])
    """
    gi, gh = _gates(input, hx, w_ih, w_hh, b_ih, b_hh)
    return (gi + gh).tanh()


def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
                  b_hh: Tensor | None = None) -> Tensor:
    """One Elman step with ReLU: ``relu(input @ w_ih.T + b_ih + hx @ w_hh.T + b_hh)``.

    >>> import retrograd as torch
    >>> torch.rnn_relu_cell(torch.ones(1, 2), torch.zeros(1, 1), -torch.ones(1, 2), torch.ones(1, 1))
    tensor([[0.]])
    """
    gi, gh = _gates(input, hx, w_ih, w_hh, b_ih, b_hh)
    return (gi + gh).relu()


def lstm_cell(input: Tensor, hx, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
              b_hh: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """One LSTM step; ``hx`` is ``(h, c)``; returns ``(h', c')`` (gates in torch's order i, f, g, o).

    >>> import retrograd as torch
    >>> h, c = torch.lstm_cell(torch.zeros(1, 2), (torch.zeros(1, 1), torch.ones(1, 1)),
    ...                        torch.zeros(4, 2), torch.zeros(4, 1))
    >>> c
    tensor([[0.5000]])
    """
    h, c = hx
    gi, gh = _gates(input, h, w_ih, w_hh, b_ih, b_hh)
    i, f, g, o = (gi + gh).chunk(4, 1)
    c1 = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c1.tanh(), c1


def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
             b_hh: Tensor | None = None) -> Tensor:
    """One GRU step (gates in torch's order r, z, n): ``h' = (1 - z) * n + z * hx``.

    >>> import retrograd as torch
    >>> torch.gru_cell(torch.zeros(1, 2), torch.ones(1, 1), torch.zeros(3, 2), torch.zeros(3, 1))
    tensor([[0.5000]])
    """
    gi, gh = _gates(input, hx, w_ih, w_hh, b_ih, b_hh)
    ir, iz, in_ = gi.chunk(3, 1)
    hr, hz, hn = gh.chunk(3, 1)
    r = (ir + hr).sigmoid()
    z = (iz + hz).sigmoid()
    n = (in_ + r * hn).tanh()
    return n + z * (hx - n)


def _run(cell, input: Tensor, states: list, params, has_biases: bool, num_layers: int, dropout: float, train: bool,
         bidirectional: bool, batch_first: bool) -> tuple[Tensor, list]:
    """Runs ``cell`` over time, layer by layer; ``states[k]`` is the initial state (a tuple) of
    layer/direction ``k``.  Returns the last layer's outputs and the final states."""
    import retrograd as R

    if input.dim() != 3:
        raise RuntimeError(f"input must have 3 dimensions, got {input.dim()}")
    dirs = 2 if bidirectional else 1
    params = list(params)
    per = len(params) // (num_layers * dirs)
    if per * num_layers * dirs != len(params) or per not in ((4, 5) if has_biases else (2, 3)):
        raise RuntimeError(f"got {len(params)} parameters, expected {num_layers * dirs} groups of "
                           f"{4 if has_biases else 2} (or with a projection weight, {5 if has_biases else 3})")
    x = input.transpose(0, 1) if batch_first else input
    finals: list = []
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            w = params[k * per:(k + 1) * per]
            w_ih, w_hh = w[0], w[1]
            b_ih, b_hh = (w[2], w[3]) if has_biases else (None, None)
            w_hr = w[-1] if per in (3, 5) else None
            state = states[k]
            steps = range(x.shape[0] - 1, -1, -1) if d == 1 else range(x.shape[0])
            seq = [None] * x.shape[0]
            for t in steps:
                state = cell(x[t], state, w_ih, w_hh, b_ih, b_hh, w_hr)
                seq[t] = state[0]
            finals.append(state)
            outs.append(R.stack(seq))
        x = outs[0] if dirs == 1 else R.cat(outs, 2)
        if dropout and train and layer < num_layers - 1:
            x = _F().dropout(x, dropout, True)
    return (x.transpose(0, 1) if batch_first else x), finals


def _elman(act):
    def step(x, state, w_ih, w_hh, b_ih, b_hh, w_hr):
        return (act(x, state[0], w_ih, w_hh, b_ih, b_hh),)
    return step


def _lstm_step(x, state, w_ih, w_hh, b_ih, b_hh, w_hr):
    h, c = lstm_cell(x, state, w_ih, w_hh, b_ih, b_hh)
    return (h if w_hr is None else h.matmul(w_hr.t()), c)


def _gru_step(x, state, w_ih, w_hh, b_ih, b_hh, w_hr):
    return (gru_cell(x, state[0], w_ih, w_hh, b_ih, b_hh),)


def _single(cell, input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    import retrograd as R

    out, finals = _run(cell, input, [(h,) for h in hx.unbind(0)], params, has_biases, num_layers, dropout, train,
                       bidirectional, batch_first)
    return out, R.stack([s[0] for s in finals])


def rnn_tanh(input: Tensor, hx: Tensor, params, has_biases: bool, num_layers: int, dropout: float, train: bool,
             bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
    """A multi-layer tanh RNN over ``input`` (T, B, I) (or (B, T, I) with ``batch_first``);
    returns (output, h_n).

    >>> import retrograd as torch
    >>> out, h = torch.rnn_tanh(torch.zeros(3, 1, 2), torch.zeros(1, 1, 4),
    ...                         [torch.ones(4, 2), torch.ones(4, 4)], False, 1, 0.0, False, False, False)
    >>> out.shape, h.shape
    (torch.Size([3, 1, 4]), torch.Size([1, 1, 4]))
    """
    return _single(_elman(rnn_tanh_cell), input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                   batch_first)


def rnn_relu(input: Tensor, hx: Tensor, params, has_biases: bool, num_layers: int, dropout: float, train: bool,
             bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
    """``rnn_tanh`` with ReLU steps.

    >>> import retrograd as torch
    >>> out, h = torch.rnn_relu(torch.ones(2, 1, 1), torch.zeros(1, 1, 1),
    ...                         [torch.ones(1, 1), torch.ones(1, 1)], False, 1, 0.0, False, False, False)
    >>> out.flatten()
    tensor([1., 2.])
    """
    return _single(_elman(rnn_relu_cell), input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                   batch_first)


def gru(input: Tensor, hx: Tensor, params, has_biases: bool, num_layers: int, dropout: float, train: bool,
        bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
    """A multi-layer GRU over a sequence; returns (output, h_n).

    >>> import retrograd as torch
    >>> out, h = torch.gru(torch.zeros(3, 1, 2), torch.ones(1, 1, 1),
    ...                    [torch.zeros(3, 2), torch.zeros(3, 1)], False, 1, 0.0, False, False, False)
    >>> h
    tensor([[[0.1250]]])
    """
    return _single(_gru_step, input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)


def lstm(input: Tensor, hx, params, has_biases: bool, num_layers: int, dropout: float, train: bool,
         bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor, Tensor]:
    """A multi-layer LSTM over a sequence; ``hx`` is ``[h0, c0]``; returns (output, h_n, c_n).
    A fifth (third without biases) weight per layer and direction is the projection ``w_hr``.

    >>> import retrograd as torch
    >>> out, h, c = torch.lstm(torch.zeros(3, 1, 2), [torch.zeros(1, 1, 1), torch.zeros(1, 1, 1)],
    ...                        [torch.zeros(4, 2), torch.zeros(4, 1)], False, 1, 0.0, False, False, False)
    >>> out.shape, c.shape
    (torch.Size([3, 1, 1]), torch.Size([1, 1, 1]))
    """
    import retrograd as R

    h0, c0 = hx
    out, finals = _run(_lstm_step, input, list(zip(h0.unbind(0), c0.unbind(0))), params, has_biases, num_layers,
                       dropout, train, bidirectional, batch_first)
    return out, R.stack([s[0] for s in finals]), R.stack([s[1] for s in finals])
