"""The fine-tuned multi-task retriever at inference: a shared sentence-transformer encoder with one linear
projection head per task (hypothesis, evidence), from a training folder (torch) or its torch-free export.

Mining, training and export live in ``claimtrace.training.retriever``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from claimtrace.errors import ClaimtraceError, InputError, MissingExtraError, import_extra
from claimtrace.retrieval.embeddings import CachedEmbedder, Embedder, EmbeddingCache
from claimtrace.retrieval.training_data import Task
from claimtrace.retrieval.units import Unit

TASKS: tuple[Task, ...] = ("hypothesis", "evidence")
CONFIG_FILE = "claimtrace_retriever.json"


def torch_module() -> Any:
    """The torch module, or a MissingExtraError naming the ``[torch]`` extra."""
    return import_extra("torch", "the fine-tuned retriever", "torch")


# ---- inference ------------------------------------------------------------------------------------------

class FinetunedEmbedder:
    """The fine-tuned encoder followed by one task's projection head, normalised: a training folder (torch),
    or its torch-free export (a folder with ``manifest.json``: int8 ONNX + heads, as the shipped model)."""

    def __init__(self, path: str | Path, task: str = "evidence", *, batch_size: int = 32) -> None:
        from claimtrace.retrieval.embeddings import RETRIEVER_MANIFEST, OnnxHeadEmbedder

        d = Path(path)
        cfg_file = d / CONFIG_FILE
        self._onnx: OnnxHeadEmbedder | None = None
        if not cfg_file.is_file() and (d / RETRIEVER_MANIFEST).is_file():
            self._onnx = OnnxHeadEmbedder(d, task)
            self.meta = self._onnx.meta
            self.dim, self.task, self.model_id = self._onnx.dim, task, self._onnx.model_id
            return
        if not cfg_file.is_file():
            raise InputError(d, f"not a fine-tuned retriever folder (no {CONFIG_FILE} or {RETRIEVER_MANIFEST})")
        self.meta = json.loads(cfg_file.read_text(encoding="utf-8"))
        if task not in self.meta["tasks"]:
            raise ClaimtraceError(f"{d}: no head for task {task!r} (has {self.meta['tasks']})")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise MissingExtraError("the fine-tuned retriever", "torch", "sentence-transformers") from None
        from claimtrace.retrieval.embeddings import default_threads

        torch_module().set_num_threads(default_threads())
        self.encoder = SentenceTransformer(str(d / "encoder"), device="cpu")
        self.encoder.max_seq_length = max(int(self.encoder.max_seq_length or 0), 256)  # paragraphs: read 256 tokens
        heads = np.load(d / "heads.npz")
        self.weight = heads[f"{task}.weight"].astype(np.float32)
        self.bias = heads[f"{task}.bias"].astype(np.float32)
        self.dim = int(self.weight.shape[0])
        self.task = task
        self.batch_size = batch_size
        stamp = int((d / "heads.npz").stat().st_mtime)
        self.model_id = f"finetuned:{d.resolve()}:{task}:{stamp}"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts through the encoder and the task head."""
        if self._onnx is not None:
            return self._onnx.encode(texts)
        base = self.encoder.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                                   convert_to_numpy=True, show_progress_bar=False)
        x = np.asarray(base, dtype=np.float32).reshape(len(texts), -1) @ self.weight.T + self.bias
        norms = np.linalg.norm(x, axis=1, keepdims=True)
        return (x / np.maximum(norms, 1e-12)).astype(np.float32)


@dataclass
class MaxSentenceIndex:
    """Unit vectors, their sentences' vectors, and which unit each sentence belongs to."""

    units: np.ndarray
    sentences: np.ndarray
    owner: np.ndarray


class FinetunedRetriever:
    """Dense retrieval with a fine-tuned multi-task bi-encoder (``finetuned:DIR --task ...``).

    ``max_sentence``: a unit scores the best cosine among itself and its sentences (a long paragraph is
    cut at 256 tokens and its one relevant sentence is diluted by the rest; for sentence units it changes nothing).
    """

    name = "finetuned"

    def __init__(self, path: str | Path, task: str = "evidence", *, cache: bool = True,
                 max_sentence: bool = False) -> None:
        from claimtrace.retrieval.dense import DenseRetriever

        inner = FinetunedEmbedder(path, task)
        self.embedder: Embedder = CachedEmbedder(inner, EmbeddingCache()) if cache else inner
        self._dense = DenseRetriever(self.embedder)
        self.max_sentence = max_sentence

    def build(self, units: Sequence[Unit]) -> Any:
        """Embed the units (and, with ``max_sentence``, their sentences)."""
        if not self.max_sentence:
            return self._dense.build(units)
        from claimtrace.documents.sentences import split_sentences

        texts, owner = [], []
        for i, u in enumerate(units):
            parts = [u.text[a:b] for a, b in split_sentences(u.text)]
            for t in parts if len(parts) > 1 else []:
                texts.append(t)
                owner.append(i)
        vecs = self.embedder.encode([u.text for u in units])
        svecs = self.embedder.encode(texts) if texts else np.zeros((0, vecs.shape[1]), dtype=np.float32)
        return MaxSentenceIndex(vecs, svecs, np.asarray(owner, dtype=np.int64))

    def scores(self, index: Any, query: str) -> np.ndarray:
        """Cosine of each unit with the query in the task's space (best sentence with ``max_sentence``)."""
        if not isinstance(index, MaxSentenceIndex):
            return self._dense.scores(index, query)
        q = self.embedder.encode([query])[0]
        out = np.asarray(index.units @ q, dtype=np.float32)
        if len(index.owner):
            np.maximum.at(out, index.owner, (index.sentences @ q).astype(np.float32))
        return out
