"""Our PDF reader against GROBID's TEI of the same PDF, read by claimtrace: statistics, abstract, paragraphs.

Sets:

* ``twins``: ``../shared/data/documents/pdf-twins`` (11 social-science PDFs, each with the GROBID 0.8.2 TEI
  someone else made from it). The development set: the layout rules were written looking at these. (The
  issue's other 6 papers are held out and not here.)
* ``grobid``: ``../shared/data/documents/grobid`` (GROBID's own test PDFs; no TEI twin: counts only).
* ``statcheck``: ``../shared/data/statistics/statcheck-test-papers`` (4 APA-style test PDFs, against the
  statcheck manual gold ``manually_extracted_stats_testpapers.csv``, its ``*_pdf`` rows).
  The ``grobid`` and ``statcheck`` sets were not used to write rules.

Per paper, reading the PDF (and the TEI for a twin) with ``load_document`` then ``analyze_document``:

* ``results``: statistical results found in the prose (abstract and body; ``planned`` power-analysis effects
  left out); ``checked``: those with a recomputed p (``computed_p`` set).
* ``recall``: the TEI's results also found from the PDF. Matching rule: a TEI result matches an unused PDF
  result of the same test name (case-folded, ``χ2``/``chi2`` unified, ``Qb``/``Qw`` as ``Q``), the same |value| (the sign is left out:
  GROBID writes U+03EA for a minus and some PDFs drop it), the same df1 and df2 where both sides give them, and
  the same p comparator and p value where both sides give them; matching is greedy in text order. A second pass
  matches what is left by text: one result's text, reduced to letters and digits (6 or more, a digit among
  them), inside the other's, the PDF result used or not (``Hedges' g z = 1.43, 95% CI [1.13;1.73]``, read from
  the TEI as a z test of its own, inside the PDF's ``t(86) = 13.47, p < 0.001, Hedges' gz = 1.43, 95% CI
  [1.13;1.73]``). PDF-only results are those neither pass matched. For the
  statcheck papers the gold rows are matched the same way (test, |value|, df, p).
* ``pdf_only``: PDF results no TEI result matched, each classed by hand (real, fragment, junk) in
  ``bench/data/pdf_twins_pdf_only.json``; ``pdf_only_unclassified`` counts those not classed there.
* ``abstract_match``: the PDF's abstract has the same first 80 characters as the true abstract (the TEI's
  abstract, or the override in ``bench/data/pdf_twins_abstracts.json`` where the TEI is wrong, read off the
  page; an empty override: the paper has none, and a match is an empty abstract); compared after NFKC,
  lowercasing and all but letters and digits removed.
* ``authors_match``: the PDF's author names have the same set of surnames (last words, letters only) as the
  TEI's.
* ``paragraphs``; ``broken``: paragraphs that end without terminal punctuation (``.!?:;`` and closing quotes or
  brackets) while the next paragraph starts with a lowercase letter, as a share of
  paragraphs.
* ``crash``: any exception reading the PDF, analysing it, or serialising the Document and its results to JSON.
* speed: the parse of every PDF (``load_document``) timed 5 times; pages per second (all pages / median total
  seconds), with ``os.getloadavg()`` before and after.

Usage: ``nice -n 10 python bench/pdf_twins.py [--label before|after] [--repeats 5] [--src DIR]`` ->
``bench/results/pdf_twins_<label>.json`` (``--repeats 0``: no timing; ``--src``: measure another checkout's
``src``, e.g. main's for "before"). Speed alone, interleaved A/B in fresh processes (main's tree against this
one): ``python bench/pdf_twins.py --speed-ab /work/main/src --repeats 5`` -> ``bench/results/pdf_twins_speed_ab.json``
(wall and CPU seconds per run; on a loaded machine read the CPU ratio, ``b_over_a_speed_cpu``).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import itertools
import json
import os
import re
import statistics
import sys
import time
import unicodedata
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# ``--src DIR``: the claimtrace source tree to measure (another checkout's ``src``), read before the imports
_SRC = sys.argv[sys.argv.index("--src") + 1] if "--src" in sys.argv[:-1] else str(REPO / "src")
sys.path.insert(0, _SRC)

from claimtrace.documents import load_document  # noqa: E402
from claimtrace.documents.model import Document  # noqa: E402
from claimtrace.stats.document import analyze_document  # noqa: E402
from claimtrace.stats.model import DocumentStat  # noqa: E402
from provenance import Run  # noqa: E402

SHARED = REPO.parent / "shared" / "data"
TWINS = SHARED / "documents" / "pdf-twins"
GROBID = SHARED / "documents" / "grobid"
STATCHECK = SHARED / "statistics" / "statcheck-test-papers"
ABSTRACTS = REPO / "bench" / "data" / "pdf_twins_abstracts.json"
PDF_ONLY = REPO / "bench" / "data" / "pdf_twins_pdf_only.json"
OUT = REPO / "bench" / "results"
_END = re.compile(r"[.!?:;][\"'”’)\]]*$")


def _test(name: str | None) -> str:
    t = unicodedata.normalize("NFKC", name or "").lower().replace("χ", "chi").replace("x2", "chi2")
    t = re.sub(r"[^a-z0-9]", "", t)
    return "q" if t.startswith("q") else t  # Qb, Qw, QE: the engine names them Q (test_detail holds the part)


def _num(x: float | None) -> float | None:
    return None if x is None else round(abs(float(x)), 6)


def _key(test: str | None, value: float | None, df1: float | None, df2: float | None,
         p_cmp: str | None, p: float | None) -> dict[str, Any]:
    return {"test": _test(test), "value": _num(value), "df1": df1, "df2": df2, "p_cmp": p_cmp, "p": p}


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if a["test"] != b["test"] or a["value"] != b["value"]:
        return False
    for k in ("df1", "df2", "p_cmp", "p"):
        if a[k] is not None and b[k] is not None and a[k] != b[k]:
            return False
    return True


def _stat_key(s: DocumentStat) -> dict[str, Any]:
    return {**_key(s.test, s.value, s.df1, s.df2, s.p_comparison, s.p_value), "canon": _canon(s.text)}


def match(gold: list[dict[str, Any]], found: list[dict[str, Any]]) -> tuple[list[int], list[int]]:
    """Greedy matching: indices of gold items matched, indices of found items left unmatched."""
    used: set[int] = set()
    hit: list[int] = []
    for gi, g in enumerate(gold):
        for fi, f in enumerate(found):
            if fi not in used and _same(g, f):
                used.add(fi)
                hit.append(gi)
                break
    for gi, g in enumerate(gold):  # pass 2: the same text, one side's parse damaged or split
        if gi in hit or not g.get("canon"):
            continue
        for fi, f in enumerate(found):
            if _same_text(g.get("canon", ""), f.get("canon", "")):
                used.add(fi)
                hit.append(gi)
                break
    return hit, [i for i in range(len(found)) if i not in used]


def _same_text(a: str, b: str) -> bool:
    short, long_ = sorted((a, b), key=len)
    return len(short) >= 6 and any(ch.isdigit() for ch in short) and short in long_


def _canon(text: str) -> str:
    t = unicodedata.normalize("NFKC", text).lower()
    return re.sub(r"[^a-z0-9]", "", t)


def _surnames(names: list[str]) -> set[str]:
    return {_canon(n.split()[-1]) for n in names if n.split()}


def _broken(doc: Document) -> int:
    ps = doc.paragraphs
    return sum(1 for a, b in itertools.pairwise(ps)
               if not _END.search(a.text.rstrip()) and b.text[:1].islower())


def _stats(doc: Document) -> list[DocumentStat]:
    return [s for s in analyze_document(doc) if not s.planned]


def read(path: Path) -> tuple[Document | None, list[DocumentStat], str | None]:
    """A Document and its results, or the crash."""
    try:
        doc = load_document(path)
        stats = _stats(doc)
        doc.model_dump_json()
        json.dumps([s.record() for s in stats])
        return doc, stats, None
    except Exception as exc:  # a crash is what is measured
        return None, [], f"{type(exc).__name__}: {str(exc)[:200]}"


def _row(pdf: Path, doc: Document | None, stats: list[DocumentStat], err: str | None) -> dict[str, Any]:
    row: dict[str, Any] = {"paper": pdf.stem, "crash": err}
    if doc is None:
        return row
    n = len(doc.paragraphs)
    row.update({
        "results": len(stats), "checked": sum(1 for s in stats if s.computed_p is not None),
        "repaired_results": sum(1 for s in stats if s.repaired),
        "paragraphs": n, "broken": _broken(doc), "broken_share": round(_broken(doc) / max(1, n), 4),
        "abstract_chars": len(doc.abstract_text), "title": doc.title,
        "abstract_start": doc.abstract_text[:100], "warnings": doc.warnings,
    })
    return row


def twins(overrides: dict[str, str]) -> list[dict[str, Any]]:
    """The twin set."""
    rows = []
    for pdf in sorted(TWINS.glob("*.pdf")):
        doc, stats, err = read(pdf)
        tdoc, tstats, terr = read(pdf.with_suffix("").with_suffix(".tei.xml"))
        row = _row(pdf, doc, stats, err)
        row["tei_crash"] = terr
        if tdoc is not None:
            row.update({"tei_results": len(tstats),
                        "tei_checked": sum(1 for s in tstats if s.computed_p is not None),
                        "tei_paragraphs": len(tdoc.paragraphs)})
            if doc is not None:
                row["authors"], row["tei_authors"] = doc.authors, tdoc.authors
                row["authors_match"] = _surnames(doc.authors) == _surnames(tdoc.authors)
            truth = overrides.get(pdf.stem, tdoc.abstract_text)
            row["abstract_truth_source"] = "override" if pdf.stem in overrides else "tei"
            row["abstract_match"] = bool(doc is not None and _canon(doc.abstract_text)[:80] == _canon(truth)[:80])
            if doc is not None:
                gold = [_stat_key(s) for s in tstats]
                hit, only = match(gold, [_stat_key(s) for s in stats])
                row["tei_matched"] = len(hit)
                row["recall"] = round(len(hit) / max(1, len(gold)), 4)
                row["tei_only"] = [tstats[i].text for i in range(len(gold)) if i not in set(hit)]
                row["pdf_only"] = [stats[i].text for i in only]
        rows.append(row)
        print(json.dumps({k: row.get(k) for k in ("paper", "results", "tei_results", "recall", "abstract_match",
                                                  "broken", "paragraphs", "crash")}), file=sys.stderr)
    return rows


def _gold_statcheck() -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    with (STATCHECK / "manually_extracted_stats_testpapers.csv").open(encoding="utf-8") as fh:
        for r in csv.DictReader(fh, delimiter=";"):
            if r["file_type"] != "pdf":
                continue

            def f(x: str) -> float | None:
                return float(x) if x.strip() not in ("", "NA") else None

            out.setdefault(Path(r["file_name"]).stem, []).append(
                _key(r["test_type"], f(r["test_value"]), f(r["df1"]), f(r["df2"]),
                     r["p_comparison"].strip('"') or None, f(r["p"])))
    return out


def others() -> dict[str, list[dict[str, Any]]]:
    """The GROBID test PDFs and the statcheck test papers."""
    gold = _gold_statcheck()
    res: dict[str, list[dict[str, Any]]] = {"grobid": [], "statcheck": []}
    for name, folder in (("grobid", GROBID), ("statcheck", STATCHECK)):
        for pdf in sorted(folder.glob("*.pdf")):
            doc, stats, err = read(pdf)
            row = _row(pdf, doc, stats, err)
            if name == "statcheck" and doc is not None:
                g = gold.get(pdf.stem, [])
                hit, _ = match(g, [_stat_key(s) for s in stats])
                row.update({"gold": len(g), "gold_matched": len(hit),
                            "recall": round(len(hit) / len(g), 4) if g else None})
            res[name].append(row)
    return res


def _pdfs() -> tuple[list[Path], int]:
    import pypdfium2 as pdfium

    pdfs = sorted(TWINS.glob("*.pdf")) + sorted(GROBID.glob("*.pdf")) + sorted(STATCHECK.glob("*.pdf"))
    pages = 0
    for p in pdfs:
        d = pdfium.PdfDocument(str(p))
        pages += len(d)
        d.close()
    return pdfs, pages


def _parse_all(pdfs: list[Path]) -> float:
    """Seconds to parse every PDF once."""
    t0 = time.perf_counter()
    for p in pdfs:
        with contextlib.suppress(Exception):  # crashes are counted elsewhere
            load_document(p)
    return time.perf_counter() - t0


def speed_ab(other_src: str, repeats: int) -> dict[str, Any]:
    """Interleaved A/B: another source tree (A) and this one (B) timed in alternate fresh processes."""
    import subprocess

    load_before = os.getloadavg()
    secs: dict[str, list[float]] = {"a": [], "b": []}
    cpu: dict[str, list[float]] = {"a": [], "b": []}
    for _ in range(repeats):
        for arm, src in (("a", other_src), ("b", str(REPO / "src"))):
            out = subprocess.run([sys.executable, __file__, "--time-once", "--src", src], check=True,
                                 capture_output=True, text=True).stdout
            wall, cpu_s = out.strip().splitlines()[-1].split()
            secs[arm].append(float(wall))
            cpu[arm].append(float(cpu_s))
    _, pages = _pdfs()
    med = {k: statistics.median(v) for k, v in secs.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpu.items()}
    return {"a_src": other_src, "a_commit": _commit(other_src), "b_src": str(REPO / "src"),
            "b_commit": _commit(str(REPO / "src")), "pages": pages, "repeats": repeats,
            "seconds": {k: [round(x, 3) for x in v] for k, v in secs.items()},
            "cpu_seconds": {k: [round(x, 3) for x in v] for k, v in cpu.items()},
            "pages_per_second": {k: round(pages / m, 2) for k, m in med.items()},
            "b_over_a_speed": round(med["a"] / med["b"], 3),
            # CPU time of the parse moves less than wall time on a loaded machine: the ratio to read under load
            "b_over_a_speed_cpu": round(med_cpu["a"] / med_cpu["b"], 3),
            "loadavg_before": [round(x, 2) for x in load_before],
            "loadavg_after": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()}


def _commit(src: str) -> str | None:
    """The git commit checked out at a source tree (``git rev-parse HEAD``), or None outside a checkout."""
    import subprocess

    try:
        out = subprocess.run(["git", "-C", src, "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip() or None


def speed(repeats: int) -> dict[str, Any]:
    """Pages per second over all PDFs: the median of ``repeats`` runs."""
    pdfs, pages = _pdfs()
    load_before = os.getloadavg()
    _parse_all(pdfs[:1])  # warm the imports
    totals = [_parse_all(pdfs) for _ in range(repeats)]
    med = statistics.median(totals)
    return {"pdfs": len(pdfs), "pages": pages, "repeats": repeats, "seconds": [round(t, 3) for t in totals],
            "median_seconds": round(med, 3), "pages_per_second": round(pages / med, 2),
            "loadavg_before": [round(x, 2) for x in load_before],
            "loadavg_after": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()}


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Totals of a set."""
    ok = [r for r in rows if not r.get("crash")]
    s: dict[str, Any] = {
        "papers": len(rows), "crashes": len(rows) - len(ok),
        "results": sum(r["results"] for r in ok), "checked": sum(r["checked"] for r in ok),
        "paragraphs": sum(r["paragraphs"] for r in ok), "broken": sum(r["broken"] for r in ok),
        "empty_abstracts": sum(1 for r in ok if not r["abstract_chars"]),
    }
    s["broken_share"] = round(s["broken"] / max(1, s["paragraphs"]), 4)
    if any("tei_results" in r for r in rows):
        s["tei_results"] = sum(r.get("tei_results", 0) for r in rows)
        s["tei_checked"] = sum(r.get("tei_checked", 0) for r in rows)
        s["tei_paragraphs"] = sum(r.get("tei_paragraphs", 0) for r in rows)
        s["tei_matched"] = sum(r.get("tei_matched", 0) for r in ok)
        s["recall"] = round(s["tei_matched"] / max(1, s["tei_results"]), 4)
        s["recall_ci95"] = _wilson(s["tei_matched"], s["tei_results"])
        s["pdf_only"] = sum(len(r.get("pdf_only", [])) for r in ok)
        s["abstract_match"] = sum(1 for r in ok if r.get("abstract_match"))
        s["authors_match"] = sum(1 for r in ok if r.get("authors_match"))
        if PDF_ONLY.exists():
            cls = {(i["paper"], i["text"]): i["class"] for i in
                   json.loads(PDF_ONLY.read_text(encoding="utf-8"))["items"]}
            got = [cls.get((r["paper"], t)) for r in ok for t in r.get("pdf_only", [])]
            s["pdf_only_classes"] = {c: got.count(c) for c in ("real", "fragment", "junk")}
            s["pdf_only_unclassified"] = got.count(None)
    if any("gold" in r for r in rows):
        s["gold"] = sum(r.get("gold", 0) for r in rows)
        s["gold_matched"] = sum(r.get("gold_matched", 0) for r in ok)
        s["recall"] = round(s["gold_matched"] / max(1, s["gold"]), 4)
        s["recall_ci95"] = _wilson(s["gold_matched"], s["gold"])
    return s


