"""Chi-squared distribution (defined with Gamma in ``gamma.py``; this is torch's module name).

>>> from retrograd.distributions.chi2 import Chi2
>>> Chi2(2.0).df
tensor(2.)
"""
from .gamma import Chi2

__all__ = ["Chi2"]
