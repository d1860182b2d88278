"""The SQL relations against the rules they implement, where both exist: who is a bot by login
(the collector asks `bots.Bots`, evaluation the relation over `rule_*` tables), and what the marks hold."""

from __future__ import annotations

import csv
import fnmatch
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest
from hypothesis import example, given, settings, strategies as st

from porchlamp.config import Settings, settings_from_dict
from porchlamp.evaluate import relations
from porchlamp.evaluate.bots import Bots
from porchlamp.evaluate.marks import mark_text, marks_version
from porchlamp.evaluate.rules import load_rules

S = Settings()
RULES = load_rules(S)
LABELLED = [r["login"] for r in csv.DictReader((Path(__file__).parents[1] / "data" / "labelled_accounts.csv").open())]
REPOS = ("zulip/zulip", "acme/widget", "kubernetes/test-infra", "a/b", "rust-lang/rust")


def sql_bots(accounts: list[tuple[str, str, str | None]], rules=RULES) -> dict[tuple[str, str, str | None], bool]:  # type: ignore[no-untyped-def]
    """Each (repo, login, type) as `sql/02_logins.sql` and `sql/04_bots.sql` judge it, with no behaviour."""
    conn = duckdb.connect()
    relations._prepare(conn, datetime(2026, 4, 1), datetime(2026, 10, 15), S, rules)
    conn.register("_seen", pa.table({"repo": [a[0] for a in accounts], "actor": [a[1] for a in accounts],
                                     "actor_type": pa.array([a[2] for a in accounts], pa.string())}))
    conn.execute("CREATE TABLE j_items AS SELECT repo, repo_key(repo) AS rk, actor, actor_type FROM _seen")
    conn.execute("CREATE TABLE j_repo_keys AS SELECT DISTINCT repo_key(repo) AS rk, repo FROM _seen")
    conn.execute("CREATE TABLE pulls (repo VARCHAR, number INTEGER, author VARCHAR, author_type VARCHAR, merged_by VARCHAR, "
                 "created_at TIMESTAMP, m_lines BIGINT[])")
    conn.execute("CREATE TABLE j_tool_lines (tool VARCHAR, line BIGINT)")
    conn.execute("CREATE VIEW j_pulls AS SELECT repo_key(repo) AS rk, * FROM pulls")
    conn.execute("CREATE TABLE community (repo VARCHAR, codeowners VARCHAR[])")
    conn.execute("CREATE TABLE commits (repo VARCHAR, author_login VARCHAR, author_type VARCHAR, author_name VARCHAR)")
    conn.execute("CREATE TABLE j_behaviour (login VARCHAR, why VARCHAR)")
    conn.execute("CREATE TABLE j_found (fp BIGINT)")
    conn.execute("CREATE TABLE j_sightings (rk UBIGINT, number INTEGER, in_window BOOLEAN, node_id VARCHAR, ts TIMESTAMP, login VARCHAR, "
                 "by_author BOOLEAN, fp BIGINT, own_fp BIGINT, curated BOOLEAN, redirect BOOLEAN, fast BOOLEAN)")
    conn.execute("CREATE TABLE timeline (node_id VARCHAR, body VARCHAR)")
    for name in ("02_logins", "04_bots"):
        conn.execute(relations._sql(name))
    return {(r, login, t): bot for r, login, t, bot in conn.execute("SELECT k.repo, b.login, b.type, b.bot FROM j_bots b JOIN j_repo_keys k USING (rk)").fetchall()}


def test_labelled_accounts_are_bots_alike_in_sql_and_python() -> None:
    """Every labelled account, in five repositories (the project's own name counts), as `User`."""
    accounts = [(repo, login, "User") for repo in REPOS for login in LABELLED]
    got = sql_bots(accounts)
    differ = [(r, login) for r, login, t in accounts if got[r, login, t] != Bots(RULES.bots, r).is_bot(login, t)]
    assert differ == [] and sum(got.values()) > 1000


