"""Text marks kept in the store: each comment's, PR's and project document's marks
(`evaluate.marks`) computed once, when its row is stored or the rule data changed, never again by an
evaluation.

They are columns beside the text (`m_*` of `timeline`, `pulls` and `community`), under the version
of the rule data that made them (`m_version`); every write of a row clears its version (`Store`
writes), so the next `ensure_marks` finds exactly the rows whose marks are missing or stale.
"""

from __future__ import annotations

from collections.abc import Callable

import pyarrow as pa

from porchlamp.evaluate.marks import ai_assisted, document_marks, documents_version, mark_text, marks_version
from porchlamp.evaluate.rules import Rules
from porchlamp.store.db import Store

BATCH = 50_000  # rows marked per batch read


def ensure_marks(store: Store, rules: Rules, progress: Callable[[int], None] | None = None) -> int:
    """Mark every timeline row, PR and project's documents whose marks are missing or stale; returns
    how many rows were marked.
    A store of a schema before marks gets them once it is upgraded (any evaluation opens it so)."""
    if "m_version" not in store.columns("timeline"):
        return 0
    version = marks_version(rules)

    def comments(batch: pa.RecordBatch) -> pa.Table:
        marks = [mark_text(body, rules) for body in batch.column("body").to_pylist()]
        return pa.table({
            "node_id": batch.column("node_id"), "fp": pa.array([m.fp for m in marks], pa.int64()),
            "chars": pa.array([m.chars for m in marks], pa.int32()), "words": pa.array([m.words for m in marks], pa.int32()),
            "curated": pa.array([m.curated for m in marks], pa.bool_()), "redirect": pa.array([m.redirect for m in marks], pa.string()),
            "welcome": pa.array([m.welcome for m in marks], pa.bool_()),
        })

    def pulls(batch: pa.RecordBatch) -> pa.Table:
        return pa.table({"repo": batch.column("repo"), "number": batch.column("number"),
                         "ai": pa.array([ai_assisted(b, rules) for b in batch.column("body").to_pylist()], pa.bool_())})

    done = _mark(store, comments, progress, "SELECT node_id, body FROM timeline WHERE m_version IS DISTINCT FROM $v", version,
                 "UPDATE timeline SET m_version = $v, m_fp = m.fp, m_chars = m.chars, m_words = m.words, m_curated = m.curated, "
                 "m_redirect = m.redirect, m_welcome = m.welcome FROM _marks m WHERE timeline.node_id = m.node_id")
    done += _mark(store, pulls, progress, "SELECT repo, number, body FROM pulls WHERE m_version IS DISTINCT FROM $v", version,
                  "UPDATE pulls SET m_version = $v, m_ai = m.ai FROM _marks m WHERE pulls.repo = m.repo AND pulls.number = m.number")
    if "m_docs" not in store.columns("community"):
        return done

    def documents(batch: pa.RecordBatch) -> pa.Table:
        texts = zip(*(batch.column(c).to_pylist() for c in ("pr_template", "contributing_text", "readme_text")))
        return pa.table({"repo": batch.column("repo"), "docs": pa.array([document_marks(*t) for t in texts], pa.string())})

    return done + _mark(store, documents, progress,
                        "SELECT repo, pr_template, contributing_text, readme_text FROM community WHERE m_version IS DISTINCT FROM $v",
                        documents_version(),
                        "UPDATE community SET m_version = $v, m_docs = m.docs FROM _marks m WHERE community.repo = m.repo")


def _mark(store: Store, make: Callable[[pa.RecordBatch], pa.Table], progress: Callable[[int], None] | None, stale: str,
          version: str, update: str) -> int:
    """Marks made from the rows `stale` selects, written by `update` once the scan is done (the scan
    reads the table it updates); only marks are held, never the texts."""
    made: list[pa.Table] = []
    for batch in store.conn.sql(stale, params={"v": version}).to_arrow_reader(BATCH):
        made.append(make(batch))
        if progress:
            progress(batch.num_rows)
    rows = pa.concat_tables(made) if made else None
    if rows is None or not rows.num_rows:
        return 0
    store.conn.register("_marks", rows)
    try:
        store.conn.execute(update, {"v": version})
    finally:
        store.conn.unregister("_marks")
    return rows.num_rows
