"""DistributedDataParallel on 2 and 4 processes against single-process training on the full batch."""
from __future__ import annotations

import numpy as np

import retrograd as torch
from dist_inputs import mlp_data
from dist_worker_ddp import LR, PER_RANK, STEPS, TwoBranch, grads, make_mlp, params


def _full_batch_training(n: int) -> list[np.ndarray]:
    X, Y = mlp_data(n * PER_RANK)
    m = make_mlp()
    opt = torch.optim.SGD(m.parameters(), lr=LR)
    x, y = torch.from_numpy(X), torch.from_numpy(Y)
    for _ in range(STEPS):
        opt.zero_grad()
        torch.nn.functional.mse_loss(m(x), y).backward()
        opt.step()
    return params(m)


def test_construction_broadcasts_rank0(world):
    want = params(make_mlp())  # rank 0 kept the seeded model; the others had perturbed it
    for r in range(world.n):
        for got, w in zip(world[r]["ddp/after_init"], want):
            np.testing.assert_array_equal(got, w)
        assert world[r]["ddp/state_dict_keys"][:2] == ["module.0.weight", "module.0.bias"]
        assert world[r]["ddp/n_buckets"] > 1


def test_training_equals_full_batch(world):
    n = world.n
    ranks = [world[r]["ddp/trained"] for r in range(n)]
    for r in range(1, n):  # the replicas stay identical, bit for bit: every rank applies the same averaged grads
        for a, b in zip(ranks[0], ranks[r]):
            np.testing.assert_array_equal(a, b)
    # Against one process on the whole batch: the same math, but the mean over N samples is
    # summed in another order (per-rank means, then MPI's sum over ranks, / n) and float32
    # addition is not associative. Each step differs by a few ulps of the gradient; over 20
    # SGD steps at lr 0.1 on O(1) weights that stays far below 1e-5 (observed ~5e-8).
    for got, want in zip(ranks[0], _full_batch_training(n)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def _local_grads(model_fn, batches, loss_fn) -> list[list]:
    out = []
    for batch in batches:
        m = model_fn()
        loss_fn(m, batch).backward()
        out.append(grads(m))
    return out


def test_no_sync_accumulates_then_averages(world):
    n = world.n
    X, Y = mlp_data(n * PER_RANK)
    half = PER_RANK // 2
    mse = torch.nn.functional.mse_loss

    def loss(lo, hi):
        return lambda m, b: mse(m(torch.from_numpy(X[b::n][lo:hi])), torch.from_numpy(Y[b::n][lo:hi]),
                                reduction="sum")
    first = _local_grads(make_mlp, range(n), loss(0, half))
    both = _local_grads(make_mlp, range(n), loss(0, PER_RANK))
    for r in range(n):
        for got, want in zip(world[r]["ddp/no_sync_local"], first[r]):  # no communication: exactly local
            np.testing.assert_array_equal(got, want)
        # summation order differs (two accumulated halves, then ranks): float32 tolerance
        for got, want in zip(world[r]["ddp/no_sync_total"], [sum(g) / n for g in zip(*both)]):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_find_unused_parameters(world):
    n = world.n
    X, _ = mlp_data(n * PER_RANK)
    local = _local_grads(TwoBranch, range(n),
                         lambda m, r: m(torch.from_numpy(X[r::n, :4].copy()), use_b=(r == 0)).sum())
    # a: used everywhere, averaged; b: used on rank 0 only, the others contribute zeros; never: untouched (None)
    a_w = sum(g[0] for g in local) / n
    b_w = local[0][2] / n
    for r in range(n):
        got = world[r]["ddp/unused"]
        np.testing.assert_allclose(got[0], a_w, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(got[2], b_w, rtol=1e-6, atol=1e-6)
        assert got[4] is None and got[5] is None


def test_unused_parameter_without_detection_fails_next_forward(world):
    for r in range(world.n):
        msg = world[r]["ddp/unfinished_error"]
        assert msg is not None
        assert msg.startswith("Expected to have finished reduction in the prior iteration before starting a new one.")
        assert "passing the keyword argument `find_unused_parameters=True`" in msg
        assert msg.endswith(f"Parameter indices which did not receive grad for rank {r}: 2 3 4 5")
        assert world[r]["ddp/no_grad_params_error"] == ("DistributedDataParallel is not needed when a module "
                                                      "doesn't have any parameter that requires a gradient.")


def test_buffers_follow_rank0(world):
    n = world.n
    for r in range(n):
        np.testing.assert_array_equal(world[r]["ddp/buffer_after_init"], np.ones(5, np.float32))
        np.testing.assert_array_equal(world[r]["ddp/buffer_after_next_forward"],
                                      world[0]["ddp/buffer_after_local_step"])
    assert not np.array_equal(world[1]["ddp/buffer_after_local_step"], world[0]["ddp/buffer_after_local_step"])
