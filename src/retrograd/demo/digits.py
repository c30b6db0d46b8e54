"""Part (b) of the demo: train the digits MLP (digits_mlp.py), plot it, draw one training step."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

SCRIPT = Path(__file__).with_name("digits_mlp.py")
EPOCHS = 30
QUICK_EPOCHS = 10
TARGET = 0.95  # the test accuracy the demo promises


@dataclass
class DigitsResult:
    epochs: int
    test_acc: float
    history: dict
    model: object = None
    step_roots: list = field(default_factory=list)
    step_params: dict = field(default_factory=dict)


def load_script() -> dict:
    """digits_mlp.py's namespace, run as a script (not as a retrograd module).

    Running it under its own ``__name__`` matters: node labels show the first source line
    outside retrograd, which is then the script's own line (``digits_mlp.py:47``).
    """
    ns = {"__name__": "digits_mlp", "__file__": str(SCRIPT)}
    exec(compile(SCRIPT.read_text(encoding="utf-8"), str(SCRIPT), "exec"), ns)  # noqa: S102 - our own file
    return ns


def run(quick: bool) -> DigitsResult:
    ns = load_script()
    epochs = QUICK_EPOCHS if quick else EPOCHS
    model, loss_fn, (X_tr, y_tr, _, _), history = ns["train"](epochs=epochs)
    res = DigitsResult(epochs, history["test_acc"][-1], history, model)
    # One training step, kept whole for drawing: its graph, saved tensors and the grads it gave.
    loss = ns["compute_loss"](model, loss_fn, X_tr[:32], y_tr[:32])  # node labels: the script's lines
    model.zero_grad()
    loss.backward(retain_graph=True)  # retain: the drawing shows what backward saved
    res.step_roots = [loss]
    res.step_params = {"loss": loss, **dict(model.named_parameters())}
    return res


def plot(history: dict, path: Path) -> Path:
    """Loss per step and per epoch, train/test accuracy per epoch: one PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = history["step_loss"]
    per_epoch = len(steps) / max(1, len(history["epoch_loss"]))
    epochs = range(1, len(history["test_acc"]) + 1)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
    ax1.plot([i / per_epoch for i in range(len(steps))], steps, lw=0.6, alpha=0.5, label="batch")
    ax1.plot(list(epochs), history["epoch_loss"], "o-", label="epoch mean")
    ax1.set(xlabel="epoch", ylabel="cross-entropy loss", title="training loss", yscale="log")
    ax1.legend()
    ax2.plot(list(epochs), history["train_acc"], "o-", label="train")
    ax2.plot(list(epochs), history["test_acc"], "o-", label="test")
    ax2.axhline(TARGET, color="grey", ls="--", lw=1, label=f"{TARGET:.0%}")
    ax2.set(xlabel="epoch", ylabel="accuracy", title="accuracy", ylim=(0.5, 1.0))
    ax2.legend(loc="lower right")
    fig.suptitle("retrograd: a 64-128-10 MLP on scikit-learn's digits")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
