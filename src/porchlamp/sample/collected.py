"""What a complete collection of a sample world holds, table by table: the oracle the collector is
measured against (tests, and `bench/collect_cost.py --check`).

Derived from the world with the evaluator's own sampling rules; nothing here talks to the emulator.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from porchlamp.config import Settings
from porchlamp.evaluate.bots import Bots
from porchlamp.evaluate.gates import commit_sample
from porchlamp.evaluate.rules import load_rules, norm_label
from porchlamp.models import as_of_instant, field_names
from porchlamp.sample.world import iter_rows
from porchlamp.store.db import MODEL_OF_TABLE

def world_as_collected(world: Path, as_of: date) -> dict[str, list[Any]]:
    """The rows a complete collection of `world` for `as_of` must hold, table by table: what the method
    asks GitHub for, derived from the world with the evaluator's own sampling rules (the window's PRs
    with whole timelines, their authors, the commit sample, returning authors' latest earlier commit,
    the CI sample, open unassigned good first issues with the repository's label names)."""
    settings = Settings()
    rules = load_rules(settings)
    end = as_of_instant(as_of)
    start = end - timedelta(days=settings.window.days)

    def t(s: str | None) -> datetime | None:
        return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ") if s else None

    def rec(table: str, row: dict[str, Any]) -> Any:
        """A world row as the model the store reads back: times parsed, lists as tuples."""
        model = MODEL_OF_TABLE[table]
        vals: dict[str, Any] = {}
        for k in field_names(model):
            if k not in row:  # a field the world leaves out keeps the model's default (a forge's: GitHub)
                continue
            v = row[k]
            if isinstance(v, str) and k.endswith("_at"):
                v = t(v)
            vals[k] = tuple(v) if isinstance(v, list) else v
        if table == "repositories":
            vals["languages"] = tuple((x["name"], x["bytes"]) for x in row["languages"])
        return model(**vals)

    pulls = [p for p in iter_rows(world, "pulls") if start <= t(p["created_at"]) < end]
    wanted = {(p["repo"], p["number"]) for p in pulls}
    accounts = {a["login"]: a for a in iter_rows(world, "accounts")}
    authors = {p["author"] for p in pulls if p["author"]}
    out: dict[str, list[Any]] = {}
    out["repositories"] = [rec("repositories", r) for r in iter_rows(world, "repositories")]
    out["accounts"] = [rec("accounts", {**a, **({} if a["type"] == "User" else {"created_at": None, "node_id": None})})
                       for login, a in accounts.items() if login in authors]
    out["community"] = [rec("community", c) for c in iter_rows(world, "community")]
    out["timeline"] = [rec("timeline", i) for i in iter_rows(world, "timeline") if (i["repo"], i["number"]) in wanted]
    out["dependents"] = [rec("dependents", d) for d in iter_rows(world, "dependents")]
    commits_by = defaultdict(list)
    for c in iter_rows(world, "commits"):
        commits_by[c["repo"]].append(rec("commits", c))
    pulls_by = defaultdict(list)
    for p in pulls:
        pulls_by[p["repo"]].append(p)
    commits, prs = [], []
    for repo, cs in commits_by.items():
        bots = Bots(rules.bots, repo)
        keep = {c.oid: c for c in commit_sample(tuple(cs), Bots(rules.bots), start, end, settings.window.commit_sample)}
        first: dict[str, datetime] = {}
        for p in pulls_by[repo]:
            if p["author_association"] == "CONTRIBUTOR" and accounts.get(p["author"], {}).get("type") == "User" \
                    and not bots.is_bot(p["author"], "User"):
                first[p["author"].lower()] = min(first.get(p["author"].lower(), t(p["created_at"])), t(p["created_at"]))
        for login, at in first.items():
            before = [c for c in cs if (c.author_login or "").lower() == login and c.committed_at <= at - timedelta(seconds=1)]
            if before:
                latest = max(before, key=lambda c: (c.committed_at, c.oid))
                keep[latest.oid] = latest
        commits += keep.values()
        merged = sorted((p for p in pulls_by[repo] if p["merged_at"]), key=lambda p: (p["merged_at"], p["number"]), reverse=True)
        sample = {p["number"] for p in merged[:settings.components.ci_sample]}
        prs += [rec("pulls", {**p, "has_ci": p["has_ci"] if p["number"] in sample else None}) for p in pulls_by[repo]]
    out["commits"] = commits
    out["pulls"] = prs
    issues = list(iter_rows(world, "issues"))
    labels_of: dict[str, set[str]] = defaultdict(set)
    for i in issues:
        labels_of[i["repo"]] |= {lb for lb in i["labels"] if norm_label(lb) in rules.gfi_labels}
    out["issues"] = [rec("issues", {**i, "labels": sorted(labels_of[i["repo"]]), "assignees": 0}) for i in issues
                     if i["state"] == "OPEN" and i["assignees"] == 0 and set(i["labels"]) & labels_of[i["repo"]]]
    return out
