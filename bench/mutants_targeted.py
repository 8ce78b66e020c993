"""The three deliberate bugs of issue 18, applied one at a time: which tests notice them.

    python bench/mutants_targeted.py --out bench/results/mutants_targeted.json

Each mutant is a one-line edit of the package source in a scratch copy of ``src/`` (the working tree is
never touched). For each, the tests that exercise that code (``OLD_TESTS``: the suite's files for the LLM
cache, the offline conclusion and the statistics engine) and ``tests/test_mutants.py`` (issue 18) run
against the mutated copy; a mutant is *killed* by a run that fails. The unmutated copy must pass both.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from provenance import REPO, Run

MUTANTS = [
    {"name": "LLM cache key ignores the JSON schema", "file": "src/claimtrace/llm/cache.py",
     "old": '"schema": schema,', "new": '"schema": None,'},
    {"name": "offline conclusion reads a ratio's direction the wrong way round",
     "file": "src/claimtrace/conclude/offline.py",
     "old": "rd.direction = 1 if e.value > 1.0 else -1", "new": "rd.direction = 1 if e.value < 1.0 else -1"},
    {"name": "CI-symmetry check always passes", "file": "src/claimtrace/stats/check.py",
     "old": "symmetric = abs((c - b) - (b - a)) <= tol", "new": "symmetric = True"},
    {"name": "CI-symmetry check on the linear scale for ratios", "file": "src/claimtrace/stats/check.py",
     "old": "if ratio and lo > 0 and est > 0:", "new": "if False:"},
]
OLD_TESTS = ["tests/test_llm_faults.py", "tests/test_llm_prompts.py", "tests/test_conclude_offline.py",
             "tests/test_conclude_quotes.py", "tests/test_stats_properties.py", "tests/test_stats_real.py",
             "tests/test_stats_cli.py"]
NEW_TESTS = ["tests/test_mutants.py"]


def _pytest(src: Path, tests: list[str]) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    res = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-m", "not llm",
                          *tests], cwd=REPO, env=env, capture_output=True, text=True)
    return {"failed": res.returncode != 0, "returncode": res.returncode,
            "summary": (res.stdout.strip().splitlines() or [""])[-1]}


def main() -> None:
    """Apply each mutant to a scratch copy of src/ and run the old and the new tests against it."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    run = Run(data=[REPO / m["file"] for m in MUTANTS])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        shutil.copytree(REPO / "src", src)
        baseline = {"old_tests": _pytest(src, OLD_TESTS), "new_tests": _pytest(src, NEW_TESTS)}
        for m in MUTANTS:
            path = Path(tmp) / m["file"]
            original = path.read_text(encoding="utf-8")
            if original.count(m["old"]) != 1:
                raise SystemExit(f"{m['file']}: the mutated line is not there exactly once: {m['old']!r}")
            path.write_text(original.replace(m["old"], m["new"]), encoding="utf-8")
            try:
                old, new = _pytest(src, OLD_TESTS), _pytest(src, NEW_TESTS)
            finally:
                path.write_text(original, encoding="utf-8")
            rows.append({**m, "killed_by_old_tests": old["failed"], "old_tests": old,
                         "killed_by_new_tests": new["failed"], "new_tests": new})
            print(f"{m['name']}: old tests {'kill' if old['failed'] else 'miss'} it, "
                  f"new tests {'kill' if new['failed'] else 'miss'} it", file=sys.stderr)
    result = {"schema_version": "1", "old_tests": OLD_TESTS, "new_tests": NEW_TESTS, "baseline": baseline,
              "mutants": rows, "provenance": run.finish()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
