"""The review database: every reviewer decision on a trace element, with who, when and full history.

One SQLite file next to the results store (``RESULTS_DIR/review.sqlite``). Decisions are only ever
appended: a reviewer's current decision on an item is their latest row, earlier rows are its history,
and the machine output in the Parquet tables is never touched. Each row keeps a copy of the machine
value it judged, so an export stays meaningful after the store is re-run.

Items: ``<trace_id>:finding``, ``<trace_id>:hypothesis``, ``<trace_id>:evidence`` (trace elements) and
``<paper_id[:16]>-s<stat_index>`` (a statistic), ``<paper_id[:16]>-c<check_index>`` (a screening-check row,
accepted or dismissed).
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from claimtrace.errors import ClaimtraceError

REVIEW_DB = "review.sqlite"
REVIEW_SCHEMA_VERSION = "1.0"
ELEMENTS = ("finding", "hypothesis", "evidence", "statistic", "check")
ACTIONS = ("accept", "reject", "correct", "not_reported", "dismiss")
#: the actions a screening-check row takes: the reviewer agrees with the flag, or dismisses it
CHECK_ACTIONS = ("accept", "dismiss")
Element = Literal["finding", "hypothesis", "evidence", "statistic", "check"]
Action = Literal["accept", "reject", "correct", "not_reported", "dismiss"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS decisions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    paper_id TEXT NOT NULL,
    item_id TEXT NOT NULL,
    element TEXT NOT NULL CHECK (element IN ('finding', 'hypothesis', 'evidence', 'statistic', 'check')),
    trace_id TEXT,
    action TEXT NOT NULL CHECK (action IN ('accept', 'reject', 'correct', 'not_reported', 'dismiss')),
    value_json TEXT,
    machine_json TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    decided_at TEXT NOT NULL,
    settings_key TEXT
);
CREATE INDEX IF NOT EXISTS decisions_paper ON decisions (paper_id);
CREATE INDEX IF NOT EXISTS decisions_item ON decisions (item_id, reviewer, id);
CREATE VIEW IF NOT EXISTS current_decisions AS
    SELECT d.* FROM decisions d
    WHERE d.id = (SELECT max(e.id) FROM decisions e WHERE e.item_id = d.item_id AND e.reviewer = d.reviewer);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class Decision(BaseModel):
    """One reviewer decision on one item (a row of the review database)."""

    id: int | None = None
    paper_id: str
    item_id: str
    element: Element
    trace_id: str | None = None
    action: Action
    value: dict[str, Any] | None = Field(None, description="the corrected value (span or numbers) for 'correct'")
    machine: dict[str, Any] = Field(default_factory=dict, description="the machine value that was judged")
    reviewer: str
    decided_at: str = ""
    settings_key: str | None = None


def _upgrade(con: sqlite3.Connection) -> None:
    """Rebuild a decisions table of the first schema (no check element, no dismiss action), keeping every row."""
    row = con.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'decisions'").fetchone()
    if row is None or "'dismiss'" in row[0]:
        return
    con.executescript("""
        BEGIN;
        DROP VIEW IF EXISTS current_decisions;
        DROP INDEX IF EXISTS decisions_paper;
        DROP INDEX IF EXISTS decisions_item;
        ALTER TABLE decisions RENAME TO decisions_v1;
        """ + _SCHEMA + """
        INSERT INTO decisions SELECT * FROM decisions_v1;
        DROP TABLE decisions_v1;
        COMMIT;
        """)


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class ReviewDB:
    """The append-only decision log of a results folder."""

    def __init__(self, path: str | Path) -> None:
        """Open (creating when missing) the review database at ``path``."""
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            con = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
            con.execute("PRAGMA journal_mode=WAL")
            _upgrade(con)
            con.executescript(_SCHEMA)
            con.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (REVIEW_SCHEMA_VERSION,))
            con.commit()
        except sqlite3.DatabaseError as exc:
            raise ClaimtraceError(f"{self.path}: not a review database ({exc})") from None
        self._con = con

    @classmethod
    def open_existing(cls, path: str | Path) -> ReviewDB:
        """Open a review database that must already exist (for export)."""
        if not Path(path).is_file():
            raise ClaimtraceError(f"{path}: no review database (nothing has been reviewed in this results folder)")
        return cls(path)

    def close(self) -> None:
        """Close the connection."""
        self._con.close()

    @contextmanager
    def _cursor(self) -> Iterator[sqlite3.Cursor]:
        with self._lock:
            cur = self._con.cursor()
            try:
                yield cur
                self._con.commit()
            except BaseException:
                self._con.rollback()
                raise
            finally:
                cur.close()

    def record(self, d: Decision) -> Decision:
        """Append a decision (its time is set here) and return it with its id."""
        if d.action == "correct" and not d.value:
            raise ClaimtraceError("a correction needs the corrected value")
        d = d.model_copy(update={"decided_at": _now()})
        with self._cursor() as cur:
            cur.execute(
                "INSERT INTO decisions (paper_id, item_id, element, trace_id, action, value_json, machine_json,"
                " reviewer, decided_at, settings_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (d.paper_id, d.item_id, d.element, d.trace_id, d.action,
                 json.dumps(d.value, ensure_ascii=False) if d.value is not None else None,
                 json.dumps(d.machine, ensure_ascii=False), d.reviewer, d.decided_at, d.settings_key))
            return d.model_copy(update={"id": cur.lastrowid})

    @staticmethod
    def _row(r: sqlite3.Row | tuple[Any, ...]) -> Decision:
        (id_, paper_id, item_id, element, trace_id, action, value_json, machine_json, reviewer, decided_at,
         settings_key) = r
        return Decision(id=id_, paper_id=paper_id, item_id=item_id, element=element, trace_id=trace_id,
                        action=action, value=json.loads(value_json) if value_json else None,
                        machine=json.loads(machine_json), reviewer=reviewer, decided_at=decided_at,
                        settings_key=settings_key)

    _COLS = ("id, paper_id, item_id, element, trace_id, action, value_json, machine_json, reviewer, decided_at,"
             " settings_key")

    def _select(self, view: str, paper_id: str | None, order: str) -> list[Decision]:
        sql = f"SELECT {self._COLS} FROM {view}"
        args: tuple[Any, ...] = ()
        if paper_id is not None:
            sql += " WHERE paper_id = ?"
            args = (paper_id,)
        with self._cursor() as cur:
            return [self._row(r) for r in cur.execute(f"{sql} ORDER BY {order}", args)]

    def current(self, paper_id: str | None = None) -> list[Decision]:
        """Each reviewer's latest decision per item (of one paper, or all)."""
        return self._select("current_decisions", paper_id, "paper_id, item_id, reviewer")

    def history(self, paper_id: str | None = None) -> list[Decision]:
        """Every decision ever made (of one paper, or all), oldest first."""
        return self._select("decisions", paper_id, "id")

    def count(self) -> int:
        """Number of decision rows (history included)."""
        with self._cursor() as cur:
            return int(cur.execute("SELECT count(*) FROM decisions").fetchone()[0])

    def reviewers(self) -> list[str]:
        """Every reviewer name in the database."""
        with self._cursor() as cur:
            return [r[0] for r in cur.execute("SELECT DISTINCT reviewer FROM decisions ORDER BY reviewer")]


