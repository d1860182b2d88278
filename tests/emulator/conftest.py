from collections.abc import Iterator

import pytest

from porchlamp.emulator import Emulator, WorldIndex


@pytest.fixture()
def emu(index300: WorldIndex) -> Iterator[Emulator]:
    with Emulator(index300) as e:
        yield e

