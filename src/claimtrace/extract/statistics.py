"""Statistics in candidate sentences and evidence spans: a fast cue score, and the statistics engine's records.

``stat_strength`` is a quick regex score used to shortlist evidence candidates; ``span_statistics``
runs the statistics engine (``claimtrace.stats``) on a chosen span and returns its records, with
offsets into ``body_text``, and their consistency checks.
"""

from __future__ import annotations

import re
from typing import Any

from claimtrace.cues import P_MENTION, RESULT_WORDS
from claimtrace.documents.model import Document
from claimtrace.extract.model import StatisticsSummary

_CI = re.compile(r"\b(9[059]\s*%\s*(Bayesian\s+)?(CI|C\.I\.|confidence interval|credible interval|HDI)|"
                 r"CI\s*[:=]?\s*[\[(]?-?\d)", re.I)
#: a test statistic, an odds/hazard ratio, a correlation or effect size, a regression or multilevel coefficient
#: ("b = 0.81", "γ 08 = -0.232", "β1 = .30"), a Bayes factor ("BF10 = 3.5e54") or a variance explained ("ΔR² = .003"):
#: psychology reports its tests in all
_TEST = re.compile(r"(\b[tFzZrQUWH]\s*\(\s*\d[\d.,\s]*\)\s*[=<>]|\b(χ2|χ²|chi2|chi-square|chi2)\s*\(?\d*|"
                   r"\b(OR|RR|HR|aOR|aHR|IRR|RD|MD|SMD|β|beta)\s*[=:,]?\s*-?\d|\b[rRdg]\s*=\s*-?0?\.\d|"
                   r"(\b[bB]|[βγ])\s*\d{0,2}\s*=\s*[-−]?\s*\d*\.\d|\bBF\s*[-_]?\s*(10|01)?\s*[=<>]\s*\d|"
                   r"(Δ\s*R|\bR)\s*[²2]\s*[=<>≤]\s*0?\.\d)")
#: p-values of several tests at once ("both ps < .001"), which the single-p cue misses
_P_PLURAL = re.compile(r"\bps\s*[<=>≤≥]\s*0?\.\d")
_DESC = re.compile(r"(\d\s*(±|\+/-|\+-)\s*\d|\d+(\.\d+)?\s*%|\(\s*\d+(\.\d+)?\s*%?\s*(vs\.?|versus)\s)")


_DIGIT = re.compile(r"\d")
_DESC_WORDS = ("±", "+", "%", "vs", "versus")


def stat_strength(text: str, *, p_mention: bool = True) -> float:
    """0..1: how much a sentence looks like it reports a statistical result (p, CI, test > numbers > words);
    ``p_mention=False`` leaves out the p-value cue (for a sentence whose "p < .05" is a threshold, not a result)."""
    # each search is skipped where the text lacks what every match of it holds: _P_PLURAL "ps" and a digit; _CI a
    # digit and "%" or "ci" (any case: an ASCII text's lower case; a non-ASCII one is searched); _TEST a digit unless
    # it names a chi-square; _DESC a digit and one of "±", "+", "%", "vs", "versus"
    digit = _DIGIT.search(text) is not None
    s = 0.0
    if p_mention and (P_MENTION.search(text) or (digit and "ps" in text and _P_PLURAL.search(text))):
        s += 0.5
    if digit and ("%" in text or not text.isascii() or "ci" in text.lower()) and _CI.search(text):
        s += 0.3
    if (digit or "χ²" in text or "chi-square" in text) and _TEST.search(text):
        s += 0.3
    if digit and any(w in text for w in _DESC_WORDS) and _DESC.search(text):
        s += 0.25
    if RESULT_WORDS.search(text):
        s += 0.15
    return min(s, 1.0)


def span_statistics(doc: Document, start: int, end: int, *, alpha: float = 0.05) -> tuple[list[dict[str, Any]], StatisticsSummary]:
    """The statistics engine's checked records for ``body_text[start:end]``, offsets into ``body_text``."""
    from claimtrace.stats import DocumentStat, analyze, stated_samples

    text = doc.body_text[start:end]
    records: list[dict[str, Any]] = []
    summary = StatisticsSummary()
    for r in analyze(text, alpha=alpha, paper_ns=stated_samples(doc.body_text)):
        if r.planned:  # an effect size a power analysis plans is no evidence
            continue
        shifted = r.shifted(start)
        sent = doc.locate_offset(shifted.start, "body")
        par = doc.paragraph_of(sent.id) if sent else None
        ds = DocumentStat(**shifted.model_dump(), scope="body", unit_id=sent.id if sent else None,
                          paragraph_id=par.id if par else None, section=getattr(par, "section", None))
        rec = ds.record()
        records.append(rec)
        summary.results += 1
        if ds.consistent is not None:
            summary.checked += 1
            if ds.consistent is False:
                summary.inconsistent += 1
        if ds.decision_error:
            summary.decision_errors += 1
    return records, summary


def count_statistics(text: str) -> int:
    """How many statistical results the engine parses in a text."""
    from claimtrace.stats import parse

    return len(parse(text))


