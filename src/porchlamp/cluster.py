"""Evaluation over repository shards as tasks: in this process, on a local Dask cluster of worker
processes, or on the workers of a Dask scheduler elsewhere; the same tasks and reduces in each case.
Publishing hands its parts of project pages to the same workers (`DaskRunner.executor`).

Map: each shard's template sightings, then each shard judged (pure `evaluate_repo`) with its result
rows written as Parquet beside the shard. Reduce, here: the template index between the two maps,
then ranks and profile scores over every shard's components (`ranking.profile_rows`), and
one load into the store.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from porchlamp import gcpause, killpoints
from porchlamp.config import Settings
from porchlamp.errors import PorchlampError
from porchlamp.evaluate.engine import Snapshot, evaluate_repo, window
from porchlamp.evaluate.pulls import Earlier, for_window
from porchlamp.evaluate.ranking import Scored, scores_of
from porchlamp.evaluate.rules import Rules, load_rules
from porchlamp.evaluate.bots import Bots
from porchlamp.evaluate.templates import SightingTables, TemplateIndex, sighting_tables, sightings_of
from porchlamp.store.shards import LeftOut, read_accounts, read_comments, read_prs, read_shard, read_verdict_rows

# About this many PR and timeline rows per shard: a few hundred MB of a worker's memory at most.
ROWS_PER_SHARD = 100_000
PARTIAL_TABLES = ("results", "pr_results", "component_results")
# (repo, number) of the PR verdicts a shard kept from the earlier day: the store copies their rows.
KEPT_PRS = "kept_prs"


class ClusterError(PorchlampError):
    """The cluster could not be started or reached, or a shard failed on every retry."""


@dataclass(frozen=True)
class ShardOutcome:
    """What the reduce needs of one judged shard; its result rows are in Parquet files."""

    shard: int
    repos: int
    statuses: dict[str, int]
    outside_prs: int
    # (repo, status, outside PRs, component scores) of every repository that reached scoring
    scored: tuple[Scored, ...]
    reused_prs: int = 0  # PR verdicts of the earlier day kept, not judged again
    judged_prs: int = 0  # PR verdicts judged
    # Repositories not judged here: they asked for timeline rows the export left out (`shards.LeftOut`)
    again: tuple[str, ...] = ()


@lru_cache(maxsize=4)
def _settings(text: str) -> tuple[Settings, Rules]:
    settings = Settings.model_validate_json(text)
    return settings, load_rules(settings)


def shard_sightings(shard_dir: str, shard: int, settings_json: str, skip: frozenset[str] = frozenset(),
                    only: Mapping[str, frozenset[int]] | None = None) -> SightingTables:
    """Map 1: the template sightings of one shard's comments but those of `skip` (known already),
    and of `only`'s repositories those of the PRs it names (the rest known), as tables to count and to keep."""
    settings, rules = _settings(settings_json)
    with gcpause.paused():
        return sighting_tables(sightings_of(repo, opened, rows, Bots(rules.bots, repo), settings.templates)
                               for repo, opened, rows in read_comments(shard_dir, shard, skip, only))


def judge_shard(shard_dir: str, shard: int, settings_json: str, as_of: date, templates: TemplateIndex,
                skip: frozenset[str] = frozenset(), was: date | None = None) -> ShardOutcome:
    """Map 2: every repository of one shard evaluated but those in `skip` (carried from an earlier
    day by the caller); its result rows written under `<shard_dir>/results/<table>/<shard>.parquet`
    (rewritten whole if the task runs again). Each PR's verdict of snapshot `was` that the caller
    exported beside the shard (`export_verdicts`) is kept where it holds (`pulls.judge_pulls`): its
    row is not written, but its (repo, number) under `results/kept_prs/`, for the store to copy.
    A repository that asks for a PR's rows the export left out is not judged but named in `again`."""
    with gcpause.paused():
        # The task's records go with its frame, before the collector looks at what the pause left.
        return _judge_shard(shard_dir, shard, settings_json, as_of, templates, skip, was)


def _judge_shard(shard_dir: str, shard: int, settings_json: str, as_of: date, templates: TemplateIndex,
                 skip: frozenset[str], was: date | None) -> ShardOutcome:
    from porchlamp.snapshot import kept_verdicts, snapshot_rows

    settings, rules = _settings(settings_json)
    reused = 0
    accounts = read_accounts(shard_dir, shard)
    digests, held, set_aside = read_prs(shard_dir, shard, earlier=was is not None)
    kept = kept_verdicts(read_verdict_rows(shard_dir, shard)) if was is not None else {}
    was_end = window(was, settings)[1] if was is not None else None
    end = window(as_of, settings)[1]
    earlier: dict[str, Earlier] = {}
    for name, before in kept.items():
        # Which of them stand was found by the store with the export (`inputs.pr_rows`).
        earlier[name] = for_window(Earlier(digests.get(name, {}), before, was_end, held=held.get(name, frozenset())), end)
    results = []
    again = []
    kept_here: dict[str, list[int]] = {}
    # A PR whose maintainers' acts stand is kept unless its author's standing or the maintainers
    # changed: its timeline rows become items only then (or were not exported at all).
    for data in read_shard(shard_dir, shard, skip=skip, later={n: e.acts.keys() for n, e in earlier.items() if e.acts},
                           kept=set_aside):
        name = data.repo.name_with_owner
        before = kept.get(name, {})
        try:
            result = evaluate_repo(data, accounts, settings, rules, as_of, templates,
                                   earlier.get(name) or Earlier(digests.get(name, {}), before, was_end))
        except LeftOut:
            again.append(name)
            continue
        same = [v.number for v in result.prs if before.get(v.number) is v]
        if same:
            kept_here[name] = same
            reused += len(same)
        results.append(result)
        killpoints.reach("judge_repo")
    # A kept verdict's row is the earlier snapshot's: the store copies it (`KEPT_PRS`), so it never
    # becomes Python values again on the way out.
    rows = snapshot_rows(Snapshot(as_of, settings, tuple(results)), kept_here)
    rows[KEPT_PRS] = {"repo": [r for r, ns in kept_here.items() for _ in ns],
                      "number": [n for ns in kept_here.values() for n in ns]}
    for table in (*PARTIAL_TABLES, KEPT_PRS):
        folder = Path(shard_dir) / "results" / table
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{shard:05d}.parquet"
        if rows[table] and next(iter(rows[table].values())):
            tmp = target.with_suffix(".tmp")
            pq.write_table(pa.table({c: pa.array(v) for c, v in rows[table].items()}), tmp)
            os.replace(tmp, target)  # a retried task leaves one whole file, never half of two
        else:
            target.unlink(missing_ok=True)
    statuses: dict[str, int] = {}
    for r in results:
        statuses[r.status] = statuses.get(r.status, 0) + 1
    return ShardOutcome(shard, len(results), statuses, sum(len(r.outside) for r in results),
                        tuple((r.repo, r.status, len(r.outside), scores_of(r.components)) for r in results if r.components), reused,
                        sum(len(r.prs) for r in results) - reused, tuple(again))


