"""A small CPU profiler with PyTorch's API and table layout.

While a ``profile`` is active, every op-table call (``aten::<op>``) and every backward
node the engine runs (``MulBackward0`` ...) is timed, nested calls included, so both
"self" and "total" times are known.  The op hook costs one global flag check when off.

>>> import retrograd as torch
>>> x = torch.ones(3, requires_grad=True)
>>> with torch.autograd.profiler.profile() as prof:
...     (x * x).sum().backward()
>>> print(prof.key_averages().table(sort_by="self_cpu_time_total"))  # doctest: +SKIP
"""
from __future__ import annotations

import time
from collections import OrderedDict

__all__ = ["profile", "record_function", "FunctionEvent", "FunctionEventAvg", "EventList", "emit_nvtx"]

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
            self.events.append(FunctionEvent(name, frame[0] / 1000.0, end / 1000.0, (total - frame[1]) / 1000.0))

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


class FunctionEvent:
    """One timed call: ``name`` (``key``), start/end in microseconds, self time."""

    __slots__ = ("name", "start_us", "end_us", "self_cpu_time_total", "count")

    def __init__(self, name: str, start_us: float, end_us: float, self_us: float) -> None:
        self.name = name
        self.start_us = start_us
        self.end_us = end_us
        # self time is total minus children; rounding must never make it exceed the total
        self.self_cpu_time_total = min(self_us, end_us - start_us)
        self.count = 1

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.end_us - self.start_us

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total

    def __repr__(self) -> str:
        return (f"<FunctionEvent name={self.name} self_cpu_time_total={self.self_cpu_time_total:.3f} "
                f"cpu_time_total={self.cpu_time_total:.3f}>")


class FunctionEventAvg:
    """All calls of one name, summed (what ``key_averages()`` lists)."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0

    def add(self, evt) -> "FunctionEventAvg":
        self.count += evt.count
        self.cpu_time_total += evt.cpu_time_total
        self.self_cpu_time_total += evt.self_cpu_time_total
        return self

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_format_time(self.self_cpu_time_total)} "
                f"cpu_time={_format_time(self.cpu_time_total)} count={self.count}>")


class EventList(list):
    """A list of events with PyTorch's ``table()`` / ``key_averages()`` / ``total_average()``."""

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0) -> "EventList":
        groups: OrderedDict = OrderedDict()
        for evt in self:
            avg = groups.get(evt.key)
            if avg is None:
                avg = groups[evt.key] = FunctionEventAvg(evt.key)
            avg.add(evt)
        return EventList(groups.values())

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg("Total")
        for evt in self:
            total.add(evt)
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
    """Time a user-named block: ``with record_function("my_block"): ...``."""

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
