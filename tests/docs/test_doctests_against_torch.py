"""The docstring examples print what PyTorch 2.13 prints.

Every docstring whose examples are self-contained (they pass with no module globals) and reach
retrograd only through ``import retrograd as torch`` runs again with ``import torch``: about 700
docstrings.  Torch must print what the docstring shows.  ``DIFFERS`` lists, with the reason, the
few that show retrograd's own behaviour on purpose (its additions, the TorchScript stand-ins,
what NumPy cannot do); an entry that stops differing fails too, so the list stays exact.
"""
from __future__ import annotations

import copy
import doctest
import re
import warnings

import pytest

from .test_doctests import MODULES, _doctests

torch = pytest.importorskip("torch")

_NO_BF16 = "NumPy has no bfloat16: retrograd stores it as float32"
_DEBUG = "retrograd's own addition (debugging autograd: docs/debugging.md)"
_JIT = "retrograd.jit runs the Python code as it is (no TorchScript compiler)"
DIFFERS = {
    "retrograd.BFloat16Tensor": _NO_BF16,
    "retrograd.__config__": "the build configuration retrograd reports is NumPy's, not torch's",
    "retrograd._compat.set_flush_denormal": "NumPy cannot switch the CPU's flush-to-zero mode",
    "retrograd._ops.copies.detach_copy": "torch 2.13 attaches a NotImplemented grad_fn; retrograd's result is detached",
    "retrograd._ops.linalg.decompositions.eig": "retrograd has no complex dtypes",
    "retrograd.autograd.engine.set_backward_engine": "retrograd's own addition (two engines)",
    "retrograd.autograd.profiler.profile": "factory calls (aten::ones) are not recorded: only op-table calls are",
    "retrograd.backends.cpu": "retrograd reports no SIMD capability (it runs NumPy's kernels)",
    "retrograd.backends.mkldnn": "there is no oneDNN in retrograd",
    "retrograd.jit": _JIT,
    "retrograd.jit.Attribute": _JIT + ": Attribute is its value, as torch's is with PYTORCH_JIT=0",
    "retrograd.jit.export": _JIT,
    "retrograd.jit.freeze": _JIT,
    "retrograd.jit.interface": _JIT,
    "retrograd.jit.load": _JIT + ": no TorchScript archives",
    "retrograd.jit.optimize_for_inference": _JIT,
    "retrograd.jit.save": _JIT + ": no TorchScript archives",
    "retrograd.jit.script": _JIT,
    "retrograd.jit.script_method": _JIT,
    "retrograd.jit.trace": _JIT,
    "retrograd.jit.trace_module": _JIT,
    "retrograd.jit.unused": _JIT,
    "retrograd.onnx.export": "torch's exporter needs onnxscript; retrograd's raises at once",
    "retrograd.version.TorchVersion": "torch keeps TorchVersion in torch.torch_version, not torch.version",
    "retrograd.autograd._nonfinite.set_detect_nan": _DEBUG,
    "retrograd.autograd._sites.set_record_sites": _DEBUG,
    "retrograd.autograd._sites.set_strict_inplace": _DEBUG,
    "retrograd.autograd._sites.strict_inplace": _DEBUG,
    "retrograd.autograd.explain.explain": _DEBUG,
    "retrograd.autograd.memory_report.memory_report": _DEBUG,
    "retrograd.autograd.memory_report.set_module_tracking": _DEBUG,
    "retrograd.viz": "retrograd's own addition (graph drawing)",
    "retrograd.viz._tree.tree": "retrograd's own addition (graph drawing)",
}

# where torch's output depends on the machine (its CPU capability: "DEFAULT" under
# ATEN_CPU_CAPABILITY=default, as in scripts/test_any_cpu.sh), agreeing is no news
MAY_AGREE = {"retrograd.backends.cpu"}

_OTHER_RETROGRAD = re.compile(r"retrograd(?! as torch)")


def _comparable(t: doctest.DocTest) -> bool:
    src = "".join(e.source for e in t.examples)
    rest = src.replace("import retrograd as torch", "")
    return "import retrograd as torch" in src and not _OTHER_RETROGRAD.search(rest) and "+SKIP" not in t.docstring


def _failures(t: doctest.DocTest, under_torch: bool) -> str:
    examples = []
    for e in t.examples:
        e = copy.copy(e)
        if under_torch:
            e.source = e.source.replace("import retrograd as torch", "import torch")
        examples.append(e)
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        failed = runner.run(doctest.DocTest(examples, {}, t.name, t.filename, t.lineno, t.docstring),
                            out=report.append).failed
    return "".join(report) if failed else ""


@pytest.fixture
def state_restored():
    """The examples run under both libraries; put both back as they were."""
    import retrograd

    states = [(lib.get_rng_state(), lib.get_default_dtype()) for lib in (torch, retrograd)]
    engine = retrograd.autograd.get_backward_engine()
    yield
    for lib, (rng, dtype) in zip((torch, retrograd), states):
        lib.set_rng_state(rng)
        lib.set_default_dtype(dtype)
    retrograd.autograd.set_backward_engine(engine)
    torch.set_flush_denormal(False)  # (set_flush_denormal's example turns it on in torch)


@pytest.mark.parametrize("name", MODULES)
def test_examples_print_what_torch_prints(name, state_restored):
    problems = []
    for t in _doctests(name):
        if not _comparable(t) or _failures(t, under_torch=False):
            continue  # (not self-contained: it uses the module's own names, which torch lacks)
        differs = _failures(t, under_torch=True)
        if differs and t.name not in DIFFERS:
            problems.append(differs)
        elif not differs and t.name in DIFFERS and t.name not in MAY_AGREE:
            problems.append(f"{t.name} now prints what torch prints: remove it from DIFFERS\n")
    assert not problems, "".join(problems)


def test_every_listed_difference_exists():
    names = {t.name for n in MODULES for t in _doctests(n)}
    assert set(DIFFERS) <= names, sorted(set(DIFFERS) - names)
