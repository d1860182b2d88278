"""Marks kept beside the texts: a project's documents are read for where review happens when they
are stored, read again when they change or the reader does, and never by an evaluation."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from unittest.mock import patch

from porchlamp.config import Settings
from porchlamp.evaluate.rules import load_rules
from porchlamp.models import CommunityFiles
from porchlamp.store import Store
from porchlamp.store.marks import ensure_marks
from tests.helpers import repo

RULES = load_rules(Settings())
LIST = "Please do not open pull requests on GitHub. Patches go to the mailing list, see https://lists.example.org/dev."
WELCOME = "Pull requests are welcome: fork the repository and open one against main."


def _docs(store: Store, name: str) -> tuple[str | None, str | None]:
    [(version, docs)] = store.conn.execute("SELECT m_version, m_docs FROM community WHERE repo = ?", [name]).fetchall()
    return version, docs


def test_documents_are_read_once_when_stored_and_again_when_they_change(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb") as s:
        s.upsert([repo("acme/list"), CommunityFiles("acme/list", contributing_text=LIST, readme_text=WELCOME),
                  repo("acme/open"), CommunityFiles("acme/open", readme_text=WELCOME, pr_template="Describe your change.")])
        assert _docs(s, "acme/list")[0] is None
        ensure_marks(s, RULES)
        version, docs = _docs(s, "acme/list")
        assert version is not None
        [[venue, document, passage]] = json.loads(docs or "")
        assert (venue, document) == ("mailing_list", "CONTRIBUTING") and passage.startswith("Please do not open pull requests")
        assert _docs(s, "acme/open") == (version, None)  # read, and says nothing of review elsewhere
        assert ensure_marks(s, RULES) == 0  # nothing is read twice

        # A new CONTRIBUTING that welcomes PRs here clears the old reading, and only that row is read again.
        s.upsert([CommunityFiles("acme/list", contributing_text=WELCOME, readme_text=WELCOME)])
        assert _docs(s, "acme/list") == (None, docs)
        assert ensure_marks(s, RULES) == 1
        assert _docs(s, "acme/list") == (version, None)

        # A new reader reads every project's documents again, and none of the comments.
        with patch("porchlamp.evaluate.marks.DOCUMENTS_CODE", 99):
            assert ensure_marks(s, RULES) == 2
            assert _docs(s, "acme/list")[0] != version


def test_marks_written_a_span_at_a_time_are_the_marks_of_one_pass(store300: Path, tmp_path: Path) -> None:
    """Marks are held a span of row ids at a time; many small spans mark every stale row exactly as
    one pass does, and leave the rows that were current alone."""
    db = tmp_path / "s.duckdb"
    shutil.copy(store300, db)
    marks = "node_id, m_version, m_fp, m_chars, m_words, m_curated, m_redirect, m_welcome"
    with Store(db) as s:
        ensure_marks(s, RULES)
        before = s.conn.execute(f"SELECT {marks} FROM timeline ORDER BY node_id").fetchall()
        (rows,) = s.conn.execute("SELECT count(*) FROM timeline").fetchall()[0]
        s.conn.execute("UPDATE timeline SET m_version = NULL, m_fp = NULL, m_redirect = NULL WHERE rowid % 3 <> 0")
        stale = rows - (rows + 2) // 3
        with patch("porchlamp.store.marks.SPAN", 997):
            assert ensure_marks(s, RULES) == stale
        assert s.conn.execute(f"SELECT {marks} FROM timeline ORDER BY node_id").fetchall() == before
        assert rows > 5 * 997
