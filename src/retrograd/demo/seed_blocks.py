"""Every code block of the seed document (shared/seed/autograd-blog.txt), verbatim.

Each runs with ``import retrograd as torch`` and must print what PyTorch 2.13 prints.
Blocks that the document shows failing end in the same exception as in PyTorch.
The last three blocks turn the document's prose (zero_(), optimizer.zero_grad(),
in-place on a leaf) into code.
"""

BLOCKS: list[tuple[str, str]] = [
    ('backward() on y = (x+1)(x+2)', """\
x = torch.tensor(2., requires_grad=True)

a = torch.add(x, 1)
b = torch.add(x, 2)
y = torch.mul(a, b)

y.backward()
print(x.grad)
"""),
    ('attributes of the tensors', """\
x = torch.tensor(2., requires_grad=True)

a = torch.add(x, 1)
b = torch.add(x, 2)
y = torch.mul(a, b)

y.backward()
print("requires_grad: ", x.requires_grad, a.requires_grad, b.requires_grad, y.requires_grad)
print("is_leaf: ", x.is_leaf, a.is_leaf, b.is_leaf, y.is_leaf)
print("grad: ", x.grad, a.grad, b.grad, y.grad)
"""),
    ('autograd.grad()', """\
x = torch.tensor(2., requires_grad=True)

a = torch.add(x, 1)
b = torch.add(x, 2)
y = torch.mul(a, b)

grad = torch.autograd.grad(outputs=y, inputs=x)
print(grad)
"""),
    ('z = x^2 y: first derivatives with backward()', """\
x = torch.tensor(2., requires_grad=True)
y = torch.tensor(3., requires_grad=True)

z = x * x * y

z.backward()
print(x.grad, y.grad)
"""),
    ('z = x^2 y: autograd.grad()', """\
x = torch.tensor(2.).requires_grad_()
y = torch.tensor(3.).requires_grad_()

z = x * x * y

grad_x = torch.autograd.grad(outputs=z, inputs=x)
print(grad_x[0])
"""),
    ('a second grad without retain_graph fails', """\
x = torch.tensor(2.).requires_grad_()
y = torch.tensor(3.).requires_grad_()

z = x * x * y

grad_x=torch.autograd.grad(outputs=z,inputs=x)
grad_y=torch.autograd.grad(outputs=z,inputs=y)
"""),
    ('retain_graph=True', """\
x = torch.tensor(2.).requires_grad_()
y = torch.tensor(3.).requires_grad_()

z = x * x * y

grad_x = torch.autograd.grad(outputs=z, inputs=x, retain_graph=True)
grad_y = torch.autograd.grad(outputs=z, inputs=y)

print(grad_x[0], grad_y[0])
"""),
    ('second derivative without create_graph fails', """\
x = torch.tensor(2.).requires_grad_()
y = torch.tensor(3.).requires_grad_()

z = x * x * y

grad_x = torch.autograd.grad(outputs=z, inputs=x, retain_graph=True)
grad_xx = torch.autograd.grad(outputs=grad_x, inputs=x)

print(grad_xx[0])
"""),
    ('autograd.grad() + autograd.grad() with create_graph', """\
# autograd.grad() + autograd.grad()
x = torch.tensor(2.).requires_grad_()
y = torch.tensor(3.).requires_grad_()

z = x * x * y

grad_x = torch.autograd.grad(outputs=z, inputs=x, create_graph=True)
grad_xx = torch.autograd.grad(outputs=grad_x, inputs=x)

print(grad_xx[0])
"""),
    ('grad[0].backward() for the second derivative', """\
x = torch.tensor(2.).requires_grad_()
y = torch.tensor(3.).requires_grad_()

z = x * x * y

grad = torch.autograd.grad(outputs=z, inputs=x, create_graph=True)
grad[0].backward()

print(x.grad)
"""),
    ('backward(create_graph=True) then autograd.grad of x.grad', """\
x = torch.tensor(2.).requires_grad_()
y = torch.tensor(3.).requires_grad_()

z = x * x * y

z.backward(create_graph=True)
grad_xx = torch.autograd.grad(outputs=x.grad, inputs=x)

print(grad_xx[0])
"""),
    ('two backward() calls accumulate: 18, not 6', """\
x = torch.tensor(2.).requires_grad_()
y = torch.tensor(3.).requires_grad_()

z = x * x * y

z.backward(create_graph=True) # x.grad = 12
x.grad.backward()

print(x.grad)
"""),
    ('zero x.grad before the second backward', """\
x = torch.tensor(2.).requires_grad_()
y = torch.tensor(3.).requires_grad_()

z = x * x * y

z.backward(create_graph=True)
x.grad.data.zero_()
x.grad.backward()

print(x.grad)
"""),
    ('backward() of a vector output fails', """\
x = torch.tensor([1., 2.]).requires_grad_()
y = x + 1

y.backward()
print(x.grad)
"""),
    ('sum() first', """\
x = torch.tensor([1., 2.]).requires_grad_()
y = x * x

y.sum().backward()
print(x.grad)
"""),
    ('backward(gradient=ones)', """\
x = torch.tensor([1., 2.]).requires_grad_()
y = x * x

y.backward(torch.ones_like(x))
print(x.grad)
"""),
    ('autograd.grad with grad_outputs', """\
x = torch.tensor([1., 2.]).requires_grad_()
y = x * x

grad_x = torch.autograd.grad(outputs=y, inputs=x, grad_outputs=torch.ones_like(x))
print(grad_x[0])
"""),
    ('autograd.grad of y.sum()', """\
x = torch.tensor([1., 2.]).requires_grad_()
y = x * x

grad_x = torch.autograd.grad(outputs=y.sum(), inputs=x)
print(grad_x[0])
"""),
    ('detach() cuts the graph', """\
x = torch.tensor([2.], requires_grad=True)

a = torch.add(x, 1).detach()
b = torch.add(x, 2)
y = torch.mul(a, b)

y.backward()

print("requires_grad: ", x.requires_grad, a.requires_grad, b.requires_grad, y.requires_grad)
print("is_leaf: ", x.is_leaf, a.is_leaf, b.is_leaf, y.is_leaf)
print("grad: ", x.grad, a.grad, b.grad, y.grad)
"""),
    ('requires_grad_() and requires_grad=True', """\
x=torch.tensor(1.).requires_grad_()

x=torch.tensor(1.,requires_grad=True)
print(x)
"""),
    ('gradient zeroing with x.grad.zero_()', """\
x = torch.tensor([1., 2.]).requires_grad_()
(x * x).sum().backward()
x.grad.zero_()
print(x.grad)
"""),
    ('optimizer.zero_grad()', """\
w = torch.tensor([1., 2.], requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.1)
(w * w).sum().backward()
optimizer.step()
optimizer.zero_grad()
print(w, w.grad)
"""),
    ('in-place on a leaf that requires grad fails', """\
x = torch.tensor([1., 2.], requires_grad=True)
x.add_(1)
"""),
]
