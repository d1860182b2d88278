"""Assemble Porchlamp's packaged bot data from public ground-truth data sets (a maintenance tool,
not run by the tests: it needs the source files, which are not kept in this repository).

    python bench/bots/assemble.py SOURCES_DIR

SOURCES_DIR holds, as published by their authors:
  msr2023_bots.csv    Code&Data/GroundTruthData/BotAccounts.csv of natarajan-chidambaram/MSR2023_dataset
  bimbas_train.csv    data/train_label.csv of natarajan-chidambaram/BIMBAS_RABBIT_replication_package
  bimbas_test.csv     data/test_label.csv of the same
  bot_usage.csv       bot_services_all.csv of zhendow/GitHub_Bot_Usage
  curated.tsv         login <TAB> what it does <TAB> where that is documented (bots of large projects)

It writes src/porchlamp/data/known_bots.csv (user accounts that act as bots, each with its sources),
src/porchlamp/data/bot_like_humans.csv (labelled humans whose logins the patterns would take for
bots) and tests/data/labelled_accounts.csv (every labelled account, for measuring the rules).
Apps (logins ending in [bot]) are left out of the list: GitHub's Bot type already marks them.
"""

from __future__ import annotations

import ast
import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from porchlamp.config import Settings  # noqa: E402
from porchlamp.evaluate.bots import Bots, login_rules_reason  # noqa: E402
from porchlamp.evaluate.rules import load_rules  # noqa: E402


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def main(src: Path) -> None:
    bots: dict[str, tuple[str, str, str]] = {}  # lower login -> (login, source, note)
    labelled: dict[str, tuple[str, int, str]] = {}  # lower login -> (login, bot?, source)

    def add_bot(login: str, source: str, note: str = "") -> None:
        login = login.strip()
        if login and not login.lower().endswith("[bot]"):
            first, sources, old = bots.get(login.lower(), (login, "", ""))
            if source not in sources.split(";"):
                sources = f"{sources};{source}" if sources else source
            bots[login.lower()] = (first, sources, old or note)

    for split in ("train", "test"):
        for r in _rows(src / f"bimbas_{split}.csv"):
            labelled[r["contributor"].lower()] = (r["contributor"], int(r["bot"]), f"bimbas-{split}")
            if r["bot"] == "1":
                add_bot(r["contributor"], f"bimbas-{split}")
    for r in _rows(src / "msr2023_bots.csv"):
        add_bot(r["login_name"], "msr2023")
        labelled.setdefault(r["login_name"].lower(), (r["login_name"], 1, "msr2023"))
    for r in _rows(src / "bot_usage.csv"):
        if r["GitHub Accounts"] == "True":  # apps are marked by their type
            for login in ast.literal_eval(r["Account"]):
                add_bot(login, "botusage", r["Functionality Notes"].splitlines()[0][:80])
    curated = [line.rstrip("\n").split("\t") for line in open(src / "curated.tsv", encoding="utf-8") if line.strip()]
    for login, note, url in curated:
        first, sources, _ = bots.get(login.lower(), (login, "", ""))
        bots[login.lower()] = (first, ";".join(s for s in ("curated", *sources.split(";")) if s), f"{note} ({url})")
    # A login one source calls a bot and another a human is kept off the list and treated as human.
    conflicts = {k for k, (_, bot, _) in labelled.items() if not bot and k in bots}
    for k in conflicts:
        del bots[k]
    data = ROOT / "src/porchlamp/data"
    with open(data / "known_bots.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["login", "source", "note"])
        for k in sorted(bots):
            w.writerow(bots[k])
    rules = load_rules(Settings())
    humans = sorted((login, source) for login, bot, source in labelled.values()
                    if not bot and (login.lower() in conflicts or login_rules_reason(login, rules.bots) is not None))
    with open(data / "bot_like_humans.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["login", "source"])
        w.writerows(humans)
    with open(ROOT / "tests/data/labelled_accounts.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["login", "bot", "source"])
        for k in sorted(labelled):
            w.writerow(labelled[k])
    checked = Bots(load_rules(Settings()).bots)
    print(f"{len(bots)} known bots, {len(humans)} bot-looking humans ({len(conflicts)} conflicts), {len(labelled)} labelled; "
          f"{sum(1 for login, bot, _ in labelled.values() if not bot and checked.reason(login, 'User'))} labelled humans flagged")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
