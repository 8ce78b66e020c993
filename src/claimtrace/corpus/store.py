"""The results store: a folder of Parquet tables written in atomic batches, and a manifest.

Layout: ``RESULTS_DIR/<table>/part-<batch_id>.parquet`` for every table of
:mod:`claimtrace.corpus.schema`, plus ``manifest.json``. Writes are atomic per file (write a hidden
temporary file, fsync, rename); a batch writes its ``papers`` part last, so a run killed at any point
leaves only complete files, and the rows of an unfinished batch are invalid by the store's validity
rule (see the schema module) and removed by :meth:`Store.vacuum` when the next run starts.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from claimtrace.corpus.schema import STEP_TABLE, TABLE_NAMES, schema
from claimtrace.errors import ClaimtraceError

MANIFEST = "manifest.json"
#: columns that name the run (which batch, worker, when, how long), not the result
RUN_COLUMNS = frozenset({"batch_id", "worker", "finished_at", "seconds"})
_STEP_OF_TABLE = {t: s for s, t in STEP_TABLE.items()}


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(table: pa.Table, path: Path) -> None:
    """Write a Parquet file so that readers see the old file or the whole new one, never a part."""
    tmp = path.with_name(f".{path.name}.tmp")
    pq.write_table(table, tmp, compression="zstd")
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


class Store:
    """A results folder: append batches, read tables, keep only valid rows."""

    def __init__(self, root: str | Path, create: bool = True) -> None:
        """Open (and with ``create`` make) a results folder."""
        self.root = Path(root)
        if not create and not self.is_store(self.root):
            raise ClaimtraceError(f"{self.root}: not a claimtrace results folder (no {MANIFEST})")
        if create:
            if self.root.exists() and not self.root.is_dir():
                raise ClaimtraceError(f"{self.root}: exists and is not a folder")
            for t in TABLE_NAMES:
                (self.root / t).mkdir(parents=True, exist_ok=True)
        self._lock_fh: Any = None

    @staticmethod
    def is_store(path: Path) -> bool:
        """True when ``path`` holds a results store."""
        return (path / MANIFEST).is_file() and (path / "papers").is_dir()

    # ------------------------------------------------------------------ locking
    @contextlib.contextmanager
    def locked(self) -> Iterator[Store]:
        """Hold the folder's lock (one run at a time per results folder)."""
        fh = open(self.root / ".lock", "w")  # noqa: SIM115
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.close()
            raise ClaimtraceError(f"{self.root}: another run is writing to this results folder") from None
        try:
            yield self
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
            fh.close()

    # ------------------------------------------------------------------ reading
    def parts(self, table: str) -> list[Path]:
        """The table's Parquet files, oldest batch first."""
        d = self.root / table
        return sorted(d.glob("part-*.parquet")) if d.is_dir() else []

    def read(self, table: str, columns: list[str] | None = None) -> pa.Table:
        """The whole table (all parts), or an empty table with the schema."""
        sch = schema(table)
        tables = [pq.read_table(p, columns=columns, schema=sch) for p in self.parts(table)]
        if not tables:
            empty = sch.empty_table()
            return empty.select(columns) if columns else empty
        return pa.concat_tables(tables)

    def result_rows(self, table: str) -> list[str]:
        """The table's rows without the run columns, as sorted JSON lines (to compare two runs' results)."""
        return sorted(json.dumps({k: v for k, v in r.items() if k not in RUN_COLUMNS}, sort_keys=True, default=str)
                      for r in self.read(table).to_pylist())

    def papers(self) -> dict[str, dict[str, Any]]:
        """The current papers rows by paper_id."""
        return {r["paper_id"]: r for r in self.read("papers").to_pylist()}

    # ------------------------------------------------------------------ writing
    def write_part(self, table: str, batch_id: str, rows: list[dict[str, Any]]) -> None:
        """Write one batch's rows of one table as one atomic Parquet file."""
        if rows:
            write_atomic(pa.Table.from_pylist(rows, schema=schema(table)), self.root / table / f"part-{batch_id}.parquet")

    def write_rows(self, batch_id: str, tables: dict[str, list[dict[str, Any]]]) -> None:
        """Write step-table rows as one atomic part per table (a worker's share of a batch, before the commit).

        The rows are results only once the ``papers`` rows that carry their step keys are committed; until
        then the validity rule makes them invisible, and :meth:`vacuum` removes them after a crash.
        """
        for t, rows in tables.items():
            if t in ("papers", "errors"):
                raise ValueError(f"{t} rows are written by commit, not write_rows")
            for row in rows:
                row["batch_id"] = batch_id
            self.write_part(t, batch_id, rows)

    def commit(self, batch_id: str, papers: list[dict[str, Any]], tables: dict[str, list[dict[str, Any]]],
               errors: list[dict[str, Any]], superseded: dict[str, str] | None = None) -> None:
        """Write a batch: the step tables and errors first, the papers part last (the commit point).

        ``superseded`` maps each paper that already had a ``papers`` row to that row's batch (the runner reads
        the store once when it starts): only those batches' parts are rewritten to drop the older rows.
        Without it, every part is scanned (slow on large stores).
        """
        for t, rows in tables.items():
            self.write_part(t, batch_id, rows)
        self.write_part("errors", batch_id, errors)
        self.write_part("papers", batch_id, papers)
        ids = {r["paper_id"] for r in papers}
        if superseded is None:
            self._drop_older(ids, batch_id, "papers")
            self._drop_older(ids, batch_id, "errors")  # errors describe the last attempt only
            return
        import pyarrow.compute as pc  # here: a corpus worker writes parts and never drops rows (faster start)

        by_batch: dict[str, set[str]] = {}
        for pid in ids:
            old = superseded.get(pid)
            if old is not None and old != batch_id:
                by_batch.setdefault(old, set()).add(pid)
        for old, pids in sorted(by_batch.items()):
            for t in ("papers", "errors"):
                part = self.root / t / f"part-{old}.parquet"
                if part.is_file():
                    col = pq.read_table(part, columns=["paper_id"])["paper_id"]
                    hit = pc.is_in(col, value_set=pa.array(sorted(pids), pa.string()))
                    if pc.any(hit).as_py():
                        self._rewrite(part, t, pc.invert(hit))

    def _rewrite(self, part: Path, table: str, keep: pa.Array) -> None:
        data = pq.read_table(part, schema=schema(table))
        kept = data.filter(keep)
        if kept.num_rows == data.num_rows:
            return
        if kept.num_rows == 0:
            part.unlink()
            _fsync_dir(part.parent)
        else:
            write_atomic(kept, part)

    def _drop_older(self, paper_ids: set[str], batch_id: str, table: str) -> None:
        import pyarrow.compute as pc

        ids = pa.array(sorted(paper_ids), pa.string())
        for part in self.parts(table):
            if part.name == f"part-{batch_id}.parquet":
                continue
            col = pq.read_table(part, columns=["paper_id"])["paper_id"]
            hit = pc.is_in(col, value_set=ids)
            if pc.any(hit).as_py():
                self._rewrite(part, table, pc.invert(hit))

    def reset_steps(self, redo: dict[str, list[str]]) -> None:
        """Before recomputing: clear the step keys (and status) of papers whose steps will be redone."""
        if not redo:
            return
        for part in self.parts("papers"):
            data = pq.read_table(part, schema=schema("papers"))
            rows = data.to_pylist()
            changed = False
            for r in rows:
                steps = redo.get(r["paper_id"])
                if steps is None:
                    continue
                for s in steps:
                    if r.get(f"{s}_key") is not None:
                        r[f"{s}_key"] = None
                        changed = True
                if r["status"] != "pending":
                    r["status"], changed = "pending", True
            if changed:
                write_atomic(pa.Table.from_pylist(rows, schema=schema("papers")), part)

    def vacuum(self) -> dict[str, int]:
        """Remove temporary files and every row that the validity rule rejects; returns rows removed."""
        removed = {t: 0 for t in TABLE_NAMES}
        for t in TABLE_NAMES:
            for tmp in (self.root / t).glob(".*.tmp"):
                tmp.unlink()
        # papers: one row per paper, the latest batch
        latest: dict[str, str] = {}
        for part in self.parts("papers"):
            data = pq.read_table(part, columns=["paper_id", "batch_id"]).to_pylist()
            for r in data:
                if r["batch_id"] > latest.get(r["paper_id"], ""):
                    latest[r["paper_id"]] = r["batch_id"]
        for part in self.parts("papers"):
            data = pq.read_table(part, columns=["paper_id", "batch_id"]).to_pylist()
            keep = [latest[r["paper_id"]] == r["batch_id"] for r in data]
            if not all(keep):
                removed["papers"] += keep.count(False)
                self._rewrite(part, "papers", pa.array(keep))
        papers = self.papers()
        for t in TABLE_NAMES:
            if t == "papers":
                continue
            for part in self.parts(t):
                if t == "errors":
                    data = pq.read_table(part, columns=["paper_id", "batch_id"]).to_pylist()
                    keep = [r["paper_id"] in papers and papers[r["paper_id"]]["batch_id"] == r["batch_id"]
                            for r in data]
                else:
                    col = f"{_STEP_OF_TABLE[t]}_key"
                    data = pq.read_table(part, columns=["paper_id", "settings_key"]).to_pylist()
                    keep = [r["paper_id"] in papers and papers[r["paper_id"]][col] == r["settings_key"]
                            for r in data]
                if not all(keep):
                    removed[t] += keep.count(False)
                    self._rewrite(part, t, pa.array(keep))
        return removed

    # ------------------------------------------------------------------ manifest
    def read_manifest(self) -> dict[str, Any]:
        """The manifest (an empty dict before the first run)."""
        p = self.root / MANIFEST
        return json.loads(p.read_text(encoding="utf-8")) if p.is_file() else {}

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        """Write the manifest atomically."""
        p = self.root / MANIFEST
        tmp = p.with_name(f".{p.name}.tmp")
        tmp.write_text(json.dumps(manifest, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
        os.replace(tmp, p)
