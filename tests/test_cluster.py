"""Evaluation over shards: in one process, on a local cluster of worker processes, and through a
worker killed mid-shard, every result row equals the pure evaluation's."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from porchlamp.cluster import ClusterError
from porchlamp.config import Settings
from porchlamp.evaluate import evaluate_snapshot, templates_of
from porchlamp.sample import generate_world, load_world
from porchlamp.snapshot import evaluate_store, resolve_as_of, snapshot_basis, snapshot_rows
from porchlamp.store import Store
from porchlamp.store.inputs import input_digests
from porchlamp import __version__

TABLES = ("results", "pr_results", "component_results", "profile_results")


def _copy(src: Path, dst: Path) -> Path:
    dst.write_bytes(src.read_bytes())
    return dst


def _rows(db: Path) -> dict[str, list]:  # type: ignore[type-arg]
    with Store(db, read_only=True) as s:
        return {t: s.rows(t) for t in TABLES}


def _keyless(rows: dict[str, list]) -> dict[str, list]:  # type: ignore[type-arg]
    """`rows` with each PR verdict's key and its rows' digest (the fourth last and the last column)
    left out: the pure evaluation reads rows from the store, not from shards, and has no digest of a
    PR's rows to key its verdicts with."""
    prs = rows["pr_results"]
    for at in (-4, -1):
        assert all(r[at] is not None for r in prs) or all(r[at] is None for r in prs)
    return {**rows, "pr_results": [r[:-4] + r[-3:-1] for r in prs]}


def _pure(db: Path) -> dict[str, list]:  # type: ignore[type-arg]
    """The reference: the whole snapshot in memory, through the pure evaluation, written as it was before shards."""
    with Store(db) as s:
        settings = Settings()
        when = resolve_as_of(s, None)
        index = templates_of(s.iter_repo_data(), settings)
        snap = evaluate_snapshot(s.iter_repo_data(), s.accounts(), settings, when, templates=index)
        s.write_snapshot(when, {"settings": settings.model_dump_json(), "porchlamp_version": __version__,
                                "repos": len(snap.results), "basis": snapshot_basis(settings.model_dump_json(), index)},
                         snapshot_rows(snap),
                         inputs=input_digests(s))
    return _rows(db)


def _sharded(db: Path, **kw: object) -> dict[str, list]:  # type: ignore[type-arg]
    with Store(db) as s:
        summary = evaluate_store(s, None, Settings(), **kw)  # type: ignore[arg-type]
        assert summary.repos == s.count("repositories")
    return _rows(db)


def test_one_process_and_local_cluster_equal_the_pure_evaluation(store300: Path, tmp_path: Path) -> None:
    pure = _keyless(_pure(_copy(store300, tmp_path / "pure.duckdb")))
    assert len(pure["results"]) == 300 and len(pure["pr_results"]) > 20_000 and len(pure["profile_results"]) > 200
    one = _sharded(_copy(store300, tmp_path / "one.duckdb"), workers=1)
    assert all(r[-4] and r[-1] for r in one["pr_results"])  # every PR verdict keyed, for a later day to reuse
    assert _keyless(one) == pure
    assert gc.isenabled()  # the tasks in this process paused the cycle collector, and resumed it
    seen: list[int] = []
    two = _sharded(_copy(store300, tmp_path / "two.duckdb"), workers=2, progress=seen.append)
    assert two == one  # row for row, in all four result tables, keys too
    assert _keyless(two) == pure
    assert sum(seen) == 600 and len(seen) >= 16  # both passes, shard by shard; at least four shards a worker


def test_a_worker_killed_mid_shard_is_retried_and_results_are_equal(store300: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    pure = _keyless(_pure(_copy(store300, tmp_path / "pure.duckdb")))
    marker = tmp_path / "killed"
    # The worker processes inherit this: the first to judge its 20th repository dies as `kill -9` would.
    monkeypatch.setenv("PORCHLAMP_KILL_AT", "judge_repo:20")
    monkeypatch.setenv("PORCHLAMP_KILL_ONCE", str(marker))
    got = _sharded(_copy(store300, tmp_path / "killed.duckdb"), workers=2)
    assert marker.exists()  # a worker did die
    assert _keyless(got) == pure


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
    one = _sharded(db, workers=1)
    assert len(one["results"]) == 3000 and len(one["pr_results"]) > 200_000
    assert _sharded(two, workers=2) == one