# ---------------------------------------------------------------------- agreement
class Agreement(BaseModel):
    """Cohen's kappa between two reviewers on one element type, over the items both decided."""

    element: str
    reviewer_a: str
    reviewer_b: str
    n_items: int
    n_papers: int
    observed_agreement: float | None = None
    kappa: float | None = Field(None, description="Cohen's kappa of the actions (None with fewer than 2 items)")
    note: str = ""


def agreement(decisions: list[Decision]) -> list[Agreement]:
    """Cohen's kappa of the current actions of every pair of reviewers, per element type."""
    from itertools import combinations

    from sklearn.metrics import cohen_kappa_score

    by: dict[tuple[str, str], dict[str, Decision]] = {}
    for d in decisions:
        by.setdefault((d.element, d.reviewer), {})[d.item_id] = d
    out: list[Agreement] = []
    reviewers = sorted({d.reviewer for d in decisions})
    for element in ELEMENTS:
        for a, b in combinations(reviewers, 2):
            da, db = by.get((element, a), {}), by.get((element, b), {})
            items = sorted(set(da) & set(db))
            if not items:
                continue
            la = [da[i].action for i in items]
            lb = [db[i].action for i in items]
            obs = sum(x == y for x, y in zip(la, lb, strict=True)) / len(items)
            ag = Agreement(element=element, reviewer_a=a, reviewer_b=b, n_items=len(items),
                           n_papers=len({da[i].paper_id for i in items}), observed_agreement=round(obs, 4))
            if len(items) < 2:
                ag.note = "one shared item: kappa is undefined"
            elif len(set(la) | set(lb)) == 1:
                ag.note = "both reviewers gave one and the same label to every item: kappa is undefined"
            else:
                ag.kappa = round(float(cohen_kappa_score(la, lb)), 4)
            out.append(ag)
    return out


# ---------------------------------------------------------------------- export
EXPORT_COLUMNS = ("schema_version", "paper_id", "path", "item_id", "element", "trace_id", "reviewer", "decided_at",
                  "action", "machine_text", "machine_start", "machine_end", "machine_json", "reviewed_text",
                  "reviewed_start", "reviewed_end", "reviewed_json", "n_history")


def export_rows(db: ReviewDB, paths: dict[str, str], history: bool = False) -> list[dict[str, Any]]:
    """One row per reviewer decision (current ones, or every one with ``history``): machine and reviewed value."""
    decisions = db.history() if history else db.current()
    counts: dict[tuple[str, str], int] = {}
    for d in db.history():
        counts[(d.item_id, d.reviewer)] = counts.get((d.item_id, d.reviewer), 0) + 1
    rows = []
    for d in decisions:
        m = d.machine or {}
        v = d.value or {}
        if d.action == "accept":
            reviewed: dict[str, Any] | None = m
        elif d.action == "correct":
            reviewed = v
        else:
            reviewed = None
        rows.append({
            "schema_version": REVIEW_SCHEMA_VERSION, "paper_id": d.paper_id, "path": paths.get(d.paper_id, ""),
            "item_id": d.item_id, "element": d.element, "trace_id": d.trace_id, "reviewer": d.reviewer,
            "decided_at": d.decided_at, "action": d.action,
            "machine_text": m.get("text"), "machine_start": m.get("start"), "machine_end": m.get("end"),
            "machine_json": json.dumps(m, ensure_ascii=False, sort_keys=True),
            "reviewed_text": reviewed.get("text") if reviewed else None,
            "reviewed_start": reviewed.get("start") if reviewed else None,
            "reviewed_end": reviewed.get("end") if reviewed else None,
            "reviewed_json": json.dumps(reviewed, ensure_ascii=False, sort_keys=True) if reviewed is not None else None,
            "n_history": counts.get((d.item_id, d.reviewer), 1),
        })
    return rows
