"""Extra claim traces on Psychological Science papers outside the 60-paper gold set, stored as offsets.

The articles are SAGE's, so ``psychsci-extra.jsonl`` holds no article text: every finding, hypothesis and
evidence string is a location ``{"block", "start", "end", "sha1"}`` in the plain rendering of the shared TEI
made by ``../shared/data/traces/render.py`` (the rendering the annotators read). ``load_extra`` rebuilds the
verbatim records (the keys of ``psychsci-dev.jsonl``) and checks every string's sha1.

    python bench/data/traces-extra/load.py --check                  # load everything, print counts
    python bench/data/traces-extra/load.py --build VERBATIM.jsonl   # verbatim annotations -> offsets file

Blocks: ``TITLE``, ``ABSTRACT``, ``P1``, ``P2`` ... (body paragraphs as numbered by render.py), ``TABLE1`` ...
Offsets are character offsets in that block's text as render.py prints it (after its ``[P12] `` label).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import importlib.util
import json
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OFFSETS = HERE / "psychsci-extra.jsonl"
DEFAULT_SHARED = HERE.parents[3] / "shared"
ANNOTATOR = "LLM agent (Claude, 2026-12-02), not checked by a person"
TEXT_KEYS = ("hypothesis", "evidence")
_P = re.compile(r"^\[P(\d+)\] (.*)$")
_T = re.compile(r"^\[TABLE (\d+)\] (.*)$")


def data_dir(shared_dir: str | Path) -> Path:
    """The ``data`` folder of the shared tree (``shared_dir`` may be ``shared`` or ``shared/data``)."""
    p = Path(shared_dir)
    return p / "data" if (p / "data" / "traces").is_dir() else p


@functools.cache
def _render_module(render_py: Path) -> Any:
    spec = importlib.util.spec_from_file_location("ct_render", render_py)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(f"cannot load {render_py}")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def blocks_of(shared_dir: str | Path, paper: str) -> dict[str, str]:
    """The rendering of one paper's TEI by the shared render.py, as ``{block id: text}``."""
    d = data_dir(shared_dir)
    return blocks_of_tei(shared_dir, d / "documents" / "psychsci" / paper)


def blocks_of_tei(shared_dir: str | Path, tei: str | Path) -> dict[str, str]:
    """The rendering of any TEI file by the shared render.py, as ``{block id: text}``."""
    text: str = _render_module(data_dir(shared_dir) / "traces" / "render.py").render(str(tei))
    out: dict[str, str] = {}
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("TITLE: "):
            out["TITLE"] = line[len("TITLE: ") :]
        elif line == "ABSTRACT:" and "ABSTRACT" not in out:
            out["ABSTRACT"] = lines[i + 1] if i + 1 < len(lines) else ""
        elif m := _P.match(line):
            out[f"P{m.group(1)}"] = m.group(2)
        elif m := _T.match(line):
            out[f"TABLE{m.group(1)}"] = m.group(2)
    return out


def sha(s: str) -> str:
    """The first 12 hex digits of a string's sha1 (UTF-8)."""
    return hashlib.sha1(s.encode("utf-8")).hexdigest()[:12]


def locate(blocks: dict[str, str], s: str, prefer: tuple[str, ...]) -> dict[str, Any]:
    """The location of ``s`` in the rendering, preferring blocks whose id starts with one of ``prefer``."""
    order = [b for b in blocks if b.startswith(prefer)] + [b for b in blocks if not b.startswith(prefer)]
    for b in order:
        i = blocks[b].find(s)
        if i >= 0:
            return {"block": b, "start": i, "end": i + len(s), "sha1": sha(s)}
    raise ValueError(f"string not in the rendering: {s[:60]!r}")


def resolve(blocks: dict[str, str], loc: dict[str, Any], paper: str) -> str:
    """The string at one location, checked against its sha1."""
    s = blocks.get(loc["block"], "")[loc["start"] : loc["end"]]
    if sha(s) != loc["sha1"]:
        raise ValueError(f"{paper}: sha1 mismatch at {loc['block']}[{loc['start']}:{loc['end']}]")
    return s


