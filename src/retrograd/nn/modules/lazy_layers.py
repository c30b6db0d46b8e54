"""Lazy layers: Linear, Conv*, ConvTranspose*, BatchNorm*, InstanceNorm* whose input size is inferred.

Each is the plain layer built with zero input size plus placeholders for the parameters (and
running statistics); the first forward materializes them with the layer's default init and
turns the module into the plain class.

>>> import retrograd as torch
>>> conv = torch.nn.LazyConv2d(8, 3)
>>> conv(torch.zeros(1, 3, 5, 5)).shape
torch.Size([1, 8, 3, 3])
>>> conv
Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1))
"""
from __future__ import annotations

from ... import _creation as C
from ... import _dtype as D
from ...autograd import grad_mode
from ..._tensor import Tensor
from ..parameter import UninitializedBuffer, UninitializedParameter
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm
from .lazy import LazyModuleMixin
from .linear import Linear
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm, _NormBase

__all__ = ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
           "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


# ----------------------------------------------------------------------------------------- Linear
class LazyLinear(LazyModuleMixin, Linear):
    """A :class:`Linear` whose ``in_features`` is ``input.shape[-1]`` of the first input.

    >>> import retrograd as torch
    >>> m = torch.nn.LazyLinear(3, bias=False)
    >>> _ = m(torch.ones(2, 5))
    >>> m.in_features, m.weight.shape
    (5, torch.Size([3, 5]))
    """

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        # nothing to initialise while the weight is a placeholder (or has no input features)
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        """Materialize ``weight`` (out_features, input.shape[-1]) and ``bias``, then initialise them."""
        if self.has_uninitialized_params():
            with grad_mode.no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:
            # materialized by load_state_dict: the input must agree with the loaded weight
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                                     f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


# ----------------------------------------------------------------------------------------- Conv
class _LazyConvXdMixin(LazyModuleMixin):
    # _nd (spatial dims) comes from the plain ConvNd / ConvTransposeNd class mixed in after this.

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args, **kwargs) -> None:
        """Materialize ``weight`` and ``bias`` from the channel count of ``input``."""
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
            else:
                shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
            with grad_mode.no_grad():
                self.weight.materialize(shape)
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()

    def _get_in_channels(self, input: Tensor) -> int:
        unbatched = self._nd + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to "
                               f"{self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]

    def _get_num_spatial_dims(self) -> int:
        return self._nd


def _lazy_conv_params(self, out_channels: int, bias: bool, device, dtype) -> None:
    # replace the zero-sized parameters the plain constructor made by placeholders
    self.weight = UninitializedParameter(device=device, dtype=dtype)
    self.out_channels = out_channels
    if bias:
        self.bias = UninitializedParameter(device=device, dtype=dtype)


class _LazyConv(_LazyConvXdMixin):
    """The constructor of LazyConv1d/2d/3d: Conv*d's arguments less ``in_channels``."""

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1, groups: int = 1,
                 bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device=device,
                         dtype=dtype)
        _lazy_conv_params(self, out_channels, bias, device, dtype)


class _LazyConvTranspose(_LazyConvXdMixin):
    """The constructor of LazyConvTranspose1d/2d/3d: ConvTranspose*d's arguments less ``in_channels``."""

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0, groups: int = 1,
                 bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         device=device, dtype=dtype)
        _lazy_conv_params(self, out_channels, bias, device, dtype)


class LazyConv1d(_LazyConv, Conv1d):
    """A :class:`Conv1d` whose ``in_channels`` comes from the first input.

    >>> import retrograd as torch
    >>> torch.nn.LazyConv1d(4, 3)
    LazyConv1d(0, 4, kernel_size=(3,), stride=(1,))
    """

    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    """A :class:`Conv2d` whose ``in_channels`` comes from the first input.

    >>> import retrograd as torch
    >>> torch.nn.LazyConv2d(4, 3)
    LazyConv2d(0, 4, kernel_size=(3, 3), stride=(1, 1))
    """

    cls_to_become = Conv2d


class LazyConv3d(_LazyConv, Conv3d):
    """A :class:`Conv3d` whose ``in_channels`` comes from the first input.

    >>> import retrograd as torch
    >>> torch.nn.LazyConv3d(4, 1)
    LazyConv3d(0, 4, kernel_size=(1, 1, 1), stride=(1, 1, 1))
    """

    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    """A :class:`ConvTranspose1d` whose ``in_channels`` comes from the first input.

    >>> import retrograd as torch
    >>> torch.nn.LazyConvTranspose1d(4, 3)
    LazyConvTranspose1d(0, 4, kernel_size=(3,), stride=(1,))
    """

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    """A :class:`ConvTranspose2d` whose ``in_channels`` comes from the first input.

    >>> import retrograd as torch
    >>> torch.nn.LazyConvTranspose2d(4, 3, stride=2)
    LazyConvTranspose2d(0, 4, kernel_size=(3, 3), stride=(2, 2))
    """

    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    """A :class:`ConvTranspose3d` whose ``in_channels`` comes from the first input.

    >>> import retrograd as torch
    >>> torch.nn.LazyConvTranspose3d(4, 1)
    LazyConvTranspose3d(0, 4, kernel_size=(1, 1, 1), stride=(1, 1, 1))
    """

    cls_to_become = ConvTranspose3d


# ----------------------------------------------------------------------------------------- norms
class _LazyNormBase(LazyModuleMixin, _NormBase):
    """num_features = ``input.shape[1]`` of the first input (as PyTorch, also for unbatched input)."""

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True) -> None:
        # affine=False: the plain constructor registers no weight or bias (placeholders come next)
        super().__init__(0, eps, momentum, False, False, device, dtype)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = C.tensor(0, dtype=D.int64)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def _check_input_dim(self, input: Tensor) -> None:
        # the input check of the class this becomes (ahead of _BatchNorm's / _InstanceNorm's own)
        self.cls_to_become._check_input_dim(self, input)

    def initialize_parameters(self, input: Tensor) -> None:
        """Materialize the affine parameters and running statistics with ``input.shape[1]`` features."""
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            with grad_mode.no_grad():
                if self.affine:
                    self.weight.materialize((self.num_features,))
                    if self.bias is not None:
                        self.bias.materialize((self.num_features,))
                if self.track_running_stats:
                    self.running_mean.materialize((self.num_features,))
                    self.running_var.materialize((self.num_features,))
                self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """A :class:`BatchNorm1d` whose ``num_features`` comes from the first input.

    >>> import retrograd as torch
    >>> m = torch.nn.LazyBatchNorm1d()
    >>> _ = m(torch.randn(4, 3)); m
    BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """A :class:`BatchNorm2d` whose ``num_features`` comes from the first input."""

    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """A :class:`BatchNorm3d` whose ``num_features`` comes from the first input."""

    cls_to_become = BatchNorm3d


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """An :class:`InstanceNorm1d` whose ``num_features`` comes from the first input.

    Note PyTorch's defaults here: ``affine=True, track_running_stats=True`` (the plain
    InstanceNorm defaults are False).

    >>> import retrograd as torch
    >>> torch.nn.LazyInstanceNorm1d()
    LazyInstanceNorm1d(0, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    cls_to_become = InstanceNorm1d
    _nd = 1


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """An :class:`InstanceNorm2d` whose ``num_features`` comes from the first input."""

    cls_to_become = InstanceNorm2d
    _nd = 2


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """An :class:`InstanceNorm3d` whose ``num_features`` comes from the first input."""

    cls_to_become = InstanceNorm3d
    _nd = 3
