"""Collecting in parts: `collect --shard i/n` splits the list by name, `merge` joins the stores,
and the result holds exactly what one collection of the whole list holds."""

from __future__ import annotations

from pathlib import Path

import pytest
from collecting import AS_OF, raw_contents
from hypothesis import given, strategies as st
from typer.testing import CliRunner

from porchlamp.cli import app
from porchlamp.collect import CollectSummary
from porchlamp.collect.repos_file import ReposFileError, ReposList, parse_shard, shard_of, take_shard
from porchlamp.emulator import Emulator, WorldIndex
from porchlamp.store import Store, StoreError

runner = CliRunner()
NAME = st.from_regex(r"[a-z0-9]{1,12}/[A-Za-z0-9._-]{1,20}", fullmatch=True)


@given(names=st.lists(NAME, unique=True, max_size=60), n=st.integers(1, 9))
def test_every_repository_is_in_exactly_one_shard(names: list[str], n: int) -> None:
    listing = ReposList(tuple(names), 0, 0)
    parts = [take_shard(listing, (i, n)).repos for i in range(1, n + 1)]
    assert sorted(r for p in parts for r in p) == sorted(names)
    # By name alone: the same repository lands in the same shard whatever else is listed, in any case.
    assert all(shard_of(r, n) == shard_of(r.upper(), n) == next(i for i, p in enumerate(parts, 1) if r in p) for r in names)


@pytest.mark.parametrize("text", ["0/2", "3/2", "2", "a/b", "", "1/0"])
def test_a_bad_shard_says_what_one_looks_like(text: str) -> None:
    with pytest.raises(ReposFileError, match="expected i/n with 1 ≤ i ≤ n"):
        parse_shard(text)


def test_two_shards_merged_equal_one_collection(world100: Path, collected100: tuple[Path, CollectSummary], tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    whole, _ = collected100
    monkeypatch.setenv("GITHUB_TOKEN", "t0k3n-secret")
    parts = [tmp_path / "a.duckdb", tmp_path / "b.duckdb"]
    with Emulator(WorldIndex(world100)) as emu:
        for i, db in enumerate(parts, 1):
            res = runner.invoke(app, ["collect", "--repos-file", str(world100 / "repos.txt"), "--api", emu.url, "--db", str(db),
                                      "--as-of", AS_OF.isoformat(), "--shard", f"{i}/2"])
            assert res.exit_code == 0, res.output
            assert f"shard {i}/2:" in res.output and "of 100" in res.output
    sizes = [len(raw_contents(p)["repositories"]) for p in parts]
    assert sum(sizes) == 100 and min(sizes) > 30
    merged = tmp_path / "m.duckdb"
    res = runner.invoke(app, ["merge", *map(str, parts), "--db", str(merged)])
    assert res.exit_code == 0, res.output
    assert "now holds 100 repositories" in " ".join(res.output.split())
    assert raw_contents(merged) == raw_contents(whole)
    with Store(merged, read_only=True) as m, Store(whole, read_only=True) as w:
        assert m.get_meta("collected_as_of") == w.get_meta("collected_as_of") == AS_OF.isoformat()
        state = "SELECT repo, stage, as_of, status FROM collect_state ORDER BY repo, stage"
        assert m.query(state) == w.query(state)  # so a later incremental run sees every part as done


def test_merging_refuses_what_cannot_be_merged(collected100: tuple[Path, CollectSummary], tmp_path: Path) -> None:
    whole, _ = collected100
    other = tmp_path / "later.duckdb"
    other.write_bytes(whole.read_bytes())
    with Store(other) as s:
        s.set_meta("collected_as_of", "2026-10-16")
    target = tmp_path / "t.duckdb"
    target.write_bytes(whole.read_bytes())
    before = raw_contents(target)
    with Store(target) as t:
        with pytest.raises(StoreError, match="collected for 2026-10-16 .* shards merge only when collected for the same --as-of"):
            t.merge_from(other)
        with pytest.raises(StoreError, match="cannot merge a store into itself"):
            t.merge_from(target)
        with pytest.raises(StoreError, match="no store here to merge"):
            t.merge_from(tmp_path / "missing.duckdb")
        counts = t.merge_from(whole)  # the same rows again: nothing doubles
        assert counts["overlap"] == 100
    assert raw_contents(target) == before
