"""What the same collection would cost over GitHub's REST API, counted from a world.

    .venv/bin/python bench/rest_equivalent.py WORLD_DIR

REST has no nesting, so each PR's timeline is its own request. Per repository:
GET /repos/{o}/{r}, /languages, /community/profile, /contents/.github/CODEOWNERS,
/contents/.github/pull_request_template.md, /labels (6), then /commits?since= and
/pulls?state=all&sort=created&direction=desc pages of 100, /issues?labels=…&assignee=none (1 when
a good-first-issue label exists); per PR in the window /issues/{n}/timeline pages of 100 (comments,
reviews and events together); per sampled merged PR (10 a repository) /commits/{sha}/check-runs.
Each REST request costs one of the 5,000 an hour, as one GraphQL point does.
"""

from __future__ import annotations

import json
import math
import sys
from collections import Counter, defaultdict
from datetime import datetime, timedelta
from pathlib import Path

from porchlamp.sample import iter_rows, read_meta

GFI = ("good first issue", "good-first-issue", "beginner", "easy", "first-timers-only")


def main() -> None:
    world = Path(sys.argv[1])
    as_of = datetime.fromisoformat(read_meta(world)["as_of"])
    start = as_of - timedelta(days=183)
    ts = lambda s: datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ")  # noqa: E731
    prs_all: Counter = Counter()  # type: ignore[type-arg]
    prs_window: Counter = Counter()  # type: ignore[type-arg]
    merged: Counter = Counter()  # type: ignore[type-arg]
    in_window: set[tuple[str, int]] = set()
    for p in iter_rows(world, "pulls"):
        prs_all[p["repo"]] += 1
        if ts(p["created_at"]) >= start:
            prs_window[p["repo"]] += 1
            in_window.add((p["repo"], p["number"]))
            merged[p["repo"]] += p["state"] == "MERGED"
    items: Counter = Counter()  # type: ignore[type-arg]
    for i in iter_rows(world, "timeline"):
        if (i["repo"], i["number"]) in in_window:
            items[(i["repo"], i["number"])] += 1
    commits: Counter = Counter()  # type: ignore[type-arg]
    for c in iter_rows(world, "commits"):
        if ts(c["committed_at"]) >= start:
            commits[c["repo"]] += 1
    gfi: dict[str, bool] = defaultdict(bool)
    for i in iter_rows(world, "issues"):
        gfi[i["repo"]] |= any(lb.lower() in GFI for lb in i["labels"])
    repos = [r["name_with_owner"] for r in iter_rows(world, "repositories")]
    per_repo = 6 * len(repos)
    lists = sum(max(1, math.ceil(commits[r] / 100)) + max(1, math.ceil(prs_window[r] / 100)) + (1 if gfi[r] else 0) for r in repos)
    timelines = sum(max(1, math.ceil(items[k] / 100)) for k in in_window)
    ci = sum(min(10, merged[r]) for r in repos)
    total = per_repo + lists + timelines + ci
    print(json.dumps({"benchmark": "rest_equivalent", "repos": len(repos), "prs_in_window": len(in_window), "requests": total,
                      "by_kind": {"repository": per_repo, "lists": lists, "pr_timelines": timelines, "ci": ci},
                      "requests_per_100_prs": round(total * 100 / len(in_window), 2), "hours_at_5000_an_hour": round(total / 5000, 1)}))


if __name__ == "__main__":
    main()
