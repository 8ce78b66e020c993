"""SQL over a results store (DuckDB views on the Parquet tables) and flat exports with a codebook."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pyarrow as pa

from claimtrace.corpus.schema import LIST_SEPARATOR, TABLE_NAMES, codebook, schema
from claimtrace.corpus.store import Store
from claimtrace.errors import ClaimtraceError

FORMATS = ("csv", "parquet", "jsonl")


def connect(root: str | Path) -> Any:
    """An in-memory DuckDB connection with one view per table of the results folder."""
    import duckdb

    store = Store(root, create=False)
    con = duckdb.connect()
    for t in TABLE_NAMES:
        parts = store.parts(t)
        if parts:
            files = ", ".join("'" + str(p).replace("'", "''") + "'" for p in parts)
            con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet([{files}], union_by_name = true)")
        else:
            con.register(f"_{t}_empty", schema(t).empty_table())
            con.execute(f"CREATE VIEW {t} AS SELECT * FROM _{t}_empty")
    return con


def query(root: str | Path, sql: str) -> pa.Table:
    """Run SQL over the tables (papers, traces, statistics, graph_edges, conclusions, checks, errors)."""
    import duckdb

    con = connect(root)
    try:
        return con.sql(sql).to_arrow_table()
    except duckdb.Error as exc:
        raise ClaimtraceError(f"SQL error: {' '.join(str(exc).split())}") from None
    finally:
        con.close()


def _flat_select(table: str) -> str:
    cols = []
    for f in schema(table):
        name = f'"{f.name}"'
        if pa.types.is_list(f.type):
            cols.append(f"array_to_string({name}, '{LIST_SEPARATOR}') AS {name}")
        elif pa.types.is_timestamp(f.type):
            cols.append(f"strftime({name}, '%Y-%m-%dT%H:%M:%S.%gZ') AS {name}")
        else:
            cols.append(name)
    return f"SELECT {', '.join(cols)} FROM {table}"


def export(root: str | Path, out_dir: str | Path, fmt: str, tables: list[str] | None = None) -> list[Path]:
    """Write each table as one flat file (csv, parquet or jsonl) plus codebook.csv; returns the files."""
    if fmt not in FORMATS:
        raise ClaimtraceError(f"unknown format {fmt!r}; choose csv, parquet or jsonl")
    names = tables or list(TABLE_NAMES)
    bad = [t for t in names if t not in TABLE_NAMES]
    if bad:
        raise ClaimtraceError(f"unknown table(s) {', '.join(bad)}; choose from {', '.join(TABLE_NAMES)}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    con = connect(root)
    written: list[Path] = []
    try:
        for t in names:
            path = out / f"{t}.{fmt}"
            target = str(path).replace("'", "''")
            if fmt == "csv":
                con.execute(f"COPY ({_flat_select(t)}) TO '{target}' (FORMAT csv, HEADER true)")
            elif fmt == "parquet":
                con.execute(f"COPY (SELECT * FROM {t}) TO '{target}' (FORMAT parquet, COMPRESSION zstd)")
            else:
                con.execute(f"COPY (SELECT * FROM {t}) TO '{target}' (FORMAT json)")
            written.append(path)
    finally:
        con.close()
    book = out / "codebook.csv"
    with book.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["table", "column", "type", "description"])
        w.writeheader()
        w.writerows(r for r in codebook() if r["table"] in names)
    (out / "codebook.json").write_text(json.dumps([r for r in codebook() if r["table"] in names], indent=2) + "\n",
                                       encoding="utf-8")
    return [*written, book]
