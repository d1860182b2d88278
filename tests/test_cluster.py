"""Evaluation over shards: in one process, on a local cluster of worker processes, and through a
worker killed mid-shard, every result row equals the pure evaluation's."""

from __future__ import annotations

from pathlib import Path

import pytest

from porchlamp.cluster import ClusterError
from porchlamp.config import Settings
from porchlamp.sample import generate_world, load_world
from porchlamp.snapshot import evaluate_store
from porchlamp.store import Store

TABLES = ("results", "pr_results", "component_results", "profile_results")


def _copy(src: Path, dst: Path) -> Path:
    dst.write_bytes(src.read_bytes())
    return dst


def _rows(db: Path) -> dict[str, list]:  # type: ignore[type-arg]
    with Store(db, read_only=True) as s:
        return {t: s.rows(t) for t in TABLES}


def _evaluated(db: Path, **kw: object) -> dict[str, list]:  # type: ignore[type-arg]
    with Store(db) as s:
        summary = evaluate_store(s, None, Settings(), **kw)  # type: ignore[arg-type]
        assert summary.repos == s.count("repositories")
    return _rows(db)


def test_shards_on_a_local_cluster_equal_the_store_judged_whole(store300: Path, tmp_path: Path) -> None:
    """The same relations over each shard, with the template index found once in the store, give
    every row the store judged whole gives."""
    whole = _evaluated(_copy(store300, tmp_path / "one.duckdb"), workers=1)
    assert len(whole["results"]) == 300 and len(whole["pr_results"]) > 20_000 and len(whole["profile_results"]) > 200
    seen: list[int] = []
    two = _evaluated(_copy(store300, tmp_path / "two.duckdb"), workers=2, progress=seen.append)
    assert two == whole  # row for row, in all four result tables
    assert sum(seen) == 300 and len(seen) >= 4  # shard by shard; at least two shards a worker


def test_a_worker_killed_mid_shard_is_retried_and_results_are_equal(store300: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    whole = _evaluated(_copy(store300, tmp_path / "one.duckdb"), workers=1)
    marker = tmp_path / "killed"
    # The worker processes inherit this: the first to start judging a shard dies as `kill -9` would.
    monkeypatch.setenv("PORCHLAMP_KILL_AT", "judge_shard:1")
    monkeypatch.setenv("PORCHLAMP_KILL_ONCE", str(marker))
    got = _evaluated(_copy(store300, tmp_path / "killed.duckdb"), workers=2)
    assert marker.exists()  # a worker did die
    assert got == whole


def test_an_unreachable_scheduler_is_a_clear_error(store300: Path, tmp_path: Path) -> None:
    db = _copy(store300, tmp_path / "s.duckdb")
    with Store(db) as s, pytest.raises(ClusterError, match=r"could not reach the scheduler at tcp://127\.0\.0\.1:9"):
        evaluate_store(s, None, Settings(), cluster="tcp://127.0.0.1:9")
    with Store(db, read_only=True) as s:
        assert s.snapshot_dates() == []  # nothing half written
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".porchlamp-shards-")]  # no shard files left


@pytest.mark.slow
def test_3000_repositories_on_two_workers_equal_one_process(tmp_path: Path) -> None:
    generate_world(tmp_path / "w", repos=3000, seed=16)
    db = tmp_path / "one.duckdb"
    with Store(db) as s:
        load_world(tmp_path / "w", s)
    two = _copy(db, tmp_path / "two.duckdb")
    one = _evaluated(db, workers=1)
    assert len(one["results"]) == 3000 and len(one["pr_results"]) > 200_000
    assert _evaluated(two, workers=2) == one


def test_batches_judged_in_forked_children_equal_one_process(store300: Path, tmp_path: Path) -> None:
    """The once-per-repository step in batches over two forked children (the way one machine judges)
    gives every row and count that judging them here does."""
    from porchlamp.cluster import judge_repos
    from porchlamp.evaluate.rules import load_rules
    from porchlamp.snapshot import resolve_as_of

    settings = Settings()
    rules = load_rules(settings)
    got = {}
    for processes in (1, 2):
        with Store(_copy(store300, tmp_path / f"p{processes}.duckdb")) as s:
            seen: list[int] = []
            judged, res, comps = judge_repos(s.conn, s.repo_names(), settings, rules, resolve_as_of(s, None),
                                             progress=seen.append, processes=processes, batch=40)
            assert seen == [38] * 7 + [34]  # batch by batch, in order, in batches of like sizes
            got[processes] = (judged, res, comps)
    assert got[2] == got[1]
    judged, res, comps = got[2]
    assert judged.repos == 300 and len(res["repo"]) == 300 and res["repo"] == sorted(res["repo"])
    assert sum(judged.statuses.values()) == 300 and len(comps["repo"]) > 200
