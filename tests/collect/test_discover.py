from pathlib import Path

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


@pytest.fixture(scope="module")
def gitlab_world(tmp_path_factory: pytest.TempPathFactory) -> WorldIndex:
    from porchlamp.sample import generate_world

    world = generate_world(tmp_path_factory.mktemp("gl") / "w", repos=260, seed=31, hosts={"gitlab.com": 0.9}).path
    return WorldIndex(world)


def test_discover_on_gitlab_lists_its_public_projects_by_stars(gitlab_world: WorldIndex) -> None:
    from porchlamp.collect.gitlab.client import GitLabClient
    from porchlamp.collect.gitlab.discover import discover as discover_gitlab
    from porchlamp.emulator.gitlab import GitLabEmulator

    on_host = [(e.row["name_with_owner"], e.row["stars"]) for e in gitlab_world.repos.values()
               if e.row["name_with_owner"].startswith("gitlab.com/") and not e.row["is_archived"]]
    assert len(on_host) > 200  # more than two pages of 100
    floor = sorted(s for _, s in on_host)[len(on_host) // 4]
    expected = sorted(((n, s) for n, s in on_host if s >= floor), key=lambda x: (-x[1], x[0].lower()))
    with GitLabEmulator(gitlab_world, "gitlab.com") as lab:
        client = GitLabClient(lab.url, "glpat-test", "gitlab.com", wait_scale=0.0)
        try:
            assert discover_gitlab(client, min_stars=floor, limit=10_000) == expected
            # Star order lets the list stop at the first page below the floor, never reading the rest.
            assert client.stats.requests == -(-len(expected) // 100) + (len(expected) % 100 == 0)
            assert discover_gitlab(client, min_stars=0, limit=7) == sorted(on_host, key=lambda x: (-x[1], x[0].lower()))[:7]
            with pytest.raises(Exception, match="at most 50,000 projects"):
                discover_gitlab(client, min_stars=0, limit=50_001)
            # Past the offset cap GitLab answers 405 and says to use keyset pagination.
            status, body, _ = lab.answer("/projects", {"order_by": "star_count", "per_page": "100", "page": "501"})
            assert status == 405 and "keyset pagination" in body["error"]
        finally:
            client.close()


def test_the_discover_command_writes_a_repos_file_for_a_gitlab_host(gitlab_world: WorldIndex, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from porchlamp.emulator.gitlab import GitLabEmulator
    from porchlamp.collect.repos_file import read_repos_file

    secret = "glpat-" + "Qz4" * 7
    env = {**os.environ, "PORCHLAMP_TOKEN_GITLAB_COM": secret, "PORCHLAMP_WAIT_SCALE": "0", "COLUMNS": "200"}
    with GitLabEmulator(gitlab_world, "gitlab.com") as lab:
        done = subprocess.run([sys.executable, "-m", "porchlamp", "discover", "--host", "gitlab.com", "--api", lab.url,
                               "--min-stars", "100", "--limit", "30", "--out", str(tmp_path / "repos.txt")],
                              env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert secret not in done.stdout + done.stderr
    names = (tmp_path / "repos.txt").read_text().split()
    stars = {e.row["name_with_owner"]: e.row["stars"] for e in gitlab_world.repos.values()}
    assert 0 < len(names) <= 30 and all(n.startswith("gitlab.com/") and stars[n] >= 100 for n in names)
    assert [stars[n] for n in names] == sorted((stars[n] for n in names), reverse=True)
    assert list(read_repos_file(tmp_path / "repos.txt").repos) == names  # the repos file takes them as written
    assert f"wrote {len(names)} projects of gitlab.com" in done.stdout + done.stderr


def test_an_instance_older_than_gitlab_17_4_is_told_apart() -> None:
    """Ordering projects by stars came in GitLab 17.4 (gitlab-org/gitlab!161504); an older instance
    refuses the value with a 400, and discovery says which version it needs."""
    import httpx

    from porchlamp.collect.errors import CollectError
    from porchlamp.collect.gitlab.client import GitLabClient
    from porchlamp.collect.gitlab.discover import discover as discover_gitlab

    def older(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/api/v4/projects" and request.url.params["order_by"] == "star_count"
        return httpx.Response(400, json={"error": "order_by does not have a valid value"})

    client = GitLabClient("https://gitlab.example.org/api/v4", "t", "gitlab.example.org", wait_scale=0.0,
                          transport=httpx.MockTransport(older))
    try:
        with pytest.raises(CollectError, match="needs GitLab 17.4 or later"):
            discover_gitlab(client, min_stars=0, limit=10)
    finally:
        client.close()
