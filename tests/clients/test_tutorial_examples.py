"""PyTorch's beginner examples, run unchanged with ``import retrograd as torch``."""
from __future__ import annotations

import textwrap

import pytest

torch_ = pytest.importorskip("torch")

BLITZ = textwrap.dedent('''
    import retrograd as torch
    import retrograd.nn as nn
    import retrograd.nn.functional as F
    import retrograd.optim as optim


    class Net(nn.Module):

        def __init__(self):
            super(Net, self).__init__()
            # 1 input image channel, 6 output channels, 5x5 square convolution kernel
            self.conv1 = nn.Conv2d(1, 6, 5)
            self.conv2 = nn.Conv2d(6, 16, 5)
            # an affine operation: y = Wx + b
            self.fc1 = nn.Linear(16 * 5 * 5, 120)  # 5*5 from image dimension
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, input):
            c1 = F.relu(self.conv1(input))
            s2 = F.max_pool2d(c1, (2, 2))
            c3 = F.relu(self.conv2(s2))
            s4 = F.max_pool2d(c3, 2)
            s4 = torch.flatten(s4, 1)
            f5 = F.relu(self.fc1(s4))
            f6 = F.relu(self.fc2(f5))
            output = self.fc3(f6)
            return output


    net = Net()
    print(net)
    params = list(net.parameters())
    print(len(params))
    print(params[0].size())  # conv1's .weight
    input = torch.randn(1, 1, 32, 32)
    out = net(input)
    print(out)
    net.zero_grad()
    out.backward(torch.randn(1, 10))
    output = net(input)
    target = torch.randn(10)  # a dummy target, for example
    target = target.view(1, -1)  # make it the same shape as output
    criterion = nn.MSELoss()
    loss = criterion(output, target)
    print(loss)
    print(loss.grad_fn)  # MSELoss
    net.zero_grad()     # zeroes the gradient buffers of all parameters
    print('conv1.bias.grad before backward')
    print(net.conv1.bias.grad)
    loss.backward()
    print('conv1.bias.grad after backward')
    print(net.conv1.bias.grad)
    learning_rate = 0.01
    for f in net.parameters():
        f.data.sub_(f.grad.data * learning_rate)
    # create your optimizer
    optimizer = optim.SGD(net.parameters(), lr=0.01)
    losses = []
    for _ in range(5):
        optimizer.zero_grad()   # zero the gradient buffers
        output = net(input)
        loss = criterion(output, target)
        loss.backward()
        optimizer.step()    # Does the update
        losses.append(loss.item())
''')

POLY = textwrap.dedent('''
    import retrograd as torch
    import math

    # Create Tensors to hold input and outputs.
    x = torch.linspace(-math.pi, math.pi, 2000)
    y = torch.sin(x)
    p = torch.tensor([1, 2, 3])
    xx = x.unsqueeze(-1).pow(p)
    model = torch.nn.Sequential(
        torch.nn.Linear(3, 1),
        torch.nn.Flatten(0, 1)
    )
    loss_fn = torch.nn.MSELoss(reduction='sum')
    learning_rate = 1e-6
    losses = []
    for t in range(STEPS):
        y_pred = model(xx)
        loss = loss_fn(y_pred, y)
        losses.append(loss.item())
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for param in model.parameters():
                param -= learning_rate * param.grad
    linear_layer = model[0]
    result = (f'Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x + '
              f'{linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3')
''')

TWO_LAYER = textwrap.dedent('''
    import retrograd as torch

    N, D_in, H, D_out = 64, 1000, 100, 10
    x = torch.randn(N, D_in)
    y = torch.randn(N, D_out)
    model = torch.nn.Sequential(
        torch.nn.Linear(D_in, H),
        torch.nn.ReLU(),
        torch.nn.Linear(H, D_out),
    )
    loss_fn = torch.nn.MSELoss(reduction='sum')
    learning_rate = 1e-4
    losses = []
    for t in range(STEPS):
        y_pred = model(x)
        loss = loss_fn(y_pred, y)
        losses.append(loss.item())
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for param in model.parameters():
                param -= learning_rate * param.grad
    optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)
    for t in range(STEPS):
        loss = loss_fn(model(x), y)
        losses.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
''')


def test_blitz_neural_network_runs(capsys):
    ns: dict = {}
    exec(compile(BLITZ, "blitz.py", "exec"), ns)
    out = capsys.readouterr().out
    torch_.manual_seed(0)
    tns: dict = {}
    # torch runs the model-building part (up to the first forward) for the printed reference
    head = BLITZ.split("input = torch.randn")[0].replace("import retrograd", "import torch")
    exec(compile(head, "blitz_torch.py", "exec"), tns)
    tout = capsys.readouterr().out
    # the printed model, parameter count and shapes are PyTorch's (values are random)
    assert out.split("tensor(")[0] == tout
    assert "<MseLossBackward0 object at" in out
    assert "conv1.bias.grad before backward\nNone\n" in out
    assert ns["losses"][-1] < ns["losses"][0]
    assert ns["net"].conv1.bias.grad.shape == (6,)


def test_polynomial_fit_with_sequential_and_mse():
    ns = {"STEPS": 300}
    exec(compile(POLY, "poly.py", "exec"), ns)
    assert ns["losses"][-1] < ns["losses"][0] and ns["result"].startswith("Result: y = ")


def test_two_layer_net_with_sequential_and_mse():
    ns = {"STEPS": 25}
    exec(compile(TWO_LAYER, "two_layer.py", "exec"), ns)
    losses = ns["losses"]
    assert losses[24] < losses[0] / 2 and losses[-1] < losses[25]
