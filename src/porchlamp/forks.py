"""A function over parts of a job in forked child processes, so pure Python work uses every core:
each child inherits its part (nothing is sent to it) and sends back only its pickled result.

Children run only pure Python on what they inherited: never the store's connection, whose threads
and locks a fork does not carry over. They leave by `os._exit`, so nothing of the parent's (its
connection, its buffered output) is closed or flushed twice.
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from porchlamp.errors import PorchlampError

P = TypeVar("P")
R = TypeVar("R")


class ForkError(PorchlampError):
    """A forked child failed without an exception that could be sent back, or died."""


def can_fork() -> bool:
    return hasattr(os, "fork")


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def part_size(items: int, most: int, processes: int) -> int:
    """How many items each part of a job takes: at most `most`, in a number of parts that is a
    multiple of `processes` and of like sizes, so the last parts end together instead of one core
    finishing a long part alone while the others wait."""
    parts = -(-items // max(1, most))
    parts = max(processes, -(-parts // processes) * processes)
    return max(1, -(-items // parts))


def fork_map(fn: Callable[[P], R], parts: Iterable[P], processes: int, name: Callable[[P], str] = str) -> Iterator[R]:
    """`fn(part)` for each of `parts`, in order, with up to `processes` children at work at once.

    `parts` is read lazily, so the parent makes the next part while children work on the earlier
    ones. With `processes` below 2, or where the system cannot fork, everything runs here. A child's
    exception is raised again here; a child that dies raises `ForkError` naming its part (`name`)."""
    if processes < 2 or not can_fork():
        yield from map(fn, parts)
        return
    running: deque[tuple[int, int, str]] = deque()  # (pid, read end, part's name), oldest first
    try:
        for part in parts:
            if len(running) >= processes:
                yield _collect(*running.popleft())
            label = name(part)
            running.append((*_start(fn, part, label), label))
        while running:
            yield _collect(*running.popleft())
    finally:
        for pid, fd, _ in running:  # left early (an error, or the caller stopped): stop the rest
            os.close(fd)
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ChildProcessError, ProcessLookupError):
                pass


def _start(fn: Callable[[P], R], part: P, name: str) -> tuple[int, int]:
    read, write = os.pipe()
    pid = os.fork()
    if pid:
        os.close(write)
        return pid, read
    # The child. Its collector would walk (and so copy) every object the parent holds.
    code = 0
    try:
        gc.disable()
        os.close(read)
        try:
            out = pickle.dumps((True, fn(part)), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as err:  # noqa: BLE001  (sent to the parent, which raises it)
            code = 1
            text = "".join(traceback.format_exception(err))
            try:
                err.add_note(f"in the child process working on {name}:\n{text}")
                out = pickle.dumps((False, err), protocol=pickle.HIGHEST_PROTOCOL)
                pickle.loads(out)  # some exceptions pickle but cannot be made again from their arguments
            except Exception:  # noqa: BLE001  (then it goes as its text)
                out = pickle.dumps((False, ForkError(f"the child process working on {name} failed:\n{text}")))
        with os.fdopen(write, "wb") as pipe:
            pipe.write(out)
    finally:
        os._exit(code)


def _collect(pid: int, fd: int, name: str) -> R:  # type: ignore[type-var]
    with os.fdopen(fd, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    try:
        ok, value = pickle.loads(data)
    except (pickle.UnpicklingError, EOFError, ValueError) as err:  # nothing sent, or cut off as it was sent
        how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit status {os.waitstatus_to_exitcode(status)}"
        raise ForkError(f"the child process working on {name} died ({how}) before it sent its result; "
                        "if it ran out of memory, give the machine more or the job less at once") from err
    if not ok:
        raise value
    return value  # type: ignore[no-any-return]
