"""Training data for the fine-tuned retriever: the JSONL format and converters from Evidence Inference
and EvidenceBench (evidence task)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from claimtrace.documents import Document, load_document
from claimtrace.errors import ClaimtraceError, InputError
from claimtrace.retrieval.units import Unit, UnitKind, document_units
from claimtrace.textmatch import contains, same_statement
from claimtrace.types import Task as Task  # its home (the --task choices); re-exported for old imports


class TrainingExample(BaseModel):
    """One line of training data: a query, the document, and the id of its positive unit.

    ``gold`` holds the gold texts the tau filter compares hard-negative candidates with (the gold
    evidence for the evidence task, the gold hypothesis for the hypothesis task); when empty the
    positive unit's own text is used.
    """

    model_config = ConfigDict(extra="ignore")

    id: str | None = None
    doc: str
    task: Task = "evidence"
    query: str
    positive: str
    unit: UnitKind = "paragraph"
    gold: list[str] = []


def read_training_data(path: str | Path) -> list[TrainingExample]:
    """Read and validate a training JSONL file (one example per line)."""
    p = Path(path)
    if not p.is_file():
        raise InputError(p, "no such file")
    out: list[TrainingExample] = []
    for lineno, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(TrainingExample.model_validate(json.loads(line)))
        except (json.JSONDecodeError, ValidationError) as exc:
            msg = exc.msg if isinstance(exc, json.JSONDecodeError) else exc.errors()[0]["msg"]
            raise InputError(p, f"line {lineno}: not a training example ({msg})") from None
    if not out:
        raise InputError(p, "no training examples")
    return out


def write_jsonl(examples: Sequence[TrainingExample], path: str | Path) -> None:
    """Write examples as JSONL."""
    with Path(path).open("w", encoding="utf-8") as fh:
        for ex in examples:
            fh.write(ex.model_dump_json(exclude_none=True) + "\n")


# ---- matching gold text to units (the Evidence-Inference scorer's notion of overlap) -------------------

def match_units(units: Sequence[Unit], gold: str, unit: UnitKind) -> list[str]:
    """Ids of the units holding a gold span: paragraphs that contain it, sentences that overlap it."""
    if unit == "paragraph":
        scored = [(contains(u.text, gold), u.id) for u in units]
        return [i for s, i in sorted(scored, key=lambda x: -x[0]) if s >= 0.8][:1]
    return [u.id for u in units if same_statement(gold, u.text)]


# ---- Evidence Inference ---------------------------------------------------------------------------

def _abstract_end(txt: str) -> int:
    for m in re.finditer(r"^([A-Z][A-Z0-9 .,&/\-]+):\s*$", txt, re.M):
        if not m.group(1).startswith(("ABSTRACT", "TITLE")):
            return m.start()
    return len(txt)


def ei_prompts(split_dir: str | Path, body_only: bool = True) -> list[dict[str, object]]:
    """Evidence-Inference prompts of a split folder, keeping only body gold spans when ``body_only``."""
    base = Path(split_dir)
    pfile = base / "prompts.jsonl"
    if not pfile.is_file():
        raise InputError(pfile, "no prompts.jsonl in this Evidence-Inference split folder")
    out: list[dict[str, object]] = []
    ends: dict[str, int] = {}
    for line in pfile.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        p = json.loads(line)
        if body_only:
            if p["pmcid"] not in ends:
                ends[p["pmcid"]] = _abstract_end((base / "articles" / f"{p['pmcid']}.txt").read_text(encoding="utf-8"))
            p["evidence"] = [e for e in p["evidence"] if e["start"] >= ends[p["pmcid"]]]
        if p["evidence"]:
            p["doc"] = str((base / "articles" / f"{p['pmcid']}.nxml").resolve())
            p["query"] = f"{p['intervention']} vs {p['comparator']}: {p['outcome']}"
            out.append(p)
    return out


def ei_training_data(split_dir: str | Path, units: Sequence[UnitKind] = ("paragraph", "sentence"),
                     limit: int | None = None) -> Iterator[TrainingExample]:
    """Evidence-task examples from an EI split: query 'I vs C: O', positive = the body unit holding a gold span."""
    docs: dict[str, Document] = {}
    for n, p in enumerate(ei_prompts(split_dir)):
        if limit is not None and n >= limit:
            break
        path = str(p["doc"])
        try:
            doc = docs.get(path) or load_document(path)
        except ClaimtraceError:
            continue
        docs = {path: doc}  # prompts are grouped by article: keep one parsed document
        golds = list(dict.fromkeys(str(e["text"]) for e in p["evidence"]))  # type: ignore[attr-defined]
        for kind in units:
            us = document_units(doc, kind)
            for g in golds:
                ids = match_units(us, g, kind)
                if ids:
                    yield TrainingExample(id=f"{p['prompt_id']}.{kind}", doc=path, task="evidence",
                                          query=str(p["query"]), positive=ids[0], unit=kind, gold=golds)
                    break


# ---- EvidenceBench --------------------------------------------------------------------------------

def evidencebench_training_data(root: str | Path, unit: UnitKind = "sentence") -> Iterator[TrainingExample]:
    """Evidence-task examples from EvidenceBench: query = hypothesis, positives = units holding gold sentences."""
    base = Path(root)
    items = base / "items.jsonl"
    if not items.is_file():
        raise InputError(items, "no items.jsonl in this EvidenceBench folder")
    for line in items.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        it = json.loads(line)
        path = str((base / it["doc"]).resolve())
        doc = load_document(path)
        us = document_units(doc, unit, include_abstract=False)
        golds = list(dict.fromkeys(g for sents in it["aspects"].values() for g in sents))
        seen: set[str] = set()
        for g in golds:
            for uid in match_units(us, g, unit)[:1]:
                if uid not in seen:
                    seen.add(uid)
                    yield TrainingExample(id=f"{it['id']}.{uid}", doc=path, task="evidence", query=it["hypothesis"],
                                          positive=uid, unit=unit, gold=golds)


# ---- hypothesis task (finding -> hypothesis) and finding + hypothesis -> evidence ------------------------

#: a sentence that states what a study set out to test (its aim, objective or hypothesis); rule-built silver
#: labels for the hypothesis head, never used as gold
AIM = re.compile(
    r"\b(?:we\s+hypothesi[sz]ed|hypothesi[sz]ed\s+that|our\s+hypothesis|the\s+hypothesis\s+that|"
    r"(?:primary\s+|main\s+)?(?:aim|aims|objective|objectives|purpose|goal)\s+(?:of|in)\s+(?:this|the\s+present|the\s+current|our)\s+"
    r"(?:study|trial|paper|analysis|investigation|work)|"
    r"(?:this|the\s+present|the\s+current|our)\s+(?:study|trial|analysis)\s+(?:aimed|aims|sought|was\s+designed|is\s+designed|"
    r"was\s+undertaken|was\s+conducted\s+to|investigated|evaluated|compared|assessed|examined|tested)|"
    r"we\s+(?:aimed|sought|set\s+out|designed\s+(?:this|a|the)\s+(?:study|trial))\s+to|"
    r"(?:was|were|is)\s+to\s+(?:evaluate|assess|compare|determine|investigate|examine|test|establish))\b",
    re.I)


def aim_sentence(doc: Document) -> str | None:
    """The id of the body sentence that states the study's aim or hypothesis (first cued sentence of the
    introduction, else of the body's first 40 %), by the ``AIM`` rule; None when there is none."""
    intro = [p for p in doc.paragraphs if p.section_kind == "introduction"]
    early = doc.paragraphs[: max(1, int(len(doc.paragraphs) * 0.4))]
    for pars in (intro, early):
        for p in pars:
            for s in p.sentences:
                if AIM.search(s.text) and 40 <= len(s.text) <= 600:
                    return s.id
    return None


