import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import own_verdict

from porchlamp.config import Settings
from porchlamp.demo import DEMO_HOSTS
from porchlamp.sample.plan import world_forge
from porchlamp.publish import load_site_data, publish
from porchlamp.publish.serve import SiteServer
from porchlamp.sample import generate_world, load_world
from porchlamp.snapshot import evaluate_store, report_from_store
from porchlamp.store import Store

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def add_earlier_snapshot(s: Store, days: int = 7) -> dict[str, str]:
    """A hand-built earlier snapshot beside the evaluated one: the same results `days` earlier,
    with planted changes (two ranks swapped, a black hole that was ranked, a ranked project that was
    a black hole, an unrated one that was ranked, an undecided one that was ranked; the top project
    answered fewer a week before). Returns repo -> the change planted."""
    when = s.latest_snapshot()
    earlier = f"CAST(as_of - INTERVAL {days} DAY AS DATE)"
    # `results` is a view: the earlier day lists the same repository verdicts, as a day that carries them does.
    for table in ("snapshots", "snapshot_repos", "profile_results"):
        s.conn.execute(f"INSERT INTO {table} SELECT * REPLACE ({earlier} AS as_of) FROM {table} WHERE as_of = ?", [when])
    prev = s.conn.execute(f"SELECT {earlier} FROM snapshots WHERE as_of = ?", [when]).fetchone()[0]
    ranked = [r[0] for r in s.conn.execute("SELECT repo FROM profile_results WHERE as_of = ? AND profile = 'default' AND rank IS NOT NULL "
                                           "ORDER BY rank", [when]).fetchall()]
    hole = s.conn.execute("SELECT repo FROM results WHERE as_of = ? AND status = 'black_hole' ORDER BY repo", [when]).fetchone()[0]
    unrated = s.conn.execute("SELECT repo FROM results WHERE as_of = ? AND status = 'unrated' ORDER BY repo", [when]).fetchone()[0]
    off = s.conn.execute("SELECT repo FROM results WHERE as_of = ? AND status = 'undecided' ORDER BY repo", [when]).fetchone()[0]
    first, second, was_hole = ranked[0], ranked[1], ranked[2]
    ranks = {first: 2, second: 1, hole: len(ranked) + 1, unrated: len(ranked) + 2}
    for repo, rank in ranks.items():
        s.conn.execute("UPDATE profile_results SET rank = ? WHERE as_of = ? AND repo = ? AND profile = 'default'", [rank, prev, repo])
    for repo, status in ((hole, "ranked"), (unrated, "ranked"), (was_hole, "black_hole"), (off, "ranked")):
        s.conn.execute("UPDATE repo_verdicts SET status = ? WHERE id = ?", [status, own_verdict(s, prev, repo)])
    # The top project answered a fifth fewer of its outside PRs a week before: its 30-day mark goes up.
    s.conn.execute("UPDATE repo_verdicts SET answered = greatest(0, answered - outside_prs // 5) WHERE id = ?", [own_verdict(s, prev, first)])
    return {first: "moved", second: "moved", hole: "new_black_hole", was_hole: "recovered", unrated: "no_longer_ranked",
            off: "became_undecided"}


@pytest.fixture(scope="session")
def planted_changes(published: tuple[Path, dict[str, Any]]) -> dict[str, str]:
    return published[1]["planted_changes"]


@pytest.fixture(scope="session")
def published(store300: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("site")
    db = tmp / "s.duckdb"
    db.write_bytes(store300.read_bytes())
    with Store(db) as s:
        evaluate_store(s, None, Settings())
        report = report_from_store(s)
        planted = add_earlier_snapshot(s)
        site = load_site_data(s)
    publish(site, tmp / "site")
    return tmp / "site", {**report, "planted_changes": planted}


@pytest.fixture(scope="session")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The site `make demo` publishes: its world (300 repositories, seed 1, shares on gitlab.com, a
    self-hosted GitLab, Codeberg and a self-hosted Forgejo), loaded rather than collected over HTTP
    (the same verdicts: tests/collect), judged with the self-hosted hosts named, and published."""
    tmp = tmp_path_factory.mktemp("demo")
    world = generate_world(tmp / "world", repos=300, seed=1, hosts=DEMO_HOSTS).path
    settings = Settings(hosts={h: {"forge": world_forge(h)} for h in DEMO_HOSTS if h not in ("gitlab.com", "codeberg.org")})
    with Store(tmp / "s.duckdb") as s:
        load_world(world, s)
        evaluate_store(s, None, settings)
        report = report_from_store(s)
        site = load_site_data(s)
    publish(site, tmp / "site")
    return tmp / "site", report


@pytest.fixture(scope="session")
def demo_server(demo_site: tuple[Path, dict[str, Any]]) -> Iterator[SiteServer]:
    with SiteServer(demo_site[0], port=0) as s:
        yield s


@pytest.fixture(scope="session")
def server(published: tuple[Path, dict[str, Any]]) -> Iterator[SiteServer]:
    with SiteServer(published[0], port=0) as s:
        yield s


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()
