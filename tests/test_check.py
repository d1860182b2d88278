"""`porchlamp check` through the emulator: a ranked repository, a black hole, and one that does not exist."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from porchlamp.emulator import Emulator, WorldIndex
from porchlamp.sample import read_truth


def _check(emu: Emulator, repo: str, *extra: str) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
    env = {**os.environ, "GITHUB_TOKEN": "check-token", "COLUMNS": "160"}
    return subprocess.run([sys.executable, "-m", "porchlamp", "check", repo, "--api", emu.url, "--dependents-api", emu.base_url,
                           "--as-of", "2026-10-15", *extra], env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def emu(world300: Path) -> Emulator:
    e = Emulator(WorldIndex(world300)).start()
    yield e  # type: ignore[misc]
    e.stop()


def _seen_alone(world: Path) -> set[str]:
    """Repositories none of whose PRs is by an account known as a bot only by one description it opens
    in many repositories: `check` reads one repository, so those are not seen there as in a snapshot."""
    prs = read_truth(world)["prs"]
    across = {key.rsplit("#", 1)[0] for key, p in prs.items() if p.get("case") == "bot_repeated_text"}
    return set(read_truth(world)["repos"]) - across


def test_check_a_ranked_repository(emu: Emulator, world300: Path) -> None:
    truth = read_truth(world300)["repos"]
    alone = _seen_alone(world300)
    repo = next(r for r, t in truth.items() if t["status"] == "ranked" and t["kind"] == "responsive" and r in alone)
    res = _check(emu, repo, "--format", "json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert (data["status"], data["kind"]) == ("ranked", "responsive")
    assert data["profiles"]["default"]["tier"] in ("A", "B", "B (capped)", "C", "D")
    assert len(data["outside_prs"]) == truth[repo]["outside_prs"]
    table = _check(emu, f"https://github.com/{repo}")
    assert table.returncode == 0 and "Components" in table.stdout and "tier" in table.stdout


def test_check_a_black_hole(emu: Emulator, world300: Path) -> None:
    truth = read_truth(world300)["repos"]
    alone = _seen_alone(world300)
    repo = next(r for r, t in truth.items() if t["status"] == "black_hole" and r in alone)
    data = json.loads(_check(emu, repo, "--format", "json").stdout)
    assert data["status"] == "black_hole" and "black hole" in data["reason"]
    assert sum(1 for p in data["outside_prs"] if p["outcome"] == "unanswered") == truth[repo]["unanswered"]
    assert all(p["url"].startswith(f"https://github.com/{repo}/pull/") for p in data["outside_prs"])


def test_check_a_missing_repository(emu: Emulator) -> None:
    res = _check(emu, "nobody-here/nothing-there")
    assert res.returncode == 2 and "not found on GitHub" in res.stderr and "Traceback" not in res.stderr
    bad = _check(emu, "not a repo")
    assert bad.returncode == 2 and "is not owner/name" in bad.stderr


def test_check_a_repository_on_codeberg(tmp_path: Path) -> None:
    """A Codeberg repository by its web address, collected through the Forgejo emulator: its verdict,
    and its outside PRs linked where Forgejo shows them (`/pulls/N`)."""
    from porchlamp.emulator.forgejo import ForgejoEmulator
    from porchlamp.sample import generate_world

    world = generate_world(tmp_path / "w", repos=60, seed=7, hosts={"codeberg.org": 0.5}).path
    truth = read_truth(world)["repos"]
    alone = _seen_alone(world)
    repo = next(r for r, t in sorted(truth.items()) if r.startswith("codeberg.org/") and t["status"] == "ranked" and r in alone)
    index = WorldIndex(world)
    with Emulator(index) as gh, ForgejoEmulator(index, "codeberg.org") as fj:
        env = {**os.environ, "GITHUB_TOKEN": "check-token", "PORCHLAMP_TOKEN_CODEBERG_ORG": "fj-check", "COLUMNS": "160"}
        res = subprocess.run([sys.executable, "-m", "porchlamp", "check", f"https://{repo}", "--api", gh.url, "--dependents-api",
                              gh.base_url, "--host-api", f"codeberg.org={fj.url}", "--as-of", "2026-10-15", "--format", "json"],
                             env=env, capture_output=True, text=True, timeout=180)
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert (data["status"], data["kind"]) == ("ranked", truth[repo]["kind"])
    assert len(data["outside_prs"]) == truth[repo]["outside_prs"]
    assert sum(1 for p in data["outside_prs"] if p["outcome"] == "unanswered") == truth[repo]["unanswered"]
    assert data["outside_prs"] and all(p["url"].startswith(f"https://{repo}/pulls/") for p in data["outside_prs"])
