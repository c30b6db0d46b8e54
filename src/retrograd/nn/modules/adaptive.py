"""AdaptiveLogSoftmaxWithLoss: a softmax over many classes, cheap for the frequent ones.

Classes below ``cutoffs[0]`` (the shortlist) are scored by the head directly; every later
range of classes is a cluster with one head entry of its own plus a small two-layer projection
(narrower by ``div_value`` per cluster) that scores the classes inside it.  So
``log p(c) = log p_head(cluster) + log p_cluster(c)``, as in Grave et al., "Efficient softmax
approximation for GPUs", and ``torch.nn.AdaptiveLogSoftmaxWithLoss``.

>>> import retrograd as torch
>>> asm = torch.nn.modules.adaptive.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[4])
>>> out = asm(torch.randn(3, 8), torch.tensor([0, 5, 9]))
>>> out.output.shape, out.loss.dim()
(torch.Size([3]), 0)
"""
from __future__ import annotations

from collections import namedtuple
from typing import Sequence

from ... import _ops as O
from ..._tensor import Tensor
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Adaptive softmax: ``forward(input, target)`` returns ``(output, loss)``.

    ``output[i]`` is the log-probability of ``target[i]``; ``loss`` is the mean of ``-output``.

    >>> import retrograd as torch
    >>> asm = torch.nn.modules.adaptive.AdaptiveLogSoftmaxWithLoss(4, 6, [2], div_value=2.0)
    >>> round(asm.log_prob(torch.zeros(1, 4)).exp().sum().item(), 6)  # a full distribution over 6 classes
    1.0
    """

    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int], div_value: float = 4.0,
                 head_bias: bool = False, device=None, dtype=None) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        valid = (cutoffs == sorted(cutoffs) and min(cutoffs) > 0 and max(cutoffs) <= n_classes - 1
                 and len(set(cutoffs)) == len(cutoffs) and all(int(c) == c for c in cutoffs))
        if not valid:
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, device=device, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, device=device, dtype=dtype),
                                        Linear(hidden, size, bias=False, device=device, dtype=dtype)))

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for proj, out in self.tail:
            proj.reset_parameters()
            out.reset_parameters()

    def _check(self, input: Tensor, target: Tensor) -> None:
        if target.dim() == 1:
            if input.size(0) != target.size(0):
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{input.size()}")
        elif target.dim() == 0:
            if input.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                                   f"{input.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        self._check(input_, target_)
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        n = target.size(0)
        output = input.new_zeros(n)
        # which head column each row reads: its own class (shortlist) or its cluster's entry
        head_index = target.new_empty(n)
        covered = 0
        bounds = [0] + self.cutoffs
        for i in range(len(bounds) - 1):
            lo, hi = bounds[i], bounds[i + 1]
            mask = (target >= lo) & (target < hi)
            rows = mask.nonzero().squeeze()
            if rows.numel() == 0:
                continue
            if i == 0:
                head_index.index_copy_(0, rows, target[mask])
            else:
                cluster_logp = F.log_softmax(self.tail[i - 1](input.index_select(0, rows)), dim=1)
                within = cluster_logp.gather(1, (target[mask] - lo).unsqueeze(1))
                head_index.index_fill_(0, rows, self.shortlist_size + i - 1)
                output.index_copy_(0, rows, within.squeeze(1))
            covered += rows.numel()
        if covered != n:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{target.min().item()}, {target.max().item()}] were found. ")
        head_logp = F.log_softmax(self.head(input), dim=1)
        output = output + head_logp.gather(1, head_index.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        # written slice by slice into one tensor (grad_fn CopySlices, as in PyTorch)
        out = input.new_empty((head_output.size(0), self.n_classes))
        head_logp = F.log_softmax(head_output, dim=1)
        out[:, :self.shortlist_size] = head_logp[:, :self.shortlist_size]
        for i in range(self.n_clusters):
            cluster_logp = F.log_softmax(self.tail[i](input), dim=1)
            out[:, self.cutoffs[i]:self.cutoffs[i + 1]] = (cluster_logp
                                                           + head_logp[:, self.shortlist_size + i].unsqueeze(1))
        return out

    def log_prob(self, input: Tensor) -> Tensor:
        """Log-probabilities of all ``n_classes`` classes, shape (N, n_classes)."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:
        """The most likely class of each row (``log_prob(input).argmax(1)``, skipping the tails when
        the head's best entry is a shortlist class)."""
        head_output = self.head(input)
        best = O.argmax(head_output, dim=1)
        outside = best >= self.shortlist_size
        if not bool(outside.any()):
            return best
        if bool(outside.all()):
            return O.argmax(self._full_log_prob(input, head_output), dim=1)
        best[outside] = O.argmax(self._full_log_prob(input[outside], head_output[outside]), dim=1)
        return best

