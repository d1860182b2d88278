"""The `porchlamp` command: a thin layer over the library, one command per stage.

Every command calls a library function, shows a progress bar for long steps, and turns the
library's errors into one clear line and a non-zero exit instead of a traceback.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from porchlamp import forges
from porchlamp.config import load_settings
from porchlamp.errors import PorchlampError
from porchlamp.sample.plan import MIN_REPOS
from porchlamp.store import Store

app = typer.Typer(
    help="Porchlamp: which open-source projects answer a stranger's pull request.\n\n"
    "Stages: collect (GitHub -> store) -> evaluate (verdicts, scores, ranks) -> publish (site + data). "
    "`porchlamp demo` runs them all offline on a generated sample world.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Help is read as Markdown: a docstring's paragraphs reflow to the terminal's width instead of
    # breaking where its source lines do.
    rich_markup_mode="markdown",
)
console = Console(stderr=True)
out = Console()

DB_OPTION = typer.Option(Path("porchlamp.duckdb"), "--db", help="The store file (DuckDB); created if missing.")


class UserError(PorchlampError):
    """A command-line value the user can fix; printed as one line."""


@contextmanager
def _errors() -> Iterator[None]:
    try:
        yield
    # Only Porchlamp's own errors (porchlamp.errors) become one line; anything else is a bug and
    # keeps its traceback.
    except PorchlampError as err:
        console.print(f"[bold red]error:[/] {escape(str(err))}", highlight=False, markup=True, soft_wrap=True)
        raise typer.Exit(2) from None


@contextmanager
def progress_bar(label: str, total: int | None) -> Iterator[Callable[[int], None]]:
    """A Rich progress bar on stderr; yields `advance(n)`. Quiet when stderr is not a terminal."""
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=False,
        disable=not console.is_terminal,
    ) as prog:
        task = prog.add_task(label, total=total)
        yield lambda n=1: prog.advance(task, n)


def _note(text: str) -> None:
    """Something the operator should know that is not an error (a store upgrade, a partial listing)."""
    console.print(f"note: {text}", highlight=False, markup=False)


def _store(db: Path) -> Store:
    """The store at `db`, opened to write; an upgrade of an older one is announced before it starts."""
    return Store(db, notice=_note)


def _require_store(db: Path) -> None:
    if not Path(db).exists():
        raise UserError(f"{db}: no store here; run `porchlamp collect` (or `porchlamp demo`) first")


def _parse_date(value: str | None, what: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise UserError(f"{what} must be a date like 2026-10-15 (got {value!r})") from None


@app.command("sample-world")
def sample_world(
    out_dir: Path = typer.Option(..., "--out", help="Directory to write the world into (replaced if it holds a world)."),
    repos: int = typer.Option(300, "--repos", min=1, help="How many repositories the world has."),
    seed: int = typer.Option(1, "--seed", help="Seed: the same seed gives byte-identical files."),
    as_of: Optional[str] = typer.Option(None, "--as-of", help="Snapshot date the world is built for (default 2026-10-15)."),
    part: Optional[str] = typer.Option(None, "--part", help="Write only part i of n (i/n, e.g. 1/2): every n-th repository "
                                       "from the i-th. Run the n parts at once on n cores into n directories, then "
                                       "`load-world` each into one store; together they hold exactly the whole world."),
    gitlab: list[str] = typer.Option([], "--gitlab", help="HOST=SHARE: put this share of the world's projects on a GitLab "
                                     "host (gitlab.com=0.06; a self-hosted one such as gitlab.example.org=0.03). Repeat for each."),
    forgejo: list[str] = typer.Option([], "--forgejo", help="HOST=SHARE: put this share on a Forgejo host (codeberg.org=0.05; "
                                      "a self-hosted one named forgejo.… or gitea.…, such as forgejo.example.net=0.03). Repeat for each."),
) -> None:
    """Generate a deterministic sample world: repositories, people, PRs with timelines, and truth.json.

    The world is the offline stand-in for GitHub used by the demo, the tests and the benchmarks;
    truth.json holds the planted answer for every repository and PR (see docs/WORLD.md).
    """
    from porchlamp.collect.repos_file import parse_shard
    from porchlamp.sample import generate_world
    from porchlamp.sample.world import DEFAULT_AS_OF, part_slice

    with _errors():
        when = _parse_date(as_of, "--as-of") or DEFAULT_AS_OF
        split = parse_shard(part, "--part") if part else None
        from porchlamp.sample.plan import world_forge

        hosts: dict[str, float] = {}
        for option, forge, given_list in (("--gitlab", "gitlab", gitlab), ("--forgejo", "forgejo", forgejo)):
            for given in given_list:
                host, sep, share = given.partition("=")
                host = host.strip().lower()
                try:
                    hosts[host] = float(share)
                except ValueError:
                    raise UserError(f"{option} {given!r}: write HOST=SHARE, such as {'gitlab.com=0.06' if forge == 'gitlab' else 'codeberg.org=0.05'}") from None
                if world_forge(host) != forge:
                    raise UserError(f"{option} {given!r}: a world's {host} runs {world_forge(host)}; name a self-hosted Forgejo "
                                    "forgejo.… or gitea.…, and a self-hosted GitLab anything else")
        t0 = time.perf_counter()
        with progress_bar("generating repositories", len(range(repos)[part_slice(split)])) as advance:
            summary = generate_world(out_dir, repos=repos, seed=seed, as_of=when, progress=advance, part=split, hosts=hosts or None)
        console.print(
            f"wrote a world of {summary.repos:,} repositories, {summary.pulls:,} PRs, "
            f"{summary.timeline_items:,} timeline items and {summary.accounts:,} accounts "
            f"to {summary.path} in {time.perf_counter() - t0:.1f} s (seed {seed}, as_of {when})"
        )


@app.command("load-world")
def load_world_cmd(
    world: Path = typer.Argument(..., help="A directory made by `porchlamp sample-world`."),
    db: Path = DB_OPTION,
) -> None:
    """Load a sample world straight into a store, skipping the emulator and collector.

    For developing and testing evaluation on known data; `collect` is the real path.
    """
    from porchlamp.sample import load_world

    with _errors(), _store(db) as store:
        counts = load_world(world, store)
        console.print("loaded " + ", ".join(f"{n:,} {t}" for t, n in counts.items()) + f" into {db}")


@app.command("import")
def import_cmd(
    path: Path = typer.Argument(..., help="A project's metadata backup: the folder that holds pulls/N.json "
                                "(each {\"pull\", \"events\", \"comments\"} in GitHub's REST shapes)."),
    repo: str = typer.Option(..., "--repo", help="The project the backup is of, as owner/name; every PR must be its."),
    db: Path = DB_OPTION,
    license_spdx: Optional[str] = typer.Option(None, "--license", help="The project's licence as an SPDX id (MIT, "
                                               "Apache-2.0, …), read from its licence file: a backup's PRs do not say it."),
    skip_bad: bool = typer.Option(False, "--skip-bad", help="Store the good files even if some are refused (they are listed)."),
) -> None:
    """Import a project's complete PR history from a backup, offline, as the collector would have stored it.

    Then `porchlamp evaluate --as-of DATE` judges it at any date the history covers. What a backup
    does not hold (languages by bytes, community files, account ages) stays missing, never invented.
    Importing again changes nothing; a malformed file is refused with its path, and nothing is written.
    """
    from porchlamp.backup import covered, files_of, import_backup, unseen

    with _errors(), _store(db) as store:
        with progress_bar(f"importing {repo}", len(files_of(path)) or None) as advance:
            backup, counts = import_backup(store, path, repo, license_spdx, skip_bad, advance)
        for line in backup.refused:
            console.print(f"  refused: {line}", highlight=False, markup=False, soft_wrap=True)
        first, last = covered(backup)
        console.print(f"imported {counts['pulls']:,} PRs of {repo} with {counts['timeline']:,} timeline items and "
                      f"{counts['accounts']:,} accounts into {db}; it covers {first} to {last}: "
                      f"porchlamp evaluate --db {db} --as-of DATE", highlight=False, markup=False, soft_wrap=True)
        console.print("not in the backup, so left missing: " + "; ".join(unseen(backup)["missing"]), highlight=False, markup=False,
                      soft_wrap=True)
    if backup.refused:
        raise typer.Exit(1)


CONFIG_OPTION = typer.Option(None, "--config", help="A porchlamp.toml with weights and thresholds (default: ./porchlamp.toml if present, else built-in).")
WORKERS_OPTION = typer.Option(1, "--workers", min=1, max=256, help="Evaluate on a local cluster of this many worker processes, "
                              "each judging shards of the snapshot; 1 (default) judges the whole store in this process, "
                              "DuckDB using every core.")
CLUSTER_OPTION = typer.Option(None, "--cluster", help="Evaluate on the workers of the Dask scheduler at this address "
                              "(tcp://host:8786) instead of a local cluster; they must all read --shard-dir.")
SHARD_DIR_OPTION = typer.Option(None, "--shard-dir", help="Where the snapshot's Parquet shards and partial results go "
                                "(default: a temporary directory beside the store, removed after). With --cluster, a "
                                "directory every worker can read and write, such as a shared file system.")
HOST_API_OPTION = typer.Option([], "--host-api", help="HOST=URL: where a forge host's API answers, when not where "
                               "porchlamp.toml or the packaged list say (e.g. gitlab.com=http://127.0.0.1:8766/api/v4 for the "
                               "GitLab emulator, codeberg.org=http://127.0.0.1:8767/api/v1 for the Forgejo one). Repeat for each host. "
                               "A host's token: PORCHLAMP_TOKEN_<HOST> (PORCHLAMP_TOKEN_CODEBERG_ORG), or GITLAB_TOKEN for gitlab.com.")

MEMORY_OPTION = typer.Option("1500MB", "--memory", help="DuckDB's memory while it judges PRs, such as 1500MB or 6GB; "
                             "beyond it, it spills to disk. The default judged 100,000 repositories in 2.7 GB; "
                             "more is faster there (6GB: 172 s against 217 s).")

FULL_OPTION = typer.Option(False, "--full", help="Write every project's files of the site again, even those whose "
                           "inputs are unchanged since the previous publish (by default their files are kept).")


@app.command()
def evaluate(
    db: Path = DB_OPTION,
    as_of: Optional[str] = typer.Option(None, "--as-of", help="Snapshot date (default: the date the data was collected for)."),
    config: Optional[Path] = CONFIG_OPTION,
    workers: int = WORKERS_OPTION,
    cluster: Optional[str] = CLUSTER_OPTION,
    shard_dir: Optional[Path] = SHARD_DIR_OPTION,
    memory: str = MEMORY_OPTION,
) -> None:
    """Judge every collected repository for one snapshot and store verdicts, scores and ranks.

    Pure and repeatable: the same store, date and configuration give the same results, however many
    workers share the repositories. Every snapshot is judged whole, a daily one too: each PR by SQL
    over the store, then each repository's gates and components. Change weights in the
    configuration and run `rerank` to re-rank; nothing is collected or judged again.
    """
    from porchlamp.snapshot import evaluate_store

    with _errors():
        settings = load_settings(config)
        when = _parse_date(as_of, "--as-of")
        _require_store(db)
        with _store(db) as store:
            n = store.count("repositories")
            t0 = time.perf_counter()
            with progress_bar("evaluating repositories", n) as advance:
                summary = evaluate_store(store, when, settings, advance, _workers(workers, n), cluster, shard_dir, memory)
        parts = ", ".join(f"{summary.statuses.get(s, 0):,} {s.replace('_', ' ')}" for s in _STATUS_ORDER)
        console.print(
            f"evaluated {summary.repos:,} repositories for {summary.as_of} in {time.perf_counter() - t0:.1f} s: {parts}; "
            f"{summary.outside_prs:,} outside PRs judged"
        )
        if summary.worker_peak_mb:
            console.print(f"on {len(summary.worker_peak_mb)} worker processes, each at most {max(summary.worker_peak_mb):,.0f} MB",
                          highlight=False, markup=False)


@app.command()
def rerank(
    db: Path = DB_OPTION,
    as_of: Optional[str] = typer.Option(None, "--as-of", help="Which evaluated snapshot (default: the latest)."),
    config: Optional[Path] = CONFIG_OPTION,
) -> None:
    """Re-score and re-rank a stored snapshot under the profiles in the configuration.

    Uses the stored component scores: no PR is judged again and nothing is collected.
    """
    from porchlamp.snapshot import rerank_store

    with _errors():
        settings = load_settings(config)
        when = _parse_date(as_of, "--as-of")
        _require_store(db)
        with _store(db) as store:
            t0 = time.perf_counter()
            n = rerank_store(store, when, settings)
        console.print(f"re-ranked {n:,} projects in {len(settings.profiles)} profiles in {time.perf_counter() - t0:.1f} s")


@app.command()
def report(
    db: Path = DB_OPTION,
    as_of: Optional[str] = typer.Option(None, "--as-of", help="Which evaluated snapshot (default: the latest)."),
    fmt: str = typer.Option("table", "--format", help="table (for reading) or json (for programs; keys are only ever added)."),
) -> None:
    """Print the snapshot's report: the funnel, outside PRs, black holes by ecosystem and stars, and more."""
    from porchlamp.report_text import print_report
    from porchlamp.snapshot import report_from_store

    with _errors():
        if fmt not in ("table", "json"):
            raise UserError(f"--format must be table or json (got {fmt!r})")
        with Store(db, read_only=True) as store:
            data = report_from_store(store, _parse_date(as_of, "--as-of"))
        if fmt == "json":
            sys.stdout.write(_dump_json(data) + "\n")
        else:
            print_report(data, out)


