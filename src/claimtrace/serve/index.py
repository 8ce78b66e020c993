"""The corpus page's index: one row per paper with its flags, in SQLite (FTS5 for titles and findings).

Built from the results store with DuckDB (one aggregate query per table over the Parquet files) into an
in-memory SQLite database, which attaches the review database so that review progress and the review
state filter are part of the same SQL. Sorting, filtering, search and paging are SQL (``LIMIT`` /
``OFFSET``), so a page of 10,000 papers costs the same as a page of 100. The index is rebuilt when the
store's files change (a new run).
"""

from __future__ import annotations

import re
import sqlite3
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from claimtrace.corpus.query import connect
from claimtrace.corpus.store import Store

#: flag code -> (label, SQL condition on the index row)
FLAGS: dict[str, tuple[str, str]] = {
    "inconsistent": ("inconsistent p", "n_inconsistent > 0"),
    "decision_error": ("decision error", "n_decision_errors > 0"),
    "ci_mismatch": ("CI mismatch", "n_ci_mismatch > 0"),
    "no_hypothesis": ("no hypothesis found", "n_no_hypothesis > 0"),
    "extraction_error": ("extraction error", "n_errors > 0"),
}
REVIEW_STATES = {
    "unreviewed": "reviewed = 0",
    "in_progress": "reviewed > 0 AND reviewed < reviewable",
    "reviewed": "reviewable > 0 AND reviewed >= reviewable",
}
SORTS = {"title": "lower(title)", "findings": "n_traces", "results": "n_statistics", "checked": "n_checked",
         "inconsistent": "n_inconsistent", "progress": "CAST(reviewed AS REAL) / max(reviewable, 1)",
         "format": "format"}
PAGE_SIZE = 50

_SUMMARY_SQL = """
WITH s AS (
  SELECT paper_id,
         count(*) FILTER (WHERE computed_p IS NOT NULL OR consistent IS NOT NULL) AS n_checked,
         count(*) FILTER (WHERE consistent = false) AS n_inconsistent,
         count(*) FILTER (WHERE decision_error = true) AS n_decision_errors,
         count(*) FILTER (WHERE ci_consistent = false OR ci_p_consistent = false) AS n_ci_mismatch
  FROM statistics GROUP BY paper_id),
t AS (
  SELECT paper_id, count(*) AS n_traces_rows,
         count(*) FILTER (WHERE coalesce(hypothesis_text, '') = '' OR list_contains(flags, 'no_hypothesis'))
           AS n_no_hypothesis,
         string_agg(finding_text, ' \u2022 ' ORDER BY trace_index) AS findings
  FROM traces GROUP BY paper_id),
e AS (SELECT paper_id, count(*) AS n_errors FROM errors GROUP BY paper_id)
SELECT p.paper_id, coalesce(p.title, '') AS title, coalesce(p.path, '') AS path, coalesce(p.format, '') AS format,
       coalesce(p.status, '') AS status, coalesce(p.n_statistics, 0) AS n_statistics,
       coalesce(t.n_traces_rows, 0) AS n_traces, coalesce(s.n_checked, 0) AS n_checked,
       coalesce(s.n_inconsistent, 0) AS n_inconsistent, coalesce(s.n_decision_errors, 0) AS n_decision_errors,
       coalesce(s.n_ci_mismatch, 0) AS n_ci_mismatch, coalesce(t.n_no_hypothesis, 0) AS n_no_hypothesis,
       coalesce(e.n_errors, 0) + (CASE WHEN p.status = 'failed' AND e.n_errors IS NULL THEN 1 ELSE 0 END) AS n_errors,
       coalesce(t.findings, '') AS findings
FROM papers p LEFT JOIN s USING (paper_id) LEFT JOIN t USING (paper_id) LEFT JOIN e USING (paper_id)
"""
_COLUMNS = ("paper_id", "title", "path", "format", "status", "n_statistics", "n_traces", "n_checked",
            "n_inconsistent", "n_decision_errors", "n_ci_mismatch", "n_no_hypothesis", "n_errors", "findings")


class CorpusQuery(BaseModel):
    """What the corpus page asks for: search words, flag and review filters, sort, page."""

    q: str = ""
    flag: str = ""
    review: str = ""
    sort: str = "title"
    order: str = "asc"
    page: int = 1


class CorpusPage(BaseModel):
    """One page of the corpus table."""

    rows: list[dict[str, Any]]
    total: int
    page: int
    pages: int
    query: CorpusQuery
    flag_counts: dict[str, int]