def is_checked(record: dict[str, Any]) -> bool:
    """Whether a statistics record was checked: a recomputed p or any consistency verdict."""
    if record.get("computed_p") is not None:
        return True
    return any(v is not None for k, v in record.items() if k.endswith("consistent"))


def sentence_statistics(doc: Document, *, alpha: float = 0.05) -> dict[str, int]:
    """Body sentence id -> 2 when the engine checks a result starting in it, 1 when it only parses one."""
    from claimtrace.stats import analyze_document

    out: dict[str, int] = {}
    for ds in analyze_document(doc, alpha=alpha, scope="body"):
        if ds.unit_id is None:
            continue
        level = 2 if is_checked(ds.record()) else 1
        out[ds.unit_id] = max(out.get(ds.unit_id, 0), level)
    return out


def row_statistics_records(doc: Document, row_id: str, *, alpha: float = 0.05) -> tuple[list[dict[str, Any]], StatisticsSummary]:
    """Records for a table-row evidence span: the table results of the row (``source: "table"``, cells named)
    and the statistics engine's results in each of its cells (a test written in a cell, e.g. "t(46) = 0.46")."""
    from claimtrace.stats import analyze
    from claimtrace.stats.tables import row_statistics

    records: list[dict[str, Any]] = []
    summary = StatisticsSummary()
    for ts in row_statistics(doc, row_id):
        if ts.kind != "coefficient":
            continue
        records.append(ts.model_dump(mode="json"))
        summary.results += 1
        if ts.consistent is not None:
            summary.checked += 1
            summary.inconsistent += ts.consistent is False
    table = next((t for t in doc.tables if t.id == row_id.split(".")[0]), None)
    row = next((r for r in table.rows if r.id == row_id), None) if table is not None else None
    cells = {c.id: c for c in table.cells} if table is not None else {}
    row_cells = [cells[cid] for cid in row.cell_ids] if row is not None else []
    ci_cell = _ci_column_cell(row_cells)
    for cell in row_cells:
        if cell is ci_cell:
            continue
        found = [(r.shifted(cell.start).model_dump(mode="json"), [cell.id]) for r in analyze(cell.text, alpha=alpha)]
        if ci_cell is not None and len(found) == 1 and found[0][0]["test"] in _CI_COLUMN_TESTS \
                and found[0][0]["ci_low"] is None:
            found = _with_ci_cell(cell, ci_cell, alpha) or found
        for rec, cell_ids in found:
            rec.update({"source": "table", "scope": "table", "table_id": table.id if table else None,
                        "row_id": row_id, "cell_ids": cell_ids})
            records.append(rec)
            summary.results += 1
            if rec["consistent"] is not None:
                summary.checked += 1
                summary.inconsistent += rec["consistent"] is False
            summary.decision_errors += bool(rec["decision_error"])
    if table is not None:
        records, summary = _with_row_tests(table, row_id, records, summary, alpha)
    return records, summary


def _with_row_tests(table: Any, row_id: str, records: list[dict[str, Any]], summary: StatisticsSummary,
                    alpha: float) -> tuple[list[dict[str, Any]], StatisticsSummary]:
    """A row's tests read across cells (``stats.tables.row_tests``: a statistic under "t(15)", or "F(1, 30) = 4.2"
    in a cell, with the row's p column) where that gives a consistency verdict, replacing the record of the
    test's cell that had none (a recomputed p without a reported one to compare)."""
    from claimtrace.stats import analyze
    from claimtrace.stats.tables import row_tests

    cells = {c.id: c for c in table.cells}
    added: list[dict[str, Any]] = []
    for rt in row_tests(table, row_id):
        res = analyze(rt.text, alpha=alpha)
        if len(res) != 1 or res[0].test is None or res[0].consistent is None:
            continue
        rec = res[0].model_dump(mode="json")
        tc, pc = cells[rt.test_cell], cells[rt.p_cell]
        for sp in rec["spans"].values():
            c = pc if sp["start"] >= rt.p_start else tc
            sp.update(start=c.start, end=c.end, text=c.text)
        if any(r.get("consistent") is not None and (r.get("cell_ids") or [None])[0] == tc.id for r in records):
            continue  # the test's cell already has its verdict
        rec.update({"start": tc.start, "end": tc.end, "text": tc.text, "source": "table", "scope": "table",
                    "table_id": table.id, "row_id": row_id, "cell_ids": list(dict.fromkeys([tc.id, pc.id])),
                    "flags": [*rec["flags"], f"test read across the row's cells ({rt.text})"]})
        added.append(rec)
    if not added:
        return records, summary
    used = {r["cell_ids"][0] for r in added}
    kept = [r for r in records if r.get("kind") == "coefficient" or (r.get("cell_ids") or [None])[0] not in used]
    new = StatisticsSummary()
    for r in [*kept, *added]:
        new.results += 1
        if r.get("consistent") is not None:
            new.checked += 1
            new.inconsistent += r["consistent"] is False
        new.decision_errors += bool(r.get("decision_error"))
    return [*kept, *added], new


