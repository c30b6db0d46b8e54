"""Inference mode, Variable and legacy constructors, backward(inputs=...), the profiler.
Scenarios run on retrograd and on torch and must log the same."""
import re

import numpy as np
import pytest

import parity
import retrograd as rg

torch = pytest.importorskip("torch")


def same(scenario):
    """``parity.same`` with tensor shapes in the log and dtypes by name."""
    return parity.same(scenario, shape=True, dtypes=True)


def attempt(log, f):
    try:
        log("ok", f())
    except (RuntimeError, TypeError) as e:
        log(type(e).__name__, str(e))


# ---------------------------------------------------------------- inference mode
def test_inference_tensors_and_their_errors():
    def sc(lib, log):
        with lib.inference_mode():
            t = lib.ones(2)
            u = lib.ones(2, requires_grad=True)
            log(lib.is_inference_mode_enabled(), lib.is_grad_enabled(), u.requires_grad, (u * 2).requires_grad)
        log(t.is_inference(), lib.ones(1).is_inference(), lib.is_inference_mode_enabled())
        w = lib.ones(2, requires_grad=True)
        attempt(log, lambda: t.clone().add_(1))
        try:
            t.add_(1)  # (PyTorch writes before it raises here; retrograd refuses before writing)
        except RuntimeError as e:
            log(str(e))
        with lib.inference_mode():
            t = lib.ones(2)
        attempt(log, lambda: (w * t).sum())
        attempt(log, lambda: (w + t).requires_grad)
        attempt(log, lambda: t.requires_grad_())
        attempt(log, lambda: t.clone().is_inference())
        attempt(log, lambda: (u * w).sum())
        with lib.inference_mode():
            t.add_(1)
            log(t)

    same(sc)


def test_inference_mode_nesting_and_views():
    def sc(lib, log):
        w = lib.ones(2, requires_grad=True)
        with lib.inference_mode():
            with lib.inference_mode(False):
                log(lib.is_inference_mode_enabled(), lib.is_grad_enabled(), lib.ones(1).is_inference())
            v = w[0:1]
            log(v.is_inference(), v.requires_grad, (w * 2).is_inference())
        attempt(log, lambda: v.mul_(2))
        ww = w * 1
        with lib.inference_mode():
            vv = ww[0:1]
        attempt(log, lambda: vv.mul_(2))
        with lib.no_grad():
            with lib.inference_mode(False):
                log("no_grad + inference_mode(False)", lib.is_grad_enabled())

    same(sc)


def test_inference_mode_decorators():
    def sc(lib, log):
        w = lib.ones(2, requires_grad=True)

        @lib.inference_mode()
        def f(a):
            return a * 2, lib.is_inference_mode_enabled()

        @lib.inference_mode
        def g(a):
            return a * 2

        @lib.inference_mode(False)
        def h(a):
            return lib.is_inference_mode_enabled()

        out, flag = f(w)
        log(out.is_inference(), flag, g(w).is_inference(), h(w), lib.is_inference_mode_enabled())

    same(sc)


# ---------------------------------------------------------------- compatibility
def test_variable_and_legacy_constructors():
    def sc(lib, log):
        V = lib.autograd.Variable
        t = lib.tensor([1.0, 2.0])
        v = V(t, requires_grad=True)
        log(v is t, v.requires_grad, t.requires_grad, v.is_leaf, isinstance(t, V), isinstance(v, lib.Tensor),
            isinstance(3, V))
        v.data[0] = 5
        log(t, V(t).requires_grad)
        attempt(log, lambda: V([1.0, 2.0]))
        log(V(lib.tensor([1.0], requires_grad=True) * 2).grad_fn)
        log(lib.Tensor([1, 2]).dtype, lib.Tensor(2, 3).shape, lib.FloatTensor([1, 2]).dtype,
            lib.DoubleTensor([1.5]).dtype, lib.LongTensor([1, 2]).dtype, lib.LongTensor(3).shape,
            lib.Tensor().shape, lib.FloatTensor([1.0]).type(), isinstance(lib.FloatTensor([1.0]), lib.Tensor))

    same(sc)


def test_backward_inputs():
    def sc(lib, log):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = lib.tensor([3.0, 4.0], requires_grad=True)
        z = (x * y).sum()
        z.backward(inputs=[x], retain_graph=True)
        log(x.grad, y.grad)
        lib.autograd.backward([z], inputs=y)
        log(x.grad, y.grad)
        attempt(log, lambda: z.backward(inputs=[]))

    same(sc)


# ---------------------------------------------------------------- profiler
def test_profiler_records_ops_and_backward_nodes():
    x = rg.randn(8, 8, requires_grad=True)
    with rg.autograd.profiler.profile() as prof:
        y = (x * x).sum()
        y.backward()
    keys = {e.key: e for e in prof.key_averages()}
    assert keys["aten::mul"].count >= 1  # forward mul (backward rules may add more)
    assert "MulBackward0" in keys and "SumBackward0" in keys
    assert "torch::autograd::AccumulateGrad" in keys
    for e in keys.values():
        assert e.self_cpu_time_total <= e.cpu_time_total + 1e-6
    # ops outside the profile are not recorded
    (x * 2).sum()
    assert sum(e.count for e in prof.key_averages()) == len(prof.function_events)