def _signature(root: Path) -> tuple[tuple[str, float], ...]:
    store = Store(root, create=False)
    out = []
    for t in ("papers", "traces", "statistics", "errors"):
        for p in store.parts(t):
            try:
                out.append((str(p), p.stat().st_mtime))
            except FileNotFoundError:
                continue
    return tuple(out)


def fts_query(text: str) -> str:
    """User words as an FTS5 query: every word must match (as a prefix); no FTS syntax gets through."""
    words = re.findall(r"\w+", text, flags=re.UNICODE)
    return " ".join(f'"{w}"*' for w in words[:20])


class CorpusIndex:
    """Per-paper summary rows of a results store, queryable by the corpus page."""

    def __init__(self, root: str | Path, review_db: Path) -> None:
        """Index the store at ``root``; review progress comes from ``review_db`` (attached)."""
        self.root = Path(root)
        self.review_db = review_db
        self._lock = threading.Lock()
        self._sig: tuple[tuple[str, float], ...] | None = None
        self._con: sqlite3.Connection | None = None

    def _build(self) -> sqlite3.Connection:
        duck = connect(self.root)
        try:
            rows = duck.execute(_SUMMARY_SQL).fetchall()
        finally:
            duck.close()
        con = sqlite3.connect(":memory:", check_same_thread=False)
        con.execute(f"CREATE TABLE papers ({', '.join(_COLUMNS)}, rowid_ INTEGER PRIMARY KEY)")
        con.executemany(f"INSERT INTO papers ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})", rows)
        con.execute("CREATE VIRTUAL TABLE papers_fts USING fts5(title, findings, content='papers', content_rowid='rowid_')")
        con.execute("INSERT INTO papers_fts (rowid, title, findings) SELECT rowid_, title, findings FROM papers")
        con.execute("CREATE INDEX papers_id ON papers (paper_id)")
        con.commit()  # no transaction may stay open: it would pin an old snapshot of the review database
        con.execute("ATTACH DATABASE ? AS rv", (str(self.review_db),))
        return con

    def _connection(self) -> sqlite3.Connection:
        sig = _signature(self.root)
        if self._con is None or sig != self._sig:
            old = self._con
            self._con = self._build()
            self._sig = sig
            if old is not None:
                old.close()
        return self._con

    def page(self, q: CorpusQuery, page_size: int = PAGE_SIZE) -> CorpusPage:
        """Rows of one page for the query (filters, search and sort in SQL; LIMIT/OFFSET paging)."""
        where, args = ["1 = 1"], []
        if q.flag:
            where.append(FLAGS[q.flag][1])
        if q.review:
            where.append(REVIEW_STATES[q.review])
        if q.q.strip() and fts_query(q.q):
            where.append("rowid_ IN (SELECT rowid FROM papers_fts WHERE papers_fts MATCH ?)")
            args.append(fts_query(q.q))
        base = """
            SELECT p.*, coalesce(r.reviewed, 0) AS reviewed, 3 * p.n_traces AS reviewable
            FROM papers p LEFT JOIN (
                SELECT paper_id, count(DISTINCT item_id) AS reviewed FROM rv.decisions
                WHERE element NOT IN ('statistic', 'check') GROUP BY paper_id) r USING (paper_id)"""
        order = f"{SORTS[q.sort]} {'DESC' if q.order == 'desc' else 'ASC'}, paper_id"
        cond = " AND ".join(where)
        with self._lock:
            con = self._connection()
            total = con.execute(f"SELECT count(*) FROM ({base}) WHERE {cond}", args).fetchone()[0]
            pages = max(1, -(-total // page_size))
            pg = min(max(1, q.page), pages)
            cur = con.execute(f"SELECT * FROM ({base}) WHERE {cond} ORDER BY {order} LIMIT ? OFFSET ?",
                              [*args, page_size, (pg - 1) * page_size])
            names = [c[0] for c in cur.description]
            rows = [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
            counts = {k: con.execute(f"SELECT count(*) FROM papers WHERE {cond_}").fetchone()[0]
                      for k, (_, cond_) in FLAGS.items()}
        return CorpusPage(rows=rows, total=total, page=pg, pages=pages, query=q.model_copy(update={"page": pg}),
                          flag_counts=counts)

    def paths(self) -> dict[str, str]:
        """paper_id -> source path, for every paper of the store."""
        with self._lock:
            con = self._connection()
            return dict(con.execute("SELECT paper_id, path FROM papers").fetchall())

    def has(self, paper_id: str) -> bool:
        """True when the store holds this paper."""
        with self._lock:
            con = self._connection()
            return con.execute("SELECT 1 FROM papers WHERE paper_id = ?", (paper_id,)).fetchone() is not None

    def close(self) -> None:
        """Close the in-memory index."""
        if self._con is not None:
            self._con.close()
