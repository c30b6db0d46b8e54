"""Neural-network ops in the op table, one module per subject (conv, pooling, activation, loss,
normalization ...).  ``retrograd.nn.functional`` is the public namespace built on them."""
