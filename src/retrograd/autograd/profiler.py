"""A small CPU profiler with PyTorch's API and table layout.

While a ``profile`` is active, every op-table call (``aten::<op>``) and every backward
node the engine runs (``MulBackward0`` ...) is timed, nested calls included, so both
"self" and "total" times are known.  The op hook costs one global flag check when off.

>>> import retrograd as torch
>>> x = torch.ones(3, requires_grad=True)
>>> with torch.autograd.profiler.profile() as prof:
...     (x * x).sum().backward()
>>> print(prof.key_averages().table(sort_by="self_cpu_time_total"))  # doctest: +SKIP

(The table is not run as a doctest: its times differ from run to run.)
"""
from __future__ import annotations

import time
from collections import OrderedDict

__all__ = ["profile", "record_function", "FunctionEvent", "FunctionEventAvg", "EventList", "emit_nvtx", "emit_itt"]

_now = time.perf_counter_ns


class _State:
    """The active profile (one at a time) and the stack of open timing frames."""

    def __init__(self) -> None:
        self.on = False
        self.events: list | None = None
        self.stack: list = []

    def begin(self) -> list:
        frame = [_now(), 0]  # start, time spent in children
        self.stack.append(frame)
        return frame

    def end(self, name: str, frame: list) -> None:
        end = _now()
        if self.stack and self.stack[-1] is frame:
            self.stack.pop()
        total = end - frame[0]
        if self.stack:
            self.stack[-1][1] += total
        if self.events is not None:
            self.events.append(FunctionEvent(name=name, start_us=frame[0] / 1000.0, end_us=end / 1000.0,
                                             self_us=(total - frame[1]) / 1000.0))

    def end_node(self, name: str, frame: list) -> None:
        self.end(name, frame)


_state = _State()


def _set_op_hook(on: bool) -> None:
    from .._ops import _registry

    _registry._set_profiling(on)


def _format_time(time_us: float) -> str:
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_share(time_us: float, total_us: float) -> str:
    if total_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_us:.2f}%"


_event_ids = __import__("itertools").count()


class FunctionEvent:
    """One timed call, with PyTorch's constructor: ``FunctionEvent(id, name, thread, start_us, end_us, ...)``.

    Self time is total minus the direct children's totals (``cpu_children``, filled by
    ``EventList._populate_cpu_children``) unless the profiler measured it (``self_us``).

    >>> e = FunctionEvent(id=0, name="f", thread=0, start_us=10, end_us=15)
    >>> e.cpu_time_total, e.self_cpu_time_total, e.key
    (5, 5, 'f')
    """

    def __init__(self, id=None, name: str = "", thread: int = 0, start_us: float = 0, end_us: float = 0,
                 fwd_thread=None, input_shapes=None, stack=None, scope: int = 0, use_device=None,
                 cpu_memory_usage: int = 0, device_memory_usage: int = 0, is_async: bool = False,
                 is_remote: bool = False, sequence_nr: int = -1, node_id: int = -1, device_type=None,
                 device_index: int = 0, device_resource_id=None, is_legacy: bool = False, flops=None,
                 trace_name=None, concrete_inputs=None, kwinputs=None, is_user_annotation: bool = False,
                 *, self_us: float | None = None) -> None:
        self.id = next(_event_ids) if id is None else id
        self.node_id = node_id
        self.name = name
        self.trace_name = trace_name
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.start_us = start_us
        self.end_us = end_us
        self.input_shapes = input_shapes
        self.stack = stack or []
        self.scope = scope
        self.sequence_nr = sequence_nr
        self.is_async = is_async
        self.is_remote = is_remote
        self.is_legacy = is_legacy
        self.is_user_annotation = is_user_annotation
        self.cpu_memory_usage = cpu_memory_usage
        self.device_memory_usage = device_memory_usage
        self.flops = flops
        self.cpu_children: list = []
        self.cpu_parent = None
        self.count = 1
        # measured self time (never above the total, whatever the rounding)
        self._self_us = None if self_us is None else min(self_us, end_us - start_us)

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self) -> float:
        if self._self_us is not None:
            return self._self_us
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total

    device_time_total = 0
    self_device_time_total = 0
    device_time = 0

    def append_cpu_child(self, child: "FunctionEvent") -> None:
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent: "FunctionEvent") -> None:
        self.cpu_parent = parent

    def __repr__(self) -> str:
        return (f"<FunctionEvent id={self.id} name={self.name} thread={self.thread} "
                f"cpu_time_total={self.cpu_time_total:.3f} self_cpu_time_total={self.self_cpu_time_total:.3f}>")


