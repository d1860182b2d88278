import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from porchlamp.config import Settings
from porchlamp.publish import load_site_data, publish
from porchlamp.publish.serve import SiteServer
from porchlamp.snapshot import evaluate_store, report_from_store
from porchlamp.store import Store

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="session")
def published(store300: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("site")
    db = tmp / "s.duckdb"
    db.write_bytes(store300.read_bytes())
    with Store(db) as s:
        evaluate_store(s, None, Settings())
        report = report_from_store(s)
        site = load_site_data(s)
    publish(site, tmp / "site")
    return tmp / "site", report


@pytest.fixture(scope="session")
def server(published: tuple[Path, dict[str, Any]]) -> Iterator[SiteServer]:
    with SiteServer(published[0], port=0) as s:
        yield s


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()
