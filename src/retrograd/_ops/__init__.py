"""The op table, one module per subject (unary, binary, reduction, shape, indexing, linalg/, nn/ ...).

Each module holds primitives (forward + rules) side by side with the public functions built
on them; this package re-exports the public functions.  Find any op's derivative by searching
for its name, ``grep -rn '"exp"' src/retrograd/_ops``, or with ``python -m retrograd where exp``.
"""
import types as _types

from ._registry import OPS, apply, apply_inplace, primitive  # noqa: F401
from .unary import *  # noqa: F401,F403
from .binary import *  # noqa: F401,F403
from .comparison import *  # noqa: F401,F403
from .masked import *  # noqa: F401,F403
from .clamp import *  # noqa: F401,F403
from .bitwise import *  # noqa: F401,F403
from .ternary import *  # noqa: F401,F403
from .shape import *  # noqa: F401,F403
from .views_inplace import *  # noqa: F401,F403
from .reduction import *  # noqa: F401,F403
from .joining import *  # noqa: F401,F403
from .rearrange import *  # noqa: F401,F403
from .diagonal import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .scatter import *  # noqa: F401,F403
from .index_dim import *  # noqa: F401,F403
from .sorting import *  # noqa: F401,F403
from .scan import *  # noqa: F401,F403
from .statistics import *  # noqa: F401,F403
from .calculus import *  # noqa: F401,F403
from .linalg.distances import *  # noqa: F401,F403
from .linalg.norms import *  # noqa: F401,F403
from .creation import *  # noqa: F401,F403
from .special import *  # noqa: F401,F403
from .copies import *  # noqa: F401,F403
from .linalg.matrix_functions import *  # noqa: F401,F403
from .random import *  # noqa: F401,F403
from .strided import *  # noqa: F401,F403
from .conversion import *  # noqa: F401,F403
from .complex import *  # noqa: F401,F403
from .nn.loss import *  # noqa: F401,F403
from .nn.normalization import *  # noqa: F401,F403
from .linalg.products import *  # noqa: F401,F403
from .linalg.solvers import *  # noqa: F401,F403
from .linalg.einsum import *  # noqa: F401,F403
from .linalg.addmm import *  # noqa: F401,F403
from .linalg.top_level import *  # noqa: F401,F403
from .linalg.lu import *  # noqa: F401,F403
from .linalg.lowrank import *  # noqa: F401,F403
from .linalg.householder import *  # noqa: F401,F403
from .nn.conv import *  # noqa: F401,F403
from .nn.pooling import *  # noqa: F401,F403
from .nn.adaptive_pooling import *  # noqa: F401,F403
from .nn.activation import *  # noqa: F401,F403
from .nn.embedding import *  # noqa: F401,F403
from .nn.padding import *  # noqa: F401,F403

from ._out import give_out as _give_out  # noqa: E402

_give_out(globals())  # out= for the functions whose definitions say @declares_out (the package namespace only)
del _give_out
# Names the subject modules share with each other and with Tensor's method listing
# (``_tensor_methods.py``) that torch's top-level namespace does not have: in-place forms that are
# methods only (``x.add_``), view methods (``x.view``), and the table's machinery.  They stay
# reachable as ``retrograd._ops.<name>``; tests/test_public_namespace.py compares with torch.
_NOT_TOP_LEVEL = {
    "OPS", "apply", "apply_inplace", "primitive", "getitem", "setitem", "rebase_history", "regenerate_view",
    "region_indices", "slice_dim", "sum_to", "to_dtype", "unsqueeze_dims", "zeros_like_grad",
    "contiguous", "expand", "expand_as", "repeat", "reshape_as", "view", "view_as", "unfold",
    "add_", "sub_", "subtract_", "mul_", "multiply_", "div_", "divide_", "true_divide_", "pow_", "absolute_",
    "sign_", "copy_", "cumprod_", "cumsum_", "eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_",
    "greater_equal_", "less_", "less_equal_", "not_equal_", "index_add_", "index_copy_", "index_fill_",
    "index_reduce_", "masked_fill_", "masked_scatter_", "put_", "scatter_", "scatter_add_", "scatter_reduce_",
    "squeeze_", "unsqueeze_", "swapaxes_", "swapdims_", "t_", "transpose_", "tril_", "triu_",
    "uniform_", "normal_", "bernoulli_", "random_", "exponential_", "geometric_", "cauchy_", "log_normal_",
}
# the public functions only (not the submodules: retrograd's namespace must not show them)
__all__ = [_n for _n, _v in globals().items()
           if not _n.startswith("_") and not isinstance(_v, _types.ModuleType) and _n not in _NOT_TOP_LEVEL]
