"""Adjudication of the disagreements between the deterministic and the LLM component parsers.

Reads bench/results/evidence_parser_agreement.json (written by bench/evidence_parser_agreement.py),
lists every text where the two parsers differ on test family, sample size/df or confidence intervals,
and joins the verdicts below, given by an LLM agent (Claude, 2026-11-30), not checked by a person,
who read each text (index = position in the sample).
Writes bench/results/evidence_parser_adjudication.json and prints the counts.

    .venv/bin/python bench/evidence_parser_adjudication.py
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IN = ROOT / "bench" / "results" / "evidence_parser_agreement.json"
OUT = ROOT / "bench" / "results" / "evidence_parser_adjudication.json"

NO_TEST = "the text names no test; the LLM guessed one"
# (index, component) -> (who is right: deterministic | llm | both | neither, reason)
VERDICTS: dict[tuple[int, str], tuple[str, str]] = {
    **{(i, "test_family"): ("deterministic", NO_TEST)
       for i in (0, 1, 2, 4, 5, 6, 7, 8, 10, 11, 12, 14, 15, 18, 19, 20, 21, 22, 23, 25, 27)},
    (13, "test_family"): ("deterministic", "'Cox regression methods': regression/survival; the LLM gave none"),
    (28, "test_family"): ("deterministic", "'F(1,125) = 4.96': an F test; the LLM gave none"),
    (0, "sample_size"): ("deterministic", "'30 of 378' is a count in one group, not df; no N or df is reported"),
    (4, "sample_size"): ("deterministic", "no N or df in the text; 'df=144' is invented"),
    (8, "sample_size"): ("deterministic", "no N or df; the LLM counts groups"),
    (10, "sample_size"): ("deterministic", "'3.1 vs. 9.3 %' are percentages, not df"),
    (11, "sample_size"): ("deterministic", "no N or df; the LLM counts groups"),
    (12, "sample_size"): ("deterministic", "no N or df; the LLM counts groups"),
    (14, "sample_size"): ("deterministic", "no N or df; the LLM counts dose levels"),
    (15, "sample_size"): ("deterministic", "'14 min/day' is the effect, not df"),
    (17, "sample_size"): ("deterministic", "no N or df; the LLM counts groups"),
    (18, "sample_size"): ("deterministic", "no N or df; the LLM counts outcomes"),
    (19, "sample_size"): ("deterministic", "no N or df"),
    (20, "sample_size"): ("deterministic", "a table fragment without N or df"),
    (23, "sample_size"): ("deterministic", "no N or df; 'df=0' is invented"),
    (25, "sample_size"): ("deterministic", "no N or df; the LLM counts groups"),
    (27, "sample_size"): ("deterministic", "no N or df"),
    (28, "sample_size"): ("deterministic", "'F(1,125)': df 1 and 125; the LLM kept only 125"),
    (29, "sample_size"): ("deterministic", "no N or df; the LLM counts time points"),
    (4, "intervals"): ("deterministic", "the LLM adds the point estimate −7.0 as a zero-width interval"),
    (11, "intervals"): ("deterministic", "'−1.41 vs. −0.89' are two group means, not a CI (and listed twice)"),
    (12, "intervals"): ("deterministic", "means ± SD of two groups, not CIs"),
    (14, "intervals"): ("deterministic", "'106–171 ml' and '97–110 ml' are ranges over doses, not CIs"),
    (17, "intervals"): ("deterministic", "means ± SD, not CIs"),
    (19, "intervals"): ("deterministic", "'57 mm vs. 21 mm' are two group means, not a CI"),
    (20, "intervals"): ("deterministic", "table numbers, not CIs"),
    (23, "intervals"): ("both", "the same two 95% CIs; the text writes them high–low and the LLM kept that order, "
                                "the deterministic parser orders them (but misses the level of the first, "
                                "'95% confidence interval CI 4.69–4.63')"),
    (28, "intervals"): ("deterministic", "two group means (−3.35 vs −1.97 kg), not a CI; 0–0 is invented"),
    (29, "intervals"): ("deterministic", "means ± SD of two groups, not CIs"),
}


def _key(comp: str, v: list) -> list[str]:
    if comp == "intervals":
        return sorted(f"{min(x['low'], x['high'])},{max(x['low'], x['high'])}" for x in v)
    return sorted(map(str, v))


def main() -> None:
    """Join the disagreements with the verdicts; fail loudly if the two lists do not match."""
    data = json.loads(IN.read_text(encoding="utf-8"))
    rows = []
    for i, d in enumerate(data["details"]):
        for comp in ("test_family", "sample_size", "intervals"):
            a, b = d[comp]["deterministic"], d[comp]["llm"]
            if comp == "intervals" and _key(comp, a) == _key(comp, b) and len(a) == len(b) and \
                    [x["low"] for x in a] == [x["low"] for x in b]:
                continue
            if comp != "intervals" and _key(comp, a) == _key(comp, b):
                continue
            verdict = VERDICTS.get((i, comp))
            if verdict is None:
                raise SystemExit(f"no verdict for text {i} / {comp}: det={a} llm={b}")
            rows.append({"index": i, "component": comp, "text": d["text"], "deterministic": a, "llm": b,
                         "right": verdict[0], "reason": verdict[1]})
    unused = set(VERDICTS) - {(r["index"], r["component"]) for r in rows}
    if unused:
        raise SystemExit(f"verdicts for texts without a disagreement: {sorted(unused)}")
    counts = {c: dict(Counter(r["right"] for r in rows if r["component"] == c))
              for c in ("test_family", "sample_size", "intervals")}
    out = {"n_texts": len(data["details"]), "disagreements": len(rows), "right_by_component": counts,
           "right_overall": dict(Counter(r["right"] for r in rows)), "rows": rows}
    OUT.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in out.items() if k != "rows"}, indent=1))


if __name__ == "__main__":
    main()