@app.command()
def collect(
    repos_file: Path = typer.Option(..., "--repos-file", help="One owner/name a line; blank lines and # comments are fine."),
    api: str = typer.Option("https://api.github.com/graphql", "--api", help="GraphQL endpoint (the emulator's URL for offline runs)."),
    db: Path = DB_OPTION,
    as_of: Optional[str] = typer.Option(None, "--as-of", help="Snapshot date (default: today, UTC); the window is the 183 days before it."),
    dependents_api: Optional[str] = typer.Option(
        None, "--dependents-api", help="ecosyste.ms packages service for dependents ('' to skip). Default: the public service, "
        "or the same host as --api when that is a local emulator."),
    concurrency: int = typer.Option(2, "--concurrency", min=1, max=8, help="Requests in flight at once (GitHub asks for few)."),
    stats_json: Optional[Path] = typer.Option(None, "--stats-json", help="Also write the run's summary as JSON here."),
    plan: bool = typer.Option(False, "--plan", help="Check the token and its budget, print the estimated points and hours, and stop."),
    strict: bool = typer.Option(False, "--strict", help="Exit non-zero when any repository could not be collected (default: "
                                "record it, go on, and exit 0; the next run tries it first)."),
    host_api: list[str] = HOST_API_OPTION,
    shard: Optional[str] = typer.Option(None, "--shard", help="Collect only part i of n of the list (i/n, e.g. 2/4), split by a "
                                        "hash of each name, into its own --db; `porchlamp merge` joins the parts. Each "
                                        "part needs its own owner's token (docs/COLLECTING.md)."),
    config: Optional[Path] = CONFIG_OPTION,
) -> None:
    """Collect every repository of the list into the store, for the window ending at --as-of.

    First checks the token and prints what the run will cost. Resumable: stop it at any point (even
    kill -9) and run the same command again to finish. Incremental: a later --as-of on the same store
    re-fetches only what can have changed. A repository that keeps failing is recorded with the step
    and the error (see `porchlamp report`), and the run goes on. The token comes from GITHUB_TOKEN,
    else `gh auth token`; it is never written anywhere.
    """
    from porchlamp.collect import CollectError, CollectOptions, Collector
    from porchlamp.collect.plan import plan_lines

    with _errors():
        settings = load_settings(config)
        when, listing = _run_inputs(as_of, repos_file, settings)
        deps = _dependents_api(dependents_api, api)
        notes = []
        if shard:
            from porchlamp.collect.repos_file import parse_shard, take_shard

            part = parse_shard(shard)
            whole = len(listing.repos)
            listing = take_shard(listing, part)
            notes.append(f"shard {part[0]}/{part[1]}: {len(listing.repos):,} of {whole:,}")
        if listing.duplicates:
            notes.append(f"{listing.duplicates} duplicate line(s) skipped")
        if listing.from_urls:
            notes.append(f"{listing.from_urls} URL(s) read as project names")
        clients = _clients(listing.repos, settings, api, host_api)
        where = ", ".join(f"{host} ({getattr(c, 'api', '')})" for host, c in clients.items())
        console.print(f"collecting {len(listing.repos):,} repositories for {when} from {where}" + (f" ({'; '.join(notes)})" if notes else "")
                      + f"; dependents from {deps or 'nowhere (skipped)'}", highlight=False, markup=False)
        try:
            with _store(db) as store:
                for line in plan_lines(clients, store, list(listing.repos), when):
                    console.print(line, highlight=False, markup=False)
                if plan:
                    return
                with progress_bar("collecting", len(listing.repos) * 3) as advance:
                    collector = Collector(store, clients, CollectOptions(as_of=when, window_days=settings.window.days,
                                                                         concurrency=concurrency, dependents_api=deps),
                                          settings, progress=lambda label, n, total: advance(n),
                                          notice=_note)
                    summary = collector.run(list(listing.repos))
        except CollectError as err:
            raise UserError(f"collection stopped: {err}") from None
        finally:
            for client in clients.values():
                client.close()
        data = summary.as_dict()
        if stats_json:
            stats_json.write_text(_dump_json(data) + "\n", encoding="utf-8")
        failed = ", ".join(f"{n} {why.replace('_', ' ')}" for why, n in sorted(summary.failed.items())) or "none"
        console.print(
            f"done in {summary.seconds:.1f} s: {summary.done:,} repositories collected, failed: {failed}; {summary.prs:,} PRs, "
            f"{summary.timeline_items:,} timeline items; {summary.points:,} points in {summary.requests:,} requests "
            f"({summary.points_per_100_prs or 0:.2f} per 100 PRs, {summary.points_per_repo or 0:.2f} per repository); "
            f"retries: {sum(summary.retries.values())}; requests split after timing out: {summary.splits}"
            + (f"; incremental, {summary.points_saved:,} points fewer than the full collection" if summary.points_saved is not None else ""),
            highlight=False, markup=False,
        )
        for f in summary.failures:
            console.print(f"  not collected: {f['repo']} at {f['step']}: {f['reason']}", highlight=False, markup=False)
        if summary.failures and strict:
            raise typer.Exit(1)


