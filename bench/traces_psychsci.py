"""Claim traces on the 60 gold Psychological Science traces (``../shared/data/traces/psychsci-dev.jsonl``), scored
with the shared scorer's definitions (``../shared/tools/traces_eval.py``: hypothesis hit, evidence hit, evidence
checked; with ``--detect`` also finding hit), on two fixed parts of the papers.

    .venv/bin/python bench/traces_psychsci.py [--detect] [--config NAME] [--label L] [--out FILE]
    .venv/bin/python bench/traces_psychsci.py --presets   # every context preset, finding given

Split (fixed before any tuning, never changed): a paper is UNTOUCHED when
``int(sha256("claimtrace-i25-traces:" + paper).hexdigest()[:8], 16) % 3 == 0`` (about a third), else DEV.
Untouched papers, their gold and their per-paper output were never read while writing rules or choosing
settings; this script writes per-paper rows for the dev part only, and only counts for the untouched part.

The run goes through the command line exactly as the scorer expects (``traces_eval.py manifest`` ->
``claimtrace extract --batch --offline`` -> scoring). Each share has a 95% Wilson interval over papers.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from provenance import Run, module_from_file

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
GOLD = SHARED / "data" / "traces" / "psychsci-dev.jsonl"
DOCS = SHARED / "data" / "documents" / "psychsci"
EVAL = SHARED / "tools" / "traces_eval.py"
SALT = "claimtrace-i25-traces:"


def split_of(paper: str) -> str:
    """``untouched`` or ``dev``: the fixed split of a gold paper (see the module docstring)."""
    h = int(hashlib.sha256((SALT + paper).encode("utf-8")).hexdigest()[:8], 16)
    return "untouched" if h % 3 == 0 else "dev"


def wilson(k: int, n: int, z: float = 1.96) -> list[float] | None:
    """The 95% Wilson score interval of k successes in n."""
    if n == 0:
        return None
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return [round(max(0.0, c - h), 3), round(min(1.0, c + h), 3)]


def load_tool(path: Path) -> Any:
    """A shared scorer script (``shared/tools/*.py``) imported as a module."""
    return module_from_file(path)


def scorer() -> Any:
    """The shared traces scorer (``shared/tools/traces_eval.py``)."""
    return load_tool(EVAL)


def score_rows(ev: Any, gold: list[dict[str, Any]], traces: dict[str, Any], detect: bool) -> list[dict[str, Any]]:
    """One scored row per gold paper, with the scorer's definitions (same_statement, stat_keys)."""
    out = []
    for i, g in enumerate(gold):
        if g["paper"] is None:  # an untouched paper left out of a development run
            continue
        d = traces.get(str(i))
        row: dict[str, Any] = {"paper": g["paper"], "split": split_of(g["paper"]), "finding_hit": False,
                               "hypothesis_hit": False, "evidence_hit": False, "evidence_checked": False}
        if not d or d.get("error") or not d.get("traces"):
            row["error"] = (d or {}).get("error") or "no traces"
            out.append(row)
            continue
        t = d["traces"][0]
        if detect:
            hits = [x for x in d["traces"] if ev.same_statement(g["finding"], (x.get("finding") or {}).get("text") or "")]
            if not hits:
                row["finding"] = [x["finding"]["text"] for x in d["traces"]][:3]
                out.append(row)
                continue
            t = hits[0]
        row["finding_hit"] = True
        h = (t.get("hypothesis") or {}).get("text") or ""
        e = t.get("evidence") or {}
        stats = e.get("statistics") or []
        gk = set().union(set(), *[ev.stat_keys(s) for s in g["statistics"]])
        ek = set().union(set(), *[ev.stat_keys(s.get("text", "")) for s in stats])
        row["hypothesis_hit"] = any(ev.same_statement(x, h) for x in g["hypothesis"])
        row["evidence_hit"] = any(ev.same_statement(x, e.get("text") or "") for x in g["evidence"]) or bool(gk & ek)
        row["evidence_checked"] = any(s.get("computed_p") is not None or s.get("consistent") is not None for s in stats)
        row["hypothesis"] = h
        row["hypothesis_paragraphs"] = (t.get("hypothesis") or {}).get("paragraph_ids")
        row["evidence"] = e.get("text")
        row["evidence_paragraphs"] = e.get("paragraph_ids")
        row["finding_source"] = (t.get("finding") or {}).get("source")
        out.append(row)
    return out


def _where(doc: Any, text: str) -> tuple[str | None, list[str]]:
    """The first paragraph and sentence ids of a gold string in the Document (None when it is not there)."""
    from claimtrace.extract.locate import locate_quote

    sp = locate_quote(doc, text)
    return (sp.paragraph_ids[0] if sp and sp.paragraph_ids else None), (sp.sentence_ids if sp else [])


def oracle_finding(g: dict[str, Any]) -> dict[str, Any]:
    """The finding of a gold trace with the paragraphs that hold its gold hypothesis and evidence (the oracle
    context); a gold string the Document does not hold (a table) adds none."""
    from claimtrace.documents import load_document

    doc = load_document(DOCS / g["paper"])

    def pids(texts: list[str]) -> list[str] | None:
        found = [_where(doc, t)[0] for t in texts]
        return list(dict.fromkeys(p for p in found if p)) or None

    return {"text": g["finding"], "gold_paragraph_ids": pids(g["evidence"]),
            "hypothesis_gold_paragraph_ids": pids(g["hypothesis"])}


def miss_reason(stage: str, g: dict[str, Any], row: dict[str, Any], doc: Any = None) -> str:
    """One mechanical reason for a development miss (from the Document, the gold strings and the trace);
    ``doc``: the Document the trace was made from (default: the paper's TEI in ``documents/psychsci``)."""
    from claimtrace.documents import load_document
    from claimtrace.documents.studies import box_paragraphs
    from claimtrace.extract.statistics import sentence_statistics
    from claimtrace.extract.trace_ranker import BALANCE, DESCRIPTIVE, FOLLOW_UP, MANIPULATION, PREDICTION

    if doc is None:
        doc = load_document(DOCS / g["paper"])
    pred = row.get(stage) or ""
    pred_pids = row.get(f"{stage}_paragraphs") or []
    if not pred:
        return f"no {stage} extracted"
    found = [_where(doc, x) for x in g[stage]]
    found = [f for f in found if f[0] is not None]
    if not found:
        return "the gold string is not in the Document's body (a table, or the reader splits it otherwise)"
    gpid = str(found[0][0])
    par = {p.id: p for p in doc.paragraphs}
    if any(str(f[0]) in pred_pids for f in found):
        return "right paragraph, another sentence"
    gstudy, pstudy = par[gpid].study, par[pred_pids[0]].study if pred_pids and pred_pids[0] in par else None
    if gstudy != pstudy and pstudy not in (None, "general"):
        return f"a sentence of study {pstudy} (the gold is in {gstudy or 'the introduction'})"
    if stage == "hypothesis":
        if gpid in box_paragraphs(doc):
            return "the gold sits in a paragraph filed under a journal box (excluded from the candidates)"
        if not PREDICTION.search(g[stage][0]):
            return "the gold is an aim or background sentence (no explicit prediction); a prediction was chosen"
        if not PREDICTION.search(pred):
            return "an aim or background sentence was chosen over the prediction"
        return "another prediction of the paper (a different one of its hypotheses)"
    levels = sentence_statistics(doc)
    # every gold string counts: the gold states the result without a statistic only when none of them carries one
    if not any(levels.get(sid, 0) for f in found for sid in f[1]):
        return "the gold states the result without a test statistic; a sentence with one was chosen"
    for rx, what in ((BALANCE, "a balance/baseline check"), (MANIPULATION, "a manipulation check"),
                     (FOLLOW_UP, "a follow-up test"), (DESCRIPTIVE, "descriptives")):
        if rx.search(pred):
            return f"{what} chosen over the test of the finding"
    return "another test in the Results (a different contrast)"


def summarise(rows: list[dict[str, Any]], detect: bool) -> dict[str, Any]:
    """Counts, shares and Wilson intervals of one part."""
    n = len(rows)
    out: dict[str, Any] = {"n": n}
    keys = ["hypothesis_hit", "evidence_hit", "evidence_checked"] + (["finding_hit"] if detect else [])
    for k in keys:
        c = sum(bool(r[k]) for r in rows)
        out[k] = {"hits": c, "share": round(c / n, 3) if n else None, "ci95": wilson(c, n)}
    return out


def llm_calls(cache_dir: Path, traces: dict[str, Any]) -> dict[str, Any]:
    """What the LLM run's ledger says about the answers behind the finished traces (their invocation ids): requests,
    answers that were not valid JSON for the schema (first asks and re-asks), answers still invalid after the re-ask,
    other failures, tokens and model time. An answer taken from the cache on a resumed run counts as a request."""
    from claimtrace.llm.ledger import LEDGER_FILENAME, Ledger

    path = cache_dir / LEDGER_FILENAME
    ids = [i for d in traces.values() for t in d.get("traces") or [] for i in t.get("invocation_ids") or []]
    if not path.is_file() or not ids:
        return {"requests": 0}
    ledger = Ledger(path)
    invs = [inv for inv in (ledger.get(i) for i in ids) if inv is not None and inv.task == "extraction"]
    ledger.close()
    malformed = [i for i in invs if i.error is not None and i.error.kind in ("invalid_output", "length")]
    reasks = [i for i in invs if i.reask_of]
    flags: dict[str, int] = {}
    for d in traces.values():
        for t in d.get("traces") or []:
            for f in t.get("flags") or []:
                flags[f["code"]] = flags.get(f["code"], 0) + 1
    return {"papers": len(traces), "requests": len(invs), "first_asks": len(invs) - len(reasks),
            "malformed_answers": len(malformed),
            "malformed_first_asks": sum(1 for i in malformed if not i.reask_of), "reasks": len(reasks),
            "invalid_after_reask": sum(1 for i in malformed if i.reask_of),
            "other_failures": sum(1 for i in invs if i.error is not None and i not in malformed),
            "modes": sorted({i.mode for i in invs if i.mode}), "cached": sum(i.cached for i in invs),
            "prompt_tokens": sum(i.prompt_tokens or 0 for i in invs if not i.cached),
            "completion_tokens": sum(i.completion_tokens or 0 for i in invs if not i.cached),
            "model_seconds": round(sum(i.latency_s for i in invs if not i.cached), 1), "trace_flags": flags}


def drop_unreachable(path: Path) -> int:
    """Take out of a kept LLM traces file the papers whose LLM could not be reached (connection errors, timeouts:
    the server was down, not the model's answer), so that resuming asks again; the number taken out."""
    keep, dropped = [], 0
    for line in path.read_text().splitlines():
        d = json.loads(line) if line.strip() else None
        if d is None:
            continue
        msgs = [f.get("message") or "" for t in d.get("traces") or [] for f in t.get("flags") or [] if f["code"] == "llm_error"]
        if any(m.startswith(("LLM connection", "LLM timeout")) for m in msgs):
            dropped += 1
            continue
        keep.append(line)
    if dropped:
        path.write_text("".join(x + "\n" for x in keep))
        print(f"{path}: {dropped} paper(s) whose LLM was unreachable taken out, to be asked again", file=sys.stderr)
    return dropped


def run_once(config: str | None, detect: bool, workdir: Path, dev_only: bool = False, *, limit: int = 0,
             llm_base_url: str | None = None, keep: Path | None = None,
             llm_settings: Path | None = None, score_only: bool = False) -> dict[str, Any]:
    """Build the manifest, run ``claimtrace extract --batch --offline``, score; both parts (the dev part only
    with ``dev_only``: development runs never touch the untouched papers). ``limit``: the first N dev papers only;
    ``llm_base_url``: the LLM extractor at that endpoint instead of the offline one (``llm_settings``: its settings
    file; its cache and ledger live beside the traces, in ``<traces>.llm/``); ``keep``: the traces file (an
    existing one is resumed: the slow local LLM); ``score_only``: score the papers the kept file has finished (a run
    stopped before its end: n is what finished), running nothing."""
    ev = scorer()
    gold = ev.load_gold(str(GOLD))
    if dev_only or limit:
        gold = [g if split_of(g["paper"]) == "dev" else {**g, "paper": None} for g in gold]
    if limit:
        dev_ids = [i for i, g in enumerate(gold) if g["paper"] is not None][:limit]
        gold = [g if i in dev_ids else {**g, "paper": None} for i, g in enumerate(gold)]
    man = workdir / "manifest.jsonl"
    with man.open("w") as fh:
        for i, g in enumerate(gold):
            if g["paper"] is None:
                continue
            item: dict[str, Any] = {"id": str(i), "doc": str(DOCS / g["paper"])}
            if not detect:
                item["findings"] = [g["finding"]]
            if config == "oracle":  # the gold paragraphs of each stage, located in the Document
                item["findings"] = [oracle_finding(g)]
            if config:
                item["config"] = config
            fh.write(json.dumps(item) + "\n")
    out = keep or workdir / "traces.jsonl"
    if out.exists() and keep is None:
        out.unlink()
    if out.exists() and llm_base_url and not score_only:
        drop_unreachable(out)
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    how = ["--extractor", "llm", "--llm-base-url", llm_base_url] if llm_base_url else ["--offline"]
    cache_dir = out.with_name(out.name + ".llm")
    if llm_base_url:
        env["CLAIMTRACE_CACHE_DIR"] = str(cache_dir)
        if llm_settings:
            how += ["--llm-settings", str(llm_settings)]
    # oracle: a paper whose gold evidence sits in a table has no gold paragraph; its item fails (a miss), the run goes on
    if not score_only:
        subprocess.run(["claimtrace", "extract", "--batch", str(man), "--out", str(out), *how],
                       check=config != "oracle", env=env, stdout=subprocess.DEVNULL,
                       stderr=None if llm_base_url else subprocess.DEVNULL)
    traces = {}
    for line in out.read_text().splitlines():
        if line.strip():
            d = json.loads(line)
            traces[d["id"]] = d
    if score_only:  # only the finished papers, and not those whose LLM was unreachable
        traces = {k: d for k, d in traces.items() if not any(
            (f.get("message") or "").startswith(("LLM connection", "LLM timeout"))
            for t in d.get("traces") or [] for f in t.get("flags") or [] if f["code"] == "llm_error")}
        gold = [g if str(i) in traces else {**g, "paper": None} for i, g in enumerate(gold)]
    rows = score_rows(ev, gold, traces, detect)
    dev = [r for r in rows if r["split"] == "dev"]
    if not config:  # the failure table of the development misses (default settings)
        by_paper = {g["paper"]: g for g in gold if g["paper"] is not None}
        for r in dev:
            for stage in ("hypothesis", "evidence"):
                if r["finding_hit"] and not r[f"{stage}_hit"]:
                    r[f"{stage}_miss"] = miss_reason(stage, by_paper[r["paper"]], r)
    unt = [r for r in rows if r["split"] == "untouched"]
    res = {"dev": summarise(dev, detect), "untouched": summarise(unt, detect), "dev_rows": dev}
    if llm_base_url:
        res["llm"] = llm_calls(cache_dir, traces)
    return res


RESULTS = REPO / "bench" / "results"


def _fig(part: dict[str, Any], key: str) -> str:
    m = part[key]
    lo, hi = m["ci95"]
    return f"{m['share']:.3f} ({m['hits']}/{part['n']}; {lo:.3f}-{hi:.3f})"


def _share_ci(k: int, n: int) -> str:
    lo, hi = wilson(k, n) or [0.0, 0.0]
    return f"{k / n:.3f} ({k}/{n}; {lo:.3f}-{hi:.3f})"


def _ranker_lines() -> list[str]:
    """How the hypothesis ranker was trained and the cross-validated figure its penalty was chosen by."""
    from claimtrace.extract.trace_ranker import RANKER_WEIGHTS

    w = json.loads(RANKER_WEIGHTS.read_text()) if RANKER_WEIGHTS.is_file() else {}
    fit = w.get("hypothesis_fit") or {}
    if not fit or "cv" not in fit:
        return []
    lam = fit["lambda"]
    return ["The hypothesis ranker (`extract/weights/trace_ranker.json`, `scripts/train_trace_ranker.py`) was trained on "
            + str(w.get("hypothesis_trained_on", "the dev part")) + f". Its penalty was chosen by {fit['cv']}: "
            f"held-out top-1 {fit['cv_top1'][str(lam)]:.3f} at lambda {lam} over {fit['papers']} papers (hand-set score "
            f"{fit['hand_set_top1']:.3f}; in-sample {fit['train_top1']:.3f}).", ""]


def _detect_alone_lines(load: Any) -> list[str]:
    """The finding-detection table (``bench/traces_detect_extra.py``, dev part and extra traces) with the
    paper-grouped cross-validation of the Discussion-sentence scorer (``training/train_discussion_findings.py``)."""
    files = [("before the learned Discussion scorer", "traces_detect_extra_before_learned.json"),
             ("this branch (in-sample: the scorer was fit on these papers)", "traces_detect_extra.json")]
    if not all((RESULTS / f).is_file() for _, f in files) or not (RESULTS / "discussion_findings_cv.json").is_file():
        return []
    cv = load("discussion_findings_cv.json")
    out = ["", "## Finding detection alone: dev part and extra traces", "",
           "`detect_findings` (no ranking): a paper is a hit when a chosen sentence states the gold finding. The extra "
           "traces (`bench/data/traces-extra`, annotator: " + cv["annotator"] + ") were not used to write the "
           "detection rules; the Discussion-sentence scorer is trained on both sets, so its honest figure is the "
           "paper-grouped cross-validated one (hand-set weights vs. learned scorer, same Discussion pool).", "",
           "| code | dev part | extra traces | result file |", "|---|---|---|---|"]
    for label, f in files:
        d = load(f)
        out.append(f"| {label} | {_fig(_as_fig(d['dev']), 'x')} | {_fig(_as_fig(d['extra']), 'x')} | `bench/results/{f}` |")
    for name, label in (("hand", "hand-set Discussion weights (no fitting), this branch's two-paragraph pool"),
                        ("learned_cv", "learned Discussion scorer, cross-validated by paper")):
        out.append(f"| {label} | {_fig(_as_fig(cv['dev'][name]), 'x')} | {_fig(_as_fig(cv['extra'][name]), 'x')} | "
                   "`bench/results/discussion_findings_cv.json` |")
    return out


def _as_fig(d: dict[str, Any]) -> dict[str, Any]:
    """A detection figure ({n, hits, share, ci95}) in the form ``_fig`` reads."""
    return {"n": d["n"], "x": {"hits": d["hits"], "share": d["share"], "ci95": d["ci95"]}}


def report_lines() -> list[str]:
    """The Markdown page docs/results/traces-psychsci.md, from the committed result files."""
    def load(name: str) -> dict[str, Any]:
        return dict(json.loads((RESULTS / name).read_text()))

    base, now = load("traces_psychsci_baseline.json"), load("traces_psychsci.json")
    dbase, dnow = load("traces_psychsci_detect_baseline.json"), load("traces_psychsci_detect.json")
    lines = ["# Claim traces on Psychological Science papers (gold traces, two parts)", "",
             "Written by `bench/traces_psychsci.py --report` from the result files named below. Gold: "
             "`shared/data/traces/psychsci-dev.jsonl` (60 papers; annotator: " + now["annotator"] + "), scored with "
             "the definitions of `shared/tools/traces_eval.py`. Split fixed before any tuning: " + now["split_rule"]
             + ". The dev part was used to write the rules and train the rankers (its figures are in-sample); the "
             "untouched part was never read while developing and is the headline. Intervals: 95% Wilson.", "",
             *_ranker_lines(), "## Finding given, offline, default settings", "",
             "| code | part | hypothesis hit | evidence hit | evidence checked | result file |", "|---|---|---|---|---|---|"]
    for d, f in ((base, "traces_psychsci_baseline.json"), (now, "traces_psychsci.json")):
        for part in ("untouched", "dev"):
            lines.append(f"| {d['label']} | {part} | {_fig(d[part], 'hypothesis_hit')} | {_fig(d[part], 'evidence_hit')} | "
                         f"{_fig(d[part], 'evidence_checked')} | `bench/results/{f}` |")
    lines += ["", "## Findings detected (`--detect`), offline", "",
              "| code | part | finding hit | hypothesis hit | evidence hit | result file |", "|---|---|---|---|---|---|"]
    for d, f in ((dbase, "traces_psychsci_detect_baseline.json"), (dnow, "traces_psychsci_detect.json")):
        for part in ("untouched", "dev"):
            lines.append(f"| {d['label']} | {part} | {_fig(d[part], 'finding_hit')} | {_fig(d[part], 'hypothesis_hit')} | "
                         f"{_fig(d[part], 'evidence_hit')} | `bench/results/{f}` |")
    lines += _detect_alone_lines(load)
    preset_files = [f for f in [RESULTS / "traces_psychsci_presets.json", *sorted(RESULTS.glob("traces_psychsci_presets_*.json"))]
                    if f.is_file()]
    if preset_files:
        pr: dict[str, Any] = {}
        for pf in preset_files:  # one file per preset run (--presets NAME --out ...); a later file's preset wins
            pr.update(load(pf.name)["presets"])
        lines += ["", "## Every context preset, finding given, offline", "",
                  "Ratio: the preset's hits over the default configuration's hits (this branch, same part).", "",
                  "| preset | part | hypothesis hit | evidence hit | hypothesis ratio | evidence ratio |",
                  "|---|---|---|---|---|---|"]
        for name, r in pr.items():
            for part in ("untouched", "dev"):
                if not r[part]["n"]:  # a development run of the presets: the untouched part was not run
                    continue
                ratios = []
                for key in ("hypothesis_hit", "evidence_hit"):
                    ref = now[part][key]["hits"]
                    ratios.append(f"{r[part][key]['hits'] / ref:.2f}" if ref else "n/a")
                lines.append(f"| {name} | {part} | {_fig(r[part], 'hypothesis_hit')} | {_fig(r[part], 'evidence_hit')} | "
                             f"{ratios[0]} | {ratios[1]} |")
        lines.append("")
        lines.append("Under the rag presets each stage fuses the retrieval relevance with its own paragraph prior "
                     "(hypothesis-likeness, evidence-likeness) before the cut to k (docs/extract.md). "
                     "Result files: `bench/results/traces_psychsci_presets.json` (the full-text presets, whose context "
                     "the priors do not touch), and one per preset run apart: "
                     + ", ".join(f"`bench/results/{pf.name}`" for pf in preset_files[1:]) + ". The offline row of the first 20 "
                     "development papers, the ones the LLM rows are to run on (`--limit 20`): "
                     "`bench/results/traces_psychsci_20.json`.")
    llm_files = sorted(RESULTS.glob("traces_psychsci_llm_*.json"))
    if llm_files and (RESULTS / "traces_psychsci_20.json").is_file():
        off = {r["paper"]: r for r in load("traces_psychsci_20.json")["dev_rows"]}
        lines += ["", "## The LLM extractor with the local model, offline beside it (finding given)", "",
                  "The first 20 development papers (`--limit 20`), LLM extractor at its default context (`rag-k10`), "
                  "temperature 0, Qwen2.5-Coder-1.5B-Instruct Q4_K_M through `scripts/local-llm.sh`. A run that did not "
                  "finish reports the papers it finished (n), and the offline row is taken on the same papers from "
                  "`bench/results/traces_psychsci_20.json`. Malformed: answers that were not valid JSON for the "
                  "stage's schema (each is re-asked once). Resume or finish a run with the same command (`--keep` file; "
                  "`--score-only` scores what it has finished).", "",
                  "| run | n | hypothesis hit | evidence hit | evidence checked | requests | malformed | structured mode |"
                  " result file |", "|---|---|---|---|---|---|---|---|---|"]
        for lf in llm_files:
            d = load(lf.name)
            rows = [r for r in d["dev_rows"] if r["paper"] in off and not r.get("error")]
            if not rows:
                continue
            m = d.get("llm", {})
            papers = {r["paper"] for r in rows}
            for label, summ, extra in ((d["label"], summarise(rows, False),
                                        (m.get("requests", 0), m.get("malformed_answers", 0), ", ".join(m.get("modes", [])),
                                         lf.name)),
                                       ("offline, same papers", summarise([off[p] for p in sorted(papers)], False),
                                        ("—", "—", "—", "traces_psychsci_20.json"))):
                lines.append(f"| {label} | {summ['n']} | {_fig(summ, 'hypothesis_hit')} | {_fig(summ, 'evidence_hit')} | "
                             f"{_fig(summ, 'evidence_checked')} | {extra[0]} | {extra[1]} | {extra[2]} | "
                             f"`bench/results/{extra[3]}` |")
    if (RESULTS / "traces_ei_guard.json").is_file():
        g = load("traces_ei_guard.json")
        lines += ["", "## Evidence Inference does not get worse", "",
                  "`bench/traces_ei_guard.py`: stage-1 hypothesis hit@1 on `bench/data/ei-hypotheses.jsonl` and stage-2 "
                  "evidence hit@1 on EI validation (body-only prompts), offline, default settings; paired bootstrap "
                  "interval of after minus before and exact McNemar.", "",
                  "| measure | n | before | after | difference (95% CI) | McNemar p |", "|---|---|---|---|---|---|"]
        for key in ("hypothesis", "evidence"):
            m = g[key]
            ci = m["diff_ci95"]
            lines.append(f"| {key} hit@1 | {m['n']} | {m['before_hit1']:.3f} | {m['after_hit1']:.3f} | "
                         f"{ci['estimate']:+.3f} ({ci['low']:+.3f} to {ci['high']:+.3f}) | {m['mcnemar']['p_value']:.3f} |")
        lines.append("")
        lines.append("Result files: `bench/results/traces_ei_guard_before.json`, `traces_ei_guard_after.json`, "
                     "`traces_ei_guard.json`.")
    if (RESULTS / "evidence_ranker_cv.json").is_file():
        cv = load("evidence_ranker_cv.json")
        ch, hs = cv["chosen"], cv["hand_set"]
        lines += ["", "## Evidence ranker: cross-validation over training papers", "",
                  f"`scripts/train_evidence_ranker.py`: {cv['traces']} training traces ({cv['gold_dev_traces']} of the "
                  "dev part, the others annotated on the other shared psychsci papers), grouped 5-fold over papers, "
                  "the extended evidence span scored by the scorer's definitions; penalty chosen by this figure.", "",
                  "| ranker | evidence hit, all folds | of which dev-part gold traces |", "|---|---|---|",
                  f"| hand-set score | {_share_ci(hs['hits'], hs['n'])} | {hs['gold_dev_hits']}/{ch['gold_dev_n']} |",
                  f"| learned, lambda {cv['lambda']} | {_share_ci(ch['hits'], ch['n'])} | "
                  f"{ch['gold_dev_hits']}/{ch['gold_dev_n']} |", ""]
        if "chosen_repeated" in cv and "previous_method" in cv:
            rp, pm = cv["chosen_repeated"], cv["previous_method"]
            d = pm["diff_now_minus_previous_ci95"]
            lines += [f"Over {rp['repeats']} fold assignments (the first is the one above), the learned ranker's held-out "
                      f"span hit is {pm['now_span_hit_repeated']:.3f} (hits per assignment "
                      f"{', '.join(str(h) for h in rp['hits_per_repeat'])} of {rp['n']}); the previous fit "
                      f"({pm['fit']}, lambda {pm['lambda']}) under the same folds {pm['span_hit_repeated']:.3f} "
                      f"({', '.join(str(h) for h in pm['hits_per_repeat'])}). Paired difference {d['estimate']:+.3f} "
                      f"(95% bootstrap over traces {d['low']:+.3f} to {d['high']:+.3f}; the penalty was chosen on the "
                      "same folds, so the figure is slightly optimistic).", ""]
        if "candidate_ceiling" in cv:
            cc = cv["candidate_ceiling"]
            lines += [f"Candidate ceiling (traces where at least one stage-2 candidate is a correct evidence sentence, "
                      f"results stated in words included): {_share_ci(cc['traces_with_a_correct_candidate'], cc['n'])}.",
                      ""]
        lines += ["Result file: `bench/results/evidence_ranker_cv.json`."]
    if (RESULTS / "traces_speed.json").is_file():
        import traces_speed

        lines += ["", "## Speed", "", *traces_speed.report_lines(load("traces_speed.json"))]
    if (RESULTS / "traces_speed_ab.json").is_file():
        import traces_speed

        lines += ["", *traces_speed.ab_lines(load("traces_speed_ab.json"))]
    if (RESULTS / "traces_evidence_speed.json").is_file():
        es = load("traces_evidence_speed.json")
        m = es["provenance"]["machine"]
        lines += ["", f"Inside the trace (`bench/traces_evidence_speed.py`, {es['papers']} gold papers, one process, the "
                  f"Document read): the results stated in words cost {es['word_results']['median_s']:.3f} s per paper "
                  f"(median) of a trace of {es['trace']['median_s']:.3f} s, load average at start "
                  f"{m['load_average_at_start'][0]:.2f} on {m['cores']} cores"
                  + (" (LOADED: upper bounds)" if m.get("loaded") else "")
                  + ". Result file: `bench/results/traces_evidence_speed.json`."]
    lines += ["", "## Development misses after the work (finding given), one reason each", "",
              "Reasons are mechanical (`miss_reason`): the gold string located in the Document and compared with the "
              "trace. Untouched papers are not listed.", "", "| paper | hypothesis | evidence |", "|---|---|---|"]
    for r in now["dev_rows"]:
        if r.get("hypothesis_miss") or r.get("evidence_miss"):
            lines.append(f"| `{r['paper']}` | {r.get('hypothesis_miss', 'hit')} | {r.get('evidence_miss', 'hit')} |")
    return lines


def report() -> None:
    """Write docs/results/traces-psychsci.md (through bench/results_pages.py)."""
    from results_pages import write_pages

    for path in write_pages(["traces-psychsci"]):
        print(f"wrote {path}", file=sys.stderr)


def main() -> None:
    """Run the measurement and write the result file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--detect", action="store_true", help="findings detected, not given")
    ap.add_argument("--config", default=None, help="a context preset (default: the extractor's default)")
    ap.add_argument("--presets", nargs="*", default=None, metavar="NAME",
                    help="context presets, finding given (no names: every preset)")
    ap.add_argument("--label", default="this branch")
    ap.add_argument("--dev-only", action="store_true", help="development run: the untouched papers are not run")
    ap.add_argument("--out", default=None)
    ap.add_argument("--limit", type=int, default=0, help="the first N dev papers only (the LLM rows)")
    ap.add_argument("--llm-base-url", help="run the LLM extractor at this endpoint (e.g. http://127.0.0.1:8090/v1)")
    ap.add_argument("--keep", help="the traces file to write and resume (the slow local LLM)")
    ap.add_argument("--llm-settings", help="LLM settings file for --llm-base-url (e.g. bench/llm/local-schema.yaml)")
    ap.add_argument("--score-only", action="store_true", help="with --keep: score the papers it has finished, run nothing")
    ap.add_argument("--report", action="store_true", help="only write docs/results/traces-psychsci.md")
    args = ap.parse_args()
    if args.report:
        report()
        return
    if args.score_only and not args.keep:
        print("error: --score-only needs --keep FILE", file=sys.stderr)
        raise SystemExit(2)
    if not GOLD.is_file() or not EVAL.is_file():
        print(f"error: {GOLD} or {EVAL} is absent", file=sys.stderr)
        raise SystemExit(2)
    run = Run(data=[GOLD, DOCS])
    result: dict[str, Any] = {"schema_version": "1", "label": args.label,
                              "what": "claim traces on psychsci-dev.jsonl, offline, scored by shared/tools/traces_eval.py "
                                      "definitions; dev and untouched parts (split in the module docstring)",
                              "annotator": "LLM agent (Claude, 2026-12-01), not checked by a person",
                              "split_rule": f"untouched when int(sha256('{SALT}' + paper)[:8], 16) % 3 == 0"}
    with tempfile.TemporaryDirectory() as tmp:
        if args.presets is not None:
            from claimtrace.extract.config import PRESETS

            result["presets"] = {}
            for name in args.presets or sorted(PRESETS):
                r = run_once(name, False, Path(tmp), args.dev_only)
                r.pop("dev_rows")
                result["presets"][name] = r
                out_file = Path(args.out or str(REPO / "bench" / "results" / "traces_psychsci_presets.json"))
                out_file.write_text(json.dumps({**result, "provenance": run.finish()}, indent=1, ensure_ascii=False) + "\n")
                print(name, json.dumps({k: {m: v[m]["share"] for m in ("hypothesis_hit", "evidence_hit")}
                                        for k, v in r.items()}), file=sys.stderr)
            default = args.out or str(REPO / "bench" / "results" / "traces_psychsci_presets.json")
        else:
            r = run_once(args.config, args.detect, Path(tmp), args.dev_only, limit=args.limit,
                         llm_base_url=args.llm_base_url, keep=Path(args.keep) if args.keep else None,
                         llm_settings=Path(args.llm_settings) if args.llm_settings else None,
                         score_only=args.score_only)
            result.update(detect=args.detect, config=args.config, limit=args.limit,
                          extractor="llm" if args.llm_base_url else "embedded", **r)
            print(json.dumps({"dev": r["dev"], "untouched": r["untouched"]}), file=sys.stderr)
            suffix = ("_detect" if args.detect else "") + ("_llm" if args.llm_base_url else "") + \
                (f"_{args.limit}" if args.limit else "")
            default = args.out or str(REPO / "bench" / "results" / f"traces_psychsci{suffix}.json")
    result["provenance"] = run.finish()
    Path(default).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    print(f"-> {default}", file=sys.stderr)


if __name__ == "__main__":
    main()
