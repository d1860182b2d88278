"""Which evaluated snapshots a store keeps once a day's refresh adds one every day: the recent ones,
the first of each month, and always the two latest; the results of the others are deleted.

Collected rows are never touched: any dropped day can be evaluated again from them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from porchlamp.store.db import Store


@dataclass(frozen=True)
class PruneSummary:
    kept: tuple[date, ...]
    dropped: tuple[date, ...]
    rows_deleted: int  # result rows of the dropped snapshots, all tables (0 on a dry run)

    def lines(self) -> list[str]:
        if not self.dropped:
            return [f"kept all {len(self.kept)} snapshots; nothing to prune"]
        shown = ", ".join(d.isoformat() for d in self.dropped[:8]) + (" …" if len(self.dropped) > 8 else "")
        what = f"{self.rows_deleted:,} result rows deleted" if self.rows_deleted else "nothing deleted (dry run)"
        return [f"kept {len(self.kept)} snapshots ({self.kept[0]} to {self.kept[-1]}); dropped {len(self.dropped)}: {shown}; {what}"]


def kept_snapshots(dates: Iterable[date], keep_days: int) -> set[date]:
    """The snapshots to keep of `dates`: every one within `keep_days` of the latest, the earliest of
    each calendar month (a monthly history for the long view), and the two latest whatever their age
    (a day's evaluation carries from the one before, and "what changed" compares with it)."""
    if keep_days < 1:
        raise ValueError(f"keep_days must be at least 1 (got {keep_days}): the latest snapshots are always needed")
    ordered = sorted(set(dates))
    if not ordered:
        return set()
    since = ordered[-1] - timedelta(days=keep_days - 1)
    kept = {d for d in ordered if d >= since} | set(ordered[-2:])
    firsts: dict[tuple[int, int], date] = {}
    for d in ordered:
        firsts.setdefault((d.year, d.month), d)
    return kept | set(firsts.values())


def prune_snapshots(store: Store, keep_days: int, dry_run: bool = False) -> PruneSummary:
    """Delete the results of every snapshot `kept_snapshots` does not keep, in one transaction."""
    dates = store.snapshot_dates()
    kept = kept_snapshots(dates, keep_days)
    dropped = [d for d in dates if d not in kept]
    deleted = 0
    if dropped and not dry_run:
        deleted = store.delete_snapshots(dropped)
        store.conn.execute("CHECKPOINT")  # hand the freed blocks back to the file's free list now
    return PruneSummary(tuple(sorted(kept)), tuple(dropped), deleted)