class Runner:
    """Maps a task over shards, yielding each result as it finishes (any order)."""

    workers: int = 1

    def map(self, fn: Callable[..., Any], shard_dir: str, shards: Sequence[int], *rest: Any) -> Iterator[Any]:
        for k in shards:
            yield fn(shard_dir, k, *rest)

    def share(self, value: Any) -> Any:
        """A value every task of the next map receives (sent to each worker once)."""
        return value

    def peak_memory_mb(self) -> list[float]:
        """Each worker process's peak resident memory so far (none when tasks run in this process)."""
        return []

    def close(self) -> None:
        pass


class DaskRunner(Runner):
    """Tasks on a Dask cluster: a local one of `workers` processes, or the scheduler at `address`.
    A task whose worker dies is run again elsewhere (Dask's allowed failures)."""

    def __init__(self, workers: int = 2, address: str | None = None) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError as e:  # pragma: no cover - a dependency of the package
            raise ClusterError("evaluating on workers needs the `distributed` package: pip install 'dask[distributed]'") from e
        self._cluster = None
        try:
            if address:
                self._client = Client(address, timeout="30s")
            else:
                self._cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                             dashboard_address=None, silence_logs=40)
                self._client = Client(self._cluster)
        except (OSError, TimeoutError) as e:
            where = f"the scheduler at {address}" if address else f"a local cluster of {workers} workers"
            raise ClusterError(f"could not reach {where}: {e}; check the address (tcp://host:8786) and that the scheduler runs") from e
        self.workers = len(self._client.scheduler_info().get("workers", {})) or workers

    def map(self, fn: Callable[..., Any], shard_dir: str, shards: Sequence[int], *rest: Any) -> Iterator[Any]:
        from distributed import as_completed

        run = uuid.uuid4().hex[:12]
        futures = [self._client.submit(fn, shard_dir, k, *rest, key=f"{fn.__name__}-{run}-{k}", pure=False) for k in shards]
        try:
            for fut in as_completed(futures):
                yield fut.result()
        except Exception as e:
            lost = worker_lost(e, fn.__name__, "a shard", "the repository it was evaluating")
            if lost is None:
                raise
            raise lost from e

    def executor(self) -> Executor:
        """Tasks handed out one at a time (`concurrent.futures`), run on the cluster's workers: what
        publishing writes in parts. A task whose worker dies runs again elsewhere, as in `map`."""
        return self._client.get_executor(pure=False)

    def share(self, value: Any) -> Any:
        # In a list of one: Dask scatters a collection given bare element by element.
        return self._client.scatter([value], broadcast=True)[0]

    def peak_memory_mb(self) -> list[float]:
        peaks = self._client.run(_peak_rss_mb)
        return [peaks[w] for w in sorted(peaks)]

    def close(self) -> None:
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


def worker_lost(e: BaseException, task: str, what: str, where: str) -> ClusterError | None:
    """For a task that failed with `e`: a ClusterError when `what` (a shard, a part) killed its worker
    on every retry (Dask's KilledWorker), saying to look for `where` in the workers' logs; else None."""
    from distributed.scheduler import KilledWorker

    if isinstance(e, KilledWorker):
        return ClusterError(f"{task}: {what} killed its worker on every retry ({e}); see the workers' logs for {where}")
    return None


def _peak_rss_mb() -> float:
    # VmHWM is this process image's own peak. ru_maxrss is not: Linux carries the parent's peak
    # through fork and exec, so a worker started by a big caller would report the caller's size.
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:  # pragma: no cover - not Linux
        pass
    import resource

    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def runner_for(workers: int = 1, address: str | None = None) -> Runner:
    """In this process (`workers` ≤ 1, no address), else on a Dask cluster."""
    if address or workers > 1:
        return DaskRunner(workers, address)
    return Runner()


@contextmanager
def shard_space(beside: Path, given: Path | None) -> Iterator[Path]:
    """Where shard files go: `given` (kept, for workers on other machines to read), else a
    temporary directory beside the store, removed afterwards."""
    if given is not None:
        given.mkdir(parents=True, exist_ok=True)
        yield given
        return
    tmp = Path(tempfile.mkdtemp(prefix=".porchlamp-shards-", dir=beside))
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
