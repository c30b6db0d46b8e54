"""The demo that ``make demo`` / ``python -m retrograd demo`` runs.

(a) every seed example: its code, what it prints, its graph (SVG, and a text tree here);
(b) a small MLP trained on scikit-learn's digits with retrograd's nn and optim;
(c) OUT/index.html showing all of it.  ``quick`` trains fewer epochs (CI: under 30 s).
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from . import report
from .seed_examples import run_all

DEMO_EXTRAS = "pip install 'retrograd[demo]'  (graphviz, matplotlib, scikit-learn, tqdm)"


class _Renderer:
    """Draw and save graphs; without graphviz, keep going with .dot files (or text) and say so once."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.notes: list[str] = []
        self.can_draw = True

    def note(self, msg: str) -> None:
        if msg not in self.notes:
            self.notes.append(msg)
            print(f"NOTE: {msg}\n")

    def __call__(self, roots, params, rel: str, caption: str, show_saved: bool = False) -> report.Picture:
        from .. import viz

        pic = report.Picture(caption, text=viz.tree(roots, params=params, show_saved=show_saved))
        if not roots or not self.can_draw:
            return pic
        try:
            graph = viz.draw(roots, params=params, show_saved=show_saved)
        except ImportError as exc:
            self.can_draw = False
            self.note(f"graphs are shown as text only: {exc}")
            return pic
        path = self.out / rel
        try:
            viz.save(graph, path)
            pic.image = rel
        except viz.GraphvizNotFound as exc:
            self.note(str(exc).splitlines()[0] + " The demo writes .dot files instead.")
        pic.dot = str(Path(rel).with_suffix(".dot"))
        return pic


def _seed_part(render: _Renderer, page: report.Page) -> None:
    for res in run_all():
        print(f"=== {res.index}. {res.title}")
        print(res.code.rstrip())
        print("--- prints:")
        print(res.output.rstrip() or "(nothing)")
        pic = render(res.roots, res.params, f"seed/{res.filename[:-3]}.svg", f"the graph of seed example {res.index}",
                     show_saved=True)
        if pic.text:
            print("--- graph:")
            print(pic.text)
        if pic.image:
            print(f"--- drawn: {render.out / pic.image}")
        print()
        page.seeds.append((res.title, res.code, res.output, pic))


def _digits_part(render: _Renderer, page: report.Page, quick: bool, summary: dict) -> bool:
    print("=== An MLP on scikit-learn's digits (retrograd.nn + retrograd.optim)")
    try:
        import matplotlib  # noqa: F401
        import sklearn  # noqa: F401
        import tqdm  # noqa: F401

        from . import digits
    except ImportError as exc:
        return _skip(page, summary, f"skipped the MLP: {exc}. Install the demo extras: {DEMO_EXTRAS}")
    from .. import nn, optim

    missing = [f"nn.{n}" for n in ("Sequential", "Linear", "ReLU", "CrossEntropyLoss") if not hasattr(nn, n)]
    missing += [f"optim.{n}" for n in ("Adam",) if not hasattr(optim, n)]
    if missing:
        return _skip(page, summary, f"skipped the MLP: retrograd lacks {', '.join(missing)}")
    res = digits.run(quick)
    ok = res.test_acc >= digits.TARGET
    print(f"test accuracy after {res.epochs} epochs: {res.test_acc:.2%} "
          f"({'meets' if ok else 'BELOW'} the {digits.TARGET:.0%} target)")
    plot = digits.plot(res.history, render.out / "digits" / "training.png")
    print(f"--- plot: {plot}")
    step = render(res.step_roots, res.step_params, "digits/train_step.svg",
                  "one training step: forward graph, saved tensors, parameter gradients", show_saved=True)
    if step.image:
        print(f"--- one training step's graph: {render.out / step.image}")
    page.digits = {"accuracy": res.test_acc, "target": digits.TARGET, "epochs": res.epochs,
                   "description": "64 pixels -> Linear(64, 128) -> ReLU -> Linear(128, 10), cross-entropy, Adam; "
                                  "1347 training and 450 test images.",
                   "code": digits.SCRIPT.read_text(encoding="utf-8"),
                   "plot": report.Picture("loss and accuracy per epoch", image="digits/training.png"),
                   "step": step}
    summary["digits"] = {"test_accuracy": res.test_acc, "epochs": res.epochs, "target": digits.TARGET,
                         "history": res.history}
    return ok


def _skip(page: report.Page, summary: dict, msg: str) -> bool:
    print(msg)
    page.digits = {"skipped": msg}
    summary["digits"] = {"skipped": msg}
    return False


def run_demo(out: str = "demo-out", quick: bool = False) -> int:
    """Run the whole demo into folder ``out``; 0 when the MLP reached its target accuracy."""
    t0 = time.perf_counter()
    outdir = Path(out)
    outdir.mkdir(parents=True, exist_ok=True)
    render = _Renderer(outdir)
    page = report.Page()
    summary: dict = {"quick": quick}
    _seed_part(render, page)
    ok = _digits_part(render, page, quick, summary)
    page.notes = render.notes
    index = report.write(page, outdir / "index.html")
    summary.update(seconds=round(time.perf_counter() - t0, 2), notes=render.notes,
                   seed_graphs=[p.image or p.dot for _, _, _, p in page.seeds])
    (outdir / "summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    print(f"\nWrote {index} (open it in a browser) in {summary['seconds']:.1f} s.")
    return 0 if ok else 1
