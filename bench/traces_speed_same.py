"""Guard for speed work: the offline traces of the psychsci papers are the same before and after, field for field.

    .venv/bin/python bench/traces_speed_same.py --save /tmp/before.jsonl [--papers 100]    # on the old tree
    .venv/bin/python bench/traces_speed_same.py --compare /tmp/before.jsonl                 # on the new tree

Runs the corpus worker (``claimtrace.corpus.work.Worker``, steps parse and traces, the default settings of
``claimtrace run``) in this process over the first N GROBID TEI papers of ``../shared/data/documents/psychsci`` and
writes, one JSON line a paper: the sha256 of the parsed Document's JSON, the worker's traces rows (what a corpus
run stores) and every ClaimTrace of ``extract_traces`` as JSON less its ``timings`` (the only field that may
change). ``--compare`` recomputes them and prints each paper and field that differs; exit status 1 when any does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO.parent / "shared" / "data" / "documents" / "psychsci"


def paper_record(worker: Any, path: Path) -> dict[str, Any]:
    """What must not change for one paper: the Document's hash, the worker's traces rows, the ClaimTraces."""
    from claimtrace.corpus.work import CorpusItem, PaperTask, sha256_of, step_keys
    from claimtrace.extract.pipeline import extract_traces

    s = worker.settings
    task = PaperTask(item=CorpusItem(path=str(path)), paper_id=sha256_of(path), steps=s.steps, keys=step_keys(s))
    res = worker.process(task)
    doc = worker._parse(str(path))
    traces = extract_traces(doc, extractor=worker._extractor, config=s.config,
                            max_evidence_sentences=s.max_evidence_sentences)
    return {"paper": path.name,
            "document_sha256": hashlib.sha256(doc.model_dump_json().encode()).hexdigest(),
            "errors": res.errors, "paper_fields": res.paper, "rows": res.rows,
            "traces": [{k: v for k, v in t.model_dump(mode="json").items() if k != "timings"} for t in traces]}


def diff(a: Any, b: Any, where: str = "") -> list[str]:
    """The paths at which two JSON values differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in diff(a.get(k), b.get(k), f"{where}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in diff(x, y, f"{where}[{i}]")]
    return [] if a == b else [where or "."]


def main() -> None:
    """Write or compare the records of the first N papers."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--save", metavar="FILE")
    g.add_argument("--compare", metavar="FILE")
    ap.add_argument("--papers", type=int, default=100)
    args = ap.parse_args()
    files = sorted(DOCS.glob("*.xml"))[: args.papers]
    if not files:
        print(f"error: no papers in {DOCS}", file=sys.stderr)
        raise SystemExit(2)
    from claimtrace.corpus.work import Worker
    from claimtrace.settings import CorpusSettings

    worker = Worker(CorpusSettings(steps=["parse", "traces"]))
    records = [json.loads(json.dumps(paper_record(worker, f), default=str)) for f in files]
    if args.save:
        Path(args.save).write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
        print(f"{len(records)} papers written to {args.save}", file=sys.stderr)
        return
    try:
        old = {r["paper"]: r for r in map(json.loads, Path(args.compare).read_text().splitlines())}
    except (OSError, ValueError) as exc:
        print(f"error: cannot read {args.compare}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    bad = 0
    for r in records:
        d = diff(old.get(r["paper"]), r)
        if d:
            bad += 1
            print(r["paper"], ", ".join(d[:8]), file=sys.stderr)
    n_traces = sum(len(r["traces"]) for r in records)
    print(f"{len(records) - bad} of {len(records)} papers identical ({n_traces} traces)", file=sys.stderr)
    raise SystemExit(1 if bad else 0)


if __name__ == "__main__":
    main()
