"""retrograd.viz: draw() (checked on its DOT source and rendered SVG/PNG), tree(), save(), the draw CLI."""
import os
import re
import sys
import xml.etree.ElementTree as ET

import pytest

import retrograd as torch
from retrograd import viz

graphviz = pytest.importorskip("graphviz")  # a test extra; draw() itself says how to install it
needs_dot = pytest.mark.skipif(not viz.dot_available(), reason="graphviz's dot program is not installed")
HERE = os.path.basename(__file__)

NODE = re.compile(r'^\s*(n\d+) \[label=(?:"((?:[^"\\]|\\.)*)"|(\w+))(.*)\]$')
EDGE = re.compile(r"^\s*(n\d+) -> (n\d+)(?: \[(.*)\])?$")


def _here() -> int:
    return sys._getframe(1).f_lineno


def parse(source: str):
    """DOT text -> ({id: (label lines, attrs)}, [(tail, head, attrs)])."""
    nodes, edges = {}, []
    for line in source.splitlines():
        m = NODE.match(line)
        if m:
            label = m.group(2) if m.group(2) is not None else m.group(3)
            attrs = dict(re.findall(r"(\w+)=(\S+)", m.group(4)))
            nodes[m.group(1)] = (label.replace('\\"', '"').split("\\n"), attrs)
            continue
        m = EDGE.match(line)
        if m:
            edges.append((m.group(1), m.group(2), dict(re.findall(r"(\w+)=(\S+)", m.group(3) or ""))))
    return nodes, edges


def seed_graph():
    """The seed document's y = (x + 1) * (x + 2), with the line numbers that made each node."""
    x = torch.tensor(2., requires_grad=True)
    a = torch.add(x, 1)
    la = _here() - 1
    b = torch.add(x, 2)
    lb = _here() - 1
    y = torch.mul(a, b)
    ly = _here() - 1
    return x, a, b, y, (la, lb, ly)


def by_first_lines(nodes, edges):
    """Nodes and edges keyed by their labels' first two lines (unique in these graphs)."""
    key = {nid: " | ".join(lines[:2]) for nid, (lines, _) in nodes.items()}
    return ({key[n]: v for n, v in nodes.items()},
            sorted((key[t], key[h], tuple(sorted(a.items()))) for t, h, a in edges))


def expected_seed(show_saved: bool, grads: bool = False):
    nodes = {
        "y | () float32": "darkolivegreen1",
        "MulBackward0 | y: () float32": None,
        "AddBackward0 | a: () float32": None,
        "AddBackward0 | b: () float32": None,
        "AccumulateGrad": None,
        "x | () float32": "lightblue",
    }
    edges = [
        ("MulBackward0 | y: () float32", "y | () float32", ()),
        ("AddBackward0 | a: () float32", "MulBackward0 | y: () float32", ()),
        ("AddBackward0 | b: () float32", "MulBackward0 | y: () float32", ()),
        ("AccumulateGrad", "AddBackward0 | a: () float32", ()),
        ("AccumulateGrad", "AddBackward0 | b: () float32", ()),
        ("x | () float32", "AccumulateGrad", ()),
    ]
    if show_saved:
        nodes["saved a | () float32"] = "orange"
        nodes["saved b | () float32"] = "orange"
        edges += [("MulBackward0 | y: () float32", "saved a | () float32", (("dir", "none"),)),
                  ("MulBackward0 | y: () float32", "saved b | () float32", (("dir", "none"),))]
    return nodes, sorted(edges)


@pytest.mark.parametrize("show_saved", [False, True])
def test_seed_graph_nodes_and_edges(show_saved):
    x, a, b, y, (la, lb, ly) = seed_graph()
    g = viz.draw(y, params={"x": x, "a": a, "b": b, "y": y}, show_saved=show_saved)
    assert isinstance(g, graphviz.Digraph)
    nodes, edges = by_first_lines(*parse(g.source))
    want_nodes, want_edges = expected_seed(show_saved)
    assert set(nodes) == set(want_nodes)
    assert edges == want_edges
    for k, colour in want_nodes.items():
        assert nodes[k][1].get("fillcolor") == colour, k
    # each backward node names the user's line that made it
    assert nodes["MulBackward0 | y: () float32"][0] == ["MulBackward0", "y: () float32",
                                                        f"{HERE}:{ly}  y = torch.mul(a, b)"]
    assert nodes["AddBackward0 | a: () float32"][0][2] == f"{HERE}:{la}  a = torch.add(x, 1)"
    assert nodes["AddBackward0 | b: () float32"][0][2] == f"{HERE}:{lb}  b = torch.add(x, 2)"
    assert nodes["x | () float32"][0] == ["x", "() float32", "requires_grad=True"]
    if show_saved:
        assert nodes["saved a | () float32"][0] == ["saved a", "() float32", "version 0"]


