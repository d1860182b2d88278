from collections.abc import Iterator
from pathlib import Path

import pytest

from porchlamp.emulator import Emulator, WorldIndex


@pytest.fixture(scope="session")
def index300(world300: Path) -> WorldIndex:
    return WorldIndex(world300)


@pytest.fixture()
def emu(index300: WorldIndex) -> Iterator[Emulator]:
    with Emulator(index300) as e:
        yield e

