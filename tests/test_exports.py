"""The top-level namespace: every name retrograd exports exists in torch 2.13 and the reverse."""

import pytest

import retrograd

torch = pytest.importorskip("torch")


# ------------------------------------------------------------------ namespace
NAMES = ["from_dlpack", "to_dlpack", "convolution", "embedding_bag", "ctc_loss", "native_layer_norm",
         "native_batch_norm", "native_group_norm", "native_dropout", "native_channel_shuffle", "grid_sampler",
         "grid_sampler_2d", "grid_sampler_3d", "affine_grid_generator", "lstm_cell", "gru_cell", "rnn_tanh_cell",
         "rnn_relu_cell", "lstm", "gru", "rnn_tanh", "rnn_relu", "binomial", "empty_permuted", "as_strided_copy",
         "as_strided_scatter", "detach_copy", "is_conj", "is_neg", "set_flush_denormal", "histogramdd",
         "slice_inverse", "norm_except_dim", "set_autocast_enabled", "set_autocast_dtype",
         "get_autocast_cpu_dtype", "is_autocast_cpu_enabled", "set_autocast_cpu_enabled", "set_autocast_cpu_dtype",
         "get_autocast_gpu_dtype", "set_autocast_gpu_dtype", "get_autocast_ipu_dtype", "is_autocast_xla_enabled",
         "is_autocast_cache_enabled", "set_autocast_cache_enabled", "clear_autocast_cache",
         "autocast_increment_nesting", "autocast_decrement_nesting", "lstsq", "solve", "symeig", "eig",
         "signal", "overrides"]
METHODS = ["resize", "resize_as", "igamma_", "igammac_", "conj_physical_", "storage_type", "lstsq", "solve",
           "symeig", "eig"]


def test_names_exist_in_both():
    for n in NAMES:
        assert hasattr(torch, n), n
        assert hasattr(retrograd, n), n
    for n in METHODS:
        assert hasattr(torch.Tensor, n), n
        assert hasattr(retrograd.Tensor, n), n
