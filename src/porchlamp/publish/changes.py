"""What changed since the store's previous snapshot: rank moves, new black holes, recoveries,
projects that now review elsewhere, projects newly ranked and no longer ranked, read from the
two stored snapshots' results.

Only stored results are compared; nothing is judged again, so a change always has both verdicts behind it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from porchlamp.publish.words import SHORT_STATUS
from porchlamp.store import Store

# A move smaller than this many places is noise at the scale of thousands of projects.
MIN_MOVE = 1


@dataclass(frozen=True)
class Change:
    repo: str
    kind: str  # "moved", "new_black_hole", "recovered", "became_undecided", "newly_ranked", "no_longer_ranked"
    before_status: str | None
    after_status: str
    before_rank: int | None
    after_rank: int | None

    @property
    def words(self) -> str:
        """One plain line for the project page and the change list."""
        before = SHORT_STATUS.get(self.before_status or "", self.before_status or "")
        after = SHORT_STATUS.get(self.after_status, self.after_status)
        if self.kind == "moved":
            gained = (self.before_rank or 0) - (self.after_rank or 0)
            return f"rank {self.before_rank} → {self.after_rank} ({'up' if gained > 0 else 'down'} {abs(gained)})"
        if self.kind == "new_black_hole":
            return f"became a black hole (was {before})"
        if self.kind == "recovered":
            return f"recovered: no longer a black hole, now {after}" + (f" at rank {self.after_rank}" if self.after_rank else "")
        if self.kind == "became_undecided":
            return f"now reviews elsewhere, so it is undecided (was {before})"
        if self.kind == "newly_ranked":
            return f"newly ranked at {self.after_rank}" + (f" (was {before})" if self.before_status else " (new to Porchlamp)")
        return f"no longer ranked: now {after} (was rank {self.before_rank})"


@dataclass
class Changes:
    as_of: date
    previous: date | None
    items: list[Change] = field(default_factory=list)

    def of(self, kind: str) -> list[Change]:
        return [c for c in self.items if c.kind == kind]

    def for_repo(self) -> dict[str, Change]:
        return {c.repo: c for c in self.items}

    def summary(self) -> dict[str, int]:
        return {k: len(self.of(k)) for k in KINDS}

    def as_json(self) -> dict[str, Any]:
        return {"as_of": self.as_of.isoformat(), "previous": self.previous.isoformat() if self.previous else None,
                "counts": self.summary(),
                "changes": [{"repo": c.repo, "kind": c.kind, "before_status": c.before_status, "after_status": c.after_status,
                             "before_rank": c.before_rank, "after_rank": c.after_rank, "words": c.words} for c in self.items]}


KINDS = ("new_black_hole", "recovered", "became_undecided", "newly_ranked", "no_longer_ranked", "moved")
KIND_TITLES = {
    "new_black_hole": "New black holes",
    "recovered": "Recovered from black hole",
    "became_undecided": "Now reviewing elsewhere (undecided)",
    "newly_ranked": "Newly ranked",
    "no_longer_ranked": "No longer ranked",
    "moved": "Rank moves (default goal)",
}


def _snapshot(store: Store, when: date) -> dict[str, tuple[str, int | None]]:
    rows = store.query(
        "SELECT r.repo, r.status, p.rank FROM results r LEFT JOIN profile_results p "
        "ON p.as_of = r.as_of AND p.repo = r.repo AND p.profile = 'default' WHERE r.as_of = ?", [when])
    return {r["repo"]: (r["status"], r["rank"] if r["status"] == "ranked" else None) for r in rows}


def compare(before: dict[str, tuple[str, int | None]], after: dict[str, tuple[str, int | None]]) -> list[Change]:
    """Every change between two snapshots' (status, default rank) by repository, biggest first in each kind."""
    out: list[Change] = []
    for repo, (status, rank) in after.items():
        b_status, b_rank = before.get(repo, (None, None))
        if status == "black_hole" and b_status != "black_hole":
            kind = "new_black_hole"
        elif b_status == "black_hole" and status != "black_hole":
            kind = "recovered"
        elif status == "undecided" and b_status not in (None, "undecided"):
            kind = "became_undecided"
        elif status == "ranked" and b_status != "ranked":
            kind = "newly_ranked"
        elif b_status == "ranked" and status != "ranked":
            kind = "no_longer_ranked"
        elif status == "ranked" and b_rank is not None and rank is not None and abs(b_rank - rank) >= MIN_MOVE:
            kind = "moved"
        else:
            continue
        out.append(Change(repo, kind, b_status, status, b_rank, rank))
    order = {k: i for i, k in enumerate(KINDS)}
    out.sort(key=lambda c: (order[c.kind], -abs((c.before_rank or 0) - (c.after_rank or 0)) if c.kind == "moved" else 0,
                            c.after_rank or c.before_rank or 0, c.repo))
    return out


def changes_from_store(store: Store, when: date) -> Changes:
    """The changes from the latest snapshot before `when` to `when`; none when there is no earlier one."""
    earlier = [d for d in store.snapshot_dates() if d < when]
    if not earlier:
        return Changes(when, None)
    return Changes(when, earlier[-1], compare(_snapshot(store, earlier[-1]), _snapshot(store, when)))
