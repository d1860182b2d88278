"""Failures the way GitHub has them: queries too heavy to answer in time, one repository that always
fails, a dependents service that is down. The run goes on, loses nothing, and says what happened."""

from pathlib import Path

import httpx
import pytest
from collecting import AS_OF, collect_world, store_records, world_as_collected

from porchlamp.collect import CollectOptions, Collector, GraphQLClient
from porchlamp.collect.github.client import TIMEOUT_ATTEMPTS, NetworkError
from porchlamp.config import Settings
from porchlamp.emulator import Emulator, Limits, WorldIndex
from porchlamp.emulator.server import response_work
from porchlamp.snapshot import evaluate_store, report_from_store
from porchlamp.store import Store


def test_heavy_queries_time_out_and_are_split(world100: Path, tmp_path: Path) -> None:
    """With a tighter bound on work every stage meets timeouts; the collector splits and shrinks
    until each part passes, and ends with exactly the world."""
    db = tmp_path / "heavy.duckdb"
    with Emulator(WorldIndex(world100), limits=Limits(max_work=2_500)) as emu:
        client = GraphQLClient(emu.url, "t0k3n", wait_scale=0.0, seed=3)
        try:
            with Store(db) as store:
                summary = Collector(store, client, CollectOptions(as_of=AS_OF, dependents_api=emu.base_url)).run(
                    (world100 / "repos.txt").read_text().split())
        finally:
            client.close()
        timeouts = emu.stats.timeouts
    assert summary.failures == [] and summary.done == 100
    assert timeouts > 20 and summary.splits >= timeouts // TIMEOUT_ATTEMPTS - 5
    expected, got = world_as_collected(world100), store_records(db)
    for table in expected:
        assert sorted(map(repr, got[table])) == sorted(map(repr, expected[table])), table
    print(f"\n{timeouts} timed-out requests, {summary.splits} splits or shrinks, {summary.points} points")


def test_a_timeout_has_one_of_githubs_shapes(index300: WorldIndex) -> None:
    from porchlamp.emulator.server import NGINX_502, timeout_shape

    shapes = {(status, isinstance(body, bytes)) for status, body, _ in (timeout_shape(f"request {i}".encode()) for i in range(60))}
    assert shapes == {(502, False), (502, True), (200, False)}  # 502 with JSON, 502 with the gateway's page, 200 with data: null
    status, body, headers = timeout_shape(b"same")
    assert timeout_shape(b"same") == (status, body, headers)  # the same request always gets the same answer
    assert NGINX_502.startswith(b"<html>") and response_work({"a": [{"b": "x" * 1000}]}) == 2 + 2


def test_a_repository_that_always_fails_is_recorded_and_retried_next_time(world300: Path, tmp_path: Path) -> None:
    names = (world300 / "repos.txt").read_text().split()[:40]
    broken = names[17]
    db = tmp_path / "s.duckdb"
    first = collect_world(world300, db, faults=f"pin={broken}", repos=names)
    assert first.done == 39 and [(f["repo"], f["step"]) for f in first.failures] == [(broken, "meta")]
    assert "Server Error" in first.failures[0]["reason"] or "502" in first.failures[0]["reason"]
    with Store(db) as s:
        ev = evaluate_store(s, AS_OF, Settings())
        assert ev.repos == 39 and broken not in {r["repo"] for r in s.query("SELECT repo FROM results")}
        assert report_from_store(s)["collection_failures"][0]["repo"] == broken
    # The fault is lifted: the next run tries it first and it is collected like the others.
    second = collect_world(world300, db, repos=names)
    assert second.failures == [] and second.done == 40
    with Store(db, read_only=True) as s:
        assert s.collection_errors() == []
        assert s.count("repositories") == 40
    clean = tmp_path / "clean.duckdb"
    collect_world(world300, clean, repos=names)
    assert store_records(db) == store_records(clean)


