"""Rerankers: none, a sentence-transformers cross-encoder from a local path, and the RankGPT listwise
LLM reranker (sliding window, robust permutation parsing, every invocation logged)."""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from claimtrace.errors import ClaimtraceError, InputError
from claimtrace.retrieval.embeddings import _sentence_transformers
from claimtrace.retrieval.units import Hit

log = logging.getLogger("claimtrace.retrieval.rerank")

DEFAULT_WINDOW = 20
DEFAULT_STEP = 10


@runtime_checkable
class Reranker(Protocol):
    """Reorders hits for a query; returns the top k with new ranks (and scores)."""

    name: str

    def rerank(self, query: str, hits: Sequence[Hit], k: int | None = None) -> list[Hit]:
        """The hits reordered, best first, cut to k."""
        ...


def _renumber(hits: Sequence[Hit], k: int | None, scores: Sequence[float] | None = None) -> list[Hit]:
    out = []
    for r, h in enumerate(hits[: k if k is not None else len(hits)], 1):
        upd: dict[str, Any] = {"rank": r}
        if scores is not None:
            upd["score"] = float(scores[r - 1])
        out.append(h.model_copy(update=upd))
    return out


class NoReranker:
    """Keeps the retriever's order."""

    name = "none"

    def rerank(self, query: str, hits: Sequence[Hit], k: int | None = None) -> list[Hit]:
        """The hits as they are, cut to k."""
        return _renumber(hits, k)


class CrossEncoderReranker:
    """A sentence-transformers ``CrossEncoder`` loaded from a local path (the ``[torch]`` extra)."""

    name = "cross-encoder"

    def __init__(self, path: str | Path, *, batch_size: int = 16, max_length: int = 512) -> None:
        st = _sentence_transformers("the cross-encoder reranker")
        p = Path(path)
        if not p.exists():
            raise InputError(p, "no such cross-encoder model folder")
        self.model = st.CrossEncoder(str(p), device="cpu", max_length=max_length)
        self.batch_size = batch_size

    def rerank(self, query: str, hits: Sequence[Hit], k: int | None = None) -> list[Hit]:
        """Score (query, text) pairs and sort by the score."""
        if not hits:
            return []
        raw = self.model.predict([(query, h.text) for h in hits], batch_size=self.batch_size,
                                 show_progress_bar=False)
        scores = [float(s) for s in (raw.tolist() if hasattr(raw, "tolist") else raw)]
        order = sorted(range(len(hits)), key=lambda i: -scores[i])
        return _renumber([hits[i] for i in order], k, [scores[i] for i in order])


class BiEncoderReranker:
    """Rescore the candidates by embedding cosine with the query (e.g. the fine-tuned retriever's head):
    only the M candidates are embedded, not the whole paper."""

    name = "bi-encoder"

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder

    def rerank(self, query: str, hits: Sequence[Hit], k: int | None = None) -> list[Hit]:
        """Sort the hits by cosine with the query."""
        if not hits:
            return []
        vecs = self.embedder.encode([query, *(h.text for h in hits)])
        scores = [float(v) for v in vecs[1:] @ vecs[0]]
        order = sorted(range(len(hits)), key=lambda i: -scores[i])
        return _renumber([hits[i] for i in order], k, [scores[i] for i in order])


# ---- RankGPT: windows and permutations -----------------------------------------------------------

def sliding_windows(n: int, window: int = DEFAULT_WINDOW, step: int = DEFAULT_STEP) -> list[tuple[int, int]]:
    """RankGPT's windows over n ranked candidates, from the back to the front: [(start, end), ...]."""
    if window < 1 or step < 1:
        raise ValueError("window and step must be positive")
    if n <= 0:
        return []
    out: list[tuple[int, int]] = []
    end = n
    while True:
        start = max(0, end - window)
        out.append((start, end))
        if start == 0:
            break
        end -= step
    return out




def parse_permutation(text: str | Sequence[int], n: int) -> list[int]:
    """A full permutation of range(n) from an answer like '[3] > [1] > [2]' or [3, 1, 2] (ids are 1-based).

    Duplicates keep their first place, ids outside 1..n are dropped, and ids the answer leaves out
    follow in their original order, so any answer yields a valid permutation.
    """
    seen: list[int] = []
    if isinstance(text, str):
        bracketed = re.findall(r"\[\s*(\d+)\s*\]", text)
        numbers: Sequence[int | str] = bracketed if bracketed else re.findall(r"(?<![\w.])(\d+)(?![\w.])", text)
    else:
        numbers = text
    for tok in numbers:
        i = int(tok) - 1
        if 0 <= i < n and i not in seen:
            seen.append(i)
    return seen + [i for i in range(n) if i not in seen]


def apply_permutation(items: list[Any], start: int, end: int, perm: Sequence[int]) -> list[Any]:
    """Reorder ``items[start:end]`` by ``perm`` (indices into that slice); the rest stays."""
    window = items[start:end]
    if sorted(perm) != list(range(len(window))):
        raise ValueError("not a permutation of the window")
    return items[:start] + [window[i] for i in perm] + items[end:]


