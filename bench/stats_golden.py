"""Golden outputs of the statistics engine over a large real corpus (guard for speed work on the parser).

Runs ``parse`` (plain and with ``descriptives=True``), ``check`` on every parsed result, ``analyze``,
``mentions_one_tailed`` and, for every Document, ``analyze_document`` over:

- the Evidence-Inference train + validation articles: abstract and body of the JATS ``.nxml`` (read with
  ``claimtrace.documents.load_document``) and the plain ``.txt`` articles;
- every gold evidence span of both ``prompts.jsonl`` files (distinct texts);
- the statcheck test papers (PDF and HTML) and the ``documents/`` corpus (every file the reader takes).

Writes one JSON line per (input, function) to the output file (default /tmp/stats_golden.json); two runs
of an unchanged engine give byte-identical files, so ``cmp`` / ``diff`` of two dumps checks that a change
keeps every output (keys in the order the models dump them). Documents are read once and cached as JSON
under /tmp (``--cache``). ``STATS_GOLDEN_SRC=/path/to/src`` runs another copy of the engine (an older
commit's ``src``, e.g. from ``git archive``) on the same inputs.

    .venv/bin/python bench/stats_golden.py /tmp/stats_golden_before.json
    .venv/bin/python bench/stats_golden.py --texts-only /tmp/stats_golden_texts.json   # no Documents: minutes
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, os.environ.get("STATS_GOLDEN_SRC", str(ROOT / "src")))

# scipy loaded first: the engine's distributions then use scipy from the first value (stats/distributions.py
# takes mpmath for a process's first values otherwise), as every older engine did, so dumps stay comparable
import scipy.special  # noqa: E402, F401

from claimtrace.documents import load_document  # noqa: E402
from claimtrace.documents.model import Document  # noqa: E402
from claimtrace.stats import analyze, analyze_document, check, mentions_one_tailed, parse  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
EI = DATA / "evidence-inference"


def _doc_files() -> list[Path]:
    files: list[Path] = []
    for split in ("validation", "train"):
        files += sorted((EI / split / "articles").glob("*.nxml"))
    files += sorted(p for p in (DATA / "statistics" / "statcheck-test-papers").iterdir()
                    if p.suffix in (".pdf", ".htm"))
    files += sorted(p for p in (DATA / "documents").rglob("*") if p.is_file() and p.name != "LICENSE")
    return files


def _documents(cache: Path) -> list[tuple[str, Document]]:
    """Every readable document of the corpus, as (relative path, Document); read once, then from ``cache``."""
    if cache.exists():
        raw = json.loads(cache.read_text(encoding="utf-8"))
        return [(name, Document.model_validate_json(js)) for name, js in raw]
    out: list[tuple[str, Document]] = []
    for f in _doc_files():
        try:
            doc = load_document(f)
        except Exception as exc:  # a file the reader does not take is skipped (and reported)
            print(f"skip {f.relative_to(DATA)}: {type(exc).__name__}", file=sys.stderr)
            continue
        out.append((str(f.relative_to(DATA)), doc))
    cache.write_text(json.dumps([(name, doc.model_dump_json()) for name, doc in out]), encoding="utf-8")
    return out


def _texts(docs: list[tuple[str, Document]]) -> list[tuple[str, str]]:
    """(label, text) of every plain-text input: abstracts, bodies, .txt articles, distinct evidence spans."""
    out: list[tuple[str, str]] = []
    for name, doc in docs:
        out.append((f"{name}#abstract", doc.abstract_text))
        out.append((f"{name}#body", doc.body_text))
    for split in ("validation", "train"):
        for f in sorted((EI / split / "articles").glob("*.txt")):
            out.append((str(f.relative_to(DATA)), f.read_text(encoding="utf-8")))
    seen: set[str] = set()
    for split in ("validation", "train"):
        with (EI / split / "prompts.jsonl").open(encoding="utf-8") as fh:
            for line in fh:
                rec = json.loads(line)
                for ev in rec.get("evidence", []):
                    text = ev["text"]
                    if text not in seen:
                        seen.add(text)
                        out.append((f"evidence/{split}/{rec['prompt_id']}/{ev['start']}", text))
    return out


def _dump(results: list[Any]) -> list[dict[str, Any]]:
    return [r.model_dump() for r in results]


def main() -> None:
    """Run the engine over the corpus and write the dump."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", nargs="?", default="/tmp/stats_golden.json")
    ap.add_argument("--cache", default="/tmp/stats_golden_docs.json", help="cached Documents (JSON)")
    ap.add_argument("--texts-only", action="store_true",
                    help="only the plain-text inputs (.txt articles, evidence spans): no document is read (quick)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    docs = [] if args.texts_only else _documents(Path(args.cache))
    texts = _texts(docs)
    n_results = 0
    digest = hashlib.sha256()
    with open(args.out, "w", encoding="utf-8") as fh:
        def emit(label: str, fn: str, value: Any) -> None:
            line = json.dumps({"in": label, "fn": fn, "out": value}, ensure_ascii=False) + "\n"
            digest.update(line.encode("utf-8"))
            fh.write(line)

        for label, text in texts:
            ctx = mentions_one_tailed(text)
            parsed = parse(text)
            n_results += len(parsed)
            emit(label, "mentions_one_tailed", ctx)
            emit(label, "parse", _dump(parsed))
            emit(label, "check", _dump([check(r, one_tailed_context=ctx) for r in parsed]))
            emit(label, "check_one_tailed", _dump([check(r, alpha=0.01, one_tailed_context=True) for r in parsed]))
            emit(label, "analyze", _dump(analyze(text)))
            emit(label, "parse_descriptives", _dump(parse(text, descriptives=True)))
        for name, doc in docs:
            emit(name, "analyze_document", [r.model_dump() for r in analyze_document(doc)])
    import claimtrace.stats.parser as parser_module

    print(json.dumps({"engine": parser_module.__file__, "documents": len(docs), "texts": len(texts), "parse_results": n_results,
                      "sha256": digest.hexdigest(), "seconds": round(time.perf_counter() - t0, 1)}))


if __name__ == "__main__":
    main()
