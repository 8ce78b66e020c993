"""``--extractor llm``: the LLM reads the selected context (sentences and table rows); every number it
returns is checked against that context, and one that the context does not contain is rejected and flagged."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel

from claimtrace.documents.model import Document
from claimtrace.numbers.extract import Ico, extract_numbers, finish
from claimtrace.numbers.match import mentions
from claimtrace.numbers.model import NumbersResult, Value
from claimtrace.numbers.tables import Table, read_tables

MAX_CONTEXT_CHARS = 1500


class _ArmAnswer(BaseModel):
    events: float | None = None
    group_size: float | None = None
    mean: float | None = None
    sd: float | None = None


class _Answer(BaseModel):
    outcome_type: Literal["binary", "continuous", "other"] = "other"
    intervention: _ArmAnswer = _ArmAnswer()
    comparator: _ArmAnswer = _ArmAnswer()


def select_context(doc: Document, tables: list[Table], intervention: str, comparator: str, outcome: str) -> list[tuple[str, str]]:
    """The sentences and table rows most about the outcome (id, text), best first, within a size budget."""
    ico = Ico.of(intervention, comparator, outcome)
    scored: list[tuple[float, str, str]] = []
    for s in doc.sentences("all"):
        if re.search(r"\d", s.text):
            sc = ico.outcome.score(s.text) + 0.2 * bool(mentions(ico.intervention, s.text) or mentions(ico.comparator, s.text))
            scored.append((sc, s.id, s.text))
    for t in tables:
        width = max(len(r) for r in t.rows)
        head = " | ".join(t.column_header(c) for c in range(width))
        for row in t.body_rows():
            if row:
                sc = ico.outcome.score(row[0].text) + 0.1
                text = f"{t.label or t.id}: {t.caption[:80]} [columns: {head}] row: " + " | ".join(c.text for c in row)
                scored.append((sc, f"{t.id} row {row[0].row}", text))
    scored.sort(key=lambda x: -x[0])
    out: list[tuple[str, str]] = []
    size = 0
    for sc, uid, text in scored:
        if sc <= 0 or size + len(text) > MAX_CONTEXT_CHARS:
            continue
        out.append((uid, text))
        size += len(text)
    return out


_NUM = re.compile(r"(?<![\d.])-?\d+(?:\.\d+)?")


def numbers_in(text: str) -> set[float]:
    """Every number written in a text (as values)."""
    return {float(m.group()) for m in _NUM.finditer(text.replace("−", "-").replace("·", ".").replace(",", ""))}


def extract_numbers_llm(doc: Document, intervention: str, comparator: str, outcome: str, *, client: object,
                        tables: list[Table] | None = None) -> NumbersResult:
    """Ask the LLM for the per-arm numbers from the selected context; keep only numbers the context contains."""
    from claimtrace.llm import LLMClient

    assert isinstance(client, LLMClient)
    if tables is None:
        tables = read_tables(doc.source.path)
    ctx = select_context(doc, tables, intervention, comparator, outcome)
    text = "\n".join(f"[{uid}] {t}" for uid, t in ctx)
    res = client.structured("numbers_arms", {"intervention": intervention, "comparator": comparator,
                                             "outcome": outcome, "context": text}, _Answer, task="extraction",
                            max_tokens=200)
    base = extract_numbers(doc, intervention, comparator, outcome, tables=tables)
    out = base.model_copy(deep=True)
    out.extractor = "llm"
    out.context = [uid for uid, _ in ctx]
    if not res.ok or res.value is None:
        out.notes.append(f"LLM failed ({res.error}); offline result kept")
        return out
    ans = res.value
    allowed = numbers_in(text)
    if ans.outcome_type in ("binary", "continuous"):
        out.outcome_type = ans.outcome_type
    for arm_name in ("intervention", "comparator"):
        got: _ArmAnswer = getattr(ans, arm_name)
        arm = out.arms[arm_name]
        for f in ("events", "group_size", "mean", "sd"):
            v = getattr(got, f)
            setattr(arm, f, None)
            if v is None:
                continue
            if float(v) not in allowed:
                out.flags.append("llm_number_rejected")
                out.notes.append(f"{arm_name}.{f} = {v:g} from the LLM is not in the selected text; rejected")
                continue
            where = next((uid for uid, t in ctx if float(v) in numbers_in(t)), None)
            arm_value = Value(value=float(v), text=f"{v:g}", source="llm", unit_id=where)
            setattr(arm, f, arm_value)
    out.flags = sorted(set(out.flags))
    finish(out)
    return out
