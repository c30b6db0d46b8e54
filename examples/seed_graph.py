"""Draw the seed document's first graph, y = (x + 1) * (x + 2) (README: "See the graph")."""
import retrograd as torch

x = torch.tensor(2., requires_grad=True)
a = torch.add(x, 1)
b = torch.add(x, 2)
y = torch.mul(a, b)
y.backward(retain_graph=True)  # retain: keep the saved tensors, to draw them too

names = {"x": x, "a": a, "b": b, "y": y}
g = torch.viz.draw(y, params=names, show_saved=True)
torch.viz.save(g, "seed_graph.svg")  # g.source is the DOT text; in Jupyter, g shows inline
print(torch.viz.tree(y, params=names))
