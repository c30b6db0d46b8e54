"""``retrograd.nn``: modules, parameters, functional, init and utils, as in ``torch.nn``.

>>> import retrograd as torch
>>> net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
>>> net(torch.zeros(2, 4)).shape
torch.Size([2, 1])
"""
from . import functional, grad, init, utils  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401
from . import parallel  # noqa: F401,E402
from . import attention  # noqa: F401,E402
from .parallel import DataParallel  # noqa: F401,E402
