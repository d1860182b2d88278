"""`porchlamp serve` answers 200 concurrent clients on loopback for 30 s without an error."""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.mark.slow
def test_serve_under_load(published: tuple[Path, dict[str, Any]]) -> None:
    site, _ = published
    res = subprocess.run([sys.executable, str(BENCH / "serve_load.py"), str(site), "--clients", "200", "--seconds", "30"],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    data = json.loads(res.stdout)
    print(f"\nserve: {data['requests']} requests from 200 clients in {data['seconds']} s, {data['requests_per_second']}/s, "
          f"p99 {data['p99_ms']} ms, errors {data['errors']}")
    assert data["requests"] > 200 and data["errors"] == 0, data["error_kinds"]
