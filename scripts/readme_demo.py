"""Write the README's "What `make demo` prints" block from a real run of the demo commands.

Runs ``claimtrace stats`` and ``claimtrace extract --extractor embedded`` (the commands of ``make demo``) on the
bundled paper with this checkout's ``src``, and replaces the text between ``<!-- demo:start -->`` and
``<!-- demo:end -->`` in README.md. ``--check`` only says whether the README is current (exit 1 if not).

Usage: ``python scripts/readme_demo.py [--check]``
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLE = "examples/PMC1090588.nxml"
START, END = "<!-- demo:start -->", "<!-- demo:end -->"


def claimtrace(*args: str) -> str:
    """Run a claimtrace command from this checkout; its stdout."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "CLAIMTRACE_LOG_LEVEL": "WARNING"}
    for var in ("CLAIMTRACE_LLM_BASE_URL", "CLAIMTRACE_LLM_MODEL", "CLAIMTRACE_SETTINGS"):
        env.pop(var, None)
    res = subprocess.run([sys.executable, "-m", "claimtrace", *args], cwd=REPO, env=env, capture_output=True,
                         text=True, check=False)
    if res.returncode != 0:
        sys.exit(f"error: claimtrace {' '.join(args)} failed: {res.stderr.strip()}")
    return "\n".join(line.rstrip() for line in res.stdout.splitlines())


def first_trace(report: str) -> str:
    """The title and the first finding's block of an ``extract`` report (timings dropped: they vary)."""
    blocks = report.split("\n\n")
    text = "\n\n".join(blocks[:2])
    return re.sub(r"; [0-9.]+ s$", "", text, flags=re.M)


def block() -> str:
    """The generated README text."""
    stats = claimtrace("stats", SAMPLE)
    trace = first_trace(claimtrace("extract", SAMPLE, "--extractor", "embedded"))
    return (
        f"{START}\n"
        "<!-- written by scripts/readme_demo.py from a real run; do not edit by hand -->\n"
        f"`claimtrace stats {SAMPLE}` finds every statistical result, recomputes the p-value of each test "
        "with degrees of freedom and flags the ones that do not match the reported p:\n\n"
        f"```text\n{stats}\n```\n\n"
        f"`claimtrace extract {SAMPLE} --extractor embedded` then traces each abstract finding to a hypothesis "
        "and to the statistical evidence (the first of its findings):\n\n"
        f"```text\n{trace}\n```\n"
        f"{END}"
    )


def main() -> None:
    """Rewrite (or check) the README block."""
    readme = REPO / "README.md"
    text = readme.read_text(encoding="utf-8")
    if START not in text or END not in text:
        sys.exit(f"error: README.md has no {START} ... {END} block")
    new = re.sub(re.escape(START) + r".*?" + re.escape(END), lambda _: block(), text, flags=re.S)
    if "--check" in sys.argv[1:]:
        if new != text:
            sys.exit("README.md's demo block is out of date: run python scripts/readme_demo.py")
        print("README.md's demo block is current")
        return
    readme.write_text(new, encoding="utf-8")
    print("README.md: demo block rewritten", file=sys.stderr)


if __name__ == "__main__":
    main()