# a column of confidence (or credible) intervals: "95% CI", "CI", "95% confidence interval"
_CI_HEADER = re.compile(r"^\s*(?:(?P<lvl>\d{2}(?:\.\d+)?)\s*%\s*)?(?:CI|C\.I\.|CrI|confidence\s+interval|"
                        r"credible\s+interval)s?\s*$", re.I)
_CI_CELL = re.compile(r"^\s*[\[(]\s*[-−–]?\s*\d*\.?\d+\s*(?:,|;|to|[-−–])\s*[-−–]?\s*\d*\.?\d+\s*[\])]\s*$")
# estimates whose interval a separate CI column of the row gives (one estimate in the row: no ambiguity)
_CI_COLUMN_TESTS = frozenset({"d", "g", "r", "rho", "tau", "b", "beta", "OR", "RR", "HR", "IRR", "MD", "SMD", "RD"})


def _ci_column_cell(cells: list[Any]) -> Any:
    """The row's one cell under a CI column header holding an interval ("[-0.06, 0.16]"), else None."""
    found = [c for c in cells if c.column_path and _CI_HEADER.match(c.column_path[-1]) and _CI_CELL.match(c.text)]
    return found[0] if len(found) == 1 else None


def _with_ci_cell(cell: Any, ci: Any, alpha: float) -> list[tuple[dict[str, Any], list[str]]] | None:
    """The estimate of ``cell`` read with the interval of the row's CI column (offsets into ``tables_text``)."""
    from claimtrace.stats import analyze

    m = _CI_HEADER.match(ci.column_path[-1])
    glue = f", {m.group('lvl') + '% ' if m and m.group('lvl') else ''}CI "
    joined = cell.text + glue + ci.text
    res = analyze(joined, alpha=alpha)
    if len(res) != 1 or res[0].ci_low is None:
        return None
    rec = res[0].model_dump(mode="json")
    k = len(cell.text)  # a span from here on is the CI cell's (its text: the whole cell)
    for sp in rec["spans"].values():
        if sp["start"] >= k:
            sp.update(start=ci.start, end=ci.end, text=ci.text)
        else:
            sp.update(start=cell.start + sp["start"], end=cell.start + sp["end"] if sp["end"] <= k else ci.end)
    rec["start"], rec["end"], rec["text"] = cell.start, cell.end, cell.text
    rec["flags"] = [*rec["flags"], f"CI read from the row's CI column (cell {ci.id})"]
    return [(rec, [cell.id, ci.id])]


# a prose citation of a table ("Table 2", "Tables 2 and 3" names the first)
_TABLE_CITE = re.compile(r"\bTables?\s+(S?\d+[A-Za-z]?)\b")
# a number that can tie a prose result to a table cell: a decimal with two or more digits after the point
_DECIMAL = re.compile(r"(?<![\w.])[-\u2212\u2013]?\d*\.\d{2,}(?!\d)")
_P_BEFORE = re.compile(r"\bp\s*[<=>\u2264\u2265]\s*$", re.I)


def _decimals(text: str) -> set[tuple[float, int]]:
    """(value, decimals) of the decimals in a text that are not p-values."""
    out = set()
    for m in _DECIMAL.finditer(text):
        if _P_BEFORE.search(text[max(0, m.start() - 6):m.start()]):
            continue
        raw = m.group(0).replace("\u2212", "-").replace("\u2013", "-")
        out.add((abs(float(raw)), len(raw.split(".")[1])))
    return out


def cited_table_rows(doc: Document, text: str, paragraph_text: str = "") -> list[str]:
    """Rows of the table a prose evidence span cites ("Table 2", in the span, else in its paragraph) that hold
    a number of the span (a decimal other than a p-value, at the span's precision), best match first."""
    labels = _TABLE_CITE.findall(text) or _TABLE_CITE.findall(paragraph_text)
    if not labels:
        return []
    nums = _decimals(text)
    if not nums:
        return []
    wanted = {f"table {x}".lower() for x in labels}
    scored: list[tuple[int, int, str]] = []
    for t in doc.tables:
        if (t.label or "").strip().rstrip(".:").lower() not in wanted:
            continue
        cells = {c.id: c for c in t.cells}
        for i, row in enumerate(t.rows):
            vals = {v for cid in row.cell_ids for v in _decimals(cells[cid].text)} if row.cell_ids else set()
            hits = sum(any(round(v, d) == round(val, d) for v, _ in vals) for val, d in nums)
            if hits:
                scored.append((-hits, i, row.id))
    return [rid for _, _, rid in sorted(scored)]


def linked_row_records(doc: Document, text: str, paragraph_text: str = "", *,
                       alpha: float = 0.05) -> tuple[str | None, list[dict[str, Any]]]:
    """The checked table records of the best cited row of a prose evidence span (see ``cited_table_rows``):
    (row id, records marked ``linked_from: "prose"``), or (None, []) when no cited row holds a checked result."""
    for row_id in cited_table_rows(doc, text, paragraph_text)[:3]:
        recs, _ = row_statistics_records(doc, row_id, alpha=alpha)
        if any(is_checked(r) for r in recs):
            for r in recs:
                r["linked_from"] = "prose"
            return row_id, recs
    return None, []

