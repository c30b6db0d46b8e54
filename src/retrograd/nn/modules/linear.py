"""Identity, Linear, Bilinear."""
from __future__ import annotations

import math

from ... import _creation as C
from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear", "NonDynamicallyQuantizableLinear"]


class Identity(Module):
    """Returns its input unchanged (arguments are accepted and ignored)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """y = x W^T + b, with W: (out_features, in_features).

    >>> import retrograd as torch
    >>> torch.nn.Linear(4, 2)
    Linear(in_features=4, out_features=2, bias=True)
    """

    __constants__ = ["in_features", "out_features"]

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(C.empty((out_features, in_features), dtype=dtype))
        if bias:
            self.bias = Parameter(C.empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # kaiming_uniform_(a=sqrt(5)) == U(-1/sqrt(fan_in), 1/sqrt(fan_in)), as in PyTorch
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        # The registered Parameters, read from ``_parameters`` directly: ``self.weight`` would
        # miss the instance dict and go through Module.__getattr__ (twice per call).  A weight
        # that is not a registered Parameter (deleted and replaced, or a parametrization's
        # property) is found the ordinary way.
        params = self._parameters
        weight = params.get("weight")
        if weight is None:
            weight = self.weight
        bias = params["bias"] if "bias" in params else self.bias
        return F.linear(input, weight, bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class NonDynamicallyQuantizableLinear(Linear):
    """The Linear MultiheadAttention uses for its output projection (same behaviour)."""


class Bilinear(Module):
    """y = x1^T A x2 + b with A: (out_features, in1_features, in2_features)."""

    __constants__ = ["in1_features", "in2_features", "out_features"]

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(C.empty((out_features, in1_features, in2_features), dtype=dtype))
        if bias:
            self.bias = Parameter(C.empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
