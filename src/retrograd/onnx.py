"""``retrograd.onnx``: the names of PyTorch's ONNX API, without an exporter.

Model code asks ``torch.onnx.is_in_onnx_export()`` to choose an export-friendly path, and
tutorials ``import torch.onnx``; both work.  retrograd records no graph an exporter could
translate, so ``export`` raises :class:`OnnxExporterError` (a ``RuntimeError``, as PyTorch
raises when the ``onnx`` package is missing) instead of writing a file.

>>> import retrograd as torch
>>> torch.onnx.is_in_onnx_export()
False
"""
from __future__ import annotations

from typing import Any

__all__ = ["export", "is_in_onnx_export", "OnnxExporterError", "errors", "producer_name", "producer_version",
           "register_custom_op_symbolic", "unregister_custom_op_symbolic", "select_model_mode_for_export"]

producer_name = "pytorch"
producer_version = "2.13.0"


class OnnxExporterError(RuntimeError):
    """Raised when a model cannot be exported to ONNX (always, in retrograd)."""


class _Errors:  # ``torch.onnx.errors.OnnxExporterError``
    OnnxExporterError = OnnxExporterError


errors = _Errors()


def is_in_onnx_export() -> bool:
    """Whether an ONNX export is running: never, in retrograd."""
    return False


def export(model: Any, args: Any = (), f: Any = None, *more: Any, **kwargs: Any) -> None:
    """Not available: retrograd has no ONNX exporter.

    >>> import retrograd as torch
    >>> try:
    ...     torch.onnx.export(torch.nn.Linear(2, 1), torch.zeros(1, 2), "m.onnx")
    ... except torch.onnx.OnnxExporterError as e:
    ...     print(type(e).__name__)
    OnnxExporterError
    """
    raise OnnxExporterError(
        "retrograd cannot export models to ONNX (it has no traced graph for an exporter); "
        "save the weights with torch.save(model.state_dict(), path) instead")


def register_custom_op_symbolic(symbolic_name: str, symbolic_fn: Any, opset_version: int) -> None:
    """Accepted and ignored (there is no exporter to register with)."""


def unregister_custom_op_symbolic(symbolic_name: str, opset_version: int) -> None:
    """Accepted and ignored."""


class select_model_mode_for_export:  # noqa: N801  (PyTorch's name)
    """Context manager that sets ``model.training`` to the mode an export would use."""

    def __init__(self, model: Any, mode: Any) -> None:
        self.model, self.mode = model, mode

    def __enter__(self) -> None:
        self.was_training = self.model.training
        train = getattr(self.mode, "name", self.mode) in (True, "TRAINING")
        self.model.train(bool(train))

    def __exit__(self, *exc: Any) -> None:
        self.model.train(self.was_training)