def test_the_dependents_service_down_is_said_once_and_left_missing(world300: Path, tmp_path: Path) -> None:
    names = (world300 / "repos.txt").read_text().split()[:60]
    notices: list[str] = []
    db = tmp_path / "s.duckdb"
    calls = {"n": 0}

    def down(request: httpx.Request) -> httpx.Response:
        calls["n"] += 1
        raise httpx.ConnectError("connection refused", request=request)

    with Emulator(world300) as emu:
        client = GraphQLClient(emu.url, "t0k3n", wait_scale=0.0, seed=1, rest_transport=httpx.MockTransport(down))
        try:
            with Store(db) as store:
                summary = Collector(store, client, CollectOptions(as_of=AS_OF, dependents_api="https://packages.example.invalid"),
                                    notice=notices.append).run(names)
        finally:
            client.close()
    assert summary.done == 60 and len(notices) == 1 and "kept failing" in notices[0]
    assert summary.dependents_missing == 60 and calls["n"] <= 2 * 10 * 3  # stopped after the first chunk or two
    with Store(db, read_only=True) as s:
        assert s.count("dependents") == 0  # missing, never zero
        assert s.count("pulls") > 0 and s.count("repositories") == 60
    # The next run, with the service back, asks again and fills them in.
    again = collect_world(world300, db, repos=names)
    with Store(db, read_only=True) as s:
        assert again.dependents_missing == 0 and s.count("dependents") > 0


def test_dependents_lookups_honour_429_and_share_one_client(world300: Path) -> None:
    seen: list[httpx.Request] = []

    def service(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if len(seen) == 1:
            return httpx.Response(429, headers={"retry-after": "1"})
        if len(seen) == 2:
            return httpx.Response(429)  # without retry-after: backs off and tries again
        return httpx.Response(200, json=[])

    client = GraphQLClient("http://127.0.0.1:9/graphql", "t0k3n", wait_scale=0.0, seed=1, rest_transport=httpx.MockTransport(service))
    try:
        assert client.get_json("https://packages.example.invalid/api/v1/packages/lookup", {"repository_url": "x"}) == []
        assert client.get_json("https://packages.example.invalid/api/v1/packages/lookup", {"repository_url": "y"}) == []
        assert client._rest is not None and len(seen) == 4
        assert all("porchlamp" in r.headers["user-agent"] for r in seen)
    finally:
        client.close()
    with pytest.raises(NetworkError):
        GraphQLClient("http://127.0.0.1:9/graphql", "t", wait_scale=0.0,
                      rest_transport=httpx.MockTransport(lambda r: httpx.Response(503))).get_json("https://x.invalid/a", {})


def test_a_repository_a_passing_fault_stopped_is_taken_through_once_more_in_the_same_run(world300: Path, tmp_path: Path) -> None:
    """A request given up after every retry stops its repository; once the other repositories are
    through, it goes through the stages again from where it stopped: a fault that passed in the
    meantime loses nothing, and the rows are a clean run's."""
    from dataclasses import replace

    from porchlamp.emulator.faults import Faults

    names = (world300 / "repos.txt").read_text().split()[:30]
    broken = names[11]
    index = WorldIndex(world300)
    heard: list[str] = []
    with Emulator(index, faults=Faults.parse(f"pin={broken}")) as emu:
        def notice(text: str) -> None:
            heard.append(text)
            if "trying once more" in text:  # the fault passes before the second pass
                emu.faults = replace(emu.faults, pinned=frozenset())
        client = GraphQLClient(emu.url, "t0k3n", wait_scale=0.001, seed=1)
        try:
            with Store(tmp_path / "s.duckdb") as store:
                summary = Collector(store, client, CollectOptions(as_of=AS_OF, dependents_api=emu.base_url),
                                    notice=notice).run(names)
                assert store.collection_errors() == []
        finally:
            client.close()
    assert summary.done == 30 and summary.failures == [] and summary.second_pass == 1
    assert heard.count("1 repository stopped by a request that kept failing: trying once more") == 1
    collect_world(world300, tmp_path / "clean.duckdb", repos=names)
    assert store_records(tmp_path / "s.duckdb") == store_records(tmp_path / "clean.duckdb")


def test_a_connection_cut_mid_answer_is_that_requests_failure_not_the_networks() -> None:
    from porchlamp.collect.http import unreachable

    request = httpx.Request("GET", "http://127.0.0.1/")
    assert unreachable(httpx.ConnectError("refused", request=request))
    assert unreachable(httpx.ReadTimeout("no answer", request=request))
    assert not unreachable(httpx.RemoteProtocolError("peer closed connection without sending complete message body",
                                                     request=request))
    assert not unreachable(httpx.ReadError("reset", request=request)) and not unreachable(None)
