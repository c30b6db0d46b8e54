"""retrograd: PyTorch's autograd, define-by-run, on NumPy.

>>> import retrograd as torch
>>> x = torch.tensor(2., requires_grad=True)
>>> y = torch.mul(torch.add(x, 1), torch.add(x, 2))
>>> y.backward(); x.grad
tensor(7.)
"""
from . import _dtype  # noqa: F401
from ._dtype import (bfloat16, bool, can_cast, double, dtype, float, float16, float32,  # noqa: F401,A004
                     float64, get_default_dtype, half, int, int8, int16, int32, int64, long,
                     promote_types, set_default_dtype, short, uint8)
from ._dtype import (complex32, complex64, complex128, chalf, cfloat, cdouble,  # noqa: F401  (names only:
                     float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz,  # tensors of them raise)
                     quint8, qint8, qint32, quint4x2, quint2x4)
from ._size import Size, device  # noqa: F401
from ._layout import *  # noqa: F401,F403  (layout, memory_format and their constants)
from ._storage import TypedStorage, UntypedStorage  # noqa: F401
from ._storage import (BFloat16Storage, BoolStorage, ByteStorage, CharStorage, DoubleStorage,  # noqa: F401
                       FloatStorage, HalfStorage, IntStorage, LongStorage, ShortStorage)
from ._tensor import Tensor  # noqa: F401
from . import _tensor_methods  # noqa: F401  (binds ops as Tensor methods)
from ._creation import *  # noqa: F401,F403
from ._ops import *  # noqa: F401,F403
from ._printing import set_printoptions, get_printoptions  # noqa: F401
from . import autograd  # noqa: F401
from .autograd import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,  # noqa: F401
                       no_grad, set_grad_enabled)
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled  # noqa: F401,E402
from . import optim  # noqa: F401
from . import testing  # noqa: F401
from ._torch_alias import register_as_torch, unregister_as_torch  # noqa: F401
import retrograd.linalg as linalg  # noqa: E402,F401  ('from . import linalg' would keep the leaked _ops.linalg)
from ._typeinfo import finfo, iinfo  # noqa: F401
from . import nn  # noqa: F401
from .nn._native import *  # noqa: F401,F403  (torch.native_layer_norm, convolution ...: composed from nn.functional)
from .nn._recurrent import *  # noqa: F401,F403  (torch.lstm, gru_cell ...: composed from nn.functional)
from .nn._top_level import *  # noqa: F401,F403  (torch.kl_div, rms_norm ...: nn.functional's, ATen's arguments)
from . import func  # noqa: F401,E402
from .func import vmap  # noqa: F401,E402
from . import special, jit, random  # noqa: F401,E402
from . import onnx  # noqa: F401,E402  (names only: export raises OnnxExporterError)
from . import profiler  # noqa: F401,E402
from . import compiler, _dynamo  # noqa: F401,E402
from .serialization import save, load  # noqa: F401
from . import viz  # noqa: F401  (cheap: graphviz is imported only by viz.draw)
from . import amp  # noqa: F401,E402
from .amp import autocast, get_autocast_dtype, is_autocast_enabled  # noqa: F401,E402
from . import cpu  # noqa: F401,E402
from . import accelerator  # noqa: F401,E402  (no accelerator: is_available() is False)
from ._compat import *  # noqa: F401,F403
from . import _utils  # noqa: F401,E402  (torch._utils._element_size)
from ._complex import *  # noqa: F401,F403,E402  (imag, view_as_real ...: torch's errors on real tensors)
from ._functional_aliases import *  # noqa: F401,F403
from .utils.dlpack import from_dlpack, to_dlpack  # noqa: F401,E402
from ._deprecated import *  # noqa: F401,F403,E402  (removed linalg names, Tensor.resize ...)
from ._autocast_state import *  # noqa: F401,F403,E402  (set_autocast_*, get_autocast_cpu_dtype ...)
from . import distributions  # noqa: F401,E402
from . import distributed  # noqa: F401,E402  (cheap: mpi4py, which starts MPI, is imported on first use)
from . import _C  # noqa: F401,E402  (torch._C: private engine queries and helper nodes)
from ._checks import (_check, _check_index, _check_value, _check_type,  # noqa: F401,E402
                      _check_not_implemented, _assert_async, _debug_has_internal_overlap)
from . import __config__, multiprocessing, storage  # noqa: F401,E402
from . import signal, overrides  # noqa: F401,E402  (torch.signal.windows, torch.overrides helpers)

from .version import __version__  # noqa: F401,E402  (the torch API version emulated; ours: version.retrograd_version)
from . import version  # noqa: F401,E402
from . import __future__  # noqa: F401,E402  (torch.__future__ is reachable after a plain `import torch`)


def _silence_numpy_float_warnings() -> None:
    # PyTorch computes inf - inf, 0 * inf, 1 / 0 silently; NumPy warns.  Ops whose rules
    # often meet these run inside np.errstate; the hottest ones (add, sub, mul) do not (the
    # context costs more than a small op), so NumPy's floating-point warnings raised from
    # inside retrograd's own modules are ignored here.  The filter matches only warnings
    # attributed to retrograd's code: a user's own NumPy calls still warn.
    import warnings as _warnings

    _warnings.filterwarnings("ignore", message=r"(invalid value|divide by zero|overflow|underflow) encountered",
                             category=RuntimeWarning, module=r"retrograd(\.|$)")


_silence_numpy_float_warnings()
