"""The op table.  Each family module holds primitives (forward + rules) side by side with
the public functions built on them; this package re-exports the public functions.

Find any op's derivative by searching for ``primitive("<name>"``.
"""
from ._registry import OPS, apply, apply_inplace, primitive  # noqa: F401
from .convert import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .pointwise import *  # noqa: F401,F403
from .reduce import *  # noqa: F401,F403
from .shape import *  # noqa: F401,F403
from .views_inplace import *  # noqa: F401,F403
from .nn_ops import *  # noqa: F401,F403
from .shape_more import *  # noqa: F401,F403
from .indexing_more import *  # noqa: F401,F403
from .reduce_more import *  # noqa: F401,F403
from .linalg_more import *  # noqa: F401,F403
from .pointwise_more import *  # noqa: F401,F403
from .logical import *  # noqa: F401,F403
from .misc_more import *  # noqa: F401,F403
from .tensor_extras import *  # noqa: F401,F403
from .nn_ops_more import *  # noqa: F401,F403
from .api_extras import *  # noqa: F401,F403
from .special_fns import *  # noqa: F401,F403
from .linalg_lu import *  # noqa: F401,F403
from .linalg_householder import *  # noqa: F401,F403
from .linalg_legacy import *  # noqa: F401,F403
from .nn_fused import *  # noqa: F401,F403
from .nn_pad import *  # noqa: F401,F403
from .linalg_ldl import *  # noqa: F401,F403
from .api_names import *  # noqa: F401,F403
from .nn_native import *  # noqa: F401,F403
from .nn_rnn_functional import *  # noqa: F401,F403

from ._out_table import give_out as _give_out  # noqa: E402

_give_out(globals())  # out= for the functions that lack it (the package namespace only)
del _give_out
