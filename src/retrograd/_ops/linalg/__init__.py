"""Linear algebra in the op table, one module per subject (products, decompositions, solvers,
norms ...).  ``retrograd._ops`` re-exports their public functions; ``retrograd.linalg`` is the
public ``torch.linalg`` namespace."""