def test_seed_graph_without_names_and_after_backward():
    *_, y, _ = seed_graph()
    y.backward()
    nodes, edges = parse(viz.draw(y, show_saved=True).source)
    assert len(nodes) == 6 and len(edges) == 6  # backward freed the saved tensors: none drawn
    labels = {n: lines for n, (lines, _) in nodes.items()}
    assert ["output", "() float32"] in labels.values()
    leaf = next(lines for lines, attrs in nodes.values() if attrs.get("fillcolor") == "lightblue")
    assert leaf == ["() float32", "requires_grad=True", "grad norm=7"]
    mul = next(lines for lines in labels.values() if lines[0] == "MulBackward0")
    assert mul[-1] == "saved tensors: freed by backward"
    assert "saved tensors" not in viz.draw(y, show_saved=False).source
    assert "grad norm" not in viz.draw(y, show_grads=False).source


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_nan_inf_grads_are_flagged_on_leaves_and_retained_tensors():
    w = torch.tensor([1., float("inf")], requires_grad=True)
    v = torch.tensor([1., 2.], requires_grad=True)
    h = w * 0  # inf * 0 = nan
    h.retain_grad()
    loss = (h * v).sum()
    loss.backward()
    nodes, _ = parse(viz.draw(loss, params={"w": w, "v": v, "h": h}).source)
    lines = {ls[0]: (ls, attrs) for ls, attrs in nodes.values()}
    wl, wa = lines["w"]
    assert wl[-1] == "grad norm=0" and "color" not in wa  # dw = dh * 0: finite
    vl, va = lines["v"]
    assert vl[-2:] == ["grad norm=nan", "!! NaN in grad"] and va["color"] == "red"  # dv = h = [0, nan]
    mul = next((ls, a) for ls, a in nodes.values() if ls[0] == "MulBackward0" and ls[1].startswith("h:"))
    assert "grad norm=2.236" in mul[0] and "color" not in mul[1]  # h's retained grad is v: finite
    x = torch.tensor([1.], requires_grad=True)
    (x * float("inf")).sum().backward()
    nodes, _ = parse(viz.draw(x * 1).source)
    xl, xa = next((ls, a) for ls, a in nodes.values() if a.get("fillcolor") == "lightblue")
    assert "!! Inf in grad" in xl and xa["color"] == "red"


def test_saved_tensor_modified_in_place_is_flagged():
    x = torch.tensor([1., 2.], requires_grad=True)
    a = x * 2
    y = a * a
    a.add_(1)
    nodes, _ = parse(viz.draw(y, params={"a": a, "x": x}, show_saved=True).source)
    saved = {ls[0]: (ls, at) for ls, at in nodes.values() if at.get("fillcolor") == "orange"}
    stale = [saved.pop("saved a"), saved.pop("saved b = a")]  # y = a * a saved a twice
    for ls, at in stale:
        assert ls[1:] == ["(2,) float32", "version 0", "now version 1: modified in place",
                          "!! saved tensor modified in place"]
        assert at["color"] == "red"
    # x * 2 saved only the constant 2 (x would serve only the gradient of 2, which needs none: as torch)
    assert sorted(saved) == ["saved b"]
    assert all("color" not in at for _, at in saved.values())


def test_roots_list_tuple_and_shared_nodes():
    x = torch.tensor([1., 2.], requires_grad=True)
    h = x * 3
    p, q = h.sum(), (h * h).sum()
    for roots in ([p, q], (p, q), [p, q, p]):
        nodes, _ = parse(viz.draw(roots).source)
        outputs = [n for n, (_, a) in nodes.items() if a.get("fillcolor") == "darkolivegreen1"]
        assert len(outputs) == 2
        assert sum(1 for ls, _ in nodes.values() if ls[0] == "MulBackward0") == 2  # h's node drawn once
    with pytest.raises(TypeError, match="roots"):
        viz.draw([p, 3])
    with pytest.raises(TypeError, match="roots"):
        viz.draw("p")