def ei_hypothesis_data(split_dir: str | Path, *, per_paper: int = 2,
                       limit: int | None = None) -> Iterator[TrainingExample]:
    """Hypothesis-task and finding+hypothesis evidence-task examples from an EI split.

    A finding is an abstract gold evidence span of a prompt (the abstract sentence that reports the
    result); its hypothesis is the paper's aim sentence (``aim_sentence``, a rule: silver pairs). Per
    paper, up to ``per_paper`` findings give (finding -> aim sentence) hypothesis examples and
    (finding + aim sentence -> the prompt's body evidence sentence) evidence examples.
    """
    base = Path(split_dir)
    whole = ei_prompts(base, body_only=False)
    body = {str(p["prompt_id"]): p for p in ei_prompts(base, body_only=True)}
    by_doc: dict[str, list[dict[str, object]]] = {}
    for p in whole:
        by_doc.setdefault(str(p["doc"]), []).append(p)
    for n, (path, prompts) in enumerate(by_doc.items()):
        if limit is not None and n >= limit:
            break
        try:
            doc = load_document(path)
        except ClaimtraceError:
            continue
        sid = aim_sentence(doc)
        if sid is None:
            continue
        aim = doc.unit(sid).text
        abstract = doc.abstract_text
        done = 0
        seen: set[str] = set()
        sents = document_units(doc, "sentence")
        for p in prompts:
            if done >= per_paper:
                break
            ab = [str(e["text"]) for e in p["evidence"]  # type: ignore[attr-defined]
                  if contains(abstract, str(e["text"])) >= 0.9]
            if not ab or ab[0] in seen or len(ab[0]) < 30:
                continue
            finding = ab[0]
            seen.add(finding)
            done += 1
            pid = str(p["prompt_id"])
            yield TrainingExample(id=f"{pid}.hypothesis", doc=path, task="hypothesis", query=finding,
                                  positive=sid, unit="sentence", gold=[aim])
            bp = body.get(pid)
            if bp is None:
                continue
            golds = list(dict.fromkeys(str(e["text"]) for e in bp["evidence"]))  # type: ignore[attr-defined]
            for g in golds:
                ids = match_units(sents, g, "sentence")
                if ids:
                    yield TrainingExample(id=f"{pid}.finding-evidence", doc=path, task="evidence",
                                          query=f"{finding} {aim}", positive=ids[0], unit="sentence", gold=golds)
                    break


