"""Evidence-Inference coverage of the JATS reader: are the gold evidence spans inside our paragraphs?

On the 90 Evidence-Inference validation articles (PMC JATS), every distinct gold evidence span (the
offsets refer to the dataset's ``.txt`` rendering of the article) is looked up in our Document:

- body spans (those after the abstract, by ``abstract_end`` of ``tools/ei_eval.py``): found
  verbatim, modulo whitespace and dash variants, inside a single body paragraph? Spans that are
  found only in an excluded table, caption, figure or footnote are counted apart.
- abstract spans: found in ``abstract_text`` (or, apart, in an excluded secondary abstract)?
- no body paragraph is a reference entry (equal to / contained in a reference-list block).

Writes bench/results/ei_coverage.json. Run: ``.venv/bin/python bench/ei_coverage.py [SPLIT]``.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

from claimtrace.documents import Document, load_document

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "evidence-inference"
RESULTS = ROOT / "bench" / "results"

_DASHES = re.compile(r"[\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d]")
_SPACE = re.compile(r"\s+")
_TABLE_KINDS = ("table", "caption", "figure", "footnote")
# the dataset's .txt renders a float placed inside a <p> as its label right after the paragraph's
# text, so a few gold spans end in "...(p < 0.05).Table 2": that label is not part of the prose
_FLOAT_LABEL = re.compile(
    r"(?<=[.;:)\]])\s*(table|fig\.?|figure|supplementary table|box)\s*[A-Z]?\d+[A-Za-z]?\s*[:.]?\s*$", re.I)


def norm(text: str) -> str:
    """Whitespace collapsed and dash variants mapped to '-' (the 'modulo whitespace' comparison)."""
    return _SPACE.sub(" ", _DASHES.sub("-", text)).strip()


def squash(text: str) -> str:
    """No whitespace at all (a diagnostic: text equal except for spacing)."""
    return _SPACE.sub("", _DASHES.sub("-", text))


def abstract_end(txt: str) -> int:
    """Where the body starts in an Evidence-Inference .txt (the definition of tools/ei_eval.py)."""
    for m in re.finditer(r"^([A-Z][A-Z0-9 .,&/\-]+):\s*$", txt, re.M):
        if not m.group(1).startswith(("ABSTRACT", "TITLE")):
            return m.start()
    return len(txt)


def reference_paragraphs(doc: Document) -> list[str]:
    """Body paragraphs that are (part of) a reference-list entry."""
    refs = [norm(b.text) for b in doc.excluded if b.kind == "references"]
    out = []
    for p in doc.paragraphs:
        t = norm(p.text)
        if len(t) >= 20 and any(t == r or (t in r and len(t) > 0.8 * len(r)) for r in refs):
            out.append(p.id)
    return out


def measure(split: str = "validation") -> dict[str, object]:
    """Measure span coverage on one Evidence-Inference split."""
    base = DATA / split
    spans: dict[tuple[str, int, int], str] = {}
    for line in (base / "prompts.jsonl").read_text().splitlines():
        p = json.loads(line)
        for e in p["evidence"]:
            spans[(p["pmcid"], e["start"], e["end"])] = e["text"]
    pmcids = sorted({k[0] for k in spans})
    docs: dict[str, Document] = {}
    t0 = time.perf_counter()
    for pmcid in pmcids:
        docs[pmcid] = load_document(base / "articles" / f"{pmcid}.nxml")
    parse_s = time.perf_counter() - t0

    c = dict(body=0, body_in_paragraph=0, body_in_paragraph_after_float_label_trim=0, body_in_tables=0, body_missed=0, abstract=0,
             abstract_in_abstract=0, abstract_in_front_matter=0, abstract_in_body=0, abstract_missed=0)
    missed: list[dict[str, str]] = []
    cache: dict[str, tuple[list[str], str, list[str], list[str], str]] = {}
    for pmcid, start, end in sorted(spans):
        txt = (base / "articles" / f"{pmcid}.txt").read_text()
        text = txt[start:end]
        g = norm(text)
        if not g:
            continue
        doc = docs[pmcid]
        if pmcid not in cache:
            cache[pmcid] = ([norm(p.text) for p in doc.paragraphs], norm(doc.abstract_text),
                            [norm(b.text) for b in doc.excluded if b.kind in _TABLE_KINDS],
                            [norm(b.text) for b in doc.excluded if b.kind == "front matter"],
                            norm(doc.body_text))
        paras, abstract, tables, front, body = cache[pmcid]
        if start >= abstract_end(txt):
            c["body"] += 1
            trimmed = norm(_FLOAT_LABEL.sub("", text))
            if any(g in p for p in paras):
                c["body_in_paragraph"] += 1
            elif trimmed != g and any(trimmed in p for p in paras):
                c["body_in_paragraph"] += 1
                c["body_in_paragraph_after_float_label_trim"] += 1
            elif any(g in t or trimmed in t for t in tables) or any(squash(text) in squash(t) for t in tables):
                c["body_in_tables"] += 1
            else:
                c["body_missed"] += 1
                where = "across paragraphs" if g in body else (
                    "spacing differs" if squash(text) in squash(doc.body_text) else "not found")
                missed.append({"pmcid": pmcid, "scope": "body", "why": where, "text": text[:300]})
        else:
            c["abstract"] += 1
            trimmed = norm(_FLOAT_LABEL.sub("", text))
            if g in abstract or trimmed in abstract:
                c["abstract_in_abstract"] += 1
            elif any(g in f for f in front):
                c["abstract_in_front_matter"] += 1
            elif any(g in p or trimmed in p for p in paras):
                c["abstract_in_body"] += 1
            else:
                c["abstract_missed"] += 1
                missed.append({"pmcid": pmcid, "scope": "abstract", "why": "not found", "text": text[:300]})
    ref_paras = {pmcid: r for pmcid, d in docs.items() if (r := reference_paragraphs(d))}
    body_text_spans = c["body"] - c["body_in_tables"]
    result: dict[str, object] = {
        "split": split,
        "articles": len(pmcids),
        "distinct_gold_spans": len(spans),
        "counts": c,
        "body_paragraph_coverage": c["body_in_paragraph"] / max(body_text_spans, 1),
        "body_paragraph_coverage_of_all_body_spans": c["body_in_paragraph"] / max(c["body"], 1),
        "body_spans_in_tables_or_captions": c["body_in_tables"],
        "abstract_coverage": c["abstract_in_abstract"] / max(c["abstract"], 1),
        "abstract_coverage_incl_front_matter": (c["abstract_in_abstract"] + c["abstract_in_front_matter"])
        / max(c["abstract"], 1),
        "abstract_spans_found_in_body_note": "spans before abstract_end that we find in a body paragraph: "
        "the .txt of these articles has no upper-case body header before them, so ei_eval counts them "
        "as abstract although the JATS puts them in the body",
        "body_paragraphs": sum(len(d.paragraphs) for d in docs.values()),
        "reference_entries_in_body": sum(len(v) for v in ref_paras.values()),
        "reference_entry_paragraphs": ref_paras,
        "parse_seconds": round(parse_s, 3),
        "missed": missed,
        "definition": "a span is found when its text, whitespace collapsed and dash variants mapped to '-', "
        "is a substring of one body paragraph (body) or of abstract_text (abstract); a float label that the "
        ".txt glues to a span's end ('...(p < 0.05).Table 2') is trimmed and counted apart; body vs abstract by "
        "abstract_end of tools/ei_eval.py; coverage = found in a paragraph / body spans not found in an "
        "excluded table/caption/figure/footnote",
    }
    return result


def main() -> None:
    """Run the measurement and write bench/results/ei_coverage.json."""
    from provenance import Run  # bench/ is on sys.path when the script runs (tests load measure() alone)

    split = sys.argv[1] if len(sys.argv) > 1 else "validation"
    run = Run(data=[DATA / split])
    result = {**measure(split), "provenance": run.finish()}
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / ("ei_coverage.json" if split == "validation" else f"ei_coverage_{split}.json")
    out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    summary = {k: v for k, v in result.items() if k not in ("missed", "reference_entry_paragraphs", "definition")}
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
