"""``torch.testing._internal.data``: PyTorch keeps small test networks here; retrograd's tests need none.

>>> import retrograd.testing._internal.data
"""
