"""Max, average, adaptive, LP, fractional max pooling layers and max unpooling."""
from __future__ import annotations

from ..._ops.nn.conv import _tuple
from ..._tensor import Tensor
from .. import functional as F
from .module import Module
from ..._ops.nn import adaptive_pooling as _ops_nn_adaptive_pooling

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
           "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "LPPool1d", "LPPool2d", "LPPool3d", "AvgPool3d",
           "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
           "FractionalMaxPool2d", "FractionalMaxPool3d"]


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"]

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}, dilation={dilation}, "
                "ceil_mode={ceil_mode}".format(**self.__dict__))


class MaxPool1d(_MaxPoolNd):
    """Max over sliding windows of (N, C, L)."""

    def forward(self, input: Tensor):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool2d(_MaxPoolNd):
    """Max over sliding windows of (N, C, H, W).

    >>> import retrograd as torch
    >>> torch.nn.MaxPool2d(2)
    MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    """

    def forward(self, input: Tensor):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool3d(_MaxPoolNd):
    def forward(self, input: Tensor):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool1d(Module):
    """Average over sliding windows of (N, C, L)."""

    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _tuple(kernel_size, 1)
        self.stride = _tuple(stride if stride is not None else kernel_size, 1)
        self.padding = _tuple(padding, 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class _AvgPoolNd(Module):
    # AvgPool2d/3d (AvgPool1d differs: tuples, no divisor_override)
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override=None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    """Average over sliding windows of (N, C, H, W)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class _AdaptivePoolNd(Module):
    __constants__ = ["output_size"]

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePoolNd):
    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptivePoolNd):
    """Average pooling to a fixed (H_out, W_out); ``None`` keeps that input size."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)


class _AdaptiveMaxPoolNd(_AdaptivePoolNd):
    __constants__ = ["output_size", "return_indices"]

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    def forward(self, input: Tensor):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed (H_out, W_out)."""

    def forward(self, input: Tensor):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]

    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return "norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, ceil_mode={ceil_mode}".format(
            **self.__dict__)


class LPPool1d(_LPPoolNd):
    """Power-average (p-norm) pooling over sliding windows of (N, C, L).

    >>> import retrograd as torch
    >>> torch.nn.LPPool1d(2, 2)(torch.tensor([[[3., 4.]]]))
    tensor([[[5.]]])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPoolNd):
    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool3d(_LPPoolNd):
    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class AvgPool3d(_AvgPoolNd):
    """Average over sliding windows of (N, C, D, H, W)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool3d(_AdaptivePoolNd):
    """Average pooling to a fixed (D_out, H_out, W_out); ``None`` keeps that input size."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed (D_out, H_out, W_out)."""

    def forward(self, input: Tensor):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _MaxUnpoolNd(Module):
    _nd = 2

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size = _tuple(kernel_size, self._nd)
        self.stride = _tuple(stride if stride is not None else kernel_size, self._nd)
        self.padding = _tuple(padding, self._nd)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        fn = {1: F.max_unpool1d, 2: F.max_unpool2d, 3: F.max_unpool3d}[self._nd]
        return fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool1d(_MaxUnpoolNd):
    """Partial inverse of MaxPool1d (needs its indices)."""
    _nd = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """Partial inverse of MaxPool2d (needs its indices)."""
    _nd = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """Partial inverse of MaxPool3d (needs its indices)."""
    _nd = 3


class _FractionalMaxPoolNd(Module):
    __constants__ = ["kernel_size", "return_indices", "output_size", "output_ratio"]
    _nd = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                 _random_samples=None) -> None:
        super().__init__()
        nd = self._nd
        self.kernel_size = _tuple(kernel_size, nd)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _tuple(output_size, nd) if output_size is not None else None
        # torch's _pair / _triple: a sequence is kept as given, a number is repeated (floats stay floats)
        self.output_ratio = (tuple(output_ratio) if isinstance(output_ratio, (list, tuple)) else (output_ratio,) * nd
                             ) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{type(self).__name__} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor):
        fn = _ops_nn_adaptive_pooling.fractional_max_pool2d if self._nd == 2 else _ops_nn_adaptive_pooling.fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio, return_indices=self.return_indices,
                  _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Max pooling over pseudo-randomly placed windows of (N, C, H, W) (Graham, 2014).

    >>> import retrograd as torch
    >>> torch.nn.FractionalMaxPool2d(2, output_size=3)(torch.ones(1, 1, 5, 5)).shape
    torch.Size([1, 1, 3, 3])
    """
    _nd = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Fractional max pooling of (N, C, T, H, W)."""
    _nd = 3
