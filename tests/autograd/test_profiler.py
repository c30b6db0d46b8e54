"""autograd.profiler: recorded ops and backward nodes, the table layout, record_function, against torch."""

import re

import pytest

import retrograd as rg

torch = pytest.importorskip("torch")


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
