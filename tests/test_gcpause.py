"""The collector paused for a task: off inside, back as it was after (however tasks overlap in
threads, and on an error), and what the task left in cycles collected when the last one ends."""

from __future__ import annotations

import gc
import threading
import weakref

import pytest

from porchlamp import gcpause


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def _cycle() -> weakref.ref[_Node]:
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def test_off_inside_and_on_after_with_the_cycles_left_collected() -> None:
    assert gc.isenabled()
    with gcpause.paused():
        assert not gc.isenabled()
        gc.collect(0)  # what the task itself may do: not what turns the collector back on
        assert not gc.isenabled()
        left = _cycle()  # unreachable at once; nothing looks for it while paused
    assert gc.isenabled()
    assert left() is None  # the cycle made while paused is gone once the pause ends


def test_an_error_in_the_task_still_turns_it_back_on() -> None:
    with pytest.raises(ValueError):
        with gcpause.paused():
            raise ValueError("a repository's rows were bad")
    assert gc.isenabled()


def test_left_off_if_it_was_off_before() -> None:
    gc.disable()
    try:
        with gcpause.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_overlapping_tasks_in_threads_turn_it_on_only_when_the_last_ends() -> None:
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, bool] = {}

    def first() -> None:
        with gcpause.paused():
            first_in.set()
            second_in.wait(5)
        first_out.set()

    def second() -> None:
        first_in.wait(5)
        with gcpause.paused():
            second_in.set()
            first_out.wait(5)
            seen["after the first ended"] = gc.isenabled()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == {"after the first ended": False}
    assert gc.isenabled()
