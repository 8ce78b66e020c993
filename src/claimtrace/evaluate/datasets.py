"""Evaluation datasets: the experiment JSONL item, a converter from Evidence Inference, and a loader
for SCORE-style claim traces (abstract finding → concrete hypothesis → inferential-test evidence)."""

from __future__ import annotations

import csv
import json
import logging
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from claimtrace.batch import read_jsonl
from claimtrace.documents import load_document
from claimtrace.errors import ClaimtraceError, InputError
from claimtrace.jsonl import json_lines
from claimtrace.textmatch import norm, same_statement

logger = logging.getLogger(__name__)


class EvalItem(BaseModel):
    """One dataset item: a document, its finding and the gold per stage (each optional)."""

    model_config = ConfigDict(extra="allow")

    id: str
    doc: str
    finding: str
    hypothesis: str | None = None
    evidence: str | None = None
    hypothesis_units: list[str] = Field(default_factory=list)
    evidence_units: list[str] = Field(default_factory=list)

    @field_validator("evidence", "hypothesis", mode="before")
    @classmethod
    def _join_lists(cls, v: Any) -> Any:
        """A list of gold spans is joined into one text (sentences are split again when scored)."""
        if isinstance(v, list):
            return " ".join(str(x).strip() for x in v if str(x).strip()) or None
        return v


def read_dataset(path: str | Path, limit: int | None = None) -> list[EvalItem]:
    """Read and validate an evaluation dataset (JSONL); relative ``doc`` paths resolve against it."""
    p = Path(path)
    rows = read_jsonl(p)
    out: list[EvalItem] = []
    for n, row in enumerate(rows, 1):
        if not row.get("doc") or not row.get("finding"):
            raise InputError(p, f"item {row['id']!r} (line {n}): needs 'doc' and 'finding'")
        try:
            item = EvalItem.model_validate(row)
        except ValueError as exc:
            raise InputError(p, f"item {row['id']!r}: {str(exc).splitlines()[0]}") from None
        if not Path(item.doc).is_absolute():
            item.doc = str((p.parent / item.doc).resolve())
        out.append(item)
        if limit is not None and len(out) >= limit:
            break
    return out


# ---- Evidence Inference ----------------------------------------------------------------------

def _abstract_end(txt: str) -> int:
    for m in re.finditer(r"^([A-Z][A-Z0-9 .,&/\-]+):\s*$", txt, re.M):
        if not m.group(1).startswith(("ABSTRACT", "TITLE")):
            return m.start()
    return len(txt)


def ei_query(prompt: dict[str, Any]) -> str:
    """The finding/query text of an EI prompt: "intervention vs comparator: outcome"."""
    return f"{prompt['intervention']} vs {prompt['comparator']}: {prompt['outcome']}"


def gold_units(doc: Any, spans: Sequence[str]) -> list[str]:
    """Ids of the body paragraphs and sentences of a Document that hold any gold span."""
    units: list[str] = []
    for par in getattr(doc, "paragraphs", []):
        for span in spans:
            if norm(span)[:60] in norm(par.text) or (
                    same_statement(span, par.text) and len(par.text) < 4 * len(span)):
                if par.id not in units:
                    units.append(par.id)
                for s in par.sentences:
                    if same_statement(span, s.text) and s.id not in units:
                        units.append(s.id)
    return units


