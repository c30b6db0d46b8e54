"""Train a small MLP on scikit-learn's bundled 8x8 digits, as ordinary PyTorch code.

Only the first line is retrograd's; change it to ``import torch`` and this file runs on PyTorch.
The demo runs it (``python -m retrograd demo``); it also runs on its own:
``python src/retrograd/demo/digits_mlp.py``.
"""
import retrograd as torch
from retrograd import nn, optim

import numpy as np
from sklearn.datasets import load_digits  # bundled with scikit-learn: no download
from sklearn.model_selection import train_test_split
from tqdm import tqdm


def load_data(seed: int = 0):
    """(X_train, y_train, X_test, y_test): pixels scaled to [0, 1], 25% held out for testing."""
    X, y = load_digits(return_X_y=True)
    X = (X / 16.0).astype(np.float32)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, random_state=seed, stratify=y)
    return (torch.tensor(X_tr), torch.tensor(y_tr, dtype=torch.long),
            torch.tensor(X_te), torch.tensor(y_te, dtype=torch.long))


def make_model(hidden: int = 128):
    return nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, 10))


def compute_loss(model, loss_fn, X, y):
    logits = model(X)  # the forward pass records the graph as it runs
    return loss_fn(logits, y)


def accuracy(model, X, y) -> float:
    with torch.no_grad():
        logits = model(X)
    return float((logits.numpy().argmax(axis=1) == y.numpy()).mean())


def train(epochs: int = 30, batch_size: int = 32, lr: float = 1e-2, seed: int = 0, progress: bool = True):
    """Adam on cross-entropy; returns (model, loss_fn, data, history)."""
    torch.manual_seed(seed)
    X_tr, y_tr, X_te, y_te = data = load_data(seed)
    model = make_model()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=lr)
    history = {"step_loss": [], "epoch_loss": [], "test_acc": [], "train_acc": []}
    n = X_tr.shape[0]
    bar = tqdm(range(epochs), desc="training", unit="epoch", disable=not progress)
    for _ in bar:
        perm = torch.randperm(n)
        losses = []
        for i in range(0, n, batch_size):
            idx = perm[i:i + batch_size]
            loss = compute_loss(model, loss_fn, X_tr[idx], y_tr[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        history["step_loss"] += losses
        history["epoch_loss"].append(sum(losses) / len(losses))
        history["train_acc"].append(accuracy(model, X_tr, y_tr))
        history["test_acc"].append(accuracy(model, X_te, y_te))
        bar.set_postfix(loss=f"{history['epoch_loss'][-1]:.3f}", test_acc=f"{history['test_acc'][-1]:.3f}")
    return model, loss_fn, data, history


if __name__ == "__main__":
    model, _, (_, _, X_te, y_te), history = train()
    print(f"test accuracy: {history['test_acc'][-1]:.2%}")
