"""retrograd.__version__ and retrograd.version: values, comparisons and typical client checks, against torch."""
from pathlib import Path

import pytest

import retrograd.version as rg_version

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- 1. __version__ and retrograd.version
def test_version_value_and_module_attributes():
    v = rg_version.__version__
    assert isinstance(v, str) and v == "2.13.0"
    assert str.__eq__(v, torch.__version__.split("+")[0])
    assert type(v).__name__ == "TorchVersion"
    assert rg_version.cuda is torch.version.cuda is None
    assert rg_version.hip is torch.version.hip is None
    assert rg_version.debug is torch.version.debug is False
    assert isinstance(rg_version.git_version, str)
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert f'version = "{rg_version.retrograd_version}"' in pyproject
    assert hash(v) == hash("2.13.0") and v in {"2.13.0"}


VERSIONS = ["2.13.0", "2.13", "2.13.0+cpu", "2.13.0a0", "2.13.0rc1", "2.13.0.dev20250101", "2.13.0.post1",
            "2.2", "2.10", "1.13.1", "2", "3.0", "parrot", "2.13.0b2", "2.13.0rc1.dev2", "1!1.0", ""]
OTHERS = VERSIONS + [(2,), (2, 13), (2, 13, 0), (2, 13, 1), (1, 9), [2, 0]]


@pytest.mark.parametrize("left", VERSIONS)
def test_version_compares_like_torch_version(left):
    from torch.torch_version import TorchVersion

    ours, theirs = rg_version.TorchVersion(left), TorchVersion(left)
    for other in OTHERS:
        for op in ("__lt__", "__le__", "__eq__", "__ne__", "__ge__", "__gt__"):
            assert getattr(ours, op)(other) == getattr(theirs, op)(other), (left, op, other)


def test_version_typical_client_checks():
    v = rg_version.__version__
    assert v >= "2.0" and v >= (2, 0) and v < (3,) and v.split(".")[:2] == ["2", "13"]
    packaging = pytest.importorskip("packaging.version")
    assert packaging.parse(v) == packaging.parse(torch.__version__.split("+")[0])
    assert packaging.parse(v) >= packaging.Version("2.0")