class FunctionEventAvg:
    """Events of one key, summed (what ``key_averages()`` lists); the first ``add`` sets the key."""

    def __init__(self, key: str | None = None) -> None:
        self.key = key
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.device_time_total = 0
        self.self_device_time_total = 0
        self.input_shapes = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.flops = 0

    def add(self, other) -> "FunctionEventAvg":
        if self.key is None:
            # the first event added names the group
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.cpu_parent = other.cpu_parent
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.scope = other.scope
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError(f"expected FunctionEvent or FunctionEventAvg, got {type(other).__name__}")
        if other.key != self.key:
            raise AssertionError(f"key mismatch: {other.key} != {self.key}")
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.device_time_total += other.device_time_total
        self.self_device_time_total += other.self_device_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.device_memory_usage += other.device_memory_usage
        self.count += other.count
        return self

    def __iadd__(self, other) -> "FunctionEventAvg":
        return self.add(other)

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / self.count if self.count else 0.0

    @property
    def device_time(self) -> float:
        return self.device_time_total / self.count if self.count else 0.0

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_format_time(self.self_cpu_time_total)} "
                f"cpu_time={_format_time(self.cpu_time_total)} count={self.count}>")


class EventList(list):
    """A list of events with PyTorch's ``table()`` / ``key_averages()`` / ``total_average()``."""

    def _populate_cpu_children(self) -> None:
        """Link each event to the events it encloses (per thread): ``cpu_children`` / ``cpu_parent``.

        Events are visited by start time (longest first on ties); an open event that does not
        enclose the next one is closed, so each event's parent is the innermost enclosing one.
        """
        by_thread: dict = {}
        for evt in sorted(self, key=lambda e: (e.start_us, -e.end_us)):
            if getattr(evt, "is_async", False):
                continue
            by_thread.setdefault(evt.thread, []).append(evt)
        for events in by_thread.values():
            open_events: list = []
            for evt in events:
                while open_events and not (open_events[-1].start_us <= evt.start_us
                                           and evt.end_us <= open_events[-1].end_us):
                    open_events.pop()
                if open_events:
                    open_events[-1].append_cpu_child(evt)
                    evt.set_cpu_parent(open_events[-1])
                open_events.append(evt)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0) -> "EventList":
        groups: OrderedDict = OrderedDict()
        for evt in self:
            avg = groups.get(evt.key)
            if avg is None:
                avg = groups[evt.key] = FunctionEventAvg(evt.key)
            avg.add(evt)
        return EventList(groups.values())

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg()
        for evt in self:
            total.add(evt)
            total.key = None  # (so the next event, whatever its key, is accepted)
        total.key = "Total"
        return total

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False, time_unit: str | None = None) -> str:
        """PyTorch's summary table: Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg, # of Calls."""
        events = list(self)
        if not events:
            return ""
        if sort_by is not None:
            events.sort(key=lambda e: getattr(e, sort_by), reverse=True)
        name_w = max(len(e.key) for e in events) + 4
        if max_name_column_width is not None:
            name_w = min(name_w, max_name_column_width)
        headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
        widths = [name_w] + [12] * 6
        fmt = "".join("{:>" + str(w) + "}  " for w in widths)
        sep = "".join("-" * w + "  " for w in widths)
        line_len = sum(widths) + 2 * len(widths) - 2
        total = sum(e.self_cpu_time_total for e in events)

        def unit(us: float) -> str:
            if time_unit == "s":
                return f"{us / 1e6:.3f}s"
            if time_unit == "ms":
                return f"{us / 1e3:.3f}ms"
            if time_unit == "us":
                return f"{us:.3f}us"
            return _format_time(us)

        out = []
        if header is not None:
            out += ["=" * line_len, header]
        out += [sep, fmt.format(*headers), sep]
        for evt in events[:row_limit]:
            name = evt.key
            if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
                name = name[:max_name_column_width - 3] + "..."
            out.append(fmt.format(name, _format_share(evt.self_cpu_time_total, total), unit(evt.self_cpu_time_total),
                                  _format_share(evt.cpu_time_total, total), unit(evt.cpu_time_total),
                                  unit(evt.cpu_time), evt.count))
        out += [sep, f"Self CPU time total: {unit(total)}"]
        return "\n".join(out) + "\n"

    def __str__(self) -> str:
        return self.table()


