"""Evaluation over repository shards as tasks: in this process, on a local Dask cluster of worker
processes, or on the workers of a Dask scheduler elsewhere; the same tasks and reduces in each case.
Publishing hands its parts of project pages to the same workers (`DaskRunner.executor`).

Reduce first, in the store: the template index (`relations.template_index`). Map: each shard opened
as the store's tables (`shards.open_shard`) and judged by the same relations and the same
once-per-repository step as a store is (`judge_repos`), its result rows written as Parquet beside
the shard. Reduce, here: ranks and profile scores over every shard's components, then one load.
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from porchlamp import killpoints
from porchlamp.columns import Columns
from porchlamp.config import Settings
from porchlamp.errors import PorchlampError
from porchlamp.evaluate import relations
from porchlamp.evaluate.engine import evaluate_repo, window
from porchlamp.evaluate.facts import BATCH_REPOS, Batch, fact_batches, facts_of
from porchlamp.evaluate.ranking import Scored, scores_of
from porchlamp.evaluate.rows import result_rows
from porchlamp.evaluate.rules import Rules, load_rules
from porchlamp.forks import fork_map, part_size
from porchlamp.store.shards import open_shard

# About this many PR and timeline rows per shard: a few hundred MB of a worker's memory at most.
ROWS_PER_SHARD = 400_000
PARTIAL_TABLES = ("results", "pr_results", "component_results")


class ClusterError(PorchlampError):
    """The cluster could not be started or reached, or a shard failed on every retry."""


@dataclass
class Judged:
    """What the reduce needs of judged repositories; their result rows are in Parquet files or columns."""

    repos: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    outside_prs: int = 0
    # (repo, status, outside PRs, component scores) of every repository that reached scoring
    scored: list[Scored] = field(default_factory=list)

    def add(self, other: "Judged") -> None:
        self.repos += other.repos
        for k, v in other.statuses.items():
            self.statuses[k] = self.statuses.get(k, 0) + v
        self.outside_prs += other.outside_prs
        self.scored.extend(other.scored)


@lru_cache(maxsize=4)
def _settings(text: str) -> tuple[Settings, Rules]:
    settings = Settings.model_validate_json(text)
    return settings, load_rules(settings)


def judge_repos(conn: duckdb.DuckDBPyConnection, repos: Sequence[str], settings: Settings, rules: Rules, as_of: date,
                index: relations.TemplateIndex | None = None, progress: Callable[[int], None] | None = None,
                processes: int = 1, batch: int = BATCH_REPOS) -> tuple[Judged, Columns, Columns]:
    """Every PR on `conn` judged by the relations, then each of `repos` through the gates and
    components: the same whether `conn` is the store or one shard of it. Returns what the reduce
    needs and the columns of `results` and `component_results`. Batches of at most `batch`
    repositories, as many as a multiple of `processes`, go to up to `processes` forked children
    while this process reads the next batch's facts."""
    start, end = window(as_of, settings)
    relations.judge(conn, start, end, settings, rules, index)
    out = Judged()
    res: Columns = {}
    comps: Columns = {}
    judge = partial(_judge_batch, settings=settings, rules=rules, as_of=as_of)
    size = part_size(len(repos), batch, processes)
    for part, part_res, part_comps in fork_map(judge, fact_batches(conn, repos, size), processes, name=_batch_name):
        out.add(part)
        for cols, more in ((res, part_res), (comps, part_comps)):
            for k, v in more.items():
                cols.setdefault(k, []).extend(v)
        if progress:
            progress(part.repos)
    return out, res, comps


def _judge_batch(batch: Batch, settings: Settings, rules: Rules, as_of: date) -> tuple[Judged, Columns, Columns]:
    out = Judged()
    results = []
    for f in facts_of(batch):
        r = evaluate_repo(f, settings, rules)
        results.append(r)
        out.repos += 1
        out.statuses[r.status] = out.statuses.get(r.status, 0) + 1
        out.outside_prs += r.figures.outside_prs
        if r.components:
            out.scored.append((r.repo, r.status, r.figures.outside_prs, scores_of(r.components)))
    return (out, *result_rows(as_of, results))


def _batch_name(batch: Batch) -> str:
    return f"repositories {batch.names[0]} to {batch.names[-1]}"


def judge_shard(shard_dir: str, shard: int, settings_json: str, as_of: date, index: relations.TemplateIndex) -> Judged:
    """Judge one shard's repositories; their result rows go to `<shard_dir>/results/<table>/<shard>.parquet`."""
    settings, rules = _settings(settings_json)
    with open_shard(shard_dir, shard) as conn:
        repos = [r[0] for r in conn.execute("SELECT name_with_owner FROM repositories ORDER BY 1").fetchall()]
        killpoints.reach("judge_shard")
        # One process per shard: the cluster's workers already use the cores.
        judged, res, comps = judge_repos(conn, repos, settings, rules, as_of, index)
        out = Path(shard_dir) / "results"
        for table, cols in (("results", res), ("component_results", comps)):
            (out / table).mkdir(parents=True, exist_ok=True)
            if cols:
                pq.write_table(pa.table(cols), out / table / f"{shard}.parquet")
        (out / "pr_results").mkdir(parents=True, exist_ok=True)
        conn.execute(f"COPY (SELECT CAST(? AS DATE) AS as_of, * FROM j_prs) TO '{out / 'pr_results' / f'{shard}.parquet'}' "
                     "(FORMAT parquet)", [as_of])
    return judged


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