@app.command()
def merge(
    stores: list[Path] = typer.Argument(..., help="Stores collected with `collect --shard i/n` (any number, any order)."),
    db: Path = DB_OPTION,
) -> None:
    """Join stores collected in parts (`collect --shard i/n`) into one, then evaluate that one.

    Each part's rows are added in one transaction; a repository in two parts keeps the rows of the
    part given last. Every part must have been collected for the same --as-of. Evaluated
    snapshots are not merged: run `porchlamp evaluate` on the merged store.
    """
    with _errors():
        with _store(db) as store:
            for path in stores:
                counts = store.merge_from(path)
                overlap = f"; {counts['overlap']:,} repositories were already here and now hold its rows" if counts["overlap"] else ""
                console.print(f"merged {path}: {counts['repositories']:,} repositories, {counts['pulls']:,} PRs, "
                              f"{counts['timeline']:,} timeline items{overlap}", highlight=False, markup=False)
            total = store.count("repositories")
        console.print(f"{db} now holds {total:,} repositories; next: porchlamp evaluate --db {db}", highlight=False, markup=False)


@app.command()
def prune(
    db: Path = DB_OPTION,
    keep_days: int = typer.Option(31, "--keep-days", min=1, help="Keep every snapshot of the last N days (counted back "
                                  "from the latest)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Only say what would be dropped."),
) -> None:
    """Delete the results of old evaluated snapshots: a daily refresh adds one a day.

    Kept: every snapshot of the last --keep-days days, the first snapshot of each month (the long
    view), and always the two latest (a day's evaluation carries verdicts from the one before, and
    "what changed" compares with it). Collected data is never touched: any dropped day can be
    evaluated again with `porchlamp evaluate --as-of DAY`.
    """
    from porchlamp.store.retention import prune_snapshots

    with _errors():
        _require_store(db)
        with _store(db) as store:
            summary = prune_snapshots(store, keep_days, dry_run)
        for line in summary.lines():
            console.print(line, highlight=False, markup=False)