def convert_evidence_inference(split_dir: str | Path, *, body_only: bool = True, with_units: bool = True,
                               limit: int | None = None) -> Iterator[dict[str, Any]]:
    """Evidence Inference (prompts.jsonl + articles/) → evaluation JSONL rows (evidence stage).

    ``evidence`` is the first annotator's gold span (``evidence_all`` lists the distinct spans);
    ``evidence_units`` are the paragraphs/sentences of the JATS document holding a gold span (empty
    when no JATS reader is installed). ``body_only`` keeps spans after the abstract, as the project's
    scorer does, and drops prompts without one.
    """
    base = Path(split_dir)
    prompts_file = base / "prompts.jsonl"
    if not prompts_file.exists():
        raise InputError(prompts_file, "no such file (expected an Evidence Inference split folder)")
    docs: dict[str, Any] = {}
    count = 0
    for n, line in enumerate(prompts_file.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            p = json.loads(line)
            pmcid, spans = p["pmcid"], p["evidence"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise InputError(prompts_file, f"line {n}: not an Evidence Inference prompt ({exc})") from None
        txt_path = base / "articles" / f"{pmcid}.txt"
        if body_only and txt_path.exists():
            end = _abstract_end(txt_path.read_text(encoding="utf-8"))
            spans = [e for e in spans if e["start"] >= end]
        distinct = list(dict.fromkeys(e["text"].strip() for e in spans if e.get("text", "").strip()))
        if not distinct:
            continue
        nxml = base / "articles" / f"{pmcid}.nxml"
        doc_path = nxml if nxml.exists() else txt_path
        units: list[str] = []
        if with_units:
            if pmcid not in docs:
                docs[pmcid] = _load(doc_path)
            if docs[pmcid] is not None:
                units = gold_units(docs[pmcid], distinct)
        yield {"id": str(p["prompt_id"]), "doc": str(doc_path.resolve()), "finding": ei_query(p),
               "hypothesis": None, "evidence": distinct[0], "evidence_all": distinct,
               "hypothesis_units": [], "evidence_units": units, "label": p.get("label"), "pmcid": pmcid}
        count += 1
        if limit is not None and count >= limit:
            return


def _load(path: Path) -> Any:
    """The article as a Document, or None (with a warning) when it cannot be read; a bug still raises."""

    try:
        return load_document(path)
    except ClaimtraceError as exc:  # an unreadable or unsupported article
        logger.warning("%s: no units (%s)", path.name, exc)
        return None


# ---- SCORE-style claim traces ----------------------------------------------------------------

SCORE_FIELDS: dict[str, tuple[str, ...]] = {
    "id": ("id", "claim_id", "paper_id", "doi"),
    "doc": ("doc", "path", "pdf", "pdf_filename", "file"),
    "finding": ("finding", "claim2", "abstract_claim", "coded_claim2"),
    "hypothesis": ("hypothesis", "claim3a", "claim3", "coded_claim3a"),
    "evidence": ("evidence", "claim4", "inferential_test", "coded_claim4"),
}


def load_score_traces(path: str | Path, *, docs_dir: str | Path | None = None) -> list[dict[str, Any]]:
    """Read SCORE-style claim traces (CSV or JSONL; SCORE's claim2 / claim3a / claim4 columns or our
    names) into evaluation rows. ``docs_dir`` resolves relative document paths."""
    p = Path(path)
    if not p.exists():
        raise InputError(p, "no such file")
    text = p.read_text(encoding="utf-8-sig")
    if p.suffix.lower() in (".csv", ".tsv"):
        raw = list(csv.DictReader(text.splitlines(), delimiter="\t" if p.suffix.lower() == ".tsv" else ","))
    else:
        raw = [obj for _, obj in json_lines(p, text, objects=True)]
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for n, row in enumerate(raw, 1):
        low = {str(k).strip().lower(): v for k, v in row.items()}
        got = {f: next((str(low[k]).strip() for k in keys if low.get(k) not in (None, "")), None)
               for f, keys in SCORE_FIELDS.items()}
        if not got["finding"] or not got["doc"]:
            raise InputError(p, f"row {n}: needs a finding (claim2) and a document path")
        rid = got["id"] or str(n)
        if rid in seen:
            rid = f"{rid}#{n}"
        seen.add(rid)
        doc = Path(got["doc"])
        if not doc.is_absolute():
            doc = (Path(docs_dir) if docs_dir else p.parent) / doc
        out.append({"id": rid, "doc": str(doc), "finding": got["finding"], "hypothesis": got["hypothesis"],
                    "evidence": got["evidence"], "hypothesis_units": [], "evidence_units": []})
    if not out:
        raise InputError(p, "no claim traces")
    return out
