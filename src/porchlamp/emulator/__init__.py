"""A GitHub GraphQL API (and a dependents REST endpoint) served over a sample world, on 127.0.0.1.

Same schema subset, cost model, limits and error shapes as GitHub, plus reproducible faults.
"""

from porchlamp.emulator.faults import Faults, FaultSpecError
from porchlamp.emulator.index import WorldIndex
from porchlamp.emulator.server import Emulator, Limits, load_schema

__all__ = ["Emulator", "FaultSpecError", "Faults", "Limits", "WorldIndex", "load_schema"]
