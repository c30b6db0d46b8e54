"""torch.profiler (schedule, step protocol, key_averages, traces) vs torch."""
from __future__ import annotations

import gzip
import json
import os
import re
import warnings
from pathlib import Path

import pytest

import retrograd
import retrograd.profiler as RPF

torch = pytest.importorskip("torch")
TPF = torch.profiler


# ---------------------------------------------------------------------------------------------- enums
def test_enums_match_torch():
    assert [(m.name, m.value) for m in RPF.ProfilerActivity] == \
        [(k, v.value) for k, v in TPF.ProfilerActivity.__members__.items()]
    assert [(m.name, m.value) for m in RPF.ProfilerAction] == [(m.name, m.value) for m in TPF.ProfilerAction]
    assert repr(RPF.ProfilerActivity.CPU) == repr(TPF.ProfilerActivity.CPU)
    assert {a.name for a in RPF.supported_activities()} <= {a.name for a in TPF.supported_activities()}
    assert RPF.record_function is retrograd.autograd.profiler.record_function


@pytest.mark.parametrize("kw", [dict(wait=1, warmup=1, active=2), dict(wait=0, warmup=2, active=1, repeat=2),
                                dict(wait=2, warmup=1, active=3, repeat=1, skip_first=3),
                                dict(wait=3, warmup=1, active=1, skip_first=2, skip_first_wait=1)])
def test_schedule_matches_torch(kw):
    r, t = RPF.schedule(**kw), TPF.schedule(**kw)
    assert [r(i).name for i in range(25)] == [t(i).name for i in range(25)]
    for fn in (r, t):
        with pytest.raises(AssertionError, match="Step must be non-negative. Got -1."):
            fn(-1)


@pytest.mark.parametrize("kw", [dict(wait=-1, warmup=1, active=1), dict(wait=0, warmup=1, active=0),
                                dict(wait=0, warmup=1, active=1, repeat=-2),
                                dict(wait=0, warmup=1, active=1, skip_first=-1)])
def test_schedule_errors(kw):
    with pytest.raises(AssertionError) as t:
        TPF.schedule(**kw)
    with pytest.raises(AssertionError) as r:
        RPF.schedule(**kw)
    assert str(r.value) == str(t.value)


def test_schedule_without_warmup_warns():
    with pytest.warns(UserWarning, match="Profiler won't be using warmup"):
        RPF.schedule(wait=1, warmup=0, active=1)


# ---------------------------------------------------------------------------------------------- profile
def _run_scheduled(lib, prof_mod, n_steps=12, **kw):
    seen = []

    def ready(p):
        avg = p.key_averages()
        steps = [e for e in avg if e.key.startswith("ProfilerStep")]
        seen.append((p.step_num, [(e.key, e.count) for e in steps], any(e.key == "aten::mul" for e in avg)))

    x = lib.ones(3, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched = prof_mod.schedule(**kw)
        with prof_mod.profile(schedule=sched, on_trace_ready=ready) as p:
            for _ in range(n_steps):
                (x * x).sum().backward()
                p.step()
    return seen


@pytest.mark.parametrize("kw", [dict(wait=1, warmup=1, active=2, repeat=2, skip_first=1),
                                dict(wait=0, warmup=1, active=1), dict(wait=2, warmup=1, active=3)])
def test_scheduled_cycles_match_torch(kw):
    assert _run_scheduled(retrograd, RPF, **kw) == _run_scheduled(torch, TPF, **kw)


def test_profile_records_ops_backward_and_blocks():
    x = retrograd.ones(3, requires_grad=True)
    with RPF.profile(activities=[RPF.ProfilerActivity.CPU], record_shapes=True) as p:
        with RPF.record_function("my_block"):
            y = (x * 2 + 1).sum()
        y.backward()
    keys = {e.key for e in p.key_averages()}
    tx = torch.ones(3, requires_grad=True)
    with TPF.profile(activities=[TPF.ProfilerActivity.CPU]) as tp:
        with TPF.record_function("my_block"):
            ty = (tx * 2 + 1).sum()
        ty.backward()
    tkeys = {e.key for e in tp.key_averages()}
    common = {"my_block", "aten::mul", "aten::add", "aten::sum", "MulBackward0", "AddBackward0", "SumBackward0"}
    assert common <= keys and common <= tkeys
    block = [e for e in p.events() if e.name == "my_block"][0]
    inner = [e for e in p.events() if e.name == "aten::mul"][0]
    assert block.start_us <= inner.start_us and inner.end_us <= block.end_us
    assert block.cpu_time_total >= inner.cpu_time_total


def test_table_sort_and_row_limit():
    x = retrograd.ones(4)
    with RPF.profile() as p:
        for _ in range(3):
            x = x * 1.5 + 1
        x.sum()
    table = p.key_averages().table(sort_by="self_cpu_time_total", row_limit=2)
    lines = table.splitlines()
    for col in ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]:
        assert col in lines[1]
    rows = lines[3:-2]
    assert len(rows) == 2 and lines[-1].startswith("Self CPU time total:")
    avgs = sorted(p.key_averages(), key=lambda e: e.self_cpu_time_total, reverse=True)
    assert rows[0].split()[0] == avgs[0].key
    counts = {e.key: e.count for e in p.key_averages()}
    assert counts["aten::mul"] == 3 and counts["aten::add"] == 3 and counts["aten::sum"] == 1


