"""Specs for the ops of ``retrograd.nn._recurrent``: ``torch.rnn_tanh/rnn_relu/lstm/gru`` and
their ``*_cell`` forms, composed from retrograd ops."""
from .._spec import OpSpec, S, T


def _w(gates, i, h, bias=True):
    ws = [T((gates * h, i)), T((gates * h, h))]
    return ws + [T((gates * h,)), T((gates * h,))] if bias else ws


def _run(name):
    def call(lib, x, hx, *params, flags):
        return getattr(lib, name)(x, hx, list(params), *flags)
    return call


def _run_lstm(lib, x, h, c, *params, flags):
    return lib.lstm(x, [h, c], list(params), *flags)


SPECS = [
    OpSpec("rnn_tanh_cell", [S(T((2, 3)), T((2, 4)), *_w(1, 3, 4)), S(T((2, 3)), T((2, 4)), *_w(1, 3, 4, False))],
           check_grad_fn=False),
    OpSpec("rnn_relu_cell", [S(T((2, 3)), T((2, 4)), *_w(1, 3, 4))], check_grad_fn=False),
    OpSpec("gru_cell", [S(T((2, 3)), T((2, 4)), *_w(3, 3, 4)), S(T((2, 3)), T((2, 4)), *_w(3, 3, 4, False))],
           check_grad_fn=False),
    OpSpec("lstm_cell", [S(T((2, 3)), [T((2, 4)), T((2, 4))], *_w(4, 3, 4))], check_grad_fn=False),
    OpSpec("rnn_tanh", [S(T((3, 2, 3)), T((1, 2, 2)), *_w(1, 3, 2), flags=(True, 1, 0.0, False, False, False)),
                        S(T((2, 3, 3)), T((2, 2, 2)), *_w(1, 3, 2, False), *_w(1, 3, 2, False),
                          flags=(False, 1, 0.0, False, True, True))],
           call=_run("rnn_tanh"), check_grad_fn=False),
    OpSpec("rnn_relu", [S(T((3, 2, 3)), T((2, 2, 2)), *_w(1, 3, 2), *_w(1, 2, 2),
                          flags=(True, 2, 0.0, False, False, False))], call=_run("rnn_relu"), check_grad_fn=False),
    OpSpec("gru", [S(T((3, 2, 3)), T((1, 2, 2)), *_w(3, 3, 2), flags=(True, 1, 0.0, False, False, False))],
           call=_run("gru"), check_grad_fn=False),
    OpSpec("lstm", [S(T((3, 2, 3)), T((1, 2, 2)), T((1, 2, 2)), *_w(4, 3, 2), flags=(True, 1, 0.0, False, False, False)),
                    S(T((2, 3, 3)), T((2, 2, 2)), T((2, 2, 2)), *_w(4, 3, 2), *_w(4, 3, 2),
                      flags=(True, 1, 0.0, False, True, True))],
           call=_run_lstm, check_grad_fn=False),
]
