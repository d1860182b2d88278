"""How well Porchlamp tells user-account bots from people, on accounts labelled by research data sets.

    python bench/bots/recall.py

Two figures, because the known-bots list contains the labelled bots themselves:
- deployed: the packaged rules on every labelled account (high by construction for listed bots);
- held out: the rules rebuilt without anything learnt from the BIMBAS evaluation split (list entries
  known only from it, and allow-list entries from it), measured on that split. This is what to
  expect for accounts no list has seen.
Apps ([bot] logins) are left out of the recall: GitHub's Bot type marks them whatever the rules say.
"""

from __future__ import annotations

import csv
import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LABELLED = ROOT / "tests/data/labelled_accounts.csv"


def labelled_accounts(path: Path = LABELLED) -> list[tuple[str, bool, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return [(r["login"], r["bot"] == "1", r["source"]) for r in csv.DictReader(f)]


def measure(held_out: str | None = None) -> dict[str, object]:
    """Recall on user-account bots and the share of people flagged, for all labelled accounts, or
    (held_out = a source key) for that source's accounts with the rules rebuilt without it."""
    sys.path.insert(0, str(ROOT / "src"))
    from porchlamp.config import Settings
    from porchlamp.evaluate.bots import Bots
    from porchlamp.evaluate.rules import load_rules

    rules = load_rules(Settings()).bots
    accounts = labelled_accounts()
    if held_out:
        known = {k: v for k, v in rules.known.items() if {s.split(":")[0] for s in v.split(";")} != {held_out}}
        humans = {k: v for k, v in rules.humans.items() if v != held_out}
        rules = dataclasses.replace(rules, known=known, humans=humans)
        accounts = [a for a in accounts if a[2] == held_out]
    bots = Bots(rules)
    user_bots = [login for login, bot, _ in accounts if bot and not login.lower().endswith("[bot]")]
    people = [login for login, bot, _ in accounts if not bot]
    found = [b for b in user_bots if bots.is_bot(b, "User")]
    flagged = [h for h in people if bots.is_bot(h, "User")]
    return {"user_bots": len(user_bots), "found": len(found), "recall": round(len(found) / len(user_bots), 4),
            "people": len(people), "flagged": len(flagged), "false_positive_rate": round(len(flagged) / max(1, len(people)), 4),
            "people_flagged": flagged, "bots_missed": sorted(set(user_bots) - set(found))}


if __name__ == "__main__":
    for label, held in (("deployed rules, every labelled account", None), ("held out: BIMBAS evaluation split", "bimbas-test")):
        m = measure(held)
        print(f"{label}: {m['found']}/{m['user_bots']} user-account bots found ({m['recall']:.1%}), "
              f"{m['flagged']}/{m['people']} people flagged ({m['false_positive_rate']:.2%})")
        if held:
            print("  people flagged:", ", ".join(m["people_flagged"]) or "none")  # type: ignore[arg-type]
            print("  first bots missed:", ", ".join(m["bots_missed"][:40]))  # type: ignore[index]
