"""The results store's tables: one pyarrow schema per table, with a codebook entry for every column.

This module is the single home of the store's layout. ``claimtrace run`` writes these tables,
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
from typing import Any

import pyarrow as pa

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


_S, _I, _F, _B = pa.string(), pa.int64(), pa.float64(), pa.bool_()
_L = pa.list_(pa.string())
_TS = pa.timestamp("ms", tz="UTC")

_PAPER_KEY = [
    Column("paper_id", _S, "The paper's identity: sha256 of the file's bytes (hex)."),
]
_ROW_TAIL = [
    Column("settings_key", _S, "Key of the settings this row was computed with (matches the papers row's <step>_key)."),
    Column("batch_id", _S, "The batch that wrote this row: the run's start time in ms, then a counter (-w<n>: the "
                           "worker chunk n of the local engine, committed with its papers rows)."),
]

_SPAN = [  # shared by the hypothesis_ and evidence_ columns of traces
    ("text", _S, "verbatim text of the span (empty when none was found)"),
    ("sentence_ids", _L, "ids of the sentences of the span in the Document (e.g. p12.s3)"),
    ("paragraph_ids", _L, "ids of the paragraphs of the span"),
    ("scope", _S, "body or abstract: which text the offsets index"),
    ("start", _I, "start offset into the Document's body_text (or abstract_text), in characters"),
    ("end", _I, "end offset (exclusive)"),
    ("page", _I, "PDF page (1-based) where the span starts; empty for non-PDF sources"),
    ("section", _S, "heading of the section holding the span"),
    ("section_kind", _S, "normalised section kind (introduction, methods, results, discussion, ...)"),
    ("score", _F, "the extractor's score for the span"),
    ("located", _S, "how the span was located in the paper: exact, normalised, fuzzy, extracted, user"),
]


def _span_columns(prefix: str, what: str) -> list[Column]:
    return [Column(f"{prefix}_{n}", t, f"{what}: {d}.") for n, t, d in _SPAN]


TABLES: dict[str, list[Column]] = {
    "papers": [
        *_PAPER_KEY,
        Column("path", _S, "The file the paper was read from (as given or found in the corpus)."),
        Column("format", _S, "Source format detected by the reader: jats, tei, pdf, html, text, markdown."),
        Column("size_bytes", _I, "File size in bytes."),
        Column("doc_id", _S, "The Document's id (claimtrace's content hash of the parsed paper)."),
        Column("title", _S, "Title of the paper (empty when the reader found none)."),
        Column("n_abstract_sentences", _I, "Sentences in the abstract."),
        Column("n_paragraphs", _I, "Body paragraphs."),
        Column("n_sentences", _I, "Body sentences."),
        Column("n_statistics", _I, "Rows of this paper in the statistics table (empty when stats did not run)."),
        Column("n_traces", _I, "Rows of this paper in the traces table (empty when traces did not run)."),
        Column("n_graph_edges", _I, "Rows of this paper in graph_edges (empty when graphs did not run)."),
        Column("n_conclusions", _I, "Rows of this paper in conclusions (empty when conclusions did not run)."),
        Column("n_checks", _I, "Rows of this paper in checks (empty when checks did not run)."),
        Column("llm_calls", _I, "LLM requests sent for this paper in its last attempt (0 without an LLM step)."),
        Column("llm_cache_hits", _I, "LLM answers taken from the cache for this paper in its last attempt."),
        Column("llm_failures", _I, "Of the LLM requests and answers, those that failed (timeout, invalid answer...)."),
        Column("llm_prompt_tokens", _I, "Prompt tokens of those requests, as the endpoint reported them."),
        Column("llm_completion_tokens", _I, "Completion tokens of those requests, as the endpoint reported them."),
        Column("status", _S, "ok (every requested step succeeded) or failed (see the errors table)."),
        Column("steps", _L, "Steps done successfully for this paper."),
        Column("parse_key", _S, "Settings key of the parse step (empty when it failed)."),
        Column("stats_key", _S, "Settings key of the stats step (empty when not done or failed)."),
        Column("traces_key", _S, "Settings key of the traces step (empty when not done or failed)."),
        Column("graphs_key", _S, "Settings key of the graphs step (empty when not done or failed)."),
        Column("conclusions_key", _S, "Settings key of the conclusions step (empty when not done or failed)."),
        Column("checks_key", _S, "Settings key of the checks step (empty when not done or failed)."),
        Column("seconds", _F, "Wall-clock seconds the worker spent on this paper in its last attempt."),
        Column("worker", _S, "The worker that processed the paper last (host:pid)."),
        Column("finished_at", _TS, "When the last attempt finished (UTC)."),
        Column("batch_id", _S, "The batch that wrote this row."),
    ],
    "traces": [
        *_PAPER_KEY,
        Column("trace_index", _I, "Index of the trace within the paper (0-based, in the order of the findings)."),
        Column("trace_id", _S, "Stable id of the trace: <first 16 hex of paper_id>-t<trace_index>."),
        Column("finding_text", _S, "The abstract finding the trace starts from."),
        Column("finding_sentence_id", _S, "Abstract sentence id of the finding (e.g. a2.s3)."),
        Column("finding_source", _S, "detected (found in the abstract), user or manifest."),
        Column("finding_score", _F, "The finding detector's score."),
        Column("finding_how_chosen", _S, "Why this finding was chosen (detector score and cues)."),
        *_span_columns("hypothesis", "Core hypothesis"),
        *_span_columns("evidence", "Statistical evidence"),
        Column("evidence_n_statistics", _I, "Statistical results parsed from the evidence span."),
        Column("evidence_n_checked", _I, "Of those, results whose p-value could be recomputed."),
        Column("evidence_n_inconsistent", _I, "Of those, results inconsistent with the reported p-value."),
        Column("evidence_n_decision_errors", _I, "Of those, inconsistencies that flip significance."),
        Column("evidence_statistics_json", _S, "The evidence span's statistical results as a JSON array."),
        Column("flags", _L, "Flag codes (no_hypothesis, no_evidence, quote_not_found, ...)."),
        Column("flags_json", _S, "The flags as a JSON array of {code, stage, message, quote}."),
        Column("extractor", _S, "embedded (offline) or llm."),
        Column("configuration", _S, "Context configuration preset (e.g. full-text, rag-k5)."),
        Column("model", _S, "The LLM model (empty for the embedded extractor)."),
        Column("invocation_ids", _L, "LLM ledger invocation ids behind this trace (claimtrace llm show ID)."),
        *_ROW_TAIL,
    ],
    "statistics": [
        *_PAPER_KEY,
        Column("stat_index", _I, "Index of the result within the paper (0-based, document order)."),
        Column("scope", _S, "body or abstract: which text start/end index."),
        Column("unit_id", _S, "Sentence id holding the result (paragraph id when no sentence matched)."),
        Column("paragraph_id", _S, "Paragraph (or abstract section) id holding the result."),
        Column("section", _S, "Section heading (or abstract section label)."),
        Column("text", _S, "The result as written."),
        Column("start", _I, "Start offset of the result in the Document's body_text/abstract_text."),
        Column("end", _I, "End offset (exclusive)."),
        Column("kind", _S, "test, estimate, p or descriptives."),
        Column("test", _S, "Canonical test (t, F, chi2, r, z, OR, HR, b, ...; see docs/statistics.md)."),
        Column("df1", _F, "First degrees of freedom."),
        Column("df2", _F, "Second degrees of freedom."),
        Column("comparison", _S, "How the statistic was reported: =, < or >."),
        Column("value", _F, "The statistic's value."),
        Column("p_comparison", _S, "How p was reported: =, <, >, <=, >= or ns."),
        Column("p_value", _F, "The reported p-value."),
        Column("one_tailed", _B, "True when the test was read as one-tailed."),
        Column("ci_level", _F, "Confidence level of the interval (0.95 for 95%)."),
        Column("ci_low", _F, "Lower bound of the confidence interval."),
        Column("ci_high", _F, "Upper bound of the confidence interval."),
        Column("se", _F, "Standard error."),
        Column("n", _I, "Sample size reported with the result."),
        Column("effects_json", _S, "Effect sizes reported with the result, JSON array of {measure, value, ...}."),
        Column("computed_p", _F, "p-value recomputed from the statistic and df."),
        Column("consistent", _B, "Reported p agrees with the recomputed p (empty when not checkable)."),
        Column("decision_error", _B, "The inconsistency flips significance at alpha."),
        Column("significant", _B, "Reported as significant at alpha."),
        Column("ci_consistent", _B, "The CI agrees with the estimate."),
        Column("ci_p_consistent", _B, "The CI agrees with the p-value."),
        Column("check_flags", _L, "Notes of the check (e.g. rounding, one-tailed)."),
        Column("repaired", _L, "PDF-damage repairs applied before parsing."),
        *_ROW_TAIL,
    ],
    "graph_edges": [
        *_PAPER_KEY,
        Column("edge_index", _I, "Index of the edge within the paper's graph (0-based)."),
        Column("method", _S, "Graph method: offline (patterns), staged or direct (LLM)."),
        Column("source_id", _S, "Source variable id (v1, v2, ...; unique within the paper)."),
        Column("source_name", _S, "Normalised name of the source variable."),
        Column("target_id", _S, "Target variable id."),
        Column("target_name", _S, "Normalised name of the target variable."),
        Column("type", _S, "Relation type (direction, correlation, moderation, mediation, hierarchy, ...)."),
        Column("status", _S, "validated, null or hypothesized."),
        Column("evidence", _L, "Evidence sentences for the edge."),
        Column("justification", _S, "Why the edge was drawn (LLM methods)."),
        *_ROW_TAIL,
    ],
    "conclusions": [
        *_PAPER_KEY,
        Column("intervention", _S, "The question's intervention (from the corpus manifest)."),
        Column("comparator", _S, "The question's comparator."),
        Column("outcome", _S, "The question's outcome."),
        Column("method", _S, "Conclusion method (offline, urca, ...)."),
        Column("label", _S, "significantly increased, significantly decreased or no significant difference."),
        Column("conclusion", _S, "The conclusion in words."),
        Column("rationale", _S, "Why."),
        Column("result_json", _S, "The full conclusion result (quotes with provenance) as JSON."),
        *_ROW_TAIL,
    ],
    "checks": [
        *_PAPER_KEY,
        Column("check_index", _I, "Index of the row within the paper's check rows (0-based, in the checks' order)."),
        Column("check_id", _S, "Check id (see docs/checks.md), e.g. consistency, imprecise_p, marginal."),
        Column("severity", _S, "ok, info, warn or error (warn and error are flags)."),
        Column("message", _S, "One-line message."),
        Column("guidance", _S, "Guidance for the author."),
        Column("scope", _S, "body or abstract: which text start/end index (empty when the row has no location)."),
        Column("unit_id", _S, "Sentence (or paragraph) id the row points to."),
        Column("start", _I, "Start offset in the Document's body_text/abstract_text."),
        Column("end", _I, "End offset (exclusive)."),
        Column("page", _I, "PDF page (1-based); empty for non-PDF sources."),
        Column("section", _S, "Section heading of the location."),
        Column("text", _S, "The sentence or snippet the row is about, as read."),
        Column("data_json", _S, "The check's own fields for this row, as a JSON object."),
        *_ROW_TAIL,
    ],
    "errors": [
        Column("paper_id", _S, "The paper's sha256 (or 'path:<sha256 of the path>' when the file could not be read)."),
        Column("path", _S, "The file."),
        Column("step", _S, "The step that failed (read, parse, stats, traces, graphs, conclusions, checks)."),
        Column("error_type", _S, "Exception class (InputError = bad input, anything else = a bug or crash)."),
        Column("message", _S, "One-line reason."),
        Column("batch_id", _S, "The attempt (batch) that recorded the error."),
    ],
}

TABLE_NAMES = tuple(TABLES)

#: statistics columns holding a DocumentStat field under another name (the rest are named as the field)
_STAT_FIELD_OF = {"effects_json": "effects", "check_flags": "flags"}
_STAT_COLUMNS = tuple(c.name for c in TABLES["statistics"]
                      if c.name not in {k.name for k in (*_PAPER_KEY, *_ROW_TAIL)} | {"stat_index"})


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
DESCRIPTIONS = {
    "papers": "One row per paper of the corpus: where it came from, what was parsed, which steps are done.",
    "traces": "One row per claim trace: abstract finding -> core hypothesis -> statistical evidence, with provenance.",
    "statistics": "One row per statistical result found in a paper, with its consistency checks.",
    "graph_edges": "One row per relation of a paper's empirical graph (variables are named on the row).",
    "conclusions": "One row per paper and question (intervention, comparator, outcome) of the manifest.",
    "checks": "One row per screening-check row of a paper (claimtrace check): severity, message, guidance, location.",
    "errors": "One row per failed step of a paper's last attempt: a one-line reason.",
}


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