def _paras(locs: list[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(loc["block"] for loc in locs))


def rows_of(path: str | Path) -> list[dict[str, Any]]:
    """The JSON objects of a jsonl file, blank lines skipped."""
    return [json.loads(x) for x in Path(path).read_text(encoding="utf-8").splitlines() if x.strip()]


def load_extra(shared_dir: str | Path, path: str | Path = OFFSETS,
               blocks: Callable[[str | Path, str], dict[str, str]] = blocks_of) -> list[dict[str, Any]]:
    """The verbatim extra traces (keys of psychsci-dev.jsonl, plus ``annotator``), rebuilt from the offsets;
    ``blocks``: a paper's rendering (default: its TEI in ``documents/psychsci``)."""
    out: list[dict[str, Any]] = []
    for r in rows_of(path):
        if r.get("skipped"):
            continue
        b = blocks(shared_dir, r["paper"])
        rec: dict[str, Any] = {
            "paper": r["paper"],
            "finding": resolve(b, r["finding"], r["paper"]),
            "finding_source": r["finding_source"],
        }
        for k in TEXT_KEYS:
            rec[k] = [resolve(b, loc, r["paper"]) for loc in r[k]]
            rec[f"{k}_paragraphs"] = _paras(r[k])
        rec["statistics"] = r["statistics"]
        rec["confidence"] = r["confidence"]
        rec["notes"] = r["notes"]
        rec["annotator"] = r["annotator"]
        out.append(rec)
    return out


def skipped(path: str | Path = OFFSETS) -> list[dict[str, Any]]:
    """The papers recorded as skipped, with their reasons."""
    return [r for r in rows_of(path) if r.get("skipped")]


def build(verbatim: str | Path, shared_dir: str | Path, path: str | Path = OFFSETS,
          blocks: Callable[[str | Path, str], dict[str, str]] = blocks_of) -> int:
    """Convert the verbatim annotation file to the offsets file; returns the number of lines written."""
    rows: list[dict[str, Any]] = []
    for v in rows_of(verbatim):
        if v.get("skipped"):
            rows.append({"paper": v["paper"], "skipped": v["skipped"], "annotator": ANNOTATOR})
            continue
        b = blocks(shared_dir, v["paper"])
        first = ("ABSTRACT",) if v["finding_source"] == "abstract" else ("P",)
        row: dict[str, Any] = {"paper": v["paper"], "finding": locate(b, v["finding"], first)}
        row["finding_source"] = v["finding_source"]
        for k in TEXT_KEYS:
            row[k] = [locate(b, s, ("P", "TABLE")) for s in v[k]]
        for k in ("statistics", "confidence", "notes"):
            row[k] = v[k]
        row["annotator"] = ANNOTATOR
        rows.append(row)
    rows.sort(key=lambda r: r["paper"])
    Path(path).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return len(rows)


def counts(recs: list[dict[str, Any]], sk: list[dict[str, Any]]) -> dict[str, Any]:
    """What ``--check`` prints: traces, skipped papers, confidence and finding sources, strings checked."""
    return {
        "traces": len(recs),
        "skipped": [{"paper": r["paper"], "reason": r["skipped"]} for r in sk],
        "confidence": dict(Counter(r["confidence"] for r in recs)),
        "finding_source": dict(Counter(r["finding_source"] for r in recs)),
        "hypothesis_strings": sum(len(r["hypothesis"]) for r in recs),
        "evidence_strings": sum(len(r["evidence"]) for r in recs),
        "sha1_checked": sum(1 + len(r["hypothesis"]) + len(r["evidence"]) for r in recs),
    }


def main(argv: list[str] | None = None) -> int:
    """The command line: ``--check`` or ``--build VERBATIM``."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="load every trace, verify sha1s, print counts")
    ap.add_argument("--build", metavar="VERBATIM", help="write the offsets file from a verbatim jsonl")
    ap.add_argument("--shared", default=str(DEFAULT_SHARED), help="the shared tree (default ../shared)")
    a = ap.parse_args(argv)
    if not (data_dir(a.shared) / "traces" / "render.py").is_file():
        print(f"error: no traces/render.py under {a.shared}", file=sys.stderr)
        return 2
    try:
        if a.build:
            n = build(a.build, a.shared)
            print(f"wrote {n} lines to {OFFSETS}", file=sys.stderr)
        if a.check or not a.build:
            print(json.dumps(counts(load_extra(a.shared), skipped())))
    except (ValueError, OSError, KeyError, ImportError, json.JSONDecodeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
