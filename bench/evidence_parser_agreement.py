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
from provenance import Run

ROOT = Path(__file__).resolve().parents[1]
EI = ROOT.parent / "shared" / "data" / "evidence-inference" / "validation" / "prompts.jsonl"


def _plain(v: object) -> object:
    return [x.model_dump() if hasattr(x, "model_dump") else x for x in v] if isinstance(v, list) else v


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
    run = Run(data=[EI])
    t0 = time.perf_counter()
    det, llm = DeterministicParser(), get_parser("llm")
    rep = agreement(sample, det, llm)
    seconds = round(time.perf_counter() - t0, 1)
    # per text, both parsers' components (the LLM answers come from the cache now), for adjudication
    details = []
    for t in sample:
        pd, pl = det.parse(t), llm.parse(t)
        details.append({"text": t, **{k: {"deterministic": _plain(getattr(pd, k)), "llm": _plain(getattr(pl, k))}
                                      for k in ("intervals", "test_family", "sample_size")}})
    out = {**rep.model_dump(), "seconds": seconds, "details": details, "provenance": run.finish()}
    (ROOT / "bench" / "results").mkdir(parents=True, exist_ok=True)
    (ROOT / "bench" / "results" / "evidence_parser_agreement.json").write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps({k: v for k, v in out.items() if k != "details"}, indent=1))


if __name__ == "__main__":
    main()
