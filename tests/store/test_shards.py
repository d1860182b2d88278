"""The snapshot as Parquet shards: planned whole and balanced, read back exactly as the store reads it."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds
import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from porchlamp.models import KeptPull
from porchlamp.store import Store
from porchlamp.store import shards as shards_mod
from porchlamp.store.db import TEMPLATE_KINDS
from porchlamp.store.inputs import pr_rows
from porchlamp.store.shards import export_shards, plan_shards, read_accounts, read_comments, read_prs, read_shard


def test_shards_cover_every_repository_once_in_order(store300: Path) -> None:
    with Store(store300, read_only=True) as s:
        names = s.repo_names()
        shards = plan_shards(s, names, rows_per_shard=5_000)
        rows = {r["repo"]: r["n"] for r in s.query(
            "SELECT repo, sum(n) AS n FROM (SELECT repo, count(*) AS n FROM pulls GROUP BY repo "
            "UNION ALL SELECT repo, count(*) AS n FROM timeline GROUP BY repo) GROUP BY repo")}
    assert [r for sh in shards for r in sh] == sorted(names)
    total = sum(1 + rows.get(r, 0) for r in names)
    assert -(-total // 5_000) == 26 and 20 <= len(shards) <= 26
    # Balanced by rows, not repositories: a shard closes once it holds its share (a repository is never split).
    share = total / len(shards)
    assert all(sum(1 + rows.get(r, 0) for r in sh[:-1]) < share for sh in shards)
    assert len({len(sh) for sh in shards}) > 3  # so shards hold different numbers of repositories


@hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.integers(1, 400_000), least=st.integers(1, 40), take=st.integers(0, 300))
def test_plan_is_contiguous_and_never_empty(store300: Path, rows: int, least: int, take: int) -> None:
    with Store(store300, read_only=True) as s:
        names = s.repo_names()[:take]
        shards = plan_shards(s, names, rows_per_shard=rows, min_shards=least)
    assert [r for sh in shards for r in sh] == sorted(names)
    assert all(shards) or names == []
    assert len(shards) <= max(1, len(names))
    if len(names) >= least:
        assert len(shards) >= least


@pytest.mark.parametrize("per_copy", [64, 2])  # every shard in one COPY, or in several
def test_shards_read_back_as_the_store_reads(store300: Path, tmp_path: Path, per_copy: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shards_mod, "SHARDS_PER_COPY", per_copy)
    with Store(store300, read_only=True) as s:
        names = s.repo_names()
        shards = plan_shards(s, names, rows_per_shard=20_000, min_shards=3)
        assert len(shards) >= 3
        export_shards(s, tmp_path, shards)
        whole = list(s.iter_repo_data())
        accounts = s.accounts()
        authors = {r["author"] for r in s.query("SELECT DISTINCT author FROM pulls WHERE author IS NOT NULL")}
    read = [d for k in range(len(shards)) for d in read_shard(tmp_path, k)]
    assert read == whole  # every row of every table, converted the same way, in the same order
    # What sightings read: every repository, its PRs' opening times, its comment rows (in any order).
    said = [(repo, opened, sorted(rows, key=str)) for k in range(len(shards)) for repo, opened, rows in read_comments(tmp_path, k)]
    assert said == [(d.repo.name_with_owner, {pr.number: pr.created_at for pr in d.pulls},
                     sorted(((n, i.kind, i.created_at, i.actor, i.actor_type, i.body) for n, items in d.timeline.items()
                             for i in items if i.kind in TEMPLATE_KINDS), key=str))
                    for d in whole]
    assert sum(len(rows) for _, _, rows in said) > 1000 and sum(len(o) for _, o, _ in said) > 1000
    # `only`: of the repositories it names, the rows of the PRs it gives (none for an empty set); the rest whole.
    commented = [(repo, sorted({n for n, *_ in rows})) for repo, _, rows in said if len({n for n, *_ in rows}) >= 3]
    (a, na), (b, _) = commented[0], commented[-1]
    only = {a: frozenset(na[:2]), b: frozenset()}
    some = [(repo, opened, sorted(rows, key=str)) for k in range(len(shards))
            for repo, opened, rows in read_comments(tmp_path, k, only=only)]
    assert some == [(repo, opened, [r for r in rows if repo not in only or r[0] in only[repo]]) for repo, opened, rows in said]
    assert {r[0] for repo, _, rows in some if repo == a for r in rows} == set(na[:2])
    # Each shard carries the accounts its PRs were opened by, and only those.
    per_shard = [read_accounts(tmp_path, k) for k in range(len(shards))]
    assert {login: a for part in per_shard for login, a in part.items()} == {
        login: a for login, a in accounts.items() if login in authors}
    for k, part in enumerate(per_shard):
        assert set(part) == {pr.author for d in read_shard(tmp_path, k) for pr in d.pulls} & set(accounts)


_REPO = st.sampled_from(["a/x", "a/y", "b/x", "c/z"])
_NUMBER = st.integers(min_value=1, max_value=2**31 - 1)


@given(rows=st.lists(st.tuples(_REPO, _NUMBER), max_size=60),
       only=st.dictionaries(_REPO, st.frozensets(_NUMBER, max_size=5), max_size=3), data=st.data())
def test_only_the_named_prs_of_the_named_repositories_are_kept(rows: list[tuple[str, int]],
                                                                only: dict[str, frozenset[int]], data: st.DataObject) -> None:
    # Numbers named in `only` also appear among the rows, so the filter is tested on hits, not misses alone.
    rows = rows + [(repo, n) for repo, numbers in only.items() for n in numbers if data.draw(st.booleans())]
    table = pa.table({"repo": pa.array([r for r, _ in rows], pa.string()), "number": pa.array([n for _, n in rows], pa.int32())})
    got = shards_mod._of_prs(table, only)
    assert list(zip(got["repo"].to_pylist(), got["number"].to_pylist())) == [
        (repo, n) for repo, n in rows if repo not in only or n in only[repo]]


def test_a_prs_digest_moves_with_any_of_its_rows_and_no_other(store300: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    db.write_bytes(store300.read_bytes())

    def digests(name: str) -> dict[str, dict[int, str]]:
        with Store(db, read_only=True) as s:
            shards = plan_shards(s, s.repo_names(), rows_per_shard=20_000, min_shards=3)
            export_shards(s, tmp_path / name, shards)
        return {r: d for k in range(len(shards)) for r, d in read_prs(tmp_path / name, k)[0].items()}

    before = digests("before")
    with Store(db, read_only=True) as s:
        prs = s.query("SELECT repo, number FROM pulls ORDER BY repo, number")
        repo, a = s.conn.execute("SELECT repo, number FROM timeline WHERE kind = 'comment' GROUP BY repo, number "
                                 "ORDER BY count(*) DESC, repo, number LIMIT 1").fetchone()
        b = s.conn.execute("SELECT max(number) FROM pulls WHERE repo = ? AND number <> ?", [repo, a]).fetchone()[0]
    assert sum(len(d) for d in before.values()) == len(prs)  # every PR, those without timeline rows too
    assert len({d for ds in before.values() for d in ds.values()}) == len(prs)
    with Store(db) as s:  # one word of one comment of PR a; whether CI ran on PR b
        s.conn.execute("UPDATE timeline SET body = body || '!' WHERE node_id = (SELECT min(node_id) FROM timeline "
                       "WHERE repo = ? AND number = ? AND kind = 'comment')", [repo, a])
        s.conn.execute("UPDATE pulls SET has_ci = NOT coalesce(has_ci, false) WHERE repo = ? AND number = ?", [repo, b])
    after = digests("after")
    moved = {(r, n) for r, ds in before.items() for n, d in ds.items() if after[r][n] != d}
    assert moved == {(repo, a), (repo, b)}


def test_timeline_rows_set_aside_become_items_only_when_asked(store300: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """`later`'s PRs' timeline rows are read as the rest, but made into items only for a PR asked
    for (once): what a day reads of PRs whose earlier verdicts it keeps."""
    with Store(store300, read_only=True) as s:
        shards = plan_shards(s, s.repo_names(), rows_per_shard=40_000, min_shards=2)
        export_shards(s, tmp_path, shards)
        whole = {d.repo.name_with_owner: d for d in s.iter_repo_data()}
    # Every other PR of every third repository, and a number with no rows at all.
    later = {name: [p.number for p in d.pulls[::2]] + [10**6] for name, d in list(whole.items())[::3]}
    asked: list[tuple[str, int]] = []
    items = shards_mod._Aside.items
    monkeypatch.setattr(shards_mod._Aside, "items", lambda self, repo, n: asked.append((repo, n)) or items(self, repo, n))
    read = [d for k in range(len(shards)) for d in read_shard(tmp_path, k, later=later)]
    assert [d.repo.name_with_owner for d in read] == list(whole)
    assert asked == []  # nothing set aside was made into items while reading
    set_aside = 0
    for d in read:
        name = d.repo.name_with_owner
        w = whole[name]
        assert (d.pulls, d.commits, d.issues, d.community, d.dependents) == (w.pulls, w.commits, w.issues, w.community, w.dependents)
        if name not in later:
            assert d.timeline == w.timeline
            continue
        for n in {p.number for p in w.pulls} | set(w.timeline) | {10**6}:
            assert d.timeline.get(n, ()) == w.timeline.get(n, ()), (name, n)
            set_aside += n in later[name] and bool(w.timeline.get(n))
        assert {n: v for n, v in d.timeline.items() if v} == dict(w.timeline)
    assert set_aside > 3000
    # Each PR set aside was made into items once, however often it was asked for.
    assert len(asked) == len(set(asked)) == sum(len(v) for v in later.values())


def test_a_pr_left_out_of_the_export_is_asked_for_loudly(store300: Path, tmp_path: Path) -> None:
    """The pull and timeline rows of a PR set aside are not written; asking for its timeline rows (by
    `get`, `[]` or `in`) raises `LeftOut`, never reads as a PR with no rows; it is among its
    repository's pulls, in their order, as its number, author and times alone, read as the store has
    them (any other field fails loudly), and every other PR reads as the store has it."""
    with Store(store300, read_only=True) as s:
        names = s.repo_names()
        shards = plan_shards(s, names, rows_per_shard=40_000, min_shards=2)
        table = pr_rows(s, names)
        s.conn.execute(f"UPDATE {table} SET aside = true WHERE number % 3 = 0 AND repo IN "
                       f"(SELECT repo FROM {table} GROUP BY repo HAVING count(*) > 5)")
        aside = {(r, n) for r, n in s.conn.execute(f"SELECT repo, number FROM {table} WHERE aside").fetchall()}
        export_shards(s, tmp_path, shards, table)
        whole = {d.repo.name_with_owner: d for d in s.iter_repo_data()}
    assert len(aside) > 1000
    for table in ("timeline", "pulls"):
        written = ds.dataset(tmp_path / table).to_table(columns=["repo", "number"])
        assert not aside & set(zip(written["repo"].to_pylist(), written["number"].to_pylist()))
    left: dict[str, list[KeptPull]] = {}
    for k in range(len(shards)):
        digests, held, out = read_prs(tmp_path, k)
        assert not held  # no earlier day: every digest is read
        left.update(out)
        for d in read_shard(tmp_path, k, kept=out):
            name = d.repo.name_with_owner
            assert set(digests.get(name, {})) == {p.number for p in whole[name].pulls} | set(whole[name].timeline)
            for n in set(digests.get(name, {})):
                if (name, n) in aside:
                    for ask in (lambda: d.timeline.get(n), lambda: d.timeline[n], lambda: n in d.timeline):
                        with pytest.raises(shards_mod.LeftOut, match=f"#{n} "):
                            ask()
                else:
                    assert d.timeline.get(n, ()) == whole[name].timeline.get(n, ())
            stored = whole[name].pulls
            assert [p.number for p in d.pulls] == [p.number for p in stored]
            for p, was in zip(d.pulls, stored):
                if (name, p.number) in aside:
                    assert type(p) is KeptPull
                    assert p == KeptPull(*(getattr(was, f) for f in KeptPull._fields))
                    with pytest.raises(AttributeError):
                        p.title  # type: ignore[union-attr]
                else:
                    assert p == was
    assert {(r, p.number) for r, ps in left.items() for p in ps} == aside
