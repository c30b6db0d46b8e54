"""Where things happened in the user's code: in-place writes, freed graphs, cuts of the graph.

The error messages and ``explain()`` name lines of the user's program.  Nodes record
their creation site when they are made (``_ops/_registry._site``); this module records
the few other events those messages need, each only where it is cheap:

* an in-place write to a tensor whose version counter already exists (a tensor is given
  a counter when it is first saved for backward, viewed or written: a tensor that has
  none was never saved, so a write to it cannot invalidate a backward);
* the backward call that freed a graph's saved tensors (once per pass, not per node);
* ``strict in-place`` mode: the tensors saved by nodes recorded while it is on, so that
  a write to one of them raises at the write itself.

``set_record_sites(False)`` turns the recording off (then messages say less).  A site is
kept as (code object, bytecode offset); its line is found only when a message needs it.
"""
from __future__ import annotations

import sys
import weakref

__all__ = ["set_record_sites", "is_recording_sites", "set_strict_inplace", "is_strict_inplace", "strict_inplace"]

_getframe = sys._getframe
_inside: dict = {}  # {code filename: whether it belongs to retrograd}

# The switch for everything recorded here; nodes' creation sites follow it too (set_record_sites).
record_writes = True


def user_frame(depth: int = 2):
    """The first frame outside retrograd, starting ``depth`` frames above the caller's caller."""
    try:
        f = _getframe(depth)
    except ValueError:
        f = _getframe(1)
    while f is not None:
        fn = f.f_code.co_filename
        inside = _inside.get(fn)
        if inside is None:
            inside = _inside[fn] = f.f_globals.get("__name__", "").startswith("retrograd") or fn.startswith("<frozen")
        if not inside:
            return f
        f = f.f_back
    return None


def here(depth: int = 3) -> tuple | None:
    """(code, offset) of the user's line now running (``depth``: frames to skip first)."""
    f = user_frame(depth)
    return None if f is None else (f.f_code, f.f_lasti)


def here_line(depth: int = 3) -> tuple | None:
    """(file, line) of the user's line now running: what tensors keep (plain data: they pickle)."""
    f = user_frame(depth)
    return None if f is None else (f.f_code.co_filename, f.f_lineno)


def line_of(site) -> str | None:
    """"file:line" of a site: a (code, offset) pair, a (file, line) pair or a node's ``_site``."""
    if site is None:
        return None
    code, at = site
    if isinstance(code, str):
        return f"{code}:{at}"
    from .graph import _line_at

    return f"{code.co_filename}:{_line_at(code, at)}"


def node_line(node) -> str | None:
    """"file:line" where ``node`` was created, or None when it was not recorded."""
    site = getattr(node, "_site", None)
    return None if site is None else f"{site[0]}:{site[1]}"


# ---- in-place writes -----------------------------------------------------------------------
# {id(counter): (counter, [(version after the write, code, offset), ...])}: the counter is held
# so that its id is not reused while the entry lives; counters nobody else holds are dropped
# when the table grows (``_prune``).  The last few writes per counter are kept.
_writes: dict = {}
_KEEP = 4
_PRUNE_AT = [4096]


def note_write(vc, site=None) -> None:
    """Record that the counter ``vc`` was just bumped by an in-place write at the user's line."""
    if site is None:
        f = user_frame(3)
        site = None if f is None else (f.f_code, f.f_lasti)
    entry = _writes.get(id(vc))
    if entry is None:
        if len(_writes) >= _PRUNE_AT[0]:
            _prune()
        _writes[id(vc)] = (vc, [(int(vc[0]), site)])
    else:
        log = entry[1]
        log.append((int(vc[0]), site))
        if len(log) > _KEEP:
            del log[0]
    if _strict[0]:
        _check_strict(vc)


def _prune() -> None:
    """Drop the writes of counters no tensor holds any more; grow the bound if most are alive."""
    getrefcount = sys.getrefcount
    dead = [k for k, (vc, _) in _writes.items() if getrefcount(vc) <= 3]  # (the table, vc, the call)
    for k in dead:
        del _writes[k]
    if len(_writes) > _PRUNE_AT[0] // 2:
        _PRUNE_AT[0] *= 2


def write_site(vc, saved_version: int):
    """(site, version after) of the write that first changed ``vc`` after ``saved_version``,
    else of the latest write recorded; None when none was recorded."""
    entry = _writes.get(id(vc))
    if entry is None or entry[0] is not vc:
        return None
    log = entry[1]
    for ver, site in log:
        if ver == saved_version + 1:
            return site, ver
    return log[-1][1], log[-1][0]


