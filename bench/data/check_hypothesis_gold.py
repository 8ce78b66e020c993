"""Validate bench/data/ei-hypotheses.jsonl against the parsed Documents.

For every line: re-parse the paper with claimtrace, then check that
- the finding is a substring of the Document's abstract_text,
- every hypothesis unit is a BODY sentence id of the Document,
- the hypothesis text equals the units' texts joined by a single space,
- the section equals the units' paragraph section, the alt_units (if any) exist,
- kind is one of the allowed values, ids are unique.
A paper whose Document has no body at all may have empty hypothesis_units, hypothesis "" and section null,
provided the row has a note (it is then skipped by the unit checks).

Usage: .venv/bin/python bench/data/check_hypothesis_gold.py [path/to/ei-hypotheses.jsonl]
Exit status 0 when every check passes.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from claimtrace import load_document

KINDS = {"explicit hypothesis", "aim", "research question"}
DEFAULT = Path(__file__).with_name("ei-hypotheses.jsonl")


def check(path: Path) -> list[str]:
    errors: list[str] = []
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    seen: Counter[str] = Counter(r["id"] for r in rows)
    for pid, n in seen.items():
        if n > 1:
            errors.append(f"{pid}: duplicated id ({n} lines)")
    for r in rows:
        pid = r["id"]
        if r.get("kind") not in KINDS:
            errors.append(f"{pid}: bad kind {r.get('kind')!r}")
        if not Path(r["doc"]).name.startswith(pid):
            errors.append(f"{pid}: doc path {r['doc']} does not match id")
        doc_path = Path(r["doc"]) if Path(r["doc"]).is_absolute() else (path.parent / r["doc"]).resolve()
        doc = load_document(doc_path)  # relative paths resolve against the dataset file, as the runner does
        if r["finding"] not in doc.abstract_text:
            errors.append(f"{pid}: finding is not a substring of abstract_text")
        body = {s.id: (s.text, p.section) for p in doc.paragraphs for s in p.sentences}
        units = r["hypothesis_units"]
        if not units and not body and r.get("note") and r["hypothesis"] == "" and r["section"] is None:
            continue  # a paper whose Document has no body (abstract only): no gold units, explained in the note
        if not 1 <= len(units) <= 2:
            errors.append(f"{pid}: expected 1 or 2 hypothesis units, got {len(units)}")
        missing = [u for u in units if u not in body]
        if missing:
            errors.append(f"{pid}: hypothesis units not in the body: {missing}")
            continue
        joined = " ".join(body[u][0] for u in units)
        if joined != r["hypothesis"]:
            errors.append(f"{pid}: hypothesis text != units joined by a space")
        sections = {body[u][1] for u in units}
        if sections != {r["section"]}:
            errors.append(f"{pid}: section {r['section']!r} != units' section(s) {sections}")
        bad_alt = [u for u in r.get("alt_units", []) if u not in body]
        if bad_alt:
            errors.append(f"{pid}: alt_units not in the body: {bad_alt}")
    return errors


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else DEFAULT
    errors = check(path)
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    kinds = Counter(r["kind"] for r in rows)
    print(f"{path}: {len(rows)} papers; kinds: {dict(sorted(kinds.items()))}")
    for e in errors:
        print("FAIL", e)
    print("OK" if not errors else f"{len(errors)} error(s)")
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
