"""Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d."""
from __future__ import annotations

import math

from ... import _creation as C
from ..._ops.nn.conv import _tuple
from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


class _ConvNd(Module):
    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding", "in_channels",
                     "out_channels", "kernel_size"]
    _nd = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride, padding, dilation,
                 transposed: bool, output_padding, groups: int, bias: bool, padding_mode: str, device=None,
                 dtype=None) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(f"padding_mode must be one of {valid_padding_modes}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad wants (last_lo, last_hi, ..., first_lo, first_hi)
        if isinstance(padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total = d * (k - 1)
                    left = total // 2
                    self._reversed_padding_repeated_twice[2 * i] = left
                    self._reversed_padding_repeated_twice[2 * i + 1] = total - left
        else:
            self._reversed_padding_repeated_twice = [p for p in reversed(padding) for _ in range(2)]
        if transposed:
            shape = (in_channels, out_channels // groups) + tuple(kernel_size)
        else:
            shape = (out_channels, in_channels // groups) + tuple(kernel_size)
        self.weight = Parameter(C.empty(shape, dtype=dtype))
        if bias:
            self.bias = Parameter(C.empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        fn = (F.conv1d, F.conv2d, F.conv3d)[self._nd - 1]
        if self.padding_mode != "zeros":
            return fn(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), weight, bias,
                      self.stride, 0, self.dilation, self.groups)
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


def _conv_init(self, nd, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
               padding_mode, device, dtype):
    ks = _tuple(kernel_size, nd)
    st = _tuple(stride, nd)
    pd = padding if isinstance(padding, str) else _tuple(padding, nd)
    dl = _tuple(dilation, nd)
    _ConvNd.__init__(self, in_channels, out_channels, ks, st, pd, dl, False, _tuple(0, nd), groups, bias,
                     padding_mode, device, dtype)


class Conv1d(_ConvNd):
    """1-D convolution over (N, C_in, L).

    >>> import retrograd as torch
    >>> torch.nn.Conv1d(2, 4, 3)
    Conv1d(2, 4, kernel_size=(3,), stride=(1,))
    """

    _nd = 1

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        _conv_init(self, 1, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                   padding_mode, device, dtype)


class Conv2d(_ConvNd):
    """2-D convolution over (N, C_in, H, W) (im2col + one matrix product).

    >>> import retrograd as torch
    >>> torch.nn.Conv2d(1, 6, 5)
    Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1))
    """

    _nd = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        _conv_init(self, 2, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                   padding_mode, device, dtype)


class Conv3d(_ConvNd):
    """3-D convolution over (N, C_in, D, H, W)."""

    _nd = 3

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        _conv_init(self, 3, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                   padding_mode, device, dtype)


class _ConvTransposeNd(_ConvNd):
    def _output_padding(self, input: Tensor, output_size, stride, padding, kernel_size, num_spatial_dims: int,
                        dilation=None) -> tuple:
        if output_size is None:
            return _tuple(self.output_padding, num_spatial_dims)
        has_batch = input.dim() == num_spatial_dims + 2
        output_size = list(output_size)
        if len(output_size) == num_spatial_dims + (2 if has_batch else 1):
            output_size = output_size[-num_spatial_dims:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                             f"{num_spatial_dims} or {num_spatial_dims + 2} elements (got {len(output_size)})")
        # torch computes every dimension's range first and reports them all in the message
        min_sizes = [((input.size(d + input.dim() - num_spatial_dims) - 1) * stride[d] - 2 * padding[d]
                      + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1)
                     for d in range(num_spatial_dims)]
        max_sizes = [min_sizes[d] + stride[d] - 1 for d in range(num_spatial_dims)]
        res = []
        for d in range(num_spatial_dims):
            size = output_size[d]
            if size < min_sizes[d] or size > max_sizes[d]:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from "
                                 f"{min_sizes} to {max_sizes} (for an input of {input.size()[2:]})")
            res.append(size - min_sizes[d])
        return tuple(res)

    def forward(self, input: Tensor, output_size=None) -> Tensor:
        nd = self._nd
        op = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size, nd,
                                  self.dilation)
        fn = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}[nd]
        return fn(input, self.weight, self.bias, self.stride, self.padding, op, self.groups, self.dilation)


def _convT_init(self, nd, in_channels, out_channels, kernel_size, stride, padding, output_padding, groups, bias,
                dilation, padding_mode, device, dtype):
    if padding_mode != "zeros":
        raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
    _ConvNd.__init__(self, in_channels, out_channels, _tuple(kernel_size, nd), _tuple(stride, nd),
                     _tuple(padding, nd), _tuple(dilation, nd), True, _tuple(output_padding, nd), groups, bias,
                     padding_mode, device, dtype)


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-D convolution ("deconvolution")."""

    _nd = 1

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        _convT_init(self, 1, in_channels, out_channels, kernel_size, stride, padding, output_padding, groups, bias,
                    dilation, padding_mode, device, dtype)


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-D convolution; weight is (C_in, C_out / groups, kH, kW).

    >>> import retrograd as torch
    >>> torch.nn.ConvTranspose2d(4, 2, 3, stride=2)
    ConvTranspose2d(4, 2, kernel_size=(3, 3), stride=(2, 2))
    """

    _nd = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        _convT_init(self, 2, in_channels, out_channels, kernel_size, stride, padding, output_padding, groups, bias,
                    dilation, padding_mode, device, dtype)


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-D convolution; weight is (C_in, C_out / groups, kD, kH, kW)."""

    _nd = 3

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        _convT_init(self, 3, in_channels, out_channels, kernel_size, stride, padding, output_padding, groups, bias,
                    dilation, padding_mode, device, dtype)
