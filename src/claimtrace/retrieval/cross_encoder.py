"""The shipped cross-encoder reranker: a MiniLM-L6 cross-encoder trained here on Evidence-Inference train,
run as int8 ONNX with onnxruntime and ``tokenizers`` (no torch), pinned by sha256. The code that built it
(training groups with BM25 hard negatives, a listwise softmax loss, export to int8 ONNX; needs torch) is
``claimtrace.training.cross_encoder``.

A model folder holds ``model.onnx``, ``tokenizer.json`` and ``model.json`` (the manifest: file hashes,
max length, and for the shipped model the training command, seed, data hashes, hyper-parameters and
wall time). The shipped folder's model hash is also pinned in this module, so a swapped file fails at load.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from claimtrace.errors import ClaimtraceError, InputError
from claimtrace.retrieval.embeddings import check_sha256, onnx_session

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
