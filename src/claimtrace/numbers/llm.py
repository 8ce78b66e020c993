"""``--extractor llm``: the offline rules first, the LLM only where they leave the structure open.

The LLM reads the selected context (sentences and table rows). With the default policy ``fill`` it is asked only when
the offline result is incomplete; the offline values are kept, the LLM's answer fills the fields the rules did not
find, and it decides the outcome type only when no type-specific value (events, or mean and SD) was read. An
answer that does not complete the item (no effect size computable after it) is not used: an abstention is better
than a partial guess. With
``alone`` every field comes from the LLM (the published design, kept for comparison). Either way every number it
returns is checked against that context, and one that the context does not contain is rejected and flagged."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel

from claimtrace.documents.model import Document
from claimtrace.llm import LLMClient
from claimtrace.numbers.extract import extract_numbers, finish
from claimtrace.numbers.model import NumbersResult, Value
from claimtrace.retrieval import BM25Retriever, document_units, search

MAX_CONTEXT_CHARS = 1500
LLMPolicy = Literal["fill", "alone"]


class _ArmAnswer(BaseModel):
    events: float | None = None
    group_size: float | None = None
    mean: float | None = None
    sd: float | None = None


class _Answer(BaseModel):
    outcome_type: Literal["binary", "continuous", "other"] = "other"
    intervention: _ArmAnswer = _ArmAnswer()
    comparator: _ArmAnswer = _ArmAnswer()


def select_context(doc: Document, intervention: str, comparator: str, outcome: str) -> list[tuple[str, str]]:
    """The sentences and table rows (id, text) that hold numbers, ranked by BM25 for the outcome and the arms
    (the project's retriever over sentence and table-row units), best first, within a size budget."""

    units = [u for u in document_units(doc, ["sentence", "table-row"], include_abstract=True)
             if re.search(r"\d", u.text)]
    if not units:
        return []
    query = f"{outcome} {outcome} {intervention} {comparator}"  # the outcome counts twice: it picks the row
    hits = search(BM25Retriever(), units, query, k=len(units))
    out: list[tuple[str, str]] = []
    size = 0
    for h in hits:
        if h.score <= 0 or size + len(h.text) > MAX_CONTEXT_CHARS:
            continue
        out.append((h.unit_id, h.text))
        size += len(h.text)
    return out


_NUM = re.compile(r"(?<![\d.])-?\d+(?:\.\d+)?")


def numbers_in(text: str) -> set[float]:
    """Every number written in a text (as values)."""
    return {float(m.group()) for m in _NUM.finditer(text.replace("−", "-").replace("·", ".").replace(",", ""))}


def _typed(res: NumbersResult) -> bool:
    """True when the offline rules read a value that fixes the outcome type (events, or a mean or SD)."""
    return any(getattr(a, f) is not None for a in res.arms.values() for f in ("events", "mean", "sd"))


def extract_numbers_llm(doc: Document, intervention: str, comparator: str, outcome: str, *,
                        client: object, policy: LLMPolicy = "fill") -> NumbersResult:
    """The offline numbers, completed (``fill``) or replaced (``alone``) by the LLM's answer from the selected
    context; only numbers the context contains are kept."""

    assert isinstance(client, LLMClient)
    base = extract_numbers(doc, intervention, comparator, outcome)
    if policy == "fill" and base.outcome_type != "other" and _typed(base) and not base.not_reported:
        out = base.model_copy(deep=True)
        out.extractor = "llm"
        out.notes.append("the offline rules read every field; the LLM was not asked")
        return out
    ctx = select_context(doc, intervention, comparator, outcome)
    text = "\n".join(f"[{uid}] {t}" for uid, t in ctx)
    res = client.structured("numbers_arms", {"intervention": intervention, "comparator": comparator,
                                             "outcome": outcome, "context": text}, _Answer, task="extraction",
                            max_tokens=200)
    out = base.model_copy(deep=True)
    out.extractor = "llm"
    out.context = [uid for uid, _ in ctx]
    if not res.ok or res.value is None:
        out.notes.append(f"LLM failed ({res.error}); offline result kept")
        return out
    ans = res.value
    allowed = numbers_in(text)
    if ans.outcome_type in ("binary", "continuous") and (policy == "alone" or not _typed(base)):
        out.outcome_type = ans.outcome_type
    for arm_name in ("intervention", "comparator"):
        got: _ArmAnswer = getattr(ans, arm_name)
        arm = out.arms[arm_name]
        for f in ("events", "group_size", "mean", "sd"):
            v = getattr(got, f)
            if policy == "fill" and getattr(arm, f) is not None:
                continue  # the rules read it from the text: kept
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
    if policy == "fill" and not out.effects:
        # an answer that does not complete the item is a guess at part of it: abstain on those fields
        kept = base.model_copy(deep=True)
        kept.extractor, kept.context = "llm", out.context
        kept.flags = sorted(set(kept.flags) | ({"llm_number_rejected"} & set(out.flags)))
        kept.notes += [n for n in out.notes if "rejected" in n]
        kept.notes.append("the LLM's answer did not complete the fields the rules left open; not used")
        return kept
    return out
