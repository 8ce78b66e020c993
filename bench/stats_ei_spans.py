"""Statistics in the Evidence-Inference validation evidence spans.

Writes bench/results/stats_ei_spans.json (share of spans with at least one result, by kind) and
bench/results/stats_ei_sample.md: a seeded random sample of 50 distinct spans with our parse, for the
check (by an LLM agent (Claude, 2026-11-30), not checked by a person) recorded in
bench/results/stats_ei_handcheck.json.
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from claimtrace.stats import StatResult, analyze  # noqa: E402

PROMPTS = ROOT.parent / "shared" / "data" / "evidence-inference" / "validation" / "prompts.jsonl"
RESULTS = ROOT / "bench" / "results"
SEED = 20240501


def _spans() -> list[str]:
    seen: dict[str, None] = {}
    for line in PROMPTS.read_text(encoding="utf-8").splitlines():
        for ev in json.loads(line)["evidence"]:
            seen.setdefault(ev["text"], None)
    return list(seen)


def _fmt(r: StatResult) -> str:
    parts = [f"`{' '.join(r.text.split())}`", f"kind={r.kind}"]
    if r.test:
        parts.append(f"test={r.test}" + (f"({r.test_detail})" if r.test_detail else ""))
    if r.df1 is not None:
        parts.append(f"df={r.df1:g}" + (f",{r.df2:g}" if r.df2 is not None else ""))
    if r.value is not None:
        parts.append(f"value={r.value:g}")
    if r.p_comparison:
        parts.append(f"p {r.p_comparison} {r.p_value:g}" if r.p_value is not None else "p ns")
    if r.ci_low is not None:
        parts.append(f"CI{'' if r.ci_level is None else f'{r.ci_level:g}%'} [{r.ci_low:g}, {r.ci_high:g}]")
    if r.se is not None:
        parts.append(f"SE={r.se:g}")
    if r.n is not None:
        parts.append(f"n={r.n}")
    if r.descriptives:
        parts.append("desc=" + ", ".join(f"{d.kind}:{d.value:g}" + (f"/{d.total}" if d.total else "")
                                         for d in r.descriptives))
    if r.effects:
        parts.append("effects=" + ", ".join(f"{e.measure}={e.value:g}" for e in r.effects))
    if r.significant is not None:
        parts.append(f"significant={r.significant}")
    return "; ".join(parts)


def main() -> None:
    """Measure the share and dump the sample."""
    from provenance import Run

    run = Run(data=[PROMPTS])
    spans = _spans()
    parsed = [analyze(s) for s in spans]
    with_any = sum(bool(p) for p in parsed)
    kinds = Counter(r.kind for p in parsed for r in p)
    comp: Counter[str] = Counter()
    for p in parsed:
        if any(r.p_comparison for r in p):
            comp["p"] += 1
        if any(r.ci_low is not None for r in p):
            comp["ci"] += 1
        if any(r.test in ("t", "F", "chi2", "r", "z", "Q", "U", "W", "H") for r in p):
            comp["test_statistic"] += 1
        if any(r.descriptives for r in p):
            comp["descriptives"] += 1
    report = {
        "split": "validation",
        "spans": len(spans),
        "spans_with_result": with_any,
        "share_with_result": round(with_any / len(spans), 4),
        "results": sum(len(p) for p in parsed),
        "results_by_kind": dict(kinds),
        "spans_with_component": dict(comp),
        "provenance": run.finish(),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "stats_ei_spans.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    rng = random.Random(SEED)
    idx = sorted(rng.sample(range(len(spans)), 50))
    lines = [f"# Hand-check sample: 50 EI validation evidence spans (seed {SEED})\n"]
    for k, i in enumerate(idx, 1):
        lines.append(f"## {k}. span {i}\n\n> {' '.join(spans[i].split())}\n")
        lines.extend(f"- {_fmt(r)}" for r in parsed[i])
        if not parsed[i]:
            lines.append("- (no result)")
        lines.append("")
    (RESULTS / "stats_ei_sample.md").write_text("\n".join(lines), encoding="utf-8")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
