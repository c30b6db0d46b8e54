"""Data-parallel training on MNIST-like digits, the way PyTorch's DDP tutorials do it.

Each process trains a replica of the same MLP on its own shard of the data (DistributedSampler);
DistributedDataParallel averages the gradients during backward, so the replicas stay equal and
the run matches one process training on the whole batch.

    python -m retrograd.distributed.run -n 2 examples/ddp_mnist_like.py --epochs 3
    mpiexec -n 2 python examples/ddp_mnist_like.py          # the same, launched by hand
    python examples/ddp_mnist_like.py                        # one process (a group of one)

The data are synthetic 16x16 "digits": ten fixed random stroke patterns (the same on every
rank: they come from a seeded generator) plus noise, so the example needs no download.
"""
from __future__ import annotations

import argparse

import numpy as np

import retrograd as torch
import retrograd.distributed as dist
from retrograd import nn
from retrograd.nn.parallel import DistributedDataParallel as DDP
from retrograd.utils.data import DataLoader, DistributedSampler, TensorDataset


def mnist_like(n: int, seed: int) -> TensorDataset:
    """``n`` noisy 16x16 images of 10 classes, flattened to 256 features."""
    protos = np.random.default_rng(1234).random((10, 16, 16)) > 0.7  # the classes' "strokes"
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, n)
    images = protos[labels].astype(np.float32) + 1.5 * rng.standard_normal((n, 16, 16)).astype(np.float32)
    return TensorDataset(torch.from_numpy(images.reshape(n, 256)), torch.from_numpy(labels))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=64, help="per process")
    p.add_argument("--train-size", type=int, default=4096)
    p.add_argument("--save", default=None, help="write the trained weights (the module's state dict) here")
    args = p.parse_args()

    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)  # DDP broadcasts rank 0's initial weights anyway; this makes runs repeatable

    train = mnist_like(args.train_size, seed=0)
    sampler = DistributedSampler(train, shuffle=True, seed=0)  # this rank's shard, torch's order
    loader = DataLoader(train, batch_size=args.batch_size, sampler=sampler)
    model = DDP(nn.Sequential(nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)  # a new shuffle each epoch, the same on every rank
        total = torch.zeros(2)  # (sum of losses, number of samples) on this rank
        for x, y in loader:
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()  # gradients are averaged over the ranks here
            opt.step()
            total += torch.tensor([loss.item() * len(y), len(y)])
        dist.all_reduce(total)  # every rank's share, summed
        if rank == 0:
            print(f"epoch {epoch}: mean training loss {float(total[0] / total[1]):.4f} over {world} process(es)")

    if rank == 0:  # every replica holds the same weights: evaluate one
        test = mnist_like(1000, seed=1)
        with torch.no_grad():
            x, y = test.tensors
            accuracy = float((model.module(x).argmax(1) == y).float().mean())
        print(f"test accuracy {accuracy:.3f}")
        if args.save:
            torch.save(model.module.state_dict(), args.save)  # the module's own keys, without "module."
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