# ---- strict in-place mode --------------------------------------------------------------------
_strict = [False]
# {id(counter): (counter, [(weakref to node, version it saved), ...])}: filled only in strict mode.
_saved: dict = {}


def is_strict_inplace() -> bool:
    """Whether in-place writes to tensors saved for backward raise at the write."""
    return _strict[0]


def set_strict_inplace(mode: bool) -> None:
    """Raise at an in-place write that invalidates a tensor saved for backward (retrograd's own).

    PyTorch (and retrograd by default) raise only later, in ``backward()``, with "one of the
    variables needed for gradient computation has been modified by an inplace operation".
    In strict mode the write itself raises that error (the write has happened; the graph
    can no longer be differentiated), naming the node that saved the tensor.  Only nodes
    recorded while the mode is on are watched.

    >>> import retrograd as torch
    >>> torch.autograd.set_strict_inplace(True)
    >>> x = torch.ones(2, requires_grad=True)
    >>> y = x.exp()                # saves its result
    >>> try:
    ...     y.add_(1)
    ... except RuntimeError as e:
    ...     print(str(e).splitlines()[0][:60])
    one of the variables needed for gradient computation has bee
    >>> torch.autograd.set_strict_inplace(False)
    """
    from .._ops import _registry

    _strict[0] = bool(mode)
    if not mode:
        _saved.clear()
    _registry._set_strict(_strict[0])


class strict_inplace:
    """Context manager (and decorator) form of :func:`set_strict_inplace`.

    >>> import retrograd as torch
    >>> with torch.autograd.strict_inplace():
    ...     x = torch.ones(2, requires_grad=True)
    ...     y = x.sigmoid()
    ...     y.sum().backward()   # no in-place write: nothing raises
    """

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        self.prev = _strict[0]
        set_strict_inplace(self.mode)

    def __exit__(self, *exc) -> None:
        set_strict_inplace(self.prev)

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with strict_inplace(self.mode):
                return func(*args, **kwargs)
        return wrapper


def watch_saved(node) -> None:
    """Strict mode: remember the counters ``node`` saved (called for each node recorded)."""
    saved = getattr(node, "saved", None)
    if not saved:
        return
    ref = weakref.ref(node)
    for k in range(0, len(saved), 2):
        v, ver = saved[k], saved[k + 1]
        items = v if isinstance(v, list) else [v]
        for item in items:
            if ver is None:
                vc, at = getattr(item, "vc", None), getattr(item, "version", None)
            else:
                vc, at = item._vcounter(), ver
            if vc is None or at is None:
                continue
            entry = _saved.get(id(vc))
            if entry is None or entry[0] is not vc:
                _saved[id(vc)] = (vc, [(ref, at)])
            else:
                entry[1].append((ref, at))


def _check_strict(vc) -> None:
    entry = _saved.get(id(vc))
    if entry is None or entry[0] is not vc:
        return
    now = int(vc[0])
    live = [(r(), at) for r, at in entry[1]]
    live = [(n, at) for n, at in live if n is not None and n.saved and at < now]
    del _saved[id(vc)]
    if not live:
        return
    node, at = live[0]
    from . import _error_details

    raise RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"it is at version {now}; expected version {at} instead. (Raised at the write: strict in-place mode, "
        "torch.autograd.set_strict_inplace(True).)" + _error_details.inplace_details(node, vc, at))


def set_record_sites(mode: bool) -> None:
    """Record the user's lines that error messages and ``explain()`` name (on by default).

    The creation line of each node, of in-place writes and of cuts of the graph; off, the
    forward pass does slightly less work and messages say less.

    >>> import retrograd as torch
    >>> torch.autograd.set_record_sites(False); torch.autograd.set_record_sites(True)
    """
    global record_writes
    from .._ops import _registry

    record_writes = bool(mode)
    _registry.record_sites = bool(mode)


def is_recording_sites() -> bool:
    """Whether user lines are being recorded (``set_record_sites``)."""
    return record_writes


# ---- where a tensor left the graph (for explain() and "does not require grad") ---------------
# A tensor cut from the graph carries ``_cut`` in its __dict__: (how, site, the op under no_grad).
# The recent cuts are also listed here, by the node they cut from (weakly), so that explain()
# can say that a tensor flows into a cut even when the cut's result is gone.
_cuts: list = []
_CUTS_KEPT = 256


