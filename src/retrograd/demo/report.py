"""Part (c) of the demo: index.html, one page showing every example, graph and plot."""
from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path

CSS = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; }
pre { background: #f6f8fa; padding: .8em; white-space: pre-wrap; overflow-wrap: anywhere; border-radius: 4px;
      font-size: 90%; }
section { border-top: 1px solid #ddd; padding: .6em 0 1.2em; }
.pair { display: flex; gap: 1.5em; flex-wrap: wrap; align-items: flex-start; }
.pair > div { flex: 1 1 380px; min-width: 0; }
img { max-width: 100%; height: auto; }
.note { background: #fff4d6; padding: .6em; border-radius: 4px; }
.ok { color: #1a7f37; font-weight: bold; } .bad { color: #cf222e; font-weight: bold; }
"""


@dataclass
class Picture:
    """A drawing or plot: ``image`` when rendered, else only the DOT source ``dot``."""

    caption: str
    image: str | None = None  # path relative to index.html
    dot: str | None = None
    text: str | None = None  # the same graph as a text tree


@dataclass
class Page:
    seeds: list = field(default_factory=list)  # (title, code, output, Picture)
    digits: dict | None = None  # accuracy, epochs, plot: Picture, step: Picture
    notes: list = field(default_factory=list)


def _picture(p: Picture | None) -> str:
    if p is None:
        return ""
    e = html.escape
    parts = []
    if p.image:
        parts.append(f'<figure><img src="{e(p.image)}" alt="{e(p.caption)}"><figcaption>{e(p.caption)}'
                     "</figcaption></figure>")
    elif p.dot:
        parts.append(f'<p class="note">{e(p.caption)}: not rendered (graphviz\'s <code>dot</code> is missing); '
                     f'<a href="{e(p.dot)}">DOT source</a>.</p>')
    if p.text:
        parts.append(f"<details><summary>as text (retrograd.viz.tree)</summary><pre>{e(p.text)}</pre></details>")
    return "\n".join(parts)


def write(page: Page, path: Path) -> Path:
    e = html.escape
    out = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>retrograd demo</title>", f"<style>{CSS}</style></head><body>",
           "<h1>retrograd demo</h1>",
           "<p>PyTorch's autograd, define-by-run, on NumPy. Every example of the seed document ran with "
           "<code>import retrograd as torch</code>; each graph is drawn by <code>retrograd.viz.draw</code> "
           "(grey: backward nodes with the line that made them, blue: leaves with their gradient's norm, "
           "green: the result, orange: tensors saved for backward).</p>"]
    for note in page.notes:
        out.append(f'<p class="note">{e(note)}</p>')
    if page.digits is not None:
        out.append('<p><a href="#digits">Jump to the MLP trained on digits</a></p>')
    out.append("<h2>The seed examples</h2>")
    for i, (title, code, output, pic) in enumerate(page.seeds, 1):
        out.append(f'<section id="seed-{i}"><h3>{i}. {e(title)}</h3><div class="pair"><div>'
                   f"<pre>{e(code.rstrip())}</pre><p>prints:</p><pre>{e(output.rstrip()) or '(nothing)'}</pre>"
                   f"</div><div>{_picture(pic)}</div></div></section>")
    d = page.digits
    if d is not None:
        out.append('<h2 id="digits">An MLP on scikit-learn\'s digits</h2>')
        if "skipped" in d:
            out.append(f'<p class="note">{e(d["skipped"])}</p>')
        else:
            cls = "ok" if d["accuracy"] >= d["target"] else "bad"
            out.append(f"<p>{e(d['description'])}</p>"
                       f'<p>Test accuracy after {d["epochs"]} epochs: <span class="{cls}">{d["accuracy"]:.2%}</span>'
                       f" (target {d['target']:.0%}).</p>"
                       f"<details><summary>the training code (digits_mlp.py)</summary><pre>{e(d['code'])}</pre>"
                       "</details>")
            out.append(_picture(d["plot"]))
            out.append("<h3>The graph of one training step</h3>")
            out.append(_picture(d["step"]))
    out.append("</body></html>")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(out), encoding="utf-8")
    return path
