"""Named points where a crash is most harmful (mid-migration, a page received but not committed),
so tests can `kill -9` the process exactly there: PORCHLAMP_KILL_AT=name:n kills at the n-th hit.
With PORCHLAMP_KILL_ONCE=path as well, only the first process to get there dies (it creates the
file), so a task retried in a fresh worker process runs through.

Unset (always, outside tests) every point is a no-op.
"""

from __future__ import annotations

import os
import signal
from collections import Counter

_TARGET = os.environ.get("PORCHLAMP_KILL_AT", "")
_NAME, _, _NTH = _TARGET.partition(":")
_ONCE = os.environ.get("PORCHLAMP_KILL_ONCE", "")
_HITS: Counter[str] = Counter()


def reach(name: str) -> None:
    """Die as `kill -9` would if this is the point and hit the environment names."""
    if not _TARGET or name != _NAME:
        return
    _HITS[name] += 1
    if _HITS[name] == int(_NTH or 1):
        if _ONCE:
            try:
                open(_ONCE, "x").close()
            except FileExistsError:
                return
        os.kill(os.getpid(), signal.SIGKILL)
