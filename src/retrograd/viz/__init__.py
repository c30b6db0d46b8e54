"""See the graph: draw() a backward graph with graphviz, or print it as a text tree().

>>> import retrograd as torch
>>> x = torch.tensor(2., requires_grad=True)
>>> y = torch.mul(torch.add(x, 1), torch.add(x, 2))
>>> print(torch.viz.tree(y, params={"x": x, "y": y}).splitlines()[0])
y  () float32

Importing this package is cheap: graphviz is imported only when draw() runs.
"""
from ._draw import GraphvizNotFound, dot_available, draw, save
from ._tree import tree

__all__ = ["draw", "tree", "save", "dot_available", "GraphvizNotFound"]
