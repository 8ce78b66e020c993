"""Write the statistics-engine figures of docs/statistics.md from the committed result files.

Reads bench/results/stats_score.json, stats_vs_statcheck.json, stats_grammar_choice.json and (when present)
stats_speed_ab.json, stats_speed_ab_score_forms.json, stats_speed_ab_engine_speedups.json and
stats_speed_ab_cohens_f.json, and replaces
the block between ``<!-- stats-figures:start -->`` and ``<!-- stats-figures:end -->`` in docs/statistics.md.

    python bench/stats_report.py [--check]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RES = ROOT / "bench" / "results"
DOC = ROOT / "docs" / "statistics.md"
START, END = "<!-- stats-figures:start -->", "<!-- stats-figures:end -->"


def _pct(d: dict[str, Any]) -> str:
    lo, hi = d["ci95"]
    return f"{100 * d['share']:.1f}% ({d['hits']}/{d['n']}, {d['papers']} papers; 95% CI {100 * lo:.1f}-{100 * hi:.1f})"


def _load_note(prov: dict[str, Any]) -> str:
    m = prov["machine"]
    la, lb = m["load_average_at_start"][0], m["load_average_at_end"][0]
    flag = " — **loaded** (load above the core count): timings are upper bounds" if m["loaded"] else ""
    return f"load average {la}-{lb} on {m['cores']} cores{flag}; commit {prov['commit']}"


def _ab_figures(ab: dict[str, Any]) -> str:
    """The figures sentence of one before/after timing run of bench/stats_speed_ab.py."""
    mb, ma = ab["median"]["before"], ab["median"]["after"]
    return (f"`analyze` CPU time {mb['cpu_seconds']:.4f} s before, {ma['cpu_seconds']:.4f} s after (after/before "
            f"{ab['cpu_ratio_after_over_before']}, median round ratio {ab['median_round_cpu_ratio']}); results "
            f"{ab['results']['before']} before, {ab['results']['after']} after; {_load_note(ab['provenance'])}.")


def block() -> str:
    """The Markdown block of figures."""
    score = json.loads((RES / "stats_score.json").read_text(encoding="utf-8"))
    sc = json.loads((RES / "stats_vs_statcheck.json").read_text(encoding="utf-8"))
    gram = json.loads((RES / "stats_grammar_choice.json").read_text(encoding="utf-8"))
    ab_file = RES / "stats_speed_ab.json"
    ab = json.loads(ab_file.read_text(encoding="utf-8")) if ab_file.exists() else None
    lines = [START, "",
             "Written by `bench/stats_report.py` from the result files named below; do not edit by hand.", "",
             "**SCORE coded evidence** (`bench/results/stats_score.json`; annotation: SCORE's own coders; "
             f"split rule: `{score['split_rule']}`, fixed before any pattern was written; development = the "
             "strings patterns were written on, so its figures are development data):", "",
             "| figure | development | untouched split |", "|---|---|---|"]
    names = {"found": "a result found in the string (the issue's definition)",
             "found_inferential": "a result found, strings the coders flag `T`/`F` (`Non-inf` left out)",
             "found_among_cue": "a result found, among strings with a result or a statistical cue (`CUE`)",
             "decided_share": "engine decides significance (of strings the coders decided)",
             "significance": "significance agrees with the coders' nonsig flag: rule \"first\" (the string's first "
             "decided result), alpha .05",
             "significance_stated_result": "significance agrees: rule \"stated\" (the first result whose "
             "significance the string states, else the first decided), alpha .05",
             "significance_stated_level": "significance agrees: rule \"first\", a string that states the 10% level "
             "judged at alpha .10",
             "significance_stated_result_level": "significance agrees: rule \"stated\", at the level the string "
             "states (.10 where it states the 10% level, else .05)",
             "coef_se": "coefficient and SE both parsed right (orig_outcomes rows with both)"}
    for key, label in names.items():
        if key in score["dev"]:
            lines.append(f"| {label} | {_pct(score['dev'][key])} | {_pct(score['untouched'][key])} |")
    fm = score["dev"].get("found_misses")
    if fm is not None:
        cats = "; ".join(f"{k} {v}" for k, v in sorted(fm["by_category"].items(), key=lambda kv: -kv[1]))
        lines += ["", f"Development strings with no result found ({sum(fm['by_category'].values())}), by what they "
                  f"hold (`bench/data/score_dev_found_misses.json`, {fm['annotator']}): {cats}."]
    if "found_misses_cue" in score["dev"]:
        parts = []
        for split, name in (("dev", "development"), ("untouched", "untouched")):
            c, f = score[split]["found_misses_cue"], score[split]["found"]
            w, wo = sum(c["with_cue"].values()), sum(c["without_cue"].values())
            parts.append(f"{name}: {w} with a cue, {wo} without ({c['without_cue'].get('nonsig=Non-inf', 0)} of them "
                         f"`Non-inf`), so `found` could reach at most {f['hits'] + w}/{f['n']} = "
                         f"{100 * (f['hits'] + w) / f['n']:.1f}% even if every string with a cue held a readable result")
        lines += ["", "Strings with no result found, by a mechanical test of whether they hold any statistical cue "
                  "at all (`CUE` in `bench/stats_score.py`: a p, \"significant\", \"ns\", stars, SE/CI/OR, a test "
                  "letter before `(`/`=`; the untouched strings were not read): " + "; ".join(parts) + "."]
    st = {k: score[k].get("p_below_10_percent_stated_flags") for k in ("dev", "untouched")}
    if st["dev"] is not None:
        lines += ["", "Strings the coders decided that state significance at the 10% level (`p < .10`, \"significant "
                  "at the 10 percent level\"), by the coders' flag: development "
                  + ", ".join(f"{k} {v}" for k, v in sorted(st["dev"].items())) + "; untouched "
                  + ", ".join(f"{k} {v}" for k, v in sorted((st["untouched"] or {}).items())) + "."]
    sp = sc["speed"]
    lines += ["", f"**Speed vs statcheck** (`bench/results/stats_vs_statcheck.json`, {sc['articles']} EI validation "
              f"articles, {sc['characters']:,} characters, parse + check; median of {len(sp['runs'])} runs, each the "
              f"best of 3 passes): CPU time {sp['ours_cpu_seconds']} s vs statcheck {sp['statcheck_cpu_seconds']} s "
              f"(median run CPU ratio {sp['median_run_cpu_ratio']}x); wall time {sp['ours_seconds']} s vs "
              f"{sp['statcheck_seconds']} s (median run ratio {sp['median_run_ratio']}x); "
              f"{_load_note(sc['provenance'])}. Results: ours {sc['results']['ours']}, statcheck "
              f"{sc['results']['statcheck']}, statcheck's found by ours {sc['statcheck_found_by_ours']}.",
              "", f"**Regex vs grammar library** (`bench/results/stats_grammar_choice.json`): a pyparsing "
              f"{gram['pyparsing_version']} grammar for one APA form takes {gram['median_seconds']['pyparsing_one_form']} s "
              f"on the same texts where the whole regex engine (every style, repair and check) takes "
              f"{gram['median_seconds']['claimtrace_all_styles']} s ({gram['pyparsing_slower_by']}x); "
              f"{_load_note(gram['provenance'])}. The engine stays on regular expressions."]
    if ab is not None:
        mb, ma = ab["median"]["before"], ab["median"]["after"]
        lines += ["", f"**Before and after the i13-stats2 speed work** (`bench/results/stats_speed_ab.json`, "
                  f"`bench/stats_speed_ab.py`: the engine at {ab['base_revision'][:7]} and at the measured commit, "
                  f"alternating in one run over the same {ab['articles']} EI bodies; median of {len(ab['rounds'])} "
                  f"rounds, each the fastest of its passes; new forms included): `analyze` CPU time "
                  f"{mb['cpu_seconds']:.4f} s before, {ma['cpu_seconds']:.4f} s after (after/before "
                  f"{ab['cpu_ratio_after_over_before']}, {ab['cpu_speedup']}x faster); results {ab['results']['before']} "
                  f"before, {ab['results']['after']} after; {_load_note(ab['provenance'])}."]
    ab2_file = RES / "stats_speed_ab_score_forms.json"
    if ab2_file.exists():
        ab2 = json.loads(ab2_file.read_text(encoding="utf-8"))
        lines += ["", f"**Cost of the i13-score forms** (`bench/results/stats_speed_ab_score_forms.json`, "
                  f"`bench/stats_speed_ab.py --base {ab2['base_revision'][:7]} --out bench/results/stats_speed_ab_score_forms.json`: "
                  f"the engine at its fork point and with its forms — coefficient (SE) with stars or an estimate word, "
                  f"a p naming its null hypothesis, clustered SE, planned effect sizes — same {ab2['articles']} EI bodies, "
                  f"median of {len(ab2['rounds'])} rounds): " + _ab_figures(ab2)]
    for name, what in (
            ("stats_speed_ab_engine_speedups.json", "Before and after the i13-speed work (engine speed-ups, each keeping the "
             "golden dump of `bench/stats_golden.py` byte-identical; the range also holds the commit that adds Cohen's f, "
             "measured alone below)"),
            ("stats_speed_ab_cohens_f.json", "Cost of Cohen's f alone (the commit that adds it, against the one "
             "before)")):
        f = RES / name
        if not f.exists():
            continue
        ab3 = json.loads(f.read_text(encoding="utf-8"))
        after = ab3.get("after_revision", "")
        after_arg = f" --after {after[:7]}" if after and not after.startswith("this checkout") else ""
        lines += ["", f"**{what}** (`bench/results/{name}`, `bench/stats_speed_ab.py --base "
                  f"{ab3['base_revision'][:7]}{after_arg} --rounds {len(ab3['rounds'])} --out bench/results/{name}`, "
                  f"same {ab3['articles']} EI bodies, alternating): " + _ab_figures(ab3)]
    lines += ["", END]
    return "\n".join(lines)


def render(text: str) -> str:
    """docs/statistics.md's text with its figures block regenerated."""
    a, b = text.index(START), text.index(END) + len(END)
    return text[:a] + block() + text[b:]


def main() -> None:
    """Replace the figures block in docs/statistics.md (``--check``: exit 1 if the committed one differs)."""
    text = DOC.read_text(encoding="utf-8")
    if "--check" in sys.argv[1:]:
        if render(text) != text:
            print("docs/statistics.md: the figures block differs; run `python bench/stats_report.py`", file=sys.stderr)
            sys.exit(1)
        return
    DOC.write_text(render(text), encoding="utf-8")


if __name__ == "__main__":
    main()