class profile:
    """Context manager that times ops and backward nodes (CPU only).

    >>> import retrograd as torch
    >>> with torch.autograd.profiler.profile() as prof:
    ...     y = torch.ones(2) * 2
    >>> prof.key_averages()[0].key
    'aten::mul'
    """

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device=None, record_shapes: bool = False,
                 with_flops: bool = False, profile_memory: bool = False, with_stack: bool = False,
                 with_modules: bool = False, use_kineto: bool = False, use_cpu: bool = True,
                 experimental_config=None, acc_events: bool = False, custom_trace_id_callback=None) -> None:
        self.enabled = enabled
        self.function_events: EventList | None = None
        self.entered = False
        self._prev = None

    def __enter__(self) -> "profile":
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        if _state.on:
            raise RuntimeError("Profiler is already enabled on this thread")
        self.entered = True
        self._events: list = []
        _state.events = self._events
        _state.stack = []
        _state.on = True
        _set_op_hook(True)
        return self

    def __exit__(self, *exc) -> None:
        if not self.enabled:
            return
        _set_op_hook(False)
        _state.on = False
        _state.events = None
        self.function_events = EventList(sorted(self._events, key=lambda e: e.start_us))

    def _check(self) -> EventList:
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self.function_events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0) -> EventList:
        return self._check().key_averages(group_by_input_shape, group_by_stack_n)

    def table(self, sort_by: str | None = None, row_limit: int = 100, **kwargs) -> str:
        return self._check().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def total_average(self) -> FunctionEventAvg:
        return self._check().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        return self._check().self_cpu_time_total

    def __str__(self) -> str:
        return self.table()


class record_function:
    """Time a user-named block: ``with record_function("my_block"): ...``, or decorate a function."""

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with record_function(self.name):
                return func(*args, **kwargs)
        return wrapper

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.frame = None

    def __enter__(self) -> "record_function":
        if _state.on:
            self.frame = _state.begin()
        return self

    def __exit__(self, *exc) -> None:
        if self.frame is not None:
            _state.end(self.name, self.frame)
            self.frame = None


class emit_nvtx:
    """NVTX ranges for NVIDIA's profilers: needs CUDA, so entering it enabled fails as in a CPU build
    of PyTorch (``enabled=False`` is a no-op).

    >>> import retrograd as torch
    >>> with torch.autograd.profiler.emit_nvtx(enabled=False):
    ...     pass
    """

    def __init__(self, enabled: bool = True, record_shapes: bool = False) -> None:
        self.enabled = enabled
        self.record_shapes = record_shapes

    def __enter__(self) -> None:
        if self.enabled:
            raise AssertionError("Torch not compiled with CUDA enabled")
        return None

    def __exit__(self, *exc) -> bool:
        return False


class emit_itt:
    """Intel ITT ranges for VTune.  retrograd has no ITT backend: the context manager does nothing
    (torch's CPU build enters it too).

    >>> import retrograd as torch
    >>> with torch.autograd.profiler.emit_itt():
    ...     pass
    """

    def __init__(self, enabled: bool = True, record_shapes: bool = False) -> None:
        self.enabled = enabled
        self.record_shapes = record_shapes

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> bool:
        return False
