"""What the screening-check benches share (bench/checks_psychsci.py, checks_fresh.py, checks_refs_psychsci.py): a
flag's stable key, a share with its Wilson interval, the figure as text, and the result file's writer."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def row_key(paper: str, row: dict[str, Any]) -> str:
    """A stable key of a flag: paper, check, sentence and offset (a row with no sentence, such as a reference entry
    never cited: its entry's or link's id)."""
    loc = row.get("location") or {}
    if loc.get("unit_id") is None:
        d = row.get("data") or {}
        return f"{paper}:{row['check']}:{d.get('ref_id') or d.get('url') or d.get('topic') or row['message']}"
    return f"{paper}:{row['check']}:{loc.get('unit_id')}:{loc.get('start')}"


def wilson(k: int, n: int) -> dict[str, Any]:
    """Share k/n with its Wilson 95% interval."""
    from scipy.stats import binomtest

    if n == 0:
        return {"k": 0, "n": 0, "share": None, "ci95": None}
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return {"k": k, "n": n, "share": round(k / n, 4), "ci95": [round(float(ci.low), 4), round(float(ci.high), 4)]}


def ci_text(d: dict[str, Any]) -> str:
    """A share as a page prints it: "0.95 (19/20; 95% CI 0.76-0.99)"."""
    if not d["n"]:
        return "n/a"
    lo, hi = d["ci95"]
    return f"{d['share']:.2f} ({d['k']}/{d['n']}; 95% CI {lo:.2f}-{hi:.2f})"


def read_result(path: Path) -> dict[str, Any] | None:
    """A committed result file, or None where it is absent."""
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def write_result(path: Path, root: Path, result: dict[str, Any], todo: list[tuple[str, dict[str, Any]]],
                 show: bool) -> None:
    """Write the result JSON; with ``show``, first print each flag still without a judgement (one JSON line)."""
    if show:
        seen: set[str] = set()
        for key, r in todo:
            if key not in seen:
                seen.add(key)
                print(json.dumps({"key": key, "message": r["message"], "text": r.get("text")}, ensure_ascii=False))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {path.relative_to(root)}: {len({k for k, _ in todo})} flags without a judgement", file=sys.stderr)
