"""Porchlamp's benchmarks: evaluation, re-ranking, publishing and the page in a browser, at scale.

    .venv/bin/python bench/run.py                  # 1,000 / 3,000 / 11,000 repositories (make bench)
    .venv/bin/python bench/run.py --small          # 100 repositories: what CI runs so this cannot rot
    .venv/bin/python bench/run.py --only page --sizes 11000
    .venv/bin/python bench/run.py --only evaluate --sizes 11000 --workers 1 2
    .venv/bin/python bench/run.py --sizes 100000 --workers 2 --parts 2 --load-memory 8GB

Worlds are generated once into --work (kept between runs). Each measurement runs in a fresh
process so its peak memory is its own (`peak_rss_mb`: that process, not the children it forks);
every figure is printed as one JSON line.
Collection cost has its own script (bench/collect_cost.py) and the emulator's speed too.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r"""
import json, resource, sys, time
from datetime import date
step, db, arg = sys.argv[1], sys.argv[2], sys.argv[3]
t0 = time.perf_counter()
out = {}
if step == "load":
    from porchlamp.sample import load_world
    from porchlamp.store import Store
    world, _, memory = arg.partition("|")
    with Store(db) as s:
        if memory:  # DuckDB otherwise caches up to 80% of the machine while it loads
            s.conn.execute(f"SET memory_limit = '{memory}'")
        out = {k: v for k, v in load_world(world, s).items() if k in ("pulls", "timeline")}
elif step == "evaluate":
    from porchlamp.config import Settings
    from porchlamp.snapshot import evaluate_store
    from porchlamp.store import Store
    with Store(db) as s:
        r = evaluate_store(s, None, Settings(), workers=int(arg or 1))
    out = {"repos": r.repos, "outside_prs": r.outside_prs, "workers": int(arg or 1), "worker_peak_mb": list(r.worker_peak_mb),
           "steps": r.steps}
elif step == "next_day":  # the day after the store's latest snapshot, as a daily refresh that found nothing new would
    from datetime import timedelta
    from porchlamp.config import Settings
    from porchlamp.snapshot import evaluate_store
    from porchlamp.store import Store
    with Store(db) as s:
        day = s.snapshot_dates()[-1] + timedelta(days=1)
        s.mark_collected(day)
        before = s.count("pr_verdicts")
        r = evaluate_store(s, day, Settings())
        out = {"day": str(day), "repos": r.repos, "steps": r.steps, "pr_verdicts_stored": s.count("pr_verdicts") - before,
               "pr_verdicts_listed": s.query("SELECT count(*) AS n FROM pr_results WHERE as_of = ?", [day])[0]["n"]}
elif step == "rerank":
    from porchlamp.config import settings_from_dict
    from porchlamp.snapshot import rerank_store
    from porchlamp.store import Store
    weights = settings_from_dict({"profiles": {"default": {"responsiveness": 20, "accessibility": 30, "governance": 20, "dependents": 15, "review_ci": 15}}})
    with Store(db) as s:
        out = {"ranked": rerank_store(s, None, weights)}
elif step == "publish":
    from porchlamp.publish import load_site_data, publish
    from porchlamp.store import Store
    with Store(db, read_only=True) as s:
        site = load_site_data(s)
    r = publish(site, arg)
    out = {"pages": r.pages, "bytes": r.bytes, "files": sum(1 for _ in __import__("pathlib").Path(arg).rglob("*")), "steps": r.steps}