def test_errors_before_start_and_bad_activities():
    for lib in (RPF, TPF):
        with pytest.raises(AssertionError, match="Profiler must be initialized before getting key averages"):
            lib.profile().key_averages()
        with pytest.raises(AssertionError, match="Profiler must be initialized before exporting chrome trace"):
            lib.profile().export_chrome_trace("x.json")
        with pytest.raises(AssertionError, match="No valid profiler activities found"):
            lib.profile(activities=[])
        with pytest.warns(FutureWarning, match="`use_cuda` is deprecated, use `activities` argument instead"):
            lib.profile(use_cuda=False)


def test_start_stop_and_acc_events():
    p = RPF.profile()
    p.start()
    retrograd.ones(2) * 3
    p.stop()
    assert [e.key for e in p.key_averages()] == ["aten::mul"]
    x = retrograd.ones(2)
    sched = RPF.schedule(wait=0, warmup=1, active=1)
    with RPF.profile(schedule=sched, acc_events=True) as p:
        for _ in range(6):
            x * 3
            p.step()
    counts = {e.key: e.count for e in p.key_averages()}
    assert counts["aten::mul"] == 3 and counts["ProfilerStep*"] == 3


def test_export_chrome_trace(tmp_path):
    x = retrograd.ones(3, requires_grad=True)
    with RPF.profile(schedule=RPF.schedule(wait=0, warmup=1, active=1, repeat=1)) as p:
        for _ in range(3):
            (x * x).sum().backward()
            p.step()
    p.add_metadata("run", "a")
    for name, opener in [("t.json", open), ("t.json.gz", gzip.open)]:
        path = str(tmp_path / name)
        p.export_chrome_trace(path)
        with opener(path, "rt") as f:
            trace = json.load(f)
        evs = trace["traceEvents"]
        assert trace["run"] == "a" and trace["traceName"] == path
        assert {"ProfilerStep#1", "aten::mul", "MulBackward0"} <= {e["name"] for e in evs}
        assert all(e["ph"] == "X" and e["dur"] >= 0 for e in evs)


@pytest.mark.parametrize("use_gzip", [False, True])
def test_tensorboard_trace_handler(tmp_path, use_gzip):
    out = tmp_path / "logs" / "run"
    handler = RPF.tensorboard_trace_handler(str(out), worker_name="w0", use_gzip=use_gzip)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with RPF.profile(schedule=RPF.schedule(wait=1, warmup=1, active=1, repeat=2),
                         on_trace_ready=handler) as p:
            for _ in range(8):
                retrograd.ones(2) + 1
                p.step()
    files = sorted(os.listdir(out))
    suffix = ".pt.trace.json.gz" if use_gzip else ".pt.trace.json"
    assert len(files) == 2 and all(f.startswith("w0.") and f.endswith(suffix) for f in files)
    with (gzip.open if use_gzip else open)(str(out / files[0]), "rt") as f:
        assert "aten::add" in {e["name"] for e in json.load(f)["traceEvents"]}


def test_schedule_returning_device_stopped_is_rejected():
    for lib in (RPF, TPF):
        with pytest.raises(ValueError, match="DEVICE_STOPPED is set internally"):
            lib.profile(schedule=lambda s: lib.ProfilerAction.DEVICE_STOPPED)


# ---------------------------------------------------------------------------------------------- docs
_DOC = Path(__file__).resolve().parents[1] / "docs" / "prune_profiler.md"


@pytest.mark.parametrize("i", range(3))
def test_doc_blocks_run(i):
    blocks = re.findall(r"```python\n(.*?)```", _DOC.read_text(), re.S)
    assert len(blocks) == 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(blocks[i], "prune_profiler.md", "exec"), {"__name__": "__docs__"})
