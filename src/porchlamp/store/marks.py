"""Text marks kept in the store: each comment's, PR's (title and description) and project document's marks
(`evaluate.marks`) computed once, when its row is stored or the rule data changed, never again by an
evaluation.

They are columns beside the text (`m_*` of `timeline`, `pulls` and `community`), under the version
of the rule data that made them (`m_version`); every write of a row clears its version (`Store`
writes), so the next `ensure_marks` finds exactly the rows whose marks are missing or stale.
"""

from __future__ import annotations

from collections.abc import Callable

import pyarrow as pa

from porchlamp.evaluate.marks import document_marks, documents_version, mark_pr, mark_text, marks_version, pr_marks_version
from porchlamp.evaluate.rules import Rules
from porchlamp.store.db import Store

BATCH = 50_000  # rows marked per batch read
SPAN = 1_000_000  # row ids whose marks are held before they are written


def ensure_marks(store: Store, rules: Rules, progress: Callable[[int], None] | None = None) -> int:
    """Mark every timeline row, PR and project's documents whose marks are missing or stale; returns
    how many rows were marked.
    A store of a schema before marks gets them once it is upgraded (any evaluation opens it so)."""
    if "m_version" not in store.columns("timeline"):
        return 0
    version = marks_version(rules)

    def comments(batch: pa.RecordBatch) -> dict[str, pa.Array]:
        marks = [mark_text(body, rules) for body in batch.column("body").to_pylist()]
        return {
            "fp": pa.array([m.fp for m in marks], pa.int64()), "chars": pa.array([m.chars for m in marks], pa.int32()),
            "words": pa.array([m.words for m in marks], pa.int32()), "curated": pa.array([m.curated for m in marks], pa.bool_()),
            "redirect": pa.array([m.redirect for m in marks], pa.string()), "welcome": pa.array([m.welcome for m in marks], pa.bool_()),
        }

    def pulls(batch: pa.RecordBatch) -> dict[str, pa.Array]:
        marks = [mark_pr(t, b, rules) for t, b in zip(batch.column("title").to_pylist(), batch.column("body").to_pylist())]
        return {
            "ai": pa.array([m.ai for m in marks], pa.bool_()), "fp": pa.array([m.fp for m in marks], pa.int64()),
            "chars": pa.array([m.chars for m in marks], pa.int32()), "words": pa.array([m.words for m in marks], pa.int32()),
            "tool": pa.array([m.bot_tool for m in marks], pa.string()),
            "lines": pa.array([list(m.lines) for m in marks], pa.list_(pa.int64())),
        }

    done = _mark(store, "timeline", "body", comments, progress, version,
                 "m_fp = m.fp, m_chars = m.chars, m_words = m.words, m_curated = m.curated, m_redirect = m.redirect, "
                 "m_welcome = m.welcome")
    pulled = store.columns("pulls")
    pr_sets = ("m_ai = m.ai, m_fp = m.fp, m_chars = m.chars, m_words = m.words, m_bot_tool = m.tool"
               if "m_bot_tool" in pulled else "m_ai = m.ai") + (", m_lines = m.lines" if "m_lines" in pulled else "")
    done += _mark(store, "pulls", "title, body", pulls, progress, pr_marks_version(rules), pr_sets)
    if "m_docs" not in store.columns("community"):
        return done

    def documents(batch: pa.RecordBatch) -> dict[str, pa.Array]:
        texts = zip(*(batch.column(c).to_pylist() for c in ("pr_template", "contributing_text", "readme_text")))
        return {"docs": pa.array([document_marks(*t) for t in texts], pa.string())}

    return done + _mark(store, "community", "pr_template, contributing_text, readme_text", documents, progress,
                        documents_version(), "m_docs = m.docs")


def _mark(store: Store, table: str, columns: str, make: Callable[[pa.RecordBatch], dict[str, pa.Array]],
          progress: Callable[[int], None] | None, version: str, sets: str) -> int:
    """Marks of `table`'s stale rows, made from `columns` and written by `sets`, a span of row ids at
    a time: the scan reads the table it updates, so a span's marks are held until it is read, and
    only a span's (at 100,000 repositories a whole table's marks were gigabytes)."""
    (top,) = store.conn.execute(f"SELECT max(rowid) FROM {table}").fetchall()[0]
    done = 0
    for low in range(0, (top if top is not None else -1) + 1, SPAN):
        made = []
        reader = store.conn.sql(f"SELECT rowid AS rid, {columns} FROM {table} WHERE m_version IS DISTINCT FROM $v "
                                f"AND rowid >= $low AND rowid < $high", params={"v": version, "low": low, "high": low + SPAN})
        for batch in reader.to_arrow_reader(BATCH):
            made.append(pa.table({"rid": batch.column("rid"), **make(batch)}))
            if progress:
                progress(batch.num_rows)
        rows = pa.concat_tables(made) if made else None
        if rows is None or not rows.num_rows:
            continue
        store.conn.register("_marks", rows)
        try:
            store.conn.execute(f"UPDATE {table} SET m_version = $v, {sets} FROM _marks m WHERE {table}.rowid = m.rid", {"v": version})
        finally:
            store.conn.unregister("_marks")
        done += rows.num_rows
    return done
