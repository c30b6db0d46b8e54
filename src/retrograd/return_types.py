"""Named tuples returned by ops that give several results (PyTorch's ``torch.return_types``).

Each class is a ``tuple`` subclass with named fields, like PyTorch's structseq types:
it unpacks, indexes and compares as a tuple and prints the same way (as ``torch.return_types.X``).

>>> import retrograd as torch
>>> r = torch.tensor([[1., 5.], [4., 2.]]).max(1)
>>> r.values, r.indices
(tensor([5., 4.]), tensor([1, 0]))
>>> v, i = r
"""
from __future__ import annotations

__all__ = ["all_return_types"]


class _StructSeq(tuple):
    """Base of the named result tuples (fields set per subclass)."""

    __slots__ = ()
    _fields: tuple = ()
    n_fields = 0
    n_sequence_fields = 0
    n_unnamed_fields = 0

    def __new__(cls, sequence=(), dict=None):  # noqa: A002 - PyTorch's signature
        seq = tuple(sequence)
        if len(seq) != len(cls._fields):
            raise TypeError(f"torch.return_types.{cls.__name__}() takes a {len(cls._fields)}-sequence "
                            f"({len(seq)}-sequence given)")
        return tuple.__new__(cls, seq)

    def __repr__(self) -> str:
        body = ",\n".join(f"{name}={value!r}" for name, value in zip(self._fields, self))
        # torch's own name, which PyTorch code run on retrograd expects to read
        return f"torch.return_types.{type(self).__name__}(\n{body})"

    __str__ = __repr__

    def __reduce__(self):
        return (type(self), (tuple(self),))


def _make(name: str, fields: tuple) -> type:
    ns = {"__slots__": (), "_fields": fields, "n_fields": len(fields), "n_sequence_fields": len(fields),
          "__module__": __name__, "__qualname__": name}
    for i, f in enumerate(fields):
        ns[f] = property(lambda self, i=i: tuple.__getitem__(self, i), doc=f"Field {i}: {f}")
    return type(name, (_StructSeq,), ns)


_VALUES_INDICES = ("values", "indices")
_SPECS = {
    "max": _VALUES_INDICES, "min": _VALUES_INDICES, "median": _VALUES_INDICES,
    "nanmedian": _VALUES_INDICES, "mode": _VALUES_INDICES, "sort": _VALUES_INDICES,
    "topk": _VALUES_INDICES, "kthvalue": _VALUES_INDICES, "cummax": _VALUES_INDICES,
    "cummin": _VALUES_INDICES, "aminmax": ("min", "max"), "frexp": ("mantissa", "exponent"),
    "geqrf": ("a", "tau"), "histogram": ("hist", "bin_edges"), "histogramdd": ("hist", "bin_edges"),
    "linalg_cholesky_ex": ("L", "info"), "linalg_eig": ("eigenvalues", "eigenvectors"),
    "linalg_eigh": ("eigenvalues", "eigenvectors"), "linalg_inv_ex": ("inverse", "info"),
    "linalg_ldl_factor": ("LD", "pivots"), "linalg_ldl_factor_ex": ("LD", "pivots", "info"),
    "linalg_lstsq": ("solution", "residuals", "rank", "singular_values"),
    "linalg_lu": ("P", "L", "U"), "linalg_lu_factor": ("LU", "pivots"),
    "linalg_lu_factor_ex": ("LU", "pivots", "info"), "linalg_qr": ("Q", "R"),
    "linalg_slogdet": ("sign", "logabsdet"), "linalg_solve_ex": ("result", "info"),
    "linalg_svd": ("U", "S", "Vh"), "lu_unpack": ("P", "L", "U"), "qr": ("Q", "R"),
    "slogdet": ("sign", "logabsdet"), "svd": ("U", "S", "V"),
    "triangular_solve": ("solution", "cloned_coefficient"),
}

all_return_types = []
for _name, _fields in _SPECS.items():
    for _n in (_name, _name + "_out"):
        _cls = _make(_n, _fields)
        globals()[_n] = _cls
        all_return_types.append(_cls)
        __all__.append(_n)
del _name, _fields, _n, _cls
