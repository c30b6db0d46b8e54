"""Every Python block in README.md runs, and prints what its ``# output`` comments say.

The convention (``print(x.grad)   # tensor(7.)``) and the comparison are in
``_output_comments.py``.  Each block runs in a fresh interpreter, as a reader would paste it.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ._output_comments import RECORDING_PRINT, matches, mismatches, output_comments

ROOT = Path(__file__).resolve().parents[2]
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)

_RUNNER = RECORDING_PRINT + r"""
import json as _json
code = _sys.stdin.read()
scope = {"__name__": "__main__"}
if "import retrograd" not in code:
    exec("import retrograd as torch", scope)
exec(compile(code, "<block 0>", "exec"), scope)
_sys.stdout.flush()
_sys.stderr.write("\nRECORDED " + _json.dumps(PRINTED) + "\n")
"""


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_readme_block_prints_its_comments(i, tmp_path):
    p = subprocess.run([sys.executable, "-c", _RUNNER], input=BLOCKS[i], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    assert p.returncode == 0, p.stderr
    printed = json.loads(p.stderr.rsplit("\nRECORDED ", 1)[1])
    assert not mismatches({0: BLOCKS[i]}, printed), f"README block {i}: {mismatches({0: BLOCKS[i]}, printed)}"


def test_readme_has_output_comments():
    """The convention is in use (a changed README format would leave the test above checking nothing)."""
    assert sum(len(output_comments(b)) for b in BLOCKS) >= 10


def test_comment_reading():
    assert output_comments("x = 1\nprint(x)   # 1\nprint(x)\ny = 2  # not output\n") == {2: "1"}
    assert matches("<MulBackward0 object at 0x...>", "<MulBackward0 object at 0x7f00aa>\n")
    assert matches("tensor([[1., 2.], [3., 4.]])", "tensor([[1., 2.],\n        [3., 4.]])\n")
    assert not matches("tensor(7.)", "tensor(6.)\n")
    assert mismatches({0: "print(1)  # 2\n"}, [(0, 1, "1\n")])
    assert not mismatches({0: "print(1)  # 1\n"}, [(0, 1, "1\n")])
    assert mismatches({0: "print(1)  # 1\n"}, [])  # a commented print that never ran


def test_seed_graph_block_is_the_example_and_prints_the_tree_shown(tmp_path):
    """"See the graph": the code block is examples/seed_graph.py, and the text tree below it is
    what that script prints (its node lines name the script's own lines)."""
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("This is `examples/seed_graph.py`:"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    shown = re.search(r"prints the same graph as text.*?```\n(.*?)```", section, re.S).group(1)
    script = (ROOT / "examples" / "seed_graph.py").read_text()
    assert script.split("\n", 1)[1] == code  # (the file's first line is its docstring)
    # drawing and saving need graphviz; blank those lines (keeping the numbering) to print the tree alone
    lines = ["pass" if ln.startswith(("g = torch.viz.draw", "torch.viz.save")) else ln for ln in script.splitlines()]
    (tmp_path / "seed_graph.py").write_text("\n".join(lines) + "\n")
    p = subprocess.run([sys.executable, "seed_graph.py"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout == shown