def test_params_from_a_module_and_leaf_roots():
    class Module:  # anything with named_parameters(), as nn.Module
        def __init__(self):
            self.w = torch.ones(2, 3, requires_grad=True)

        def named_parameters(self):
            yield "layer.weight", self.w

    m = Module()
    x = torch.ones(3)
    out = torch.mv(m.w, x).sum()
    nodes, _ = parse(viz.draw(out, params=m).source)
    assert ["layer.weight", "(2, 3) float32", "requires_grad=True"] in [ls for ls, _ in nodes.values()]
    nodes, edges = parse(viz.draw(m.w, params=m).source)  # a leaf root: one node
    assert [ls for ls, _ in nodes.values()] == [["layer.weight", "(2, 3) float32", "leaf, requires_grad=True"]]
    assert edges == []


@needs_dot
def test_labels_are_literal(tmp_path):
    """Backslashes and quotes in source lines are drawn as written, not read as DOT escapes."""
    x = torch.tensor(1., requires_grad=True)
    y = x * len('a\\nb"')
    viz.save(viz.draw(y), tmp_path / "g.svg")
    texts = [t.text for t in ET.parse(tmp_path / "g.svg").getroot().iter("{http://www.w3.org/2000/svg}text")]
    assert any(t.endswith("""y = x * len('a\\\\nb"')""") for t in texts), texts


def test_deep_graph_is_walked_iteratively():
    x = torch.tensor(1., requires_grad=True)
    y = x
    for _ in range(3000):
        y = y * 1.0
    depth, f = 0, sys._getframe()
    while f is not None:
        depth, f = depth + 1, f.f_back
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + 300)  # a recursive walk of 3000 nodes would fail here
    try:
        src = viz.draw(y, show_saved=True).source
        text = viz.tree(y, params={"x": x})
    finally:
        sys.setrecursionlimit(limit)
    assert src.count("MulBackward0") == 3000
    lines = text.splitlines()
    assert len(lines) == 3000 + 3
    assert max(len(ln) for ln in lines) < 400  # indentation stops growing: linear-size text
    assert lines[-1].lstrip().startswith("└─ (depth 3002) x")


def test_tree_text():
    x, a, b, y, (la, lb, ly) = seed_graph()
    text = viz.tree(y, params={"x": x, "a": a, "b": b, "y": y}, show_saved=True, show_grads=False)
    assert text.splitlines() == [
        "y  () float32",
        f"└─ MulBackward0  y: () float32  {HERE}:{ly}  y = torch.mul(a, b)",
        f"   ├─ AddBackward0  a: () float32  {HERE}:{la}  a = torch.add(x, 1)",
        "   │  └─ AccumulateGrad [#1]",
        "   │     └─ x  () float32  requires_grad=True",
        f"   ├─ AddBackward0  b: () float32  {HERE}:{lb}  b = torch.add(x, 2)",
        "   │  └─ ^ [#1] AccumulateGrad (shared, shown above)",
        "   ├─ saved a  () float32  version 0",
        "   └─ saved b  () float32  version 0",
    ]
    y.backward()
    assert "└─ () float32  requires_grad=True  grad norm=7" in viz.tree([y, y])
    assert viz.tree([y, y]).startswith("output  () float32\n")  # one root, unnamed


