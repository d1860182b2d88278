"""Per-PR judging as SQL relations over the store's tables (SPEC sections 3-5): one `.sql` file per
rule under `evaluate/sql/`, run in order over a DuckDB connection, with the rule data as small tables.

Pure in the sense that matters: it reads the tables it is given and `as_of`'s window, never the clock,
and leaves only temporary tables and views (`j_*`) on the connection. Work that grows with PRs and timeline
items is here; what runs once per repository reads these relations.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import datetime
from importlib import resources

import duckdb
import pyarrow as pa

from porchlamp import forges
from porchlamp.config import Settings
from porchlamp.errors import PorchlampError
from porchlamp.evaluate.rules import Rules

QUOTE_CHARS = 300
# SPEC section 4: why a PR is not an outside PR, in the order checked (`sql/08_verdicts.sql`); the
# first that applies is recorded.
EXCLUSION_REASONS: dict[str, str] = {
    "before_window": "opened before the window",
    "deleted_author": "author's account was deleted",
    "mannequin": "author is a placeholder account for a PR imported from elsewhere",
    "bot": "author is a bot",
    "maintainer": "author is a maintainer",
    "brand_new_account": "author's account was brand-new",
    "draft": "draft never marked ready for review",
    "too_young": "younger than the response window at the snapshot",
    "self_closed": "closed by its author before anyone responded",
}
# SPEC section 3: acts that need write or triage rights (`sql/05_maintainers.sql`); a maintainer's
# reason names the first one seen.
WRITE_ACTIONS = {
    "merged": "merged a PR",
    "labeled": "labelled a PR",
    "review_requested": "requested reviewers",
    "assigned": "assigned a PR",
    "closed": "closed someone else's PR",
}
# The relations in the order they build on each other, each a file of `evaluate/sql/`.
RELATIONS = ("01_items", "02_logins", "03_sightings", "03_templates", "04_bots", "05_maintainers", "06_first", "07_responses",
             "08_verdicts", "09_commits", "10_figures")


# What no later relation reads, dropped once the relation named has run: the temporary tables are held
# in DuckDB's memory budget, and the verdicts spilled to disk for want of the room they took.
DONE_WITH: dict[str, tuple[str, ...]] = {
    "04_bots": ("TABLE j_own_said", "TABLE j_sightings", "TABLE j_skeleton_bots"),
    "05_maintainers": ("TABLE j_acts", "TABLE j_members"),
    "08_verdicts": ("TABLE j_judged_items", "TABLE j_tool_prs"),
}


def _sql(name: str) -> str:
    return resources.files("porchlamp.evaluate").joinpath("sql", f"{name}.sql").read_text(encoding="utf-8")


def rule_tables(conn: duckdb.DuckDBPyConnection, rules: Rules) -> None:
    """The packaged rule data as small temporary tables: the known bots and the people whose logins
    look like bots, bridge bots, review trailers, write-level acts; and as variables, the login
    patterns, the words and the project-name suffixes, each one expression."""
    b = rules.bots

    def column(name: str, values: Iterable[str]) -> pa.Table:
        return pa.table({name: pa.array(list(values), pa.string())})

    _put(conn, "rule_known", column("norm", b.known))
    _put(conn, "rule_humans", column("norm", b.humans))
    # The login patterns and the project-name suffixes as one expression each: matched as a table
    # joined to every login, they took a third of the logins relation.
    conn.execute("SET VARIABLE bot_globs = ?", [glob_regex(b.patterns)])
    conn.execute("SET VARIABLE bot_words = ?", [b.words.pattern])
    conn.execute("SET VARIABLE project_suffixes = ?", ["(?:" + "|".join(re.escape(x) for x in b.project_suffixes) + ")$"])
    _put(conn, "rule_bridges", pa.table({"norm": pa.array(list(rules.bridge_bots), pa.string()),
                                          "kind": pa.array(list(rules.bridge_bots.values()), pa.string())}))
    _put(conn, "rule_trailers", column("trailer", rules.commit_trailers))
    _put(conn, "rule_write_actions", pa.table({"kind": pa.array(list(WRITE_ACTIONS), pa.string()),
                                                "why": pa.array(list(WRITE_ACTIONS.values()), pa.string())}))


def glob_regex(patterns: Iterable[str]) -> str:
    """Login patterns (`*` any run, `?` one character, `[...]` a set, `[!...]` its complement, as
    `fnmatch` reads them) as one anchored regular expression."""
    def one(glob: str) -> str:
        out, i = [], 0
        while i < len(glob):
            c = glob[i]
            close = glob.find("]", i + 2) if c == "[" else -1
            if c == "*":
                out.append(".*")
            elif c == "?":
                out.append(".")
            elif close > 0:
                body = glob[i + 1:close].replace("\\", "\\\\")
                out.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
                i = close
            else:
                out.append(re.escape(c))
            i += 1
        return "".join(out)
    return "^(?:" + "|".join(one(g) for g in patterns) + ")$"


def _put(conn: duckdb.DuckDBPyConnection, name: str, table: pa.Table) -> None:
    conn.register(f"_{name}", table)
    try:
        conn.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS SELECT * FROM _{name}")
    finally:
        conn.unregister(f"_{name}")


def _prepare(conn: duckdb.DuckDBPyConnection, start: datetime, end: datetime, settings: Settings, rules: Rules) -> None:
    """The window and the settings as variables the relations read, the repository key, and the rule
    data as tables."""
    t, w = settings.templates, settings.window
    values = {
        "win_start": start, "win_end": end, "response_days": w.response_days, "decided_days": w.decided_days,
        "brand_new_days": w.brand_new_account_days, "min_chars": t.min_chars, "min_words": t.min_words,
        "min_prs": t.min_prs, "min_repos": t.min_repos, "automated_minutes": t.automated_minutes,
        "automated_share": float(t.automated_share), "behaviour_min_comments": t.behaviour_min_comments,
        "behaviour_share": float(t.behaviour_share), "own_min_prs": t.own_min_prs, "author_template_prs": t.author_template_prs,
        "own_words_min": t.own_words_min, "tool_min_prs": t.tool_min_prs,
        "commit_sample": w.commit_sample,
        "ci_sample": settings.components.ci_sample,
    }
    for name, value in values.items():
        cast = "TIMESTAMP" if isinstance(value, datetime) else "DOUBLE" if isinstance(value, float) else "BIGINT"
        conn.execute(f"SET VARIABLE {name} = ?::{cast}", [value])
    # The one definition of a repository's key (`rk`), which every relation joins by.
    conn.execute("CREATE OR REPLACE TEMP MACRO repo_key(name) AS hash(name)")
    conn.execute(forges.HOST_MACRO)
    rule_tables(conn, rules)


TemplateIndex = tuple[pa.Table, pa.Table, pa.Table, pa.Table]  # (j_found, j_behaviour, j_repeat_authors, j_tool_lines)


# The snapshot's template index (`template_index`): what is read across every repository.
INDEX_TABLES = ("j_found", "j_behaviour", "j_repeat_authors", "j_tool_lines")


class KeyClash(PorchlampError):
    """Two repository names hash to one key (`_distinct_keys`)."""


def template_index(conn: duckdb.DuckDBPyConnection, start: datetime, end: datetime, settings: Settings,
                   rules: Rules) -> TemplateIndex:
    """The snapshot's templates and the accounts that act as bots (SPEC section 5), from every
    repository on `conn`: the one step that reads across repositories, done once before judging."""
    _prepare(conn, start, end, settings, rules)
    for name in RELATIONS[:RELATIONS.index("03_templates") + 1]:
        _run(conn, name)
    return tuple(conn.sql(f"SELECT * FROM {t}").to_arrow_table() for t in INDEX_TABLES)  # type: ignore[return-value]


def judge(conn: duckdb.DuckDBPyConnection, start: datetime, end: datetime, settings: Settings, rules: Rules,
          index: TemplateIndex | None = None) -> None:
    """Build every relation for the window [start, end) on `conn` (its tables: the store's, or one
    shard's). `index`: the snapshot's template index when `conn` holds only part of it."""
    _prepare(conn, start, end, settings, rules)
    for name in RELATIONS:
        if name == "03_templates" and index is not None:
            for table, rows in zip(INDEX_TABLES, index):
                _put(conn, table, rows)
            continue
        if name == "09_commits":
            redirects(conn)
        _run(conn, name)
        for kind, done in (d.split() for d in DONE_WITH.get(name, ())):
            conn.execute(f"DROP {kind} IF EXISTS {done}")


def _run(conn: duckdb.DuckDBPyConnection, name: str) -> None:
    """One relation's file; after the first, the check that its repository keys are distinct."""
    conn.execute(_sql(name))
    if name == "01_items":
        _distinct_keys(conn)


def _distinct_keys(conn: duckdb.DuckDBPyConnection) -> None:
    """The relations join repositories by a 64-bit hash of the name (`rk`): two names with one hash
    (less than one chance in a billion at 100,000 repositories) would judge as one, so they are refused."""
    clash = conn.execute("SELECT list(repo ORDER BY repo) FROM j_repo_keys WHERE rk IN "
                         "(SELECT rk FROM j_repo_keys GROUP BY rk HAVING count(*) > 1)").fetchone()
    if clash and clash[0]:
        raise KeyClash(f"repositories {', '.join(clash[0])} share one key; evaluating them together would mix their "
                       "PRs. Evaluate them in separate stores, and report this: it should not happen")


def quote(text: str) -> str:
    """A passage on one line, cut to QUOTE_CHARS."""
    one = " ".join(text.split())
    return one if len(one) <= QUOTE_CHARS else one[: QUOTE_CHARS - 1] + "…"


# Who pointed a PR elsewhere (SPEC §6), as its evidence says it.
_BY = {"bot": "a bot", "maintainer": "a maintainer, by hand", "contributor": "a past contributor",
       "bystander": "a bystander: no maintainer acts on outside PRs here"}


def redirects(conn: duckdb.DuckDBPyConnection) -> None:
    """`j_redirects`: each outside PR pointed elsewhere, as [kind, "actor (by whom)", quote] in JSON.
    Written here, for the few PRs that have one: the quote is the item's text on one line."""
    rows = conn.execute("SELECT v.rk, v.number, v.redirect_kind, v.redirect_actor, v.redirect_by, t.body FROM j_verdicts v "
                        "JOIN timeline t ON t.node_id = v.redirect_node ORDER BY v.repo, v.number").fetchall()
    _put(conn, "j_redirects", pa.table({
        "rk": pa.array([r[0] for r in rows], pa.uint64()), "number": pa.array([r[1] for r in rows], pa.int32()),
        "redirect": pa.array([json.dumps([kind, f"{actor} ({_BY[by]})", quote(body or "")],
                                         ensure_ascii=False) for _, _, kind, actor, by, body in rows], pa.string()),
    }))
