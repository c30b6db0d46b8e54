"""``torch.utils.data.datapipes.map``: map-style DataPipes (only the base class here)."""
from ..datapipe import MapDataPipe  # noqa: F401

__all__ = ["MapDataPipe"]
