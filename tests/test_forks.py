"""Work split over forked children: the results of a plain map, in order, from other processes;
a child's error raised here, a child that dies named, and no child left behind."""

from __future__ import annotations

import os
import pickle
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from porchlamp.forks import ForkError, _collect, fork_map, part_size


def _square_and_pid(n: int) -> tuple[int, int]:
    return n * n, os.getpid()


def _children() -> set[int]:
    """This process's children, zombies included (the test runner may have children of its own)."""
    out = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid():
            out.add(int(stat.parent.name))
    return out


@pytest.fixture(autouse=True)
def no_child_left_behind() -> Iterator[None]:
    before = _children()
    yield
    assert _children() <= before  # every child forked was reaped, the stopped ones too


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(-10**6, 10**6), max_size=9), st.integers(1, 4))
def test_results_are_a_plain_maps_in_order(parts: list[int], processes: int) -> None:
    got = list(fork_map(_square_and_pid, parts, processes))
    assert [v for v, _ in got] == [n * n for n in parts]
    here = os.getpid()
    if processes >= 2:  # every part worked on in a child, none here
        assert all(pid != here for _, pid in got)
    else:
        assert all(pid == here for _, pid in got)


@given(st.integers(0, 200_000), st.integers(1, 5_000), st.integers(1, 8))
def test_parts_are_at_most_the_size_asked_and_fill_every_core(items: int, most: int, processes: int) -> None:
    size = part_size(items, most, processes)
    assert 1 <= size <= most
    # Waves of `processes` parts at once: the last part's wave takes no longer than a perfect split of
    # the items over the cores would, give or take one item a wave.
    waves = -(-(-(-items // size)) // processes)
    assert waves * size <= items / processes + waves


def test_parts_of_the_benchmark_world() -> None:
    assert part_size(11_000, 2_000, 2) == 1_834  # six parts, three on each core, not 5.5
    assert part_size(100_000, 2_000, 2) == 2_000
    assert part_size(300, 2_000, 2) == 150
    assert part_size(300, 2_000, 1) == 300


def test_a_child_sees_what_the_parent_held_when_it_forked() -> None:
    """Nothing is sent to a child: it reads the part (and anything else) from the memory it inherited."""
    big = {k: str(k) for k in range(50_000)}
    got = list(fork_map(lambda k: big[k] + "!", [7, 49_999], 2))
    assert got == ["7!", "49999!"]


def _fail_on_three(n: int) -> int:
    if n == 3:
        raise ValueError(f"part {n} is bad")
    return n


def test_a_childs_exception_is_raised_here_with_its_traceback_as_a_note() -> None:
    with pytest.raises(ValueError, match="part 3 is bad") as err:
        list(fork_map(_fail_on_three, [1, 2, 3, 4, 5], 2, name=lambda n: f"part number {n}"))
    notes = "".join(getattr(err.value, "__notes__", []))
    assert "in the child process working on part number 3" in notes and "_fail_on_three" in notes


class _Unpicklable(Exception):
    def __init__(self, a: int, b: int) -> None:
        super().__init__(f"{a}+{b}")
        self.lock = threading.Lock()  # no pickler sends a lock


def _raise_unpicklable(n: int) -> int:
    raise _Unpicklable(n, n)


def test_an_exception_that_cannot_travel_comes_as_its_text() -> None:
    with pytest.raises(ForkError, match=r"working on 5 failed:[\s\S]*_Unpicklable: 5\+5"):
        list(fork_map(_raise_unpicklable, [5], 2))


def _die_on_two(n: int) -> int:
    if n == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return n


def test_a_child_that_dies_is_named_with_its_signal() -> None:
    with pytest.raises(ForkError, match=r"working on repositories 2 died \(signal 9\)"):
        list(fork_map(_die_on_two, [1, 2, 3], 2, name=lambda n: f"repositories {n}"))


def test_a_child_cut_off_while_sending_is_named_too() -> None:
    """A child killed after it wrote part of its result: the parent gets part of a pickle."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(write, pickle.dumps((True, "x" * 100))[:20])
        os.kill(os.getpid(), signal.SIGKILL)
    os.close(write)
    with pytest.raises(ForkError, match=r"working on part 2 died \(signal 9\)"):
        _collect(pid, read, "part 2")


def test_a_caller_that_stops_early_leaves_no_child_behind() -> None:
    def parts() -> Iterator[int]:
        yield from range(10)

    results = fork_map(_square_and_pid, parts(), 3)
    assert next(results)[0] == 0
    results.close()  # the caller breaks off with children still at work (the fixture checks they are gone)