@needs_dot
def test_rendered_svg_and_png(tmp_path):
    x, a, b, y, _ = seed_graph()
    g = viz.draw(y, params={"x": x, "a": a, "b": b, "y": y}, show_saved=True)
    nodes, edges = parse(g.source)
    written = viz.save(g, tmp_path / "seed.svg", formats=("svg", "png"))
    assert [p.name for p in written] == ["seed.dot", "seed.svg", "seed.png"]
    assert (tmp_path / "seed.dot").read_text() == g.source
    root = ET.parse(tmp_path / "seed.svg").getroot()
    ns = {"s": "http://www.w3.org/2000/svg"}
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    drawn = {}
    for el in root.iterfind(".//s:g", ns):
        cls, title = el.get("class"), el.findtext("s:title", namespaces=ns)
        texts = [t.text for t in el.iterfind("s:text", ns)]
        if cls == "node":
            drawn[title] = texts
        elif cls == "edge":
            drawn[title.replace("&#45;", "-")] = texts
    for nid, (lines, _) in nodes.items():
        assert [t.replace("\xa0", " ") for t in drawn[nid]] == [ln.replace("\\\\", "\\") for ln in lines]
    for t, h, _ in edges:
        assert f"{t}->{h}" in drawn
    assert len(drawn) == len(nodes) + len(edges) == 16
    assert (tmp_path / "seed.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bundle = g._repr_mimebundle_()
    assert "image/svg+xml" in bundle and "MulBackward0" in bundle["image/svg+xml"]


def test_missing_dot_is_explained(tmp_path, monkeypatch):
    import shutil

    *_, y, _ = seed_graph()
    g = viz.draw(y)
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    assert not viz.dot_available()
    with pytest.raises(viz.GraphvizNotFound, match="apt-get install graphviz"):
        viz.save(g, tmp_path / "g.svg")
    assert (tmp_path / "g.dot").read_text() == g.source  # the DOT source is kept
    assert not (tmp_path / "g.svg").exists()
    assert viz.save(g, tmp_path / "h.dot") == [tmp_path / "h.dot"]  # DOT needs no dot
    bundle = g._repr_mimebundle_()
    assert list(bundle) == ["text/plain"] and "apt-get install graphviz" in bundle["text/plain"]


def test_missing_graphviz_package_is_explained(monkeypatch):
    from retrograd.viz import _draw as draw_mod

    monkeypatch.setitem(sys.modules, "graphviz", None)
    monkeypatch.setattr(draw_mod, "_drawing_cls", None)
    x = torch.tensor(1., requires_grad=True)
    with pytest.raises(ImportError, match="pip install graphviz"):
        viz.draw(x * 2)
    assert "MulBackward0" in viz.tree(x * 2)  # the text tree needs nothing


def test_viz_import_does_not_import_graphviz():
    import subprocess

    code = "import sys, retrograd; retrograd.viz.tree(retrograd.ones(1)); print('graphviz' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


SCRIPT = """\
import retrograd as torch
x = torch.tensor([1., 2.], requires_grad=True)
h = x * x
y = h.sum()
if __name__ == "__main__":
    y.backward(retain_graph=True)
"""


def test_cli_draw(tmp_path, capsys, monkeypatch):
    from retrograd.cli import main

    script = tmp_path / "prog.py"
    script.write_text(SCRIPT)
    monkeypatch.chdir(tmp_path)
    assert main(["draw", f"{script}:y", "--tree", "--saved"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "y  () float32"
    assert "x  (2,) float32  requires_grad=True  grad norm=4.472" in out  # ran as __main__
    assert "saved a = x  (2,) float32  version 0" in out
    if viz.dot_available():
        assert main(["draw", "prog.py:[y, h]", "--out", "g.png"]) == 0
        assert (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG"
        assert main(["draw", "prog.py:y"]) == 0
        ET.parse(tmp_path / "prog_graph.svg")
    assert main(["draw", "prog.py:y", "--out", "g.dot"]) == 0
    assert "SumBackward0" in (tmp_path / "g.dot").read_text()
    assert main(["draw", "prog.py:nope"]) == 2
    assert main(["draw", "prog.py:3"]) == 2
    assert "NameError" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["draw", "prog.py"])
    with pytest.raises(SystemExit):
        main(["draw", "missing.py:y"])


def test_cli_help():
    import subprocess

    for args, says in ((["--help"], "draw"), (["draw", "--help"], "SCRIPT.py:EXPR"), (["demo", "--help"], "--quick")):
        p = subprocess.run([sys.executable, "-m", "retrograd", *args], capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        assert p.stdout.startswith("usage: python -m retrograd") and says in p.stdout


def test_saved_outputs_label_their_dtype_as_every_other_label():
    # (issue 16: a saved output said "torch.float32" where inputs and nodes say "float32")
    from retrograd.viz._walk import build

    x = torch.ones(2, requires_grad=True)
    y = x.exp() * x  # exp saves its output, mul saves its inputs
    m = build(y, show_saved=True)
    metas = [n.lines[1] for n in m.nodes.values() if n.kind == "saved"]
    assert metas and set(metas) == {"(2,) float32"}