def _wilson(k: int, n: int) -> list[float]:
    """A 95% Wilson interval for k of n."""
    if n == 0:
        return [0.0, 1.0]
    z = 1.96
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / den
    return [round(max(0.0, mid - half), 4), round(min(1.0, mid + half), 4)]


def main() -> None:
    """Measure every set and write the JSON report."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", default="after")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--src", help="the claimtrace source tree to measure (default: this checkout's src)")
    ap.add_argument("--speed-ab", metavar="OTHER_SRC",
                    help="only time: OTHER_SRC against this checkout, interleaved, in fresh processes")
    ap.add_argument("--time-once", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.time_once:
        pdfs, _ = _pdfs()
        _parse_all(pdfs[:1])
        cpu0 = time.process_time()
        wall = _parse_all(pdfs)
        print(wall, time.process_time() - cpu0)  # wall and CPU seconds of one parse of every PDF
        return
    run = Run(data=[TWINS])
    if args.speed_ab:
        res = speed_ab(args.speed_ab, args.repeats)
        res["provenance"] = run.finish()
        OUT.mkdir(parents=True, exist_ok=True)
        (OUT / "pdf_twins_speed_ab.json").write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
        print(json.dumps(res), file=sys.stderr)
        return
    if not TWINS.is_dir():
        sys.exit(f"no data at {TWINS}")
    overrides = json.loads(ABSTRACTS.read_text(encoding="utf-8"))["abstracts"] if ABSTRACTS.exists() else {}
    tw = twins(overrides)
    oth = others()
    report = {
        "benchmark": "pdf_twins",
        "label": args.label,
        "definition": (__doc__ or "").strip().split("\n\n", 1)[1].rsplit("\n\nUsage", 1)[0],
        "summary": {"twins": summary(tw), "grobid": summary(oth["grobid"]), "statcheck": summary(oth["statcheck"])},
        "speed": speed(args.repeats) if args.repeats else None,
        "twins": tw, **oth,
        "provenance": run.finish(),
    }
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"pdf_twins_{args.label}.json"
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(report["summary"], indent=2), file=sys.stderr)
    print(json.dumps(report["speed"]), file=sys.stderr)


if __name__ == "__main__":
    main()
