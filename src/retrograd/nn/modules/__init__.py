"""All layer classes (``retrograd.nn.modules``)."""
from .activation import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .flatten import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .module import Module  # noqa: F401
from .normalization import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pixelshuffle import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .fold import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403
from .rnn_cells import *  # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .lazy import LazyModuleMixin  # noqa: F401
from .lazy_layers import *  # noqa: F401,F403
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: F401
from .syncbatchnorm import SyncBatchNorm  # noqa: F401
from . import batchnorm  # noqa: F401 - PyTorch's module path for the batch-norm classes
from .legacy import Container, CrossMapLRN2d  # noqa: F401
from .linear_cross_entropy import *  # noqa: F401,F403
from . import utils  # noqa: F401,E402 - torch.nn.modules.utils (attribute access, as in torch)

# ``from .modules import *`` in nn/__init__ must not rebind ``nn.utils`` to this package's ``utils``
__all__ = [name for name in dir() if not name.startswith("_") and name != "utils"]
