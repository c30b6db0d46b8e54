"""Every block of the seed document prints exactly what PyTorch 2.13 prints.

Each block runs in a fresh interpreter twice: under ``import retrograd as torch`` and under
real torch (the oracle).  stdout must be identical, and so must the final exception line
(type and PyTorch's message) of the blocks the document shows failing.
"""
import subprocess
import sys

import pytest

from retrograd.demo.seed_blocks import BLOCKS

torch = pytest.importorskip("torch")


def _run(module: str, code: str) -> tuple[str, str]:
    src = f"import {module} as torch\n" + code
    p = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, timeout=120)
    # The exception's own line: the last one not indented.  (retrograd may go on after PyTorch's
    # message with indented lines saying where and why, see docs/debugging.md; PyTorch's line stays.)
    err_lines = [ln for ln in p.stderr.strip().splitlines() if ln.strip() and not ln[0].isspace()]
    last = err_lines[-1] if p.returncode != 0 and err_lines else ""
    return p.stdout, last


# What the document itself shows (the checks below also compare against torch).
DOCUMENT_SAYS = {
    0: "tensor(7.)\n",
    3: "tensor(12.) tensor(4.)\n",
    8: "tensor(6.)\n",
    11: "tensor(18., grad_fn=<CopyBackwards>)\n",
    12: "tensor(6., grad_fn=<CopyBackwards>)\n",
    14: "tensor([2., 4.])\n",
}


@pytest.mark.parametrize("i", range(len(BLOCKS)), ids=[t for t, _ in BLOCKS])
def test_seed_block_matches_torch(i):
    _, code = BLOCKS[i]
    ours = _run("retrograd", code)
    theirs = _run("torch", code)
    assert ours == theirs
    if i in DOCUMENT_SAYS:
        assert ours[0] == DOCUMENT_SAYS[i]


def test_seed_errors_are_the_documented_ones():
    msgs = {t: _run("retrograd", c)[1] for t, c in BLOCKS}
    assert msgs["a second grad without retain_graph fails"].startswith(
        "RuntimeError: Trying to backward through the graph a second time")
    assert msgs["second derivative without create_graph fails"] == (
        "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn")
    assert msgs["backward() of a vector output fails"] == (
        "RuntimeError: grad can be implicitly created only for scalar outputs")
    assert msgs["in-place on a leaf that requires grad fails"] == (
        "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.")
