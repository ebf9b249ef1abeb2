"""A time limit on one call, so that no text can keep a server worker busy for long.

`within(limit, work)` returns what `work()` returns, or raises `TooSlow` once the work has
used `limit` seconds of CPU time. CPU time, not wall-clock time: on a loaded machine a
process waits for a core, and that wait says nothing about the text (a wall-clock limit
refused a one-paragraph post in a data-set build starved by other work). Python cannot
stop a thread from outside, so the limit is kept in one of two ways:

* In the main thread (gunicorn's sync workers, the test client, every command), the
  process's CPU-time interval timer (`setitimer(ITIMER_PROF)`) sends SIGPROF, and its
  handler raises inside the work. The interpreter runs signal handlers between bytecodes
  and during long regular expression matches, so a pure-Python parser is stopped within
  milliseconds. The handler raises only while the work's own frames are running, so the
  code around it is never interrupted; the timer repeats until it is disarmed, in case
  library code swallows the first stop. The previous SIGPROF handler is put back and the
  timer cleared, always.
* Elsewhere (`flask run` serves each request in a thread, and signals reach only the main
  thread), or when some other code already runs that timer (a sampling profiler), the
  work runs in a forked child, whose only thread keeps the same CPU-time limit and sends
  its result back through a pipe; a child that neither answers nor stops within
  WALL_FACTOR times the limit is killed. That costs a fork per call, so it is kept for
  the cases the timer cannot serve.

Whatever stops the work, nothing it made is kept: the caller gets the exception only.
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
import pickle
import select
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import TypeVar

T = TypeVar("T")

DEFAULT_LIMIT = 2.0  # seconds; MARKDOWN_TIME_LIMIT in docs/configuration.md
LIMIT_RANGE = (0.1, 60.0)  # what the setting accepts
# After the first stop, how often the timer fires again should the work carry on.
_REPEAT = 0.05
# How long, in wall-clock time, a child process may take per second of its CPU limit.
WALL_FACTOR = 10
_TIMER, _SIGNAL = signal.ITIMER_PROF, signal.SIGPROF
_CHUNK = 1 << 16


class TooSlow(Exception):
    """The work ran past its time limit and was stopped; nothing it made was kept."""

    def __init__(self, limit: float) -> None:
        super().__init__(f"stopped after {limit:g} seconds")
        self.limit = limit

    def __reduce__(self) -> tuple[type[TooSlow], tuple[float]]:
        """Pickled with its limit, as a child process sends it back."""
        return (TooSlow, (self.limit,))


class _Stop(BaseException):
    """Raised inside the work by the timer. A BaseException, so that library code catching
    Exception lets it through."""


def seconds_from_env(name: str, default: float) -> float:
    """A number of seconds in LIMIT_RANGE from the environment, or refuse to start."""
    raw = os.environ.get(name) or str(default)
    low, high = LIMIT_RANGE
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not (raw.isascii() and low <= value <= high):  # also refuses nan and inf
        raise RuntimeError(
            f"{name} must be a number of seconds from {low:g} to {high:g}, not {raw!r}."
        )
    return value


def within(limit: float, work: Callable[[], T]) -> T:
    """The result of `work()`, or TooSlow once it has used `limit` seconds of CPU time."""
    if _timer_is_free():
        return _with_timer(limit, work)
    return _in_child(limit, work)


def _timer_is_free() -> bool:
    """True when this thread can use SIGPROF: the main thread, with no CPU-time timer running
    and a handler that can be put back (None is one installed outside Python)."""
    if threading.current_thread() is not threading.main_thread():
        return False
    idle = signal.getitimer(_TIMER) == (0.0, 0.0)
    return idle and signal.getsignal(_SIGNAL) is not None


def _run_work(work: Callable[[], T]) -> T:
    """Call the work. The timer's handler raises only while this frame is on the stack."""
    return work()


_WORK_CODE = _run_work.__code__


def _inside_work(frame: FrameType | None) -> bool:
    """True when `frame` is the work's frame or one it called."""
    while frame is not None:
        if frame.f_code is _WORK_CODE:
            return True
        frame = frame.f_back
    return False


def _with_timer(limit: float, work: Callable[[], T]) -> T:
    """Run `work` in this (main) thread, stopped by SIGPROF at the limit."""
    stopped = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopped
        if _inside_work(frame):
            stopped = True
            raise _Stop

    # The garbage collector runs other code's finalizers and weakref callbacks (SQLAlchemy's,
    # say) in whichever frame allocates at the wrong moment: paused during the work, so that
    # the stop only ever lands in the work's own code.
    collecting = gc.isenabled()
    previous = signal.signal(_SIGNAL, stop)
    try:
        gc.disable()
        signal.setitimer(_TIMER, limit, _REPEAT)
        try:
            result = _run_work(work)
        except BaseException:
            if stopped:  # a library may turn the stop into an error of its own
                raise TooSlow(limit) from None
            raise
    finally:
        signal.setitimer(_TIMER, 0)
        signal.signal(_SIGNAL, previous)
        if collecting:
            gc.enable()
    if stopped:  # stopped, but the stop was swallowed: the result cannot be trusted
        raise TooSlow(limit)
    return result


def _in_child(limit: float, work: Callable[[], T]) -> T:
    """Run `work` in a forked child under the same CPU-time limit; its result (or TooSlow)
    comes back pickled. A child that does not answer in WALL_FACTOR times the limit is
    killed, and that too is TooSlow."""
    deadline = time.monotonic() + limit * WALL_FACTOR
    reader, writer = os.pipe()
    try:
        pid = os.fork()
    except BaseException:
        os.close(reader)
        os.close(writer)
        raise
    if pid == 0:  # pragma: no cover (the child leaves through os._exit)
        _child(reader, writer, lambda: _with_timer(limit, work))
    os.close(writer)
    try:
        payload = _read_until(reader, deadline)
    finally:
        os.close(reader)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    if payload is None:
        raise TooSlow(limit)
    if not payload:
        raise RuntimeError("the process doing the work ended without an answer")
    ok, value = pickle.loads(payload)
    if not ok:
        raise value
    return value


def _child(reader: int, writer: int, work: Callable[[], object]) -> None:
    """In the forked child: do the work, write (ok, result or error), leave at once."""
    status = 0
    try:
        os.close(reader)
        try:
            payload = pickle.dumps((True, work()), pickle.HIGHEST_PROTOCOL)
        except Exception as error:
            try:
                payload = pickle.dumps((False, error), pickle.HIGHEST_PROTOCOL)
            except Exception:
                payload = pickle.dumps((False, RuntimeError(repr(error))))
        view = memoryview(payload)
        while view:
            view = view[os.write(writer, view) :]
    except BaseException:
        status = 1
    finally:
        # No cleanup of the parent's state: its database connections, files and buffers
        # are the parent's, and exit handlers would touch them.
        os._exit(status)


def _read_until(reader: int, deadline: float) -> bytes | None:
    """Everything the child writes until it closes the pipe; None if the deadline comes first."""
    parts: list[bytes] = []
    poller = select.poll()  # not select(): a busy server's descriptors may pass 1024
    poller.register(reader, select.POLLIN)
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not poller.poll(max(1, math.ceil(left * 1000))):
            return None
        part = os.read(reader, _CHUNK)
        if not part:
            return b"".join(parts)
        parts.append(part)