LOGIN = st.from_regex(r"(app/)?[A-Za-z0-9]{0,6}([-_.]?(bot|robot|ci|zulip|widget|dev|test|Bot|CI|jenkins|bors|[0-9]{1,2})){0,3}(\[bot\])?",
                      fullmatch=True)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(REPOS), LOGIN, st.sampled_from(["User", "Bot", None])), min_size=1, max_size=40))
def test_any_login_is_a_bot_alike_in_sql_and_python(accounts: list[tuple[str, str, str | None]]) -> None:
    accounts = [a for a in accounts if a[1]]
    got = sql_bots(accounts)
    assert all(got[a] == Bots(RULES.bots, a[0]).is_bot(a[1], a[2]) for a in accounts)


def test_configured_bots_reach_the_relations() -> None:
    rules = load_rules(settings_from_dict({"bots": {"extra_logins": ["acme-valet"], "extra_patterns": ["*-valet2"],
                                                    "extra_humans": ["nightly-ci"]}}))
    accounts: list[tuple[str, str, str | None]] = [("a/b", "Acme-Valet", "User"), ("a/b", "x-valet2", "User"), ("a/b", "nightly-ci", "User")]
    got = sql_bots(accounts, rules)
    assert [got[a] for a in accounts] == [True, True, False]


def test_marks_of_a_text() -> None:
    deploy = mark_text("Deploy Preview for widget ready! Built with commit 1a2b3c.", RULES)
    assert deploy.curated and deploy.fp is not None and deploy.redirect is None
    gerrit = mark_text("This change has been imported to Gerrit for code review.", RULES)
    assert gerrit.redirect == "gerrit" and not mark_text("Thanks!", RULES).curated
    assert mark_text(None, RULES) == mark_text("", RULES) == (None, 0, 0, False, None, False)
    welcome = mark_text("PRs here are fine, but you may also send a patch to the list.", RULES)
    assert welcome.welcome and welcome.redirect is None
    # The same message with other numbers, links and mentions has the same fingerprint.
    assert mark_text("Coverage is 91% at https://cov.example/pr/12 @alice", RULES).fp == \
        mark_text("Coverage is 87% at https://cov.example/pr/40 @bob", RULES).fp
    # The version names the rule data the marks read, and nothing else.
    assert marks_version(replace(RULES, bot_templates=(*RULES.bot_templates, "a new phrase"))) != marks_version(RULES)
    assert marks_version(load_rules(settings_from_dict({"bots": {"extra_logins": ["acme-valet"]}}))) == marks_version(RULES)


def test_two_repositories_with_one_key_are_refused_by_name() -> None:
    """The relations join repositories by a hash of the name: a clash is refused, naming both."""
    conn = duckdb.connect()
    conn.execute("CREATE TABLE j_repo_keys AS SELECT * FROM (VALUES (7::UBIGINT, 'b/two'), (7::UBIGINT, 'a/one'), (8::UBIGINT, 'c/three')) "
                 "AS k(rk, repo)")
    with pytest.raises(relations.KeyClash, match="repositories a/one, b/two share one key"):
        relations._distinct_keys(conn)
    conn.execute("DELETE FROM j_repo_keys WHERE repo = 'b/two'")
    relations._distinct_keys(conn)


@settings(max_examples=200, deadline=None)
@given(st.from_regex(r"[a-z0-9._\-\[\]!*?]{0,12}", fullmatch=True))
@example("x-bot")
@example("x.bot7")
@example("abc")
@example("abbc")
@example("zy")
@example("xy")
@example("q[b")
@example("sturdy-robot")
@example("my-sturdy-robot")
@example("talbot")
def test_the_login_patterns_read_as_one_expression_as_fnmatch_reads_them(login: str) -> None:
    """The packaged patterns, and a few of the other forms fnmatch knows, matched as SQL matches them."""
    patterns = [*RULES.bots.patterns, "a?c", "[!x]y*", "q[b"]
    conn = duckdb.connect()
    got = conn.execute("SELECT regexp_matches(?, ?)", [login, relations.glob_regex(patterns)]).fetchone()
    assert got is not None and got[0] == any(fnmatch.fnmatchcase(login, p) for p in patterns)
