"""How the own-repository bot rule (SPEC section 5) does on real accounts it was not built from:
the labelled user-account bots and maintainers of tests/data/own_repo_accounts.csv, each posted as
the world of `tests/own_repo_world.py` posts them (one repository, as a member, a day or a minute
after each PR opens).

    python bench/bots/own_repo.py [--split tune|held_out|all]

Prints, for the split, the bots' PRs answered (a day later, a minute later, and a day later with
the rule off), the maintainers' replies counted, and for each pair of thresholds (own_min_prs,
behaviour_share) how many maintainers would be turned into bots and how many bots would be caught.
Thresholds are chosen on the tune split only; the held-out split is measured once, at the chosen ones.
"""

from __future__ import annotations

import argparse
import sys
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

from own_repo_world import answered, bot_world, corpus, maintainer_world  # noqa: E402

from porchlamp.config import Settings  # noqa: E402

MIN_PRS = (2, 3, 4, 5, 8)
SHARES = (0.6, 0.7, 0.8, 0.9, 1.0)


def with_thresholds(min_prs: int, share: float) -> Settings:
    s = Settings()
    return s.model_copy(update={"templates": s.templates.model_copy(update={"own_min_prs": min_prs, "behaviour_share": share})})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=("tune", "held_out", "all"), default="tune")
    ap.add_argument("--no-sweep", action="store_true", help="only the figures at the packaged thresholds")
    args = ap.parse_args()
    rows = corpus(None if args.split == "all" else args.split)
    bots, people = bot_world(rows), maintainer_world(rows)
    n_bots, n_people = len(bots), len(people)
    print(f"split {args.split}: {n_bots} bots, {n_people} maintainers")
    for label, world, s in (("bots, a day later", bots, None), ("bots, a minute later", bot_world(rows, timedelta(minutes=1)), None),
                            ("bots, a day later, rule off", bots, with_thresholds(1_000_000, 1.0)),
                            ("maintainers' replies", people, None)):
        a, n, own = answered(world, s)
        print(f"{label}: {a} of {n} PRs answered ({a / n:.1%}); {len(own)} accounts set aside")
    if args.no_sweep:
        return
    print("\nown_min_prs | behaviour_share | maintainers turned into bots | bots caught (a day later)")
    for min_prs in MIN_PRS:
        for share in SHARES:
            s = with_thresholds(min_prs, share)
            _, _, wrong = answered(people, s)
            _, _, caught = answered(bots, s)
            print(f"{min_prs} | {share} | {len(wrong)} of {n_people} | {len(caught)} of {n_bots}")


if __name__ == "__main__":
    main()