def _log_cut(source, how: str, site) -> None:
    node = source._grad_fn if source._grad_fn is not None else source._accum_node()
    ref = weakref.ref(source) if node is None else weakref.ref(node)
    _cuts.append((ref, how, site, _leaves(node)))
    if len(_cuts) > _CUTS_KEPT:
        del _cuts[:_CUTS_KEPT // 2]


def _leaves(node, limit: int = 200) -> tuple:
    """Weak references to the leaves a small graph below ``node`` reaches (empty for a big one):
    a cut's source is often a temporary (``x.sum().item()``) whose graph dies at once."""
    if node is None or not node._next:
        return ()
    seen = {node}
    stack = [node]
    out = []
    while stack:
        for c in stack.pop()._next:
            if c is None or c in seen:
                continue
            if len(seen) >= limit:
                return ()
            seen.add(c)
            v = getattr(c, "variable", None)
            if v is not None:
                out.append(weakref.ref(v))
            else:
                stack.append(c)
    return tuple(out)


def _called_from_retrograd(depth: int) -> bool:
    """Whether the code ``depth`` frames above the caller is retrograd's own (an internal use: not recorded)."""
    try:
        f = _getframe(depth + 1)
    except ValueError:
        return False
    fn = f.f_code.co_filename
    inside = _inside.get(fn)
    if inside is None:
        inside = _inside[fn] = f.f_globals.get("__name__", "").startswith("retrograd") or fn.startswith("<frozen")
    return inside


def note_cut(result, source, how: str, depth: int = 2) -> None:
    """``result`` holds ``source``'s values outside the graph (``detach()``, ``.data``, ``torch.tensor(t)``).

    ``depth``: frames from here to the code that asked for the cut (retrograd's own uses,
    e.g. batch norm's running statistics, are not recorded)."""
    if not record_writes or not source._requires_grad or _called_from_retrograd(depth):
        return
    site = here_line(4)
    result.__dict__["_cut"] = (how, site, None)
    _log_cut(source, how, site)


def note_escape(source, how: str, depth: int = 2) -> None:
    """``source``'s values left as a Python number or a NumPy array (``.item()``, ``.numpy()``, ``.tolist()``)."""
    if record_writes and source._requires_grad and not _called_from_retrograd(depth):
        _log_cut(source, how, here_line(4))


def tag_untracked(op, tensors, outs) -> None:
    """Outputs of ``op`` computed without a graph inside a user's no_grad / inference_mode block."""
    from .grad_mode import state

    region = state.region
    for t in tensors:
        if t._requires_grad:
            tag = (region[0], region[1], op.name)
            for o in outs:
                o.__dict__["_cut"] = tag
            if region is not _logged[0]:  # (listed once per block entered: an eval loop pays one dict store per op)
                _logged[0] = region
                _log_cut(t, region[0], region[1])
            return


_logged = [None]  # the last no_grad block whose cut was listed


def region_site(depth: int = 2):
    """The site of a no_grad / inference_mode block entered by user code (None inside retrograd)."""
    if not record_writes:
        return None
    try:
        f = _getframe(depth)
    except ValueError:
        return None
    fn = f.f_code.co_filename
    inside = _inside.get(fn)
    if inside is None:
        inside = _inside[fn] = f.f_globals.get("__name__", "").startswith("retrograd") or fn.startswith("<frozen")
    return None if inside else (fn, f.f_lineno)


def note_leaf(t) -> None:
    """Where a leaf was made to require grad (its "creation line" in messages)."""
    if record_writes:
        t.__dict__["_born"] = here_line(4)


def note_zero_grad(params, set_to_none: bool) -> None:
    """``zero_grad()`` reset these parameters' ``.grad`` (to None, or to zeros)."""
    if not record_writes:
        return
    from ._pass_state import _run_ids

    mark = (here_line(4), _run_ids.__reduce__()[1][0], set_to_none)
    for p in params:
        p.__dict__["_reset"] = mark


# Hooks that replaced a non-zero gradient with zeros: {hook: True}, weakly.
zeroing_hooks: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def note_hook_result(hook, new, old) -> None:
    if old._data.any() and not new._data.any():
        try:
            zeroing_hooks[hook] = True
        except TypeError:  # (not weakly referenceable)
            pass