out["seconds"] = round(time.perf_counter() - t0, 2)
out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
print(json.dumps(out))
"""


def child(step: str, db: Path, arg: str = "") -> dict:  # type: ignore[type-arg]
    res = subprocess.run([sys.executable, "-c", CHILD, step, str(db), arg], capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise SystemExit(f"{step} failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def emit(record: dict) -> None:  # type: ignore[type-arg]
    record = {"date": time.strftime("%Y-%m-%d"), "machine": f"{os.cpu_count()} cores, {platform.machine()}", **record}
    print(json.dumps(record), flush=True)


def _generate(world: Path, n: int, part: tuple[int, int] | None) -> int:
    from porchlamp.sample import generate_world

    return generate_world(world, repos=n, seed=2026, part=part).pulls


def world_and_store(work: Path, n: int, parts: int = 1, load_memory: str = "") -> tuple[list[Path], Path]:
    """The world of n repositories (in `parts` directories generated side by side) and its store."""
    from concurrent.futures import ProcessPoolExecutor

    worlds = [work / f"world{n}"] if parts == 1 else [work / f"world{n}-p{i}" for i in range(1, parts + 1)]
    db = work / f"store{n}.duckdb"
    todo = [(w, (i, parts) if parts > 1 else None) for i, w in enumerate(worlds, 1) if not (w / "world.json").exists()]
    if todo:
        t0 = time.perf_counter()
        with ProcessPoolExecutor(len(todo)) as pool:
            prs = sum(pool.map(_generate, [w for w, _ in todo], [n] * len(todo), [p for _, p in todo]))
        emit({"benchmark": "generate_world", "repos": n, "parts": parts, "prs": prs, "seconds": round(time.perf_counter() - t0, 1)})
    if not db.exists():
        # Parts load one after another into the one store (a store has one writer).
        for w in worlds:
            emit({"benchmark": "load_world", "repos": n, "world": w.name, "memory_limit": load_memory or None,
                  **child("load", db, f"{w}|{load_memory}")})
    return worlds, db


def page_metrics(site: Path) -> dict:  # type: ignore[type-arg]
    import shutil

    from playwright.sync_api import sync_playwright

    from porchlamp.publish.serve import SiteServer

    args = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"]
    with SiteServer(site, port=0) as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=args)
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        page = ctx.new_page()
        sizes: list[int] = []
        page.on("response", lambda r: sizes.append(len(r.body()) if r.ok else 0))
        t0 = time.perf_counter()
        page.goto(server.url)
        page.wait_for_selector("#rankings tbody tr", state="visible")
        visible = time.perf_counter() - t0
        page.wait_for_selector("html[data-ready='1']")
        interactive = time.perf_counter() - t0
        page.wait_for_load_state("networkidle")
        home = list(sizes)
        fcp = page.evaluate("(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || null")
        # Each change of view fetches the parts of the ranking it needs (the first, the manifest too):
        # timed until the table's caption shows the new view.
        change = """([id, value, shown]) => new Promise(done => {
            const s = document.getElementById(id), c = document.querySelector('#rankings caption'), t = performance.now();
            value = value || s.options[1].value;
            new MutationObserver((_, o) => { if (c.textContent.includes(shown || value)) { o.disconnect(); done(performance.now() - t); } })
              .observe(c, {childList: true, characterData: true, subtree: true});
            s.value = value; s.dispatchEvent(new Event('change')); })"""
        first = page.evaluate(change, ["profile", "first-contribution", "First contribution"])
        switch = page.evaluate(change, ["profile", "career", "Career"])
        eco = page.evaluate(change, ["ecosystem", "", ""])
        page.wait_for_load_state("networkidle")  # no response left to count once the browser closes
        browser.close()
    return {"table_visible_ms": round(visible * 1000), "first_contentful_paint_ms": round(fcp) if fcp else None,
            "interactive_ms": round(interactive * 1000), "first_change_of_view_ms": round(first, 1),
            "profile_switch_ms": round(switch, 1), "ecosystem_filter_ms": round(eco, 1),
            "home_bytes": sum(home), "home_requests": len(home),
            "index_bytes": sum(sizes) - sum(home)}  # what the three changes of view fetched


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, default=Path(os.environ.get("PORCHLAMP_BENCH_DIR", "/tmp/porchlamp-bench")))
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 11000])
    ap.add_argument("--small", action="store_true", help="one 100-repository world: checks the benchmarks still run")
    ap.add_argument("--only", choices=["evaluate", "rerank", "publish", "page"], nargs="+")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2],
                    help="evaluate once for each: 1 in one process, N on a local cluster of N worker processes")
    ap.add_argument("--parts", type=int, default=1,
                    help="generate a new world in this many parts at once (one per core), loaded one after another")
    ap.add_argument("--load-memory", default="", help="DuckDB memory limit while loading a world, such as 8GB")
    args = ap.parse_args()
    sizes = [100] if args.small else args.sizes
    steps = set(args.only or ["evaluate", "rerank", "publish", "page"])
    args.work.mkdir(parents=True, exist_ok=True)
    largest = max(sizes)
    for n in sizes:
        _, db = world_and_store(args.work, n, args.parts, args.load_memory)
        if "evaluate" in steps or not _evaluated(db):
            # Every worker count on the same store in one session: compare them as ratios.
            for w in args.workers:
                emit({"benchmark": "evaluate", "repos": n, **child("evaluate", db, str(w))})
        if "rerank" in steps and n == largest:
            emit({"benchmark": "rerank", "repos": n, **child("rerank", db)})
        if ("publish" in steps and (n >= 3000 or args.small)) or ("page" in steps and n == largest):
            site = args.work / f"site{n}"
            emit({"benchmark": "publish", "repos": n, **child("publish", db, str(site))})
            if "page" in steps and n == largest:
                emit({"benchmark": "page", "repos": n, **page_metrics(site)})


def _evaluated(db: Path) -> bool:
    from porchlamp.store import Store

    with Store(db, read_only=True) as s:
        return bool(s.snapshot_dates())


if __name__ == "__main__":
    main()
