"""The results store's tables: one pyarrow schema per table, with a codebook entry for every column.

This module and its data file, the codebook ``resources/codebook.yaml`` (every table's columns: name,
type, description), are the single home of the store's layout. ``claimtrace run`` writes these tables,
``claimtrace query``/``export`` and the review web app read them. Each table is a folder of Parquet
files (``RESULTS_DIR/<table>/part-<batch>.parquet``) that pandas, R (arrow), DuckDB and Spark open as
one dataset. List columns hold strings; the CSV export joins them with ``" | "``.

Validity rule (what makes the store resumable): a row of ``traces``, ``statistics``, ``graph_edges`` or
``conclusions`` is part of the results only when the ``papers`` row of its ``paper_id`` carries the same
step key (``settings_key``) for that step; an ``errors`` row only when its ``batch_id`` is the paper's
last attempt. The runner removes every other row before it starts, so readers never see stale rows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

import pyarrow as pa
import yaml

# the steps a corpus run can take (STEPS, in order; ``parse`` is always done: every step reuses its Document)
# have their home in claimtrace.types; the ``corpus`` settings section validates them
from claimtrace.types import DEFAULT_STEPS as DEFAULT_STEPS
from claimtrace.types import STEPS as STEPS

STORE_SCHEMA_VERSION = "1.0"

#: which table each step writes (parse writes the paper's own row)
STEP_TABLE = {"stats": "statistics", "traces": "traces", "graphs": "graph_edges", "conclusions": "conclusions",
              "checks": "checks"}

LIST_SEPARATOR = " | "


@dataclass(frozen=True)
class Column:
    """One column: its name, Arrow type and codebook description."""

    name: str
    type: pa.DataType
    description: str


#: the codebook's type names (``resources/codebook.yaml``) and their Arrow types
_TYPES = {"string": pa.string(), "int": pa.int64(), "float": pa.float64(), "bool": pa.bool_(),
          "list": pa.list_(pa.string()), "timestamp": pa.timestamp("ms", tz="UTC")}


def _load_codebook() -> tuple[dict[str, Any], dict[str, list[Column]], dict[str, str]]:
    """The codebook data file, its tables' columns (key, span and tail columns spliced in) and descriptions."""
    text = resources.files("claimtrace").joinpath("resources", "codebook.yaml").read_text(encoding="utf-8")
    data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))

    def columns(entries: list[Any]) -> list[Column]:
        return [Column(name, _TYPES[kind], description) for name, kind, description in entries]

    tables: dict[str, list[Column]] = {}
    for table, spec in data["tables"].items():
        cols = columns(data["key"]) if spec.get("key") else []
        for entry in spec["columns"]:
            if isinstance(entry, dict):  # {span: PREFIX, what: WHAT}: the span columns under that prefix
                cols += [Column(f"{entry['span']}_{c.name}", c.type, f"{entry['what']}: {c.description}.")
                         for c in columns(data["span"])]
            else:
                cols += columns([entry])
        tables[table] = cols + (columns(data["tail"]) if spec.get("tail") else [])
    return data, tables, {table: spec["description"] for table, spec in data["tables"].items()}


_CODEBOOK, TABLES, DESCRIPTIONS = _load_codebook()

TABLE_NAMES = tuple(TABLES)

#: statistics columns holding a DocumentStat field under another name (the rest are named as the field)
_STAT_FIELD_OF = {"effects_json": "effects", "check_flags": "flags"}
_STAT_COLUMNS = tuple(c.name for c in TABLES["statistics"]
                      if c.name not in {e[0] for e in (*_CODEBOOK["key"], *_CODEBOOK["tail"])} | {"stat_index"})


def checks_row(index: int, row: dict[str, Any]) -> dict[str, Any]:
    """The checks-table row of one ``CheckRow.model_dump(mode="json")``, without the key and tail."""
    loc = row.get("location") or {}
    return {"check_index": index, "check_id": row["check"], "severity": row["severity"], "message": row["message"],
            "guidance": row.get("guidance", ""), **{k: loc.get(k) for k in ("scope", "unit_id", "start", "end",
                                                                              "page", "section")},
            "text": row.get("text"), "data_json": json.dumps(row.get("data") or {}, ensure_ascii=False, default=str)}


def statistics_row(index: int, stat: dict[str, Any]) -> dict[str, Any]:
    """The statistics-table row of one result (a ``DocumentStat.model_dump(mode="json")``), without the key and tail."""
    row: dict[str, Any] = {"stat_index": index}
    for name in _STAT_COLUMNS:
        value = stat[_STAT_FIELD_OF.get(name, name)]
        row[name] = json.dumps(value, ensure_ascii=False) if name == "effects_json" else value
    return row


def schema(table: str) -> pa.Schema:
    """The Arrow schema of one table (with the codebook in each field's metadata)."""
    cols = TABLES[table]
    return pa.schema([pa.field(c.name, c.type, nullable=c.name != "paper_id" or table == "errors",
                               metadata={"description": c.description}) for c in cols],
                     metadata={"table": table, "store_schema_version": STORE_SCHEMA_VERSION})


def codebook() -> list[dict[str, str]]:
    """Every column of every table: table, column, type, description."""
    return [{"table": t, "column": c.name, "type": _type_name(c.type), "description": c.description}
            for t, cols in TABLES.items() for c in cols]


def _type_name(t: pa.DataType) -> str:
    if pa.types.is_list(t):
        return f"list of {_type_name(t.value_type)} (CSV: joined with '{LIST_SEPARATOR}')"
    if pa.types.is_timestamp(t):
        return "timestamp (UTC; CSV: ISO 8601)"
    return {"string": "string", "int64": "integer", "double": "number", "bool": "boolean (CSV: true/false)"}.get(
        str(t), str(t))


def codebook_markdown() -> str:
    """The codebook as Markdown tables (docs/corpus.md embeds it; a test keeps the two equal)."""
    lines: list[str] = []
    for t, cols in TABLES.items():
        lines += [f"### `{t}`", "", DESCRIPTIONS[t], "", "| column | type | description |", "|---|---|---|"]
        lines += [f"| `{c.name}` | {_type_name(c.type)} | {c.description} |" for c in cols]
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":  # regenerate the codebook section of docs/corpus.md
    print(codebook_markdown())
