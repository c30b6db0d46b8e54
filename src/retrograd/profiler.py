"""``torch.profiler``: the step-aware profiler built on retrograd's autograd profiler.

``profile`` follows a ``schedule`` (wait / warmup / active cycles driven by ``step()``), calls
``on_trace_ready`` at the end of each active cycle, and exposes what the autograd profiler
recorded (op calls ``aten::<op>``, backward nodes, ``record_function`` blocks and
``ProfilerStep#<n>`` markers) through ``key_averages()``, ``events()`` and a Chrome trace.
Only CPU time is measured: shapes, memory, stacks, FLOPs and device activity are not recorded.

>>> import retrograd as torch
>>> x = torch.ones(3, requires_grad=True)
>>> with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
...     (x * x).sum().backward()
>>> "aten::mul" in [e.key for e in prof.key_averages()]
True
"""
from __future__ import annotations

import enum
import gzip
import json
import os
import socket
import time
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from .autograd import profiler as _prof
from .autograd.profiler import EventList, record_function

__all__ = ["profile", "schedule", "supported_activities", "tensorboard_trace_handler", "ProfilerAction",
           "ProfilerActivity", "kineto_available", "record_function"]


class ProfilerActivity(enum.Enum):
    """Kinds of activity a profiler can be asked for (torch's names and values); only CPU is measured.

    >>> from retrograd.profiler import ProfilerActivity
    >>> ProfilerActivity.CPU
    <ProfilerActivity.CPU: 0>
    """

    CPU = 0
    XPU = 1
    MTIA = 4
    CUDA = 2
    HPU = 3
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What the profiler does during a step, as returned by a schedule.

    >>> from retrograd.profiler import ProfilerAction
    >>> ProfilerAction.RECORD_AND_SAVE.value
    3
    """

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def supported_activities() -> set:
    """The activities retrograd can profile: ``{ProfilerActivity.CPU}``.

    >>> from retrograd.profiler import supported_activities
    >>> supported_activities()
    {<ProfilerActivity.CPU: 0>}
    """
    return {ProfilerActivity.CPU}


def kineto_available() -> bool:
    """False: retrograd's profiler is its own pure-Python one, not Kineto.

    >>> from retrograd.profiler import kineto_available
    >>> kineto_available()
    False
    """
    return False


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0) -> Callable:
    """A step -> :class:`ProfilerAction` function: skip ``skip_first`` steps, then cycles of ``wait``
    idle, ``warmup`` and ``active`` recorded steps (the last one saves), ``repeat`` times (0: forever).

    >>> from retrograd.profiler import schedule
    >>> s = schedule(wait=1, warmup=1, active=2, repeat=1)
    >>> [s(i).name for i in range(5)]
    ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE', 'NONE']
    """

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:  # start the first cycle at warmup
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    return schedule_fn


def _default_schedule_fn(_: int) -> ProfilerAction:
    """Without a schedule every step is recorded."""
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None, use_gzip: bool = False,
                              use_python_export: bool = False) -> Callable:
    """An ``on_trace_ready`` callback writing ``<worker>.<time_ns>.pt.trace.json[.gz]`` into ``dir_name``.

    >>> import retrograd as torch, tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> with torch.profiler.profile(on_trace_ready=torch.profiler.tensorboard_trace_handler(d, "w")):
    ...     _ = torch.ones(2) + 1
    >>> [f.endswith(".pt.trace.json") and f.startswith("w.") for f in os.listdir(d)]
    [True]
    """

    def handler_fn(prof) -> None:
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        # nanoseconds keep successive traces of one worker apart
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            file_name += ".gz"
        prof.export_chrome_trace(os.path.join(dir_name, file_name), use_python_export=use_python_export)

    return handler_fn


_warned_clear = False


class profile:
    """Profiler context manager with torch.profiler's schedule / step / trace-ready protocol.

    >>> import retrograd as torch
    >>> sched = torch.profiler.schedule(wait=1, warmup=1, active=1)
    >>> seen = []
    >>> with torch.profiler.profile(schedule=sched, on_trace_ready=lambda p: seen.append(p.step_num)) as p:
    ...     for _ in range(6):
    ...         _ = torch.ones(2) * 3
    ...         p.step()
    >>> seen
    [3, 6]
    """

    def __init__(self, *, activities: Iterable | None = None, schedule: Callable[[int], ProfilerAction] | None = None,
                 on_trace_ready: Callable[..., Any] | None = None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config=None, execution_trace_observer=None,
                 acc_events: bool = False, use_cuda: bool | None = None, custom_trace_id_callback=None,
                 post_processing_timeout_s: float | None = None) -> None:
        if activities is not None:
            acts: set = set()
            for item in activities:
                if isinstance(item, ProfilerActivity):
                    acts.add(item)
                elif isinstance(item, dict):
                    acts.update(item.keys())
        else:
            acts = supported_activities()
        if use_cuda is not None:
            warnings.warn("`use_cuda` is deprecated, use `activities` argument instead", FutureWarning,
                          stacklevel=2)
            if use_cuda:
                acts.add(ProfilerActivity.CUDA)
            else:
                acts.discard(ProfilerActivity.CUDA)
        if len(acts) == 0:
            raise AssertionError("No valid profiler activities found")
        self.activities = acts
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.acc_events = acc_events
        self.profiler: _prof.profile | None = None
        self._acc: list = []  # events of finished cycles kept when ``acc_events``
        self._trace_metadata: dict = {}
        if schedule:
            self.schedule = schedule
            self.record_steps = True  # step markers in the trace and table
        else:
            self.schedule = _default_schedule_fn
            self.record_steps = False
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.step_rec_fn: record_function | None = None
        action = self.schedule(self.step_num)
        if action == ProfilerAction.DEVICE_STOPPED:
            raise ValueError("ProfilerAction.DEVICE_STOPPED is set internally by the profiler and must not be "
                             "returned by a user-provided schedule")
        self.current_action = action

        A = ProfilerAction
        warn = warnings.warn
        self.action_map: dict = {
            (A.NONE, A.NONE): [],
            (A.NONE, A.WARMUP): [self.prepare_trace],
            (A.NONE, A.RECORD): [self.prepare_trace, self.start_trace],
            (A.NONE, A.RECORD_AND_SAVE): [self.prepare_trace, self.start_trace],
            (A.WARMUP, A.NONE): [lambda: warn("Incorrect schedule: WARMUP followed by NONE"),
                                 self.start_trace, self.stop_trace],
            (A.WARMUP, A.WARMUP): [],
            (A.WARMUP, A.RECORD): [self.start_trace],
            (A.WARMUP, A.RECORD_AND_SAVE): [self.start_trace],
            (A.RECORD, A.NONE): [lambda: warn("Incorrect schedule: RECORD followed by NONE"), self.stop_trace],
            (A.RECORD, A.WARMUP): [lambda: warn("Incorrect schedule: RECORD followed by WARMUP"), self.stop_trace],
            (A.RECORD, A.RECORD): [],
            (A.RECORD, A.RECORD_AND_SAVE): [],
            (A.RECORD_AND_SAVE, A.NONE): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, A.WARMUP): [self.stop_trace, self._trace_ready, self.prepare_trace],
            (A.RECORD_AND_SAVE, A.RECORD): [self.stop_trace, self._trace_ready, self.prepare_trace,
                                            self.start_trace],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [self.stop_trace, self._trace_ready, self.prepare_trace,
                                                     self.start_trace],
            (A.WARMUP, None): [self.start_trace, self.stop_trace],
            (A.RECORD, None): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, None): [self.stop_trace, self._trace_ready],
        }

    # ---------------------------------------------------------------------------- the state machine
    def __enter__(self) -> "profile":
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        self.stop()

    def start(self) -> None:
        """Begin profiling (what entering the ``with`` block does)."""
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def stop(self) -> None:
        """End profiling (what leaving the ``with`` block does)."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit_action(self.current_action, None)

    def step(self) -> None:
        """Mark the start of the next step; the schedule decides what happens now."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        prev_action = self.current_action
        action = self.schedule(self.step_num + 1)
        if action == ProfilerAction.DEVICE_STOPPED:
            raise ValueError("ProfilerAction.DEVICE_STOPPED is set internally by the profiler and must not be "
                             "returned by a user-provided schedule")
        self.step_num += 1
        self.current_action = action
        self._transit_action(prev_action, action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def _transit_action(self, prev_action, current_action) -> None:
        for action in self.action_map.get((prev_action, current_action)) or ():
            action()

    def prepare_trace(self) -> None:
        """Make a fresh recorder for the next cycle (events are kept across cycles with ``acc_events``)."""
        global _warned_clear
        if self.profiler is not None and not self.acc_events and not _warned_clear:
            _warned_clear = True
            warnings.warn("Warning: Profiler clears events at the end of each cycle. Only events from the current "
                          "cycle will be reported. To keep events across cycles, set acc_events=True.")
        if self.profiler is not None and self.acc_events and self.profiler.function_events is not None:
            self._acc.extend(self.profiler.function_events)
        self.profiler = _prof.profile(use_cpu=ProfilerActivity.CPU in self.activities,
                                      record_shapes=self.record_shapes, profile_memory=self.profile_memory,
                                      with_stack=self.with_stack, with_flops=self.with_flops,
                                      with_modules=self.with_modules)

    def start_trace(self) -> None:
        """Start recording."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before starting trace")
        self.profiler.__enter__()

    def stop_trace(self) -> None:
        """Stop recording."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before stopping trace")
        self.profiler.__exit__(None, None, None)

    def _trace_ready(self) -> None:
        if self.on_trace_ready:
            self.on_trace_ready(self)

    # ---------------------------------------------------------------------------- results
    def _raw_events(self) -> EventList:
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before accessing events")
        got = self.profiler.function_events
        if got is None:
            raise RuntimeError("Profiler didn't finish running")
        if self.acc_events and self._acc:
            return EventList(sorted(self._acc + list(got), key=lambda e: e.start_us))
        return got

    def events(self) -> EventList:
        """The recorded events (not aggregated), in start order; step markers read ``ProfilerStep*``."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before accessing events")
        out = EventList()
        for e in self._raw_events():
            if e.name.startswith("ProfilerStep#"):  # torch groups all steps under one wildcard name
                e = _prof.FunctionEvent(name="ProfilerStep*", start_us=e.start_us, end_us=e.end_us,
                                        self_us=e.self_cpu_time_total)
            out.append(e)
        return out

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        """Events grouped by name (shape / stack / overload grouping is not available: ignored)."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before getting key averages")
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def add_metadata(self, key: str, value: str) -> None:
        """Add a string entry to the exported trace's top level."""
        self._trace_metadata[key] = '"' + value.replace('"', '\\"') + '"'

    def add_metadata_json(self, key: str, value: str) -> None:
        """Add a JSON-encoded entry to the exported trace's top level."""
        self._trace_metadata[key] = value

    def export_chrome_trace(self, path: str, use_python_export: bool = False) -> None:
        """Write the recorded events as a Chrome trace (``chrome://tracing``, Perfetto); ``.gz`` paths are gzipped."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before exporting chrome trace")
        events = self._raw_events()  # the trace keeps each step's own name, as torch's does
        pid, tid = os.getpid(), 0
        trace: dict = {"schemaVersion": 1, "deviceProperties": [], "displayTimeUnit": "ms", "traceName": path}
        for key, value in self._trace_metadata.items():
            trace[key] = json.loads(value)
        trace["traceEvents"] = [
            {"ph": "X", "cat": "user_annotation" if e.name.startswith("ProfilerStep#") else "cpu_op",
             "name": e.name, "pid": pid, "tid": tid, "ts": round(e.start_us, 3),
             "dur": round(e.cpu_time_total, 3), "args": {}} for e in events]
        text = json.dumps(trace, indent=1)
        if path.endswith(".gz"):
            with gzip.open(path, "wt", encoding="utf-8") as f:
                f.write(text)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        """Not available: retrograd records no stacks."""
        raise RuntimeError("export_stacks() needs stack traces, which retrograd's profiler does not record")

    def table(self, sort_by: str | None = None, row_limit: int = 100, **kwargs) -> str:
        """The summary table of the current events (``key_averages().table`` is the usual way)."""
        return self.events().table(sort_by=sort_by, row_limit=row_limit, **kwargs)
