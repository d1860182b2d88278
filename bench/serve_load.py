"""Load on `porchlamp serve`: N concurrent clients on loopback for a bounded time.

    .venv/bin/python bench/serve_load.py SITE_DIR [--clients 200] [--seconds 30]

Starts `porchlamp serve` in its own process, then N client threads fetch the home page, the
ranking parts a change of view fetches and project pages in a loop until the time is up; prints
requests per second, p50/p99 latency and errors as JSON. Only 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run(site: Path, clients: int, seconds: float) -> dict:  # type: ignore[type-arg]
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "porchlamp", "serve", str(site), "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(100):
            try:
                httpx.get(base, timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        # What a reader asks for: pages, and the ranking parts a change of view fetches.
        pages = ["", "data/v1/rankings/parts.json", "data/v1/rankings/default/part-1.json", "not-ranked.html", "report.html"]
        pages += [str(p.relative_to(site)) for p in sorted((site / "projects").rglob("*.html"))[:200]]
        latencies: list[float] = []
        errors: list[str] = []
        lock = threading.Lock()
        stop = time.perf_counter() + seconds

        def client(k: int) -> None:
            rng = random.Random(k)
            with httpx.Client(timeout=30) as c:
                while time.perf_counter() < stop:
                    t0 = time.perf_counter()
                    try:
                        r = c.get(base + rng.choice(pages))
                        ok = r.status_code == 200
                    except httpx.HTTPError as err:
                        ok, r = False, None
                        with lock:
                            errors.append(type(err).__name__)
                    dt = time.perf_counter() - t0
                    with lock:
                        latencies.append(dt)
                        if not ok and r is not None:
                            errors.append(str(r.status_code))

        t0 = time.perf_counter()
        threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - t0
    finally:
        proc.terminate()
        proc.wait(10)
    latencies.sort()
    q = lambda p: round(latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000, 1) if latencies else None  # noqa: E731
    return {"benchmark": "serve_load", "clients": clients, "seconds": round(elapsed, 1), "requests": len(latencies),
            "requests_per_second": round(len(latencies) / elapsed, 1), "p50_ms": q(0.5), "p99_ms": q(0.99), "errors": len(errors),
            "error_kinds": sorted(set(errors)), "machine": f"{os.cpu_count()} cores"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("site", type=Path)
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=30.0)
    a = ap.parse_args()
    print(json.dumps(run(a.site, a.clients, a.seconds)))


if __name__ == "__main__":
    main()