NO_AUDIT_OPTION = typer.Option(False, "--no-audit", help="Switch the new site in without checking what it says "
                                "against its data first (said in the output). By default a site that contradicts its "
                                "data is not published: the live one stays, and what failed is listed.")


def _audit_wanted(no_audit: bool, out_dir: Path | None) -> bool:
    """Whether to audit the new site: yes unless --no-audit, which is said, so a log shows it."""
    if no_audit and out_dir is not None:
        console.print(f"--no-audit: the new site at {out_dir} goes live without its claims checked against its data",
                      highlight=False, markup=False)
    return not no_audit


@app.command()
def refresh(
    repos_file: Path = typer.Option(..., "--repos-file", help="The same list the store was collected from (one owner/name a line)."),
    out_dir: Optional[Path] = typer.Option(None, "--out", help="Publish the refreshed site here (replaced whole when done); "
                                           "omit to only collect and evaluate."),
    api: str = typer.Option("https://api.github.com/graphql", "--api", help="GraphQL endpoint (the emulator's URL for offline runs)."),
    db: Path = DB_OPTION,
    as_of: Optional[str] = typer.Option(None, "--as-of", help="The day to refresh for (default: today, UTC)."),
    dependents_api: Optional[str] = typer.Option(None, "--dependents-api", help="As for `collect` ('' to skip)."),
    concurrency: int = typer.Option(2, "--concurrency", min=1, max=8, help="Requests in flight at once."),
    stats_json: Optional[Path] = typer.Option(None, "--stats-json", help="Also write the refresh's summary as JSON here."),
    strict: bool = typer.Option(False, "--strict", help="Exit non-zero when any repository could not be collected."),
    config: Optional[Path] = CONFIG_OPTION,
    full: bool = FULL_OPTION,
    workers: int = WORKERS_OPTION,
    cluster: Optional[str] = typer.Option(None, "--cluster", help="Evaluate and publish on the workers of the Dask "
                                          "scheduler at this address (tcp://host:8786) instead of this machine's "
                                          "processes. They must all read and write the folder the store is in (the "
                                          "snapshot's shards go there) and the one --out is in, such as a shared file system."),
    keep_days: Optional[int] = typer.Option(None, "--keep-days", min=1, help="Afterwards, keep the evaluated snapshots of "
                                            "the last N days, the first of each month and the two latest; delete the "
                                            "others' results (as `porchlamp prune`). Default: keep all."),
    memory: str = MEMORY_OPTION,
    host_api: list[str] = HOST_API_OPTION,
    no_audit: bool = NO_AUDIT_OPTION,
) -> None:
    """The daily job: collect what changed since the store's last run, evaluate the day, publish.

    One cheap listing finds the repositories where anything moved (pushes, PRs, issues, stars...);
    only those are fetched again, and only where they moved. Meant for cron, once a day, on one
    token; prints what was touched, the points spent and which verdicts moved. Run the same command
    again after a crash to finish the day. A store never collected before gets a full collection.
    """
    from porchlamp.collect import CollectError
    from porchlamp.refresh import run_refresh

    with _errors():
        settings = load_settings(config)
        when, listing = _run_inputs(as_of, repos_file, settings)
        clients = _clients(listing.repos, settings, api, host_api)
        try:
            with _store(db) as store:
                summary = run_refresh(store, clients, list(listing.repos), when, settings, progress_bar, out_dir,
                                      _dependents_api(dependents_api, api), concurrency,
                                      notice=_note,
                                      say=lambda text: console.print(text, highlight=False, markup=False),
                                      workers=_workers(workers, len(listing.repos)), cluster=cluster, reuse=not full,
                                      keep_days=keep_days, memory=memory, audit=_audit_wanted(no_audit, out_dir))
        except CollectError as err:
            raise UserError(f"refresh stopped while collecting: {err}") from None
        finally:
            for client in clients.values():
                client.close()
        for line in summary.lines():
            console.print(line, highlight=False, markup=False)
        for f in summary.collected.failures:
            console.print(f"  not collected: {f['repo']} at {f['step']}: {f['reason']}", highlight=False, markup=False)
        if stats_json:
            stats_json.write_text(_dump_json(summary.as_dict()) + "\n", encoding="utf-8")
        if summary.collected.failures and strict:
            raise typer.Exit(1)


