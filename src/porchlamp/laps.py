"""Seconds spent in each named step of a run, for the summaries that say where its time went
(publish, evaluate): an operator sees which step to look at, benchmarks record them."""

from __future__ import annotations

import time


class Laps:
    """Call with a step's name when it ends; `steps` holds seconds by name in order (a name
    called again adds up)."""

    def __init__(self) -> None:
        self._last = time.perf_counter()
        self.steps: dict[str, float] = {}

    def __call__(self, name: str) -> None:
        now = time.perf_counter()
        self.steps[name] = round(self.steps.get(name, 0.0) + now - self._last, 2)
        self._last = now
