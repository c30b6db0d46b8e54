"""Variable-length sequences: padding, packing (``PackedSequence``) and the packed RNN forward.

Everything is composed from public ops (slices, cat, stack, index_select), so gradients flow through
packing and unpacking without rules of their own.
"""
from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterable

import numpy as np

from ... import _ops as O
from ..._tensor import Tensor
from .._util import const

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]


def _long(a) -> Tensor:
    return const(np.asarray(a, dtype=np.int64))


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of an index permutation (None stays None)."""
    if permutation is None:
        return None
    p = np.asarray(permutation._data, dtype=np.int64)
    out = np.empty_like(p)
    out[p] = np.arange(p.size, dtype=np.int64)
    return _long(out)


class PackedSequence(namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices",
                                                    "unsorted_indices"])):
    """A batch of variable-length sequences, time-major and without padding.

    ``data`` holds step 0 of every sequence, then step 1 of those still running, and so on;
    ``batch_sizes[t]`` says how many sequences are running at step t.

    >>> import retrograd as torch
    >>> from retrograd.nn.utils.rnn import pack_sequence
    >>> pack_sequence([torch.tensor([1., 2.]), torch.tensor([3.])]).batch_sizes
    tensor([2, 1])
    """

    def __new__(cls, data: Tensor, batch_sizes: Tensor | None = None, sorted_indices: Tensor | None = None,
                unsorted_indices: Tensor | None = None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # PyTorch also accepts (data, batch_sizes) as one tuple
            data, batch_sizes = data[0], data[1]
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _apply(self, fn) -> PackedSequence:
        return type(self)(fn(self.data), self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def to(self, *args, **kwargs) -> PackedSequence:
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else self._apply(lambda _: data)

    def cpu(self) -> PackedSequence:
        return self

    # dtype casts act on ``data`` only (batch_sizes and the index permutations stay int64)
    def double(self) -> PackedSequence:
        return self._apply(lambda d: d.double())

    def float(self) -> PackedSequence:
        return self._apply(lambda d: d.float())

    def half(self) -> PackedSequence:
        return self._apply(lambda d: d.half())

    def long(self) -> PackedSequence:
        return self._apply(lambda d: d.long())

    def int(self) -> PackedSequence:
        return self._apply(lambda d: d.int())

    def short(self) -> PackedSequence:
        return self._apply(lambda d: d.short())

    def char(self) -> PackedSequence:
        return self._apply(lambda d: d.char())

    def byte(self) -> PackedSequence:
        return self._apply(lambda d: d.byte())

    def detach(self) -> PackedSequence:
        return self._apply(lambda d: d.detach())

    @property
    def is_cuda(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False


def _lengths_array(lengths) -> np.ndarray:
    if isinstance(lengths, Tensor):
        return np.asarray(lengths._data, dtype=np.int64).reshape(-1)
    return np.asarray([int(x) for x in lengths], dtype=np.int64)


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch (T, B, *) (or (B, T, *) with ``batch_first``) given each sequence's length.

    >>> import retrograd as torch
    >>> from retrograd.nn.utils.rnn import pack_padded_sequence
    >>> pack_padded_sequence(torch.tensor([[1., 2.], [3., 0.]]), [2, 1]).data
    tensor([1., 2., 3.])
    """
    lens = _lengths_array(lengths)
    if enforce_sorted:
        sorted_indices = None  # (the order itself is checked below, after the emptiness checks, as in torch)
    else:
        order = np.argsort(-lens, kind="stable")
        sorted_indices = _long(order)
        lens = lens[order]
        input = O.index_select(input, 0 if batch_first else 1, sorted_indices)
    batch = input.shape[0 if batch_first else 1] if input.ndim > 1 else None
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if batch is not None and lens.size != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lens.size} "
                           f"(batch_size={batch})")
    if lens.size and lens.min() <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if enforce_sorted and lens.size > 1 and (np.diff(lens) > 0).any():
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                           "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
                           "to sidestep this requirement if you do not need ONNX exportability.")
    if batch_first:
        input = input.transpose(0, 1)
    T = int(lens[0]) if lens.size else 0
    if T > input.shape[0]:
        raise RuntimeError(f"Expected sequence length to be at most {input.shape[0]}, but got {T}")
    batch_sizes = np.array([(lens > t).sum() for t in range(T)], dtype=np.int64)
    data = O.cat([input[t].narrow(0, 0, int(b)) for t, b in enumerate(batch_sizes)], 0)
    return PackedSequence(data, _long(batch_sizes), sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:
    """Inverse of :func:`pack_padded_sequence`: (padded batch, lengths).

    >>> import retrograd as torch
    >>> from retrograd.nn.utils.rnn import pack_sequence, pad_packed_sequence
    >>> pad_packed_sequence(pack_sequence([torch.tensor([1., 2.]), torch.tensor([3.])]))[1]
    tensor([2, 1])
    """
    data = sequence.data
    bs = np.asarray(sequence.batch_sizes._data, dtype=np.int64)
    T, B = int(bs.size), int(bs[0])
    if total_length is not None:
        if total_length < T:
            raise ValueError(f"Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {T}")
    else:
        total_length = T
    feat = tuple(data.shape[1:])
    rows, off = [], 0
    for b in bs:
        step = data.narrow(0, off, int(b))
        if b < B:
            step = O.cat([step, _fill((B - int(b),) + feat, padding_value, data)], 0)
        rows.append(step)
        off += int(b)
    for _ in range(total_length - T):
        rows.append(_fill((B,) + feat, padding_value, data))
    padded = O.stack(rows, 0)
    lengths = np.array([(bs > i).sum() for i in range(B)], dtype=np.int64)
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        padded = O.index_select(padded, 0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[np.asarray(sequence.unsorted_indices._data)]
    return padded, _long(lengths)


def _fill(shape: tuple, value: float, like: Tensor) -> Tensor:
    return const(np.full(shape, value, dtype=like._data.dtype))


def _expand_like_copy(src: Tensor, shape: tuple) -> Tensor:
    # PyTorch copies each sequence into a slice shaped by the first one's trailing dims (``copy_``
    # broadcasting): its error text when the shapes do not broadcast
    a, b = list(shape), list(src.shape)
    nd = max(len(a), len(b))
    a, b = [1] * (nd - len(a)) + a, [1] * (nd - len(b)) + b
    for i in range(nd - 1, -1, -1):
        if a[i] != b[i] and b[i] != 1 and a[i] != 1:
            raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at "
                               f"non-singleton dimension {i}")
    return src.expand(*shape)


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack variable-length tensors (L_i, *) into (L_max, B, *) (or (B, L_max, *)), padding the rest.

    >>> import retrograd as torch
    >>> from retrograd.nn.utils.rnn import pad_sequence
    >>> pad_sequence([torch.tensor([1., 2.]), torch.tensor([3.])], batch_first=True)
    tensor([[1., 2.],
            [3., 0.]])
    """
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if isinstance(sequences, Tensor):
        sequences = list(O.unbind(sequences, 0))
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    L = max(s.shape[0] for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    out = []
    for s in sequences:
        if tuple(s.shape[1:]) != trailing:
            s = _expand_like_copy(s, (s.shape[0],) + trailing)
        n = L - s.shape[0]
        if n:
            pad = _fill((n,) + tuple(s.shape[1:]), padding_value, s)
            s = O.cat([s, pad] if padding_side == "right" else [pad, s], 0)
        out.append(s)
    return O.stack(out, 0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list:
    """Inverse of :func:`pad_sequence`: a list of the unpadded sequences."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq.narrow(0, 0, int(n)) for seq, n in zip(O.unbind(padded_sequences, 0), _lengths_array(lengths))]


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of variable-length tensors (L_i, *).

    >>> import retrograd as torch
    >>> from retrograd.nn.utils.rnn import pack_sequence
    >>> pack_sequence([torch.tensor([1., 2.]), torch.tensor([3.])]).data
    tensor([1., 3., 2.])
    """
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """Inverse of :func:`pack_sequence`: the list of sequences in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


# ---------------------------------------------------------------------- nn.RNN / LSTM / GRU on packed input
def _forward_packed(rnn, input: PackedSequence, hx=None):
    """RNNBase.forward for a PackedSequence: step t updates only the first batch_sizes[t] (sorted) sequences,
    so each sequence's final state is taken at its own last step, as in PyTorch."""
    data, bs = input.data, [int(b) for b in np.asarray(input.batch_sizes._data)]
    rnn._check_input(data)
    B = bs[0]
    num_dirs = 2 if rnn.bidirectional else 1
    is_lstm = rnn.mode == "LSTM"
    real_hidden = rnn.proj_size if getattr(rnn, "proj_size", 0) > 0 else rnn.hidden_size
    exp_h = (rnn.num_layers * num_dirs, B, real_hidden)
    exp_c = (rnn.num_layers * num_dirs, B, rnn.hidden_size)
    from ... import _creation as C

    if hx is None:
        h0 = C.zeros(exp_h, dtype=data.dtype)
        c0 = C.zeros(exp_c, dtype=data.dtype) if is_lstm else None
    else:
        h0, c0 = hx if is_lstm else (hx, None)
        if input.sorted_indices is not None:  # hx comes in the caller's batch order
            h0 = O.index_select(h0, 1, input.sorted_indices)
            c0 = O.index_select(c0, 1, input.sorted_indices) if is_lstm else None
        if is_lstm:
            rnn._check_hidden(h0, exp_h, "Expected hidden[0] size {}, got {}")
            rnn._check_hidden(c0, exp_c, "Expected hidden[1] size {}, got {}")
        else:
            rnn._check_hidden(h0, exp_h)
    offsets = np.concatenate([[0], np.cumsum(bs)]).astype(int)
    T = len(bs)
    layer_in = data
    finals = []
    for layer in range(rnn.num_layers):
        outs = []
        for d in range(num_dirs):
            k = layer * num_dirs + d
            init = (h0[k], c0[k]) if is_lstm else h0[k]
            w = rnn._layer_weights(layer, d)
            proj = _linear(layer_in, w)  # input projection of all steps at once
            steps_out = [None] * T
            if d == 0:
                state = init
                for t in range(T):
                    b = bs[t]
                    xp = proj.narrow(0, int(offsets[t]), b)
                    new = rnn._cell(xp, _rows(state, 0, b), w)
                    steps_out[t] = new[0] if is_lstm else new
                    state = _join(new, _rows(state, b, B - b)) if b < B else new
            else:
                state = _rows(init, 0, bs[T - 1])
                for t in range(T - 1, -1, -1):
                    b = bs[t]
                    cur = _size(state)
                    if b > cur:  # sequences whose last step is t join with their initial state
                        state = _join(state, _rows(init, cur, b - cur))
                    state = rnn._cell(proj.narrow(0, int(offsets[t]), b), state, w)
                    steps_out[t] = state[0] if is_lstm else state
            outs.append(O.cat(steps_out, 0))
            finals.append(state)
        layer_in = outs[0] if num_dirs == 1 else O.cat(outs, 1)
        if rnn.dropout and rnn.training and layer < rnn.num_layers - 1:
            from .. import functional as F

            layer_in = F.dropout(layer_in, rnn.dropout, True)
    out = PackedSequence(layer_in, input.batch_sizes, input.sorted_indices, input.unsorted_indices)
    if is_lstm:
        h_n = O.stack([s[0] for s in finals], 0)
        c_n = O.stack([s[1] for s in finals], 0)
        if input.unsorted_indices is not None:
            h_n = O.index_select(h_n, 1, input.unsorted_indices)
            c_n = O.index_select(c_n, 1, input.unsorted_indices)
        return out, (h_n, c_n)
    h_n = O.stack(finals, 0)
    if input.unsorted_indices is not None:
        h_n = O.index_select(h_n, 1, input.unsorted_indices)
    return out, h_n


def _linear(x: Tensor, w: dict) -> Tensor:
    from .. import functional as F

    return F.linear(x, w["w_ih"], w["b_ih"])


def _rows(state, start: int, n: int):
    if isinstance(state, tuple):
        return tuple(s.narrow(0, start, n) for s in state)
    return state.narrow(0, start, n)


def _join(a, b):
    if isinstance(a, tuple):
        return tuple(O.cat([x, y], 0) for x, y in zip(a, b))
    return O.cat([a, b], 0)


def _size(state) -> int:
    return (state[0] if isinstance(state, tuple) else state).shape[0]