def _workers(asked: int, repos: int) -> int:
    """Worker processes for evaluation and publishing: as asked, never more than there are repositories."""
    return max(1, min(asked, repos))


def _run_inputs(as_of: str | None, repos_file: Path, settings: Any) -> tuple[date, Any]:
    """What a collecting command needs before it starts: the day (today unless given, never later)
    and the repository list; a UserError naming what to fix otherwise."""
    from datetime import datetime, timezone

    from porchlamp.collect import read_repos_file

    today = datetime.now(timezone.utc).date()
    when = _parse_date(as_of, "--as-of") or today
    if when > today:
        raise UserError(f"--as-of {when} is in the future; the newest snapshot possible is today, {today}")
    return when, read_repos_file(repos_file, hosts=forges.hosts(settings.hosts))


def _clients(repos: Any, settings: Any, api: str, host_api: list[str]) -> dict[str, Any]:
    """A client for each forge host of `repos` (GitHub's at `api`); a UserError naming a missing token."""
    from porchlamp.collect.clients import clients_for
    from porchlamp.collect.errors import AuthError

    apis: dict[str, str] = {}
    for given in host_api:
        host, sep, url = given.partition("=")
        if not sep or not url.startswith(("http://", "https://")) or "." not in host:
            raise UserError(f"--host-api {given!r}: write HOST=URL, such as gitlab.com=https://gitlab.com/api/v4")
        apis[host.strip().lower()] = url.strip()
    try:
        return clients_for(repos, settings, api, apis, wait_scale=_wait_scale())
    except AuthError as err:
        raise UserError(str(err)) from None


def _dependents_api(given: str | None, api: str) -> str | None:
    """The dependents service: as given ('' skips it); by default the public one, or for an API on this
    machine (the emulator) that same host, so an offline run never reaches out to the internet."""
    from urllib.parse import urlparse

    from porchlamp.collect.github.client import DEFAULT_DEPENDENTS_API

    if given is not None:
        return given or None
    url = urlparse(api)
    if url.hostname in ("127.0.0.1", "localhost", "::1"):
        return f"{url.scheme}://{url.netloc}"
    return DEFAULT_DEPENDENTS_API