def test_profiler_table_layout_matches_torch():
    def table(lib):
        x = lib.ones(4, requires_grad=True)
        with lib.autograd.profiler.profile() as prof:
            (x * x).sum().backward()
        return prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=3)

    ours, theirs = table(rg).splitlines(), table(torch).splitlines()
    header = [ln for ln in theirs if "Name" in ln][0]
    names = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
    ours_header = [ln for ln in ours if "Name" in ln][0]
    # same columns, right-aligned in 12-wide fields after the name column, same separators
    assert re.split(r"\s{2,}", ours_header.strip()) == re.split(r"\s{2,}", header.strip()) == names
    assert ours_header.endswith("# of Calls  ") and header.endswith("# of Calls  ")
    assert ours[0].split()[1:] == theirs[0].split()[1:] == ["-" * 12] * 6
    assert ours[-1].startswith("Self CPU time total: ") and theirs[-1].startswith("Self CPU time total: ")
    assert len(ours) == len(theirs) == 3 + 3 + 2
    assert re.fullmatch(r"\s+\S+\s+\d+\.\d\d%\s+\d+\.\d{3}(us|ms|s)\s+\d+\.\d\d%\s+\d+\.\d{3}(us|ms|s)\s+"
                        r"\d+\.\d{3}(us|ms|s)\s+\d+\s+", ours[3])


def test_profiler_record_function_and_errors():
    with rg.autograd.profiler.profile() as prof:
        with rg.autograd.profiler.record_function("my_block"):
            rg.ones(3).exp()
    ev = {e.key: e for e in prof.key_averages()}
    assert ev["my_block"].cpu_time_total >= ev["aten::exp"].cpu_time_total
    p = rg.autograd.profiler.profile()
    with pytest.raises(RuntimeError, match="Profiler didn't finish running"):
        p.key_averages()
    with rg.autograd.profiler.profile(enabled=False) as off:
        rg.ones(2) * 2
    assert off.function_events is None


def test_set_grad_enabled_bool_only_nonleaf_grad_warning_and_anomaly_queries_like_torch():
    import warnings

    torch = pytest.importorskip("torch")

    def run(T):
        out = []
        for m in (1, None, "yes", np.bool_(True)):
            try:
                T.set_grad_enabled(m)
                out.append("accepted")
            except TypeError as e:
                out.append(str(e))
        T.set_grad_enabled(True)
        x = T.ones(2, requires_grad=True)
        y = x * 2
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            y.grad  # unset on a non-leaf: warns
            y.grad = T.zeros(2)
            y.grad  # set: no warning (torch warns only when undefined)
        out.append(len(w))
        out.append((T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
        return out

    assert run(rg) == run(torch)


def test_view_of_an_inference_tensor_made_outside_the_mode_is_an_inference_tensor():
    torch = pytest.importorskip("torch")

    def run(T):
        with T.inference_mode():
            x = T.ones(3)
        v = x[1:]
        try:
            v.add_(1)
            err = None
        except RuntimeError as e:
            err = str(e)
        return v.is_inference(), x.view(3).is_inference(), err

    assert run(rg) == run(torch)


@pytest.mark.parametrize("make", [
    lambda T, x: T.nn.functional.cross_entropy(x, T.tensor([0, 1])),          # no edge for the target
    lambda T, x: T.nn.functional.nll_loss(x, T.tensor([0, 1]), weight=T.ones(3)),  # nor the class weights
    lambda T, x: T.where(T.tensor([True, False, True]), x, T.zeros(3)),        # nor the condition
    lambda T, x: T.index_select(x, 0, T.tensor([0])),
    lambda T, x: T.gather(x, 1, T.tensor([[0], [1]])),
    lambda T, x: x * T.ones(3),                                                # a constant operand keeps (None, 0)
    lambda T, x: x[T.tensor([0])],
    lambda T, x: T.embedding(x, T.tensor([0, 1])),
    lambda T, x: x.masked_fill(T.tensor([True, False, True]), 0.),
    lambda T, x: x.scatter(1, T.tensor([[0], [1]]), 2.),
    lambda T, x: T.clamp(x, T.zeros(3), T.ones(3)),
    lambda T, x: T.nn.functional.binary_cross_entropy(T.sigmoid(x), T.ones(2, 3)),  # BCE's target is differentiable
    lambda T, x: T.nn.functional.mse_loss(x, T.ones(2, 3)),
])
def test_next_functions_list_the_inputs_torch_lists(make):
    def edges(T):
        x = T.ones(2, 3, requires_grad=True)
        return tuple((type(n).__name__ if n is not None else None, nr) for n, nr in make(T, x).grad_fn.next_functions)

    assert edges(rg) == edges(torch)
