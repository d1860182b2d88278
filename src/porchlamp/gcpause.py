"""Python's cycle collector paused while a task builds a shard's records and results, which it then
drops at once: the objects the task leaves are looked at once, when the last paused task ends.

The collector runs each time allocations outnumber frees by a few hundred, and every so often walks
every object the process holds. A task that reads a shard as records and keeps its results until it
writes them grows the heap by hundreds of thousands of objects, none of them in a reference cycle
worth finding before the task ends; the walks then cost about 8% of the task (bench/RESULTS.md).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0  # paused tasks running now, in any thread of this process
_resume = False  # whether the collector was on when the first of them started


@contextmanager
def paused() -> Iterator[None]:
    """The collector off for the body. Tasks may overlap in threads: the first to start turns it
    off, the last to end turns it back on (if it was on) and collects what the tasks left, which,
    the collector having been off, is all in its youngest generation."""
    global _depth, _resume
    with _lock:
        if _depth == 0:
            _resume = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            last = _depth == 0
            if last and _resume:
                gc.enable()
        if last:
            gc.collect(0)