@app.command()
def discover(
    min_stars: int = typer.Option(1000, "--min-stars", min=0, help="Only repositories with at least this many stars."),
    limit: int = typer.Option(11000, "--limit", min=1, help="How many repositories to list, most-starred first."),
    out_file: Path = typer.Option(..., "--out", help="Repos file to write (one project a line), for `collect --repos-file`."),
    host: str = typer.Option(forges.GITHUB_HOST, "--host", help="The forge host to search: github.com, a GitLab host such as "
                             "gitlab.com, a Forgejo host such as codeberg.org, or one under [hosts] in the config."),
    api: Optional[str] = typer.Option(None, "--api", help="The host's API: GitHub's GraphQL endpoint, a GitLab instance's "
                                      "REST base (…/api/v4) or a Forgejo instance's (…/api/v1). Default: the host's own."),
    config: Optional[Path] = typer.Option(None, "--config", help="porchlamp.toml (for hosts under [hosts])."),
) -> None:
    """Build a candidate list of a forge's most-starred projects. On GitHub, from search, slicing star
    ranges past its 1,000-result cap (token: GITHUB_TOKEN); on GitLab, from the instance's list of
    public projects by stars (token: PORCHLAMP_TOKEN_<HOST>, or GITLAB_TOKEN for gitlab.com); on
    Forgejo or Gitea, from its repository search by stars (token: PORCHLAMP_TOKEN_<HOST>, such as
    PORCHLAMP_TOKEN_CODEBERG_ORG)."""
    from porchlamp.collect import CollectError, GraphQLClient, find_token
    from porchlamp.collect.github.discover import discover as run_discover

    with _errors():
        host = host.strip().lower()
        known = forges.hosts(load_settings(config).hosts)
        if host not in known:
            raise UserError(f"--host {host}: not a known forge host; add [hosts.\"{host}\"] with its forge to porchlamp.toml")
        forge = known[host].forge
        if forge == "gitlab":
            from porchlamp.collect.gitlab.client import GitLabClient
            from porchlamp.collect.gitlab.client import find_token as gitlab_token
            from porchlamp.collect.gitlab.client import no_token
            from porchlamp.collect.gitlab.discover import discover as discover_gitlab

            token = gitlab_token(host)
            if not token:
                raise UserError(no_token(host))
            client: Any = GitLabClient(api or forges.default_api(host, forge), token, host, wait_scale=_wait_scale())
            search: Any = discover_gitlab
        elif forge == "forgejo":
            from porchlamp.collect.forgejo.client import ForgejoClient
            from porchlamp.collect.forgejo.client import find_token as forgejo_token
            from porchlamp.collect.forgejo.client import no_token as forgejo_no_token
            from porchlamp.collect.forgejo.discover import discover as discover_forgejo

            token = forgejo_token(host)
            if not token:
                raise UserError(forgejo_no_token(host))
            client = ForgejoClient(api or forges.default_api(host, forge), token, host, wait_scale=_wait_scale())
            search = discover_forgejo
        elif forge == "github":
            token = find_token()
            if not token:
                raise UserError("no GitHub token: set GITHUB_TOKEN or log in with `gh auth login`")
            client, search = GraphQLClient(api or "https://api.github.com/graphql", token, wait_scale=_wait_scale()), run_discover
        else:
            raise UserError(f"--host {host} runs {forges.FORGE_NAMES[forge]}, which Porchlamp does not discover yet")
        try:
            with progress_bar(f"searching {host}", limit) as advance:
                found = search(client, min_stars, limit, advance)
        except CollectError as err:
            raise UserError(f"discovery on {host} stopped: {err}") from None
        finally:
            client.close()
        out_file.write_text("".join(f"{name}\n" for name, _ in found), encoding="utf-8")
        console.print(f"wrote {len(found):,} projects of {host} with at least {min_stars:,} stars to {out_file} "
                      f"({client.stats.requests} requests)")


def _wait_scale() -> float:
    """How much of each wait GitHub asks for is really slept: 1.0 always for real GitHub.
    PORCHLAMP_WAIT_SCALE lets runs against the emulator's compressed clock wait less."""
    import os

    try:
        return float(os.environ.get("PORCHLAMP_WAIT_SCALE", "1.0"))
    except ValueError:
        raise UserError("PORCHLAMP_WAIT_SCALE must be a number such as 0.01") from None


@app.command()
def emulator(
    world: Path = typer.Option(..., "--world", help="A directory made by `porchlamp sample-world`."),
    port: int = typer.Option(8765, "--port", help="Port on 127.0.0.1 (0 picks a free one)."),
    faults: Optional[str] = typer.Option(None, "--faults", help="Faults to inject, e.g. 'secondary=0.05,bad_gateway=0.02,reset=0.01,seed=7'. "
                                         "Kinds: rate_limited, secondary, bad_gateway, gateway_timeout, reset, malformed, partial, slow."),
    points_per_hour: int = typer.Option(5000, "--points-per-hour", min=1, help="Primary rate limit per token."),
    hour_seconds: float = typer.Option(3600.0, "--hour-seconds", min=0.01, help="How long the rate-limit 'hour' lasts (compress it for tests)."),
    clock: Optional[str] = typer.Option(None, "--clock", help="Serve the world as it stood at the start of this day (YYYY-MM-DD): "
                                        "later PRs, comments, merges and commits are hidden. Default: everything."),
    gitlab_host: Optional[str] = typer.Option(None, "--gitlab", help="Serve GitLab's REST API v4 instead, for the world's "
                                              "projects on this host (gitlab.com, or a self-hosted one the world names)."),
    forgejo_host: Optional[str] = typer.Option(None, "--forgejo", help="Serve Forgejo's REST API v1 instead, for the world's "
                                               "projects on this host (codeberg.org, or a self-hosted one the world names)."),
    minute_seconds: float = typer.Option(60.0, "--minute-seconds", min=0.01, help="GitLab and Forgejo: how long the "
                                         "rate-limit 'minute' lasts."),
) -> None:
    """Serve GitHub's GraphQL API (and a dependents lookup) over a sample world on 127.0.0.1; with
    --gitlab HOST, GitLab's REST API for the world's projects on that host; with --forgejo HOST,
    Forgejo's.

    Point `porchlamp collect --api http://127.0.0.1:PORT/graphql` at GitHub's, and
    `--host-api HOST=http://127.0.0.1:PORT/api/v4` at GitLab's (`/api/v1` at Forgejo's). Any token is accepted.
    GET /_emulator/stats shows requests, points and faults. Stop it with Ctrl-C.
    """
    from porchlamp.emulator import Emulator, Faults, FaultSpecError, Limits
    from porchlamp.emulator.forgejo import ForgejoEmulator, ForgejoLimits
    from porchlamp.emulator.gitlab import GitLabEmulator, GitLabLimits

    with _errors():
        try:
            spec = Faults.parse(faults)
        except FaultSpecError as err:
            raise UserError(f"--faults: {err}") from None
        if gitlab_host and forgejo_host:
            raise UserError("--gitlab and --forgejo: serve one forge at a time (start another emulator for the other)")
        with progress_bar("loading the world", None):
            if forgejo_host:
                emu: Any = ForgejoEmulator(world, forgejo_host.lower(), port=port, faults=spec,
                                           limits=ForgejoLimits(minute_seconds=minute_seconds), clock=_parse_date(clock, "--clock"))
            elif gitlab_host:
                emu = GitLabEmulator(world, gitlab_host.lower(), port=port, faults=spec,
                                          limits=GitLabLimits(minute_seconds=minute_seconds), clock=_parse_date(clock, "--clock"))
            else:
                emu = Emulator(world, port=port, faults=spec, limits=Limits(points_per_hour=points_per_hour, hour_seconds=hour_seconds),
                               clock=_parse_date(clock, "--clock"))
        served = len(emu.world.by_path) if forgejo_host else len(emu.world.projects) if gitlab_host else len(emu.world.repos)
        console.print(f"{'Forgejo' if forgejo_host else 'GitLab' if gitlab_host else 'GitHub'} emulator serving {served:,} repositories at {emu.url} "
                      f"(stats at {emu.base_url}/_emulator/stats); Ctrl-C stops it")
        try:
            emu.serve_forever()
        finally:
            emu.stop()


