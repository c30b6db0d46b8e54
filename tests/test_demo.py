"""The README's first command: ``python -m retrograd demo`` (here in --quick mode, as CI runs it)."""
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest


from retrograd import viz  # noqa: E402
from retrograd.demo.seed_blocks import BLOCKS  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n"


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.imgs, self.hrefs = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img":
            self.imgs.append(a["src"])
        elif tag == "a" and not a.get("href", "#").startswith(("#", "http")):
            self.hrefs.append(a["href"])


def check_image(path: Path) -> str:
    """'svg' or 'png' when ``path`` is a valid one of them, else an assertion fails."""
    data = path.read_bytes()
    if path.suffix == ".png":
        assert data[:8] == PNG and data[12:16] == b"IHDR", path
        return "png"
    assert path.suffix == ".svg", path
    root = ET.fromstring(data)
    assert root.tag == "{http://www.w3.org/2000/svg}svg", path
    return "svg"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    p = subprocess.run([sys.executable, "-m", "retrograd", "demo", "--quick", "--out", str(out)],
                       capture_output=True, text=True, timeout=120)
    return out, p


def test_quick_demo_runs_and_trains(demo):
    out, p = demo
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["quick"] is True
    assert summary["seconds"] < 30
    d = summary["digits"]
    assert d["test_accuracy"] >= 0.95
    assert len(d["history"]["test_acc"]) == d["epochs"]
    assert f"test accuracy after {d['epochs']} epochs: {d['test_accuracy']:.2%}" in p.stdout
    assert "training" in p.stderr  # tqdm's progress bar


def test_demo_walks_through_every_seed_example(demo):
    _, p = demo
    for i, (title, code) in enumerate(BLOCKS, 1):
        assert f"=== {i}. {title}\n{code.rstrip()}\n--- prints:\n" in p.stdout
    assert "tensor(7.)\n--- graph:\ny  () float32\n└─ MulBackward0  y: () float32  seed_01.py:5  y = torch.mul(a, b)" \
        in p.stdout
    assert "RuntimeError: grad can be implicitly created only for scalar outputs" in p.stdout


def test_demo_output_files(demo):
    out, _ = demo
    n = len(BLOCKS)
    dots = sorted(out.glob("seed/seed_*.dot"))
    assert [d.name for d in dots] == [f"seed_{i:02d}.dot" for i in range(1, n + 1)]
    assert "MulBackward0" in (out / "seed/seed_01.dot").read_text()
    check_image(out / "digits/training.png")
    step = (out / "digits/train_step.dot").read_text()
    for name in ("0.weight", "0.bias", "2.weight", "2.bias", "grad norm=", "loss"):
        assert name in step
    if viz.dot_available():
        for i in range(1, n + 1):
            check_image(out / f"seed/seed_{i:02d}.svg")
        assert "AccumulateGrad" in (out / "digits/train_step.svg").read_text()


def test_index_html_references_only_valid_images(demo):
    out, _ = demo
    page = (out / "index.html").read_text()
    links = Links()
    links.feed(page)
    kinds = [check_image(out / src) for src in links.imgs]
    assert "png" in kinds  # the training plot
    if viz.dot_available():
        assert kinds.count("svg") == len(BLOCKS) + 1  # every seed graph and the training step
    for href in links.hrefs:
        assert (out / href).is_file(), href
    for title, _ in BLOCKS:
        assert f"{title.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')}</h3>" in page
    summary = json.loads((out / "summary.json").read_text())
    assert f"{summary['digits']['test_accuracy']:.2%}" in page


def test_without_dot_the_demo_writes_dot_files_and_says_so(tmp_path, monkeypatch, capsys):
    import shutil

    from retrograd.demo import report, run

    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    render = run._Renderer(tmp_path)
    page = report.Page()
    run._seed_part(render, page)
    page.notes = render.notes
    report.write(page, tmp_path / "index.html")
    assert len(render.notes) == 1 and "apt-get install graphviz" in render.notes[0]
    assert capsys.readouterr().out.count("apt-get install graphviz") == 1  # said once, not per graph
    assert not list(tmp_path.glob("seed/*.svg"))
    links = Links()
    links.feed((tmp_path / "index.html").read_text())
    assert links.imgs == []
    assert sorted(links.hrefs) == [f"seed/seed_{i:02d}.dot" for i in range(1, len(BLOCKS) + 1)]
    for href in links.hrefs:
        assert "digraph" in (tmp_path / href).read_text()
