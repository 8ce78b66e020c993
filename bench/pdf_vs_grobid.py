"""Our PDF body text against GROBID's parse of the same PDF: token and paragraph-boundary agreement.

For each PDF in ``../shared/data/documents/s2orc-doc2json`` with a GROBID TEI of the same PDF:

* **tokens**: body texts are NFKC-normalised, lowercased, dashes unified and split into ``[a-z0-9]+``
  tokens. Multiset overlap: ``recall = |ours ∩ grobid| / |grobid|``, ``precision = |ours ∩ grobid| / |ours|``.
* **paragraph boundaries**: a boundary is the token index where a paragraph starts (the first paragraph
  excluded). The two token streams are aligned with difflib (matching blocks); a GROBID boundary is
  *comparable* when its token lies in an aligned block (it then maps to a position in our stream), and
  one of ours is comparable when its token is aligned likewise. Boundary recall = comparable GROBID
  boundaries that coincide (within ±1 token) with one of ours / comparable GROBID boundaries; precision
  = comparable boundaries of ours that coincide with a mapped GROBID boundary / comparable boundaries of
  ours. Boundaries in text only one side has (figure text GROBID put inline, say) are not comparable and
  are counted apart. A lenient variant (±4 tokens) is reported too: GROBID turns some bold run-in
  headings ("Baseline Methods Our work ...") into a ``<head>``, which moves its boundary by the heading's
  length, and keeps others in the paragraph.

GROBID body text: the ``<p>`` elements of ``text/body//div`` in the TEI (headings, formulas, figures,
tables and footnote ``<note>``s are not body), read with lxml directly.

Usage: ``python bench/pdf_vs_grobid.py`` -> ``bench/results/pdf_vs_grobid.json``.
"""

from __future__ import annotations

import difflib
import json
import re
import sys
import time
import unicodedata
from collections import Counter
from pathlib import Path

from lxml import etree

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from claimtrace.documents import load_document  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "documents" / "s2orc-doc2json"
OUT = REPO / "bench" / "results" / "pdf_vs_grobid.json"
TEI = "{http://www.tei-c.org/ns/1.0}"
TOLERANCE = 1
LENIENT_TOLERANCE = 4


def tokens(text: str) -> list[str]:
    """Normalised word tokens."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = re.sub(r"[\u2010-\u2015\u2212]", "-", text)
    return re.findall(r"[a-z0-9]+", text)


def grobid_paragraphs(tei_path: Path) -> list[str]:
    """Body paragraphs of a GROBID TEI file."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    root = etree.parse(str(tei_path), parser).getroot()
    body = root.find(f".//{TEI}text/{TEI}body")
    if body is None:
        return []
    return [" ".join("".join(p.itertext()).split()) for p in body.iter(f"{TEI}p")
            if p.getparent() is not None and p.getparent().tag == f"{TEI}div"]


def stream(paragraphs: list[str]) -> tuple[list[str], list[int]]:
    """The concatenated token stream and the start index of each paragraph after the first."""
    toks: list[str] = []
    starts: list[int] = []
    for p in paragraphs:
        t = tokens(p)
        if not t:
            continue
        if toks:
            starts.append(len(toks))
        toks.extend(t)
    return toks, starts


def compare(ours: list[str], grobid: list[str]) -> dict[str, object]:
    """Token and boundary agreement between two lists of paragraphs."""
    a_toks, a_starts = stream(ours)
    g_toks, g_starts = stream(grobid)
    ca, cg = Counter(a_toks), Counter(g_toks)
    common = sum((ca & cg).values())
    token_recall = common / max(1, len(g_toks))
    token_precision = common / max(1, len(a_toks))

    sm = difflib.SequenceMatcher(None, a_toks, g_toks, autojunk=False)
    a_to_g: dict[int, int] = {}
    for blk in sm.get_matching_blocks():
        for k in range(blk.size):
            a_to_g[blk.a + k] = blk.b + k
    g_to_a = {g: a for a, g in a_to_g.items()}
    mapped_g = [g_to_a[g] for g in g_starts if g in g_to_a]
    comparable_a = [a for a in a_starts if a in a_to_g]
    a_set = set(a_starts)
    g_mapped_set = set(mapped_g)

    def hits(tol: int) -> tuple[int, int]:
        window = range(-tol, tol + 1)
        return (sum(1 for a in mapped_g if any(a + d in a_set for d in window)),
                sum(1 for a in comparable_a if any(a + d in g_mapped_set for d in window)))

    hit_g, hit_a = hits(TOLERANCE)
    len_g, len_a = hits(LENIENT_TOLERANCE)
    return {
        "tokens_ours": len(a_toks),
        "tokens_grobid": len(g_toks),
        "tokens_common": common,
        "token_recall": round(token_recall, 4),
        "token_precision": round(token_precision, 4),
        "aligned_tokens": len(a_to_g),
        "paragraphs_ours": len(ours),
        "paragraphs_grobid": len(grobid),
        "boundaries_grobid": len(g_starts),
        "boundaries_grobid_comparable": len(mapped_g),
        "boundaries_ours": len(a_starts),
        "boundaries_ours_comparable": len(comparable_a),
        "boundary_recall": round(hit_g / max(1, len(mapped_g)), 4),
        "boundary_precision": round(hit_a / max(1, len(comparable_a)), 4),
        "boundary_recall_lenient": round(len_g / max(1, len(mapped_g)), 4),
        "boundary_precision_lenient": round(len_a / max(1, len(comparable_a)), 4),
    }


def main() -> None:
    """Compare every PDF that has a GROBID TEI of the same PDF and write the JSON report."""
    results = []
    for pdf in sorted(DATA.glob("*.pdf")):
        tei = pdf.with_suffix(".tei.xml")
        if not tei.exists():
            continue
        t0 = time.perf_counter()
        doc = load_document(pdf)
        secs = time.perf_counter() - t0
        row = {"pdf": pdf.name, "tei": tei.name, "parse_seconds": round(secs, 3)}
        row.update(compare([p.text for p in doc.paragraphs], grobid_paragraphs(tei)))
        results.append(row)
        print(json.dumps(row), file=sys.stderr)
    if not results:
        sys.exit(f"no PDF with a GROBID TEI under {DATA}")
    goal = 0.9
    summary = {
        "mean_token_recall": round(sum(r["token_recall"] for r in results) / len(results), 4),
        "mean_token_precision": round(sum(r["token_precision"] for r in results) / len(results), 4),
        "mean_boundary_recall": round(sum(r["boundary_recall"] for r in results) / len(results), 4),
        "mean_boundary_precision": round(sum(r["boundary_precision"] for r in results) / len(results), 4),
        "mean_boundary_recall_lenient": round(sum(r["boundary_recall_lenient"] for r in results) / len(results), 4),
        "mean_boundary_precision_lenient": round(
            sum(r["boundary_precision_lenient"] for r in results) / len(results), 4),
        "goal": goal,
    }
    summary["token_goal_met"] = all(r["token_recall"] >= goal and r["token_precision"] >= goal for r in results)
    summary["boundary_goal_met"] = all(
        r["boundary_recall"] >= goal and r["boundary_precision"] >= goal for r in results)
    report = {
        "benchmark": "pdf_vs_grobid",
        "definition": (__doc__ or "").strip().split("\n\n", 1)[1].rsplit("\n\nUsage", 1)[0],
        "boundary_tolerance_tokens": TOLERANCE,
        "boundary_tolerance_tokens_lenient": LENIENT_TOLERANCE,
        "documents": results,
        "summary": summary,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