@app.command()
def check(
    repo: str = typer.Argument(..., help="owner/name on GitHub, host/path on GitLab (gitlab.com/group/project) or Forgejo "
                               "(codeberg.org/owner/name), or the web address of any."),
    api: str = typer.Option("https://api.github.com/graphql", "--api", help="GitHub's GraphQL endpoint (the emulator's URL offline)."),
    dependents_api: str = typer.Option("https://packages.ecosyste.ms", "--dependents-api", help="Dependents service ('' to skip)."),
    as_of: Optional[str] = typer.Option(None, "--as-of", help="Judge as of this date (default: today, UTC)."),
    fmt: str = typer.Option("table", "--format", help="table or json."),
    config: Optional[Path] = CONFIG_OPTION,
    host_api: list[str] = HOST_API_OPTION,
) -> None:
    """Judge one repository now, end to end: its status and reason, or its scores, with the evidence.

    Collects it with the real collector (token as for collect) and evaluates it with the same
    code as a snapshot; it need not be in any snapshot. Ranks need the population, so none here;
    an account known as a bot only by what it does across many repositories is judged by what it
    does in this one.
    """
    from datetime import datetime, timezone

    from porchlamp.check import CheckError, check_repo
    from porchlamp.collect import CollectError
    from porchlamp.collect.repos_file import parse_repo

    with _errors():
        if fmt not in ("table", "json"):
            raise UserError(f"--format must be table or json (got {fmt!r})")
        settings = load_settings(config)
        try:
            name = parse_repo(repo, forges.hosts(settings.hosts))
        except forges.UnknownHost as err:
            raise UserError(f"{repo!r}: {err}") from None
        if name is None:
            raise UserError(f"{repo!r} is not owner/name, host/path or a project's web address")
        today = datetime.now(timezone.utc).date()
        when = _parse_date(as_of, "--as-of") or today
        if when > today:
            raise UserError(f"--as-of {when} is in the future; the newest possible is today, {today}")
        clients = _clients([name], settings, api, host_api)
        try:
            result = check_repo(name, clients, when, settings, dependents_api or None)
        except (CheckError, CollectError) as err:
            raise UserError(str(err)) from None
        finally:
            for client in clients.values():
                client.close()
        if fmt == "json":
            sys.stdout.write(_dump_json(result.as_dict()) + "\n")
        else:
            from porchlamp.report_text import print_check

            print_check(result.as_dict(), out)


def _site_url(url: str) -> str:
    """`--site-url` as pages join it: an http(s) address ending in a slash, or empty."""
    url = url.strip()
    if url and not url.lower().startswith(("https://", "http://")):
        raise typer.BadParameter(f"{url!r}: give the full address the site is served from, starting with https://",
                                 param_hint="--site-url")
    from porchlamp.publish.site import site_address

    return site_address(url)


@app.command("audit")
def audit_cmd(
    site_dir: Path = typer.Argument(..., help="A site written by `porchlamp publish` (its --out)."),
    db: Path = DB_OPTION,
    as_of: Optional[str] = typer.Option(None, "--as-of", help="The snapshot the site shows (default: the latest)."),
    site_url: str = typer.Option("", "--site-url", help="The address the site was published with (its badge snippets "
                                 "must be under it); default: [site] url in porchlamp.toml."),
    config: Optional[Path] = typer.Option(None, "--config", help="A porchlamp.toml whose [site] url is the site's address."),
    show: int = typer.Option(50, "--show", min=0, help="How many contradictions to print (all are counted)."),
) -> None:
    """Check every claim a published site makes against the store it was published from.

    Each count, share, median, bucket, status, reason, "strength"/"weak spot", forge word, badge
    snippet and search entry a page or data file states is worked out again from the snapshot's
    rows and settings; each contradiction is listed with its page, what it says and what holds.
    Exits 1 on any contradiction, 0 when the site says nothing its data contradicts. `publish` and
    `refresh` run the same audit before they switch a new site in.
    """
    from porchlamp.publish import load_site_data
    from porchlamp.publish.audit import audit_message, audit_site

    with _errors():
        address = _site_url(site_url or load_settings(config).site.url)
        _require_store(db)
        if not (site_dir / "index.html").exists():
            raise UserError(f"{site_dir} holds no published site (no index.html): give the --out of `porchlamp publish`")
        with Store(db, read_only=True) as store:
            site = load_site_data(store, _parse_date(as_of, "--as-of"))
        with progress_bar("auditing project pages", len(site.projects)) as advance:
            summary = audit_site(site_dir, site, address, advance)
        if summary.ok:
            console.print(f"no contradictions: {summary.claims:,} claims on {summary.pages:,} pages agree with the "
                          f"snapshot of {site.as_of}", highlight=False, markup=False)
            return
        console.print(audit_message(summary, "the site should not be served as it is", show), highlight=False, markup=False)
        raise typer.Exit(1)