def rankgpt_messages(query: str, passages: Sequence[str], max_chars: int = 600) -> list[dict[str, str]]:
    """The RankGPT prompt for one window: numbered passages, answer as '[2] > [1] > ...'."""
    n = len(passages)
    lines = [f"[{i}] {' '.join(p.split())[:max_chars]}" for i, p in enumerate(passages, 1)]
    system = ("You are RankGPT, an assistant that ranks passages by their relevance to a query. "
              "Answer only with the ranking.")
    user = (f"I will give you {n} passages, each marked by a number in brackets. Rank them by their "
            f"relevance to the query.\n\nQuery: {query}\n\n" + "\n".join(lines) +
            f"\n\nQuery: {query}\nRank all {n} passages, most relevant first, using their numbers in the "
            f"format [2] > [1] > [3]. Answer only with the ranking, no explanation.")
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


Complete = Callable[[list[dict[str, str]]], str]


class RankingAnswer(BaseModel):
    """The LLM's answer for one window: passage numbers, most relevant first."""

    ranking: list[int] = Field(default_factory=list)


class LLMListwiseReranker:
    """RankGPT listwise reranking with a sliding window (default 20, step 10) from the back of the list.

    By default each window goes through ``claimtrace.llm`` (prompt ``rerank_rankgpt``, task ``rerank``,
    schema-constrained JSON ``{"ranking": [...]}``), so every call is cached and recorded in the LLM
    ledger; ``complete`` (chat messages -> answer text) replaces it for other clients. Each window's
    query, unit ids, answer, parsed permutation, ledger invocation ids and timing are also logged (the
    ``claimtrace.retrieval.rerank`` logger, and one JSON line per call in ``log_path`` when set).
    """

    name = "llm"

    def __init__(self, complete: Complete | None = None, *, client: Any = None, settings: Any = None,
                 window: int = DEFAULT_WINDOW, step: int = DEFAULT_STEP, log_path: str | Path | None = None,
                 max_chars: int = 600) -> None:
        self.complete = complete
        self.client = client
        if complete is None and client is None:
            from claimtrace.llm import LLMClient

            self.client = LLMClient(settings)
        self.window = window
        self.step = step
        self.log_path = Path(log_path) if log_path else None
        self.max_chars = max_chars
        self.calls: list[dict[str, Any]] = []

    def _ask(self, query: str, passages: list[str]) -> tuple[str, list[int] | None, list[str]]:
        """One window: (raw answer, ranking if structured, ledger invocation ids)."""
        if self.complete is not None:
            return self.complete(rankgpt_messages(query, passages, self.max_chars)), None, []
        short = [" ".join(p.split())[: self.max_chars] for p in passages]
        res = self.client.structured("rerank_rankgpt", {"query": query, "passages": short, "n": len(short)},
                                     RankingAnswer, task="rerank")
        if not res.ok:
            raise ClaimtraceError(f"{res.error.kind}: {res.error.message}")
        return res.raw or "", list(res.value.ranking), list(res.invocation_ids)

    def rerank(self, query: str, hits: Sequence[Hit], k: int | None = None) -> list[Hit]:
        """Rerank all hits window by window, then cut to k."""
        items = list(hits)
        for start, end in sliding_windows(len(items), self.window, self.step):
            if end - start < 2:
                continue
            t0 = time.time()
            error: str | None = None
            answer, ranking, inv = "", None, list[str]()
            try:
                answer, ranking, inv = self._ask(query, [h.text for h in items[start:end]])
            except ClaimtraceError as exc:
                error = str(exc)
            perm = parse_permutation(ranking if ranking is not None else answer, end - start)
            self._log({"query": query, "window": [start, end], "unit_ids": [h.unit_id for h in items[start:end]],
                       "answer": answer, "ranking": ranking, "permutation": perm, "invocation_ids": inv,
                       "error": error, "seconds": round(time.time() - t0, 3)})
            if error:
                raise ClaimtraceError(f"LLM reranker failed on window {start}-{end}: {error}")
            items = apply_permutation(items, start, end, perm)
        n = len(items)
        return _renumber(items, k, [float(n - i) for i in range(n)])

    def _log(self, record: dict[str, Any]) -> None:
        self.calls.append(record)
        log.info("rankgpt window %s: %s -> %s (%.1fs)", record["window"], str(record["answer"])[:200],
                 record["permutation"], record["seconds"])
        if self.log_path:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            with self.log_path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")


def get_reranker(spec: str | None, **kwargs: Any) -> Reranker:
    """A reranker from a spec: 'none', 'cross-encoder:PATH', 'finetuned:DIR' (bi-encoder rescoring) or 'llm'."""
    if spec in (None, "", "none"):
        return NoReranker()
    if spec.startswith("cross-encoder:"):
        return CrossEncoderReranker(spec.split(":", 1)[1])
    if spec == "llm":
        return LLMListwiseReranker(**kwargs)
    if spec.startswith("finetuned:"):
        from claimtrace.retrieval.embeddings import CachedEmbedder
        from claimtrace.retrieval.finetuned import FinetunedEmbedder

        return BiEncoderReranker(CachedEmbedder(FinetunedEmbedder(spec.split(":", 1)[1], kwargs.get("task", "evidence"))))
    raise ClaimtraceError(f"unknown reranker {spec!r} (expected none, cross-encoder:PATH, finetuned:DIR or llm)")
