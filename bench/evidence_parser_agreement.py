"""Agreement of the deterministic and the LLM evidence-component parsers on a sample of real EI spans.

Needs a configured LLM (e.g. `scripts/local-llm.sh start` and CLAIMTRACE_LLM_BASE_URL/MODEL). Writes
bench/results/evidence_parser_agreement.json.

    .venv/bin/python bench/evidence_parser_agreement.py [--n 30]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from claimtrace.evaluate.components import DeterministicParser
from claimtrace.evaluate.parsers import agreement, get_parser

ROOT = Path(__file__).resolve().parents[1]
EI = ROOT.parent / "shared" / "data" / "evidence-inference" / "validation" / "prompts.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=30)
    a = ap.parse_args()
    from claimtrace.llm import llm_configured

    if not llm_configured(task="evaluation"):
        sys.exit("no LLM configured (see docs/llm.md); nothing measured")
    spans: list[str] = []
    for line in EI.read_text(encoding="utf-8").splitlines():
        for e in json.loads(line)["evidence"]:
            t = e["text"].strip()
            if t and t not in spans:
                spans.append(t)
    sample = spans[:: max(1, len(spans) // a.n)][: a.n]
    t0 = time.perf_counter()
    rep = agreement(sample, DeterministicParser(), get_parser("llm"))
    out = {**rep.model_dump(), "seconds": round(time.perf_counter() - t0, 1)}
    (ROOT / "bench" / "results").mkdir(parents=True, exist_ok=True)
    (ROOT / "bench" / "results" / "evidence_parser_agreement.json").write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
