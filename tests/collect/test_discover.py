import pytest

from porchlamp.collect import GraphQLClient
import porchlamp.collect.github.discover as discover_mod
from porchlamp.emulator import Emulator, WorldIndex
from porchlamp.emulator import server as server_mod


def test_discover_slices_star_ranges_past_the_cap(index300: WorldIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_mod, "SEARCH_CAP", 40)  # a small world: make the cap bite
    monkeypatch.setattr(discover_mod, "SEARCH_CAP", 40)
    with Emulator(index300) as emu:
        client = GraphQLClient(emu.url, "t", wait_scale=0.0)
        found = discover_mod.discover(client, min_stars=0, limit=1000)
        client.close()
    expected = sorted(((e.row["name_with_owner"], e.row["stars"]) for e in index300.repos.values()), key=lambda x: (-x[1], x[0]))
    assert found == expected  # every repository, though no single search reaches more than 40
    assert client.stats.requests > 300 / 40
