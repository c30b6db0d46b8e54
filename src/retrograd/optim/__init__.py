"""Optimizers (``retrograd.optim``) and learning-rate schedulers (``retrograd.optim.lr_scheduler``).

Each optimizer reproduces PyTorch's single-tensor update, operation by operation.

>>> import retrograd as torch
>>> w = torch.tensor([1.0, -2.0], requires_grad=True)
>>> opt = torch.optim.Adam([w], lr=0.1)
>>> for _ in range(3):
...     opt.zero_grad(); (w * w).sum().backward(); opt.step()
>>> w
tensor([ 0.7016, -1.7006], requires_grad=True)
"""
from . import lr_scheduler, swa_utils  # noqa: F401
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .muon import Muon
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam",
           "LBFGS", "ASGD", "Rprop", "Adafactor", "SparseAdam", "Muon", "lr_scheduler", "swa_utils"]