# ---- leakage check ------------------------------------------------------------------------------------

def _norm_sentence(text: str) -> str:
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text.lower()).split())


def heldout_fingerprint(docs: Sequence[str | Path]) -> tuple[set[str], set[str]]:
    """The ids (file stems) and normalised sentences (>= 40 characters) of held-out documents."""
    ids: set[str] = set()
    sents: set[str] = set()
    for path in docs:
        ids.add(Path(path).stem)
        doc = load_document(path)
        for s in doc.sentences("all"):
            n = _norm_sentence(s.text)
            if len(n) >= 40:
                sents.add(n)
    return ids, sents


def leakage(examples: Sequence[TrainingExample], heldout_ids: set[str], heldout_sentences: set[str],
            *, doc_overlap: float = 0.2) -> dict[str, list[str]]:
    """What of the held-out documents reaches the training data: training papers whose id is held out,
    example texts (query, gold) equal to a held-out sentence, and training papers with more than
    ``doc_overlap`` of their sentences in held-out papers (the same article under another id)."""
    out: dict[str, list[str]] = {"ids": [], "texts": [], "documents": []}
    for path in sorted({e.doc for e in examples}):
        if Path(path).stem in heldout_ids:
            out["ids"].append(path)
        doc = load_document(path)
        ns = [n for n in (_norm_sentence(s.text) for s in doc.sentences("all")) if len(n) >= 40]
        if ns and sum(n in heldout_sentences for n in ns) / len(ns) > doc_overlap:
            out["documents"].append(path)
    for e in examples:
        for t in (e.query, *e.gold):
            n = _norm_sentence(t)
            if len(n) >= 40 and n in heldout_sentences:
                out["texts"].append(f"{e.id}: {t[:80]}")
    return out