@app.command("publish")
def publish_cmd(
    out_dir: Path = typer.Option(..., "--out", help="Where the site and dataset are served from: a link to the "
                                  "newest of two generations kept beside it in .DIR.generations, switched when done."),
    db: Path = DB_OPTION,
    as_of: Optional[str] = typer.Option(None, "--as-of", help="Which evaluated snapshot (default: the latest)."),
    issues_url: str = typer.Option("https://github.com/porchlamp/porchlamp/issues/new", "--issues-url",
                                   help="Where 'think this is wrong?' opens an issue."),
    site_url: str = typer.Option("", "--site-url", help="The address the site is served from "
                                 "(https://example.org/porchlamp/), so the badge snippets each project page offers, "
                                 "the feeds' and each page's canonical link carry full addresses (default: [site] url in "
                                 "porchlamp.toml); without either they are relative to the site."),
    config: Optional[Path] = typer.Option(None, "--config", help="A porchlamp.toml whose [site] url is the site's address "
                                          "when --site-url is not given (default: ./porchlamp.toml if present)."),
    full: bool = typer.Option(False, "--full", help="Write every project's files again, even those the previous site "
                              "in DIR holds unchanged (the result is the same bytes)."),
    cluster: Optional[str] = typer.Option(None, "--cluster", help="Write the project pages on the workers of the Dask "
                                          "scheduler at this address (tcp://host:8786) instead of this machine's "
                                          "processes. They must all read and write the folder DIR is in, such as a "
                                          "shared file system: the snapshot's detail files go there while it runs."),
    no_audit: bool = NO_AUDIT_OPTION,
) -> None:
    """Write the static site (rankings, not ranked, project pages, report, method) and the dataset.

    Hostable on any static host; preview it with `porchlamp serve DIR`. DIR is a link to one of
    two generations kept beside it (.DIR.generations/a and b): each publish completes the other
    one and switches the link in one step, so readers see the old site or the new one and a failed
    run leaves the served site untouched. A project whose page, record and badge would come out the
    same keeps those files (and their dates) unwritten: a daily publish writes only what changed.
    A site in a plain folder (from an earlier version) becomes the first generation. Before the
    switch every claim of the new site is checked against the store (`porchlamp audit`): a site that
    contradicts its data is not switched in (exit 2, the live site kept) unless --no-audit.
    """
    from porchlamp.publish import generations, load_site_data, publish

    with _errors():
        address = _site_url(site_url or load_settings(config).site.url)  # a bad address or file fails before any work
        _require_store(db)
        if cluster:
            from porchlamp.cluster import DaskRunner

            DaskRunner(address=cluster).close()  # reached before the snapshot is read (minutes at a million projects)
        with Store(db, read_only=True) as store:
            site = load_site_data(store, _parse_date(as_of, "--as-of"), beside=generations.shared_folder(out_dir) if cluster else None)
        with progress_bar("writing project pages", len(site.projects)) as advance:
            summary = publish(site, out_dir, issues_url=issues_url, site_url=address, progress=advance, full=full, cluster=cluster,
                              audit=_audit_wanted(no_audit, out_dir))
        kept = f"; {summary.reused:,} projects unchanged, their files kept" if summary.reused else ""
        kept += f"; {summary.placed:,} given only their new ranks" if summary.placed else ""
        console.print(f"published {summary.projects:,} projects in {summary.pages:,} pages ({summary.bytes / 1e6:.1f} MB) "
                      f"to {summary.out} in {summary.seconds:.1f} s{kept}; preview: porchlamp serve {out_dir}")


@app.command()
def serve(
    directory: Path = typer.Argument(..., help="A directory written by `porchlamp publish`."),
    port: int = typer.Option(8000, "--port", help="Port on 127.0.0.1."),
) -> None:
    """Preview a published site at http://127.0.0.1:PORT/ (Ctrl-C stops it)."""
    from porchlamp.publish.serve import SiteServer

    with _errors():
        server = SiteServer(directory, port)
        console.print(f"serving {directory} at {server.url} (Ctrl-C stops)")
        try:
            server.serve_forever()
        finally:
            server.stop()


@app.command()
def demo(
    out_dir: Path = typer.Option(Path("demo"), "--out", help="Where the world, the store and the site go."),
    repos: int = typer.Option(300, "--repos", min=MIN_REPOS, help="Repositories in the sample world."),
    seed: int = typer.Option(1, "--seed", help="Seed of the sample world."),
    serve_site: bool = typer.Option(True, "--serve/--no-serve", help="Serve the site when done (Ctrl-C stops)."),
    port: int = typer.Option(8000, "--port", help="Port for the site preview."),
) -> None:
    """Run Porchlamp end to end on a generated sample world, offline.

    Generates OUT/world, serves it through the GitHub emulator on 127.0.0.1, collects it over
    real HTTP into OUT/porchlamp.duckdb, evaluates it, prints the report, publishes OUT/site and
    serves it at a printed address.
    """
    from porchlamp.demo import run_demo
    from porchlamp.publish.serve import SiteServer
    from porchlamp.report_text import print_report

    with _errors():
        summary = run_demo(out_dir, repos, seed, load_settings(None), progress_bar,
                           say=lambda text: console.print(text, highlight=False, markup=False))
        console.print("the report:")
        print_report(summary.report, out)
        if serve_site:
            server = SiteServer(summary.published.out, port)
            console.print(f"done. The site is at {server.url} (Ctrl-C stops). Also try: porchlamp report --db {summary.db} --format json")
            try:
                server.serve_forever()
            finally:
                server.stop()
        else:
            console.print(f"done. Preview it with: porchlamp serve {summary.published.out}")


_STATUS_ORDER = ("ranked", "unrated", "undecided", "black_hole", "stale", "no_license", "not_real_project", "not_software")


def main() -> None:
    """Console entry point."""
    try:
        app()
    except KeyboardInterrupt:
        console.print("interrupted; what was committed is kept, and a rerun resumes")
        sys.exit(130)


def _dump_json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, default=str)
