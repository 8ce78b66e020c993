"""Repeated code in src/: the pairs the `duplicates` tool finds (six or more shared or same-shape lines).

    python bench/duplicates_src.py --label after --out bench/results/duplicates_src_after.json
    python bench/duplicates_src.py --rev d9fd1a0 --label before --out bench/results/duplicates_src_before.json

Runs ``duplicates --repo src --most 200`` over this checkout's src/ (or over ``git archive REV`` of it), and
records the header counts and each pair with the package areas it joins (``cli``, ``stats``, ``cli+stats``).
The tool is a developer command (/usr/local/bin/duplicates here); where it is absent the script says so.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from provenance import REPO, Run

_HEAD = re.compile(r"^(\d+) pairs of places \((\d+) files read\).*?\((\d+) by shape alone, (\d+) of those marked "
                   r"boilerplate\)")
_ROW = re.compile(r"^(D\d+) (\S+?):(\d+)-(\d+) ~ (\S+?):(\d+)-(\d+)(.*)$")


def area(path: str) -> str:
    """The package area of a file under src/claimtrace: its subpackage, or the module's name."""
    parts = Path(path).parts
    return parts[1] if len(parts) > 2 else Path(parts[-1]).stem


def parse(text: str) -> dict[str, Any]:
    """The tool's report as counts and rows."""
    lines = text.splitlines()
    m = _HEAD.match(lines[0]) if lines else None
    if not m:
        sys.exit(f"error: unexpected duplicates output: {lines[:1]}")
    rows = []
    for ln in lines[1:]:
        r = _ROW.match(ln)
        if r:
            a, b = area(r.group(2)), area(r.group(5))
            rows.append({"id": r.group(1), "a": f"{r.group(2)}:{r.group(3)}-{r.group(4)}",
                         "b": f"{r.group(5)}:{r.group(6)}-{r.group(7)}",
                         "areas": a if a == b else "+".join(sorted((a, b))),
                         "shape": " shape" in r.group(8), "boilerplate": "boilerplate" in r.group(8)})
    return {"pairs": int(m.group(1)), "files_read": int(m.group(2)), "by_shape": int(m.group(3)),
            "boilerplate": int(m.group(4)), "identical": int(m.group(1)) - int(m.group(3)),
            "per_area": dict(sorted(Counter(r["areas"] for r in rows).items())), "rows": rows,
            "notes": [ln for ln in lines if ln.startswith(("left out:", "incomplete:", "(+"))]}


def main() -> None:
    """Run the tool over src/ (this checkout or a revision) and write the result file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", default=None, help="a git revision to measure instead of the working tree")
    ap.add_argument("--label", required=True)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    tool = shutil.which("duplicates")
    if tool is None:
        sys.exit("error: the `duplicates` command is not installed here")
    run = Run(data=[])
    with tempfile.TemporaryDirectory() as tmp:
        root = REPO
        if args.rev:
            archive = Path(tmp) / "src.tar"
            subprocess.run(["git", "archive", "-o", str(archive), args.rev, "src"], cwd=REPO, check=True)
            with tarfile.open(archive) as tf:
                tf.extractall(tmp, filter="data")
            root = Path(tmp)
        res = subprocess.run([tool, "--repo", "src", "--most", "200", "--seconds", "120"], cwd=root,
                             capture_output=True, text=True, check=True)
    rev = args.rev or "working tree"
    result = {"schema_version": "1", "label": args.label, "revision": rev,
              "tool_command": "duplicates --repo src --most 200 --seconds 120", **parse(res.stdout),
              "provenance": run.finish()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({k: result[k] for k in ("label", "pairs", "identical", "by_shape", "boilerplate", "per_area")}))


if __name__ == "__main__":
    main()
