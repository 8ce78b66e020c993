"""Rerankers: none, the shipped cross-encoder (int8 ONNX, no torch) or one from a local path, bi-encoder
rescoring, and the RankGPT listwise LLM reranker (sliding window, robust permutation parsing, every
invocation logged and kept, identity answers of a weak model detected and warned about)."""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from claimtrace import specs
from claimtrace.errors import ClaimtraceError, InputError
from claimtrace.retrieval.cross_encoder import MODEL_FILE, OnnxCrossEncoder
from claimtrace.retrieval.embeddings import _sentence_transformers
from claimtrace.retrieval.units import Hit

log = logging.getLogger("claimtrace.retrieval.rerank")

DEFAULT_WINDOW = 20
DEFAULT_STEP = 10
#: a window whose permutation has Kendall tau >= this with the input order counts as near-identity
NEAR_IDENTITY_TAU = 0.9


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
    """Score (query, text) pairs with a cross-encoder: by default the one shipped with the package (int8 ONNX,
    no torch); a folder with ``model.onnx`` + ``tokenizer.json`` runs the same way; any other folder is
    loaded as a sentence-transformers ``CrossEncoder`` (the ``[torch]`` extra)."""

    name = "cross-encoder"

    def __init__(self, path: str | Path | None = None, *, batch_size: int = 16, max_length: int | None = None) -> None:
        p = Path(path) if path is not None else None
        if p is not None and not p.exists():
            raise InputError(p, "no such cross-encoder model folder")
        self.model: Any
        if p is None or (p / MODEL_FILE).is_file():
            self.model = OnnxCrossEncoder(p, batch_size=batch_size, max_length=max_length)
            self._st = False
        else:
            st = _sentence_transformers("a sentence-transformers cross-encoder")
            self.model = st.CrossEncoder(str(p), device="cpu", max_length=max_length or 512)
            self._st = True
        self.batch_size = batch_size

    def scores(self, query: str, texts: Sequence[str]) -> list[float]:
        """One relevance score per text (higher is better)."""
        if not texts:
            return []
        if not self._st:
            return [float(x) for x in self.model.score(query, texts)]
        raw = self.model.predict([(query, t) for t in texts], batch_size=self.batch_size, show_progress_bar=False)
        return [float(s) for s in (raw.tolist() if hasattr(raw, "tolist") else raw)]

    def rerank(self, query: str, hits: Sequence[Hit], k: int | None = None) -> list[Hit]:
        """Score (query, text) pairs and sort by the score (ties keep the retriever's order)."""
        if not hits:
            return []
        scores = self.scores(query, [h.text for h in hits])
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


def kendall_tau_with_input(perm: Sequence[int]) -> float:
    """Kendall's tau between a permutation and the input order (1.0: unchanged, -1.0: reversed)."""
    if len(perm) < 2:
        return 1.0
    from scipy.stats import kendalltau

    return float(kendalltau(range(len(perm)), list(perm)).statistic)


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

    A weak model often answers with the input order: each window records whether its permutation is the
    identity and its Kendall tau with the input order; a call where any window is identity or near-identity
    (tau >= ``near_identity_tau``) logs one warning with the counts. ``last_invocation_ids`` and
    ``last_windows`` hold the ledger ids and window records of the latest ``rerank`` call (a trace records
    them), ``calls`` every window since the reranker was made.
    """

    name = "llm"

    def __init__(self, complete: Complete | None = None, *, client: Any = None, settings: Any = None,
                 window: int = DEFAULT_WINDOW, step: int = DEFAULT_STEP, log_path: str | Path | None = None,
                 max_chars: int = 600, near_identity_tau: float = NEAR_IDENTITY_TAU) -> None:
        self.complete = complete
        self.client = client
        if complete is None and client is None:
            from claimtrace.llm import LLMClient

            self.client = LLMClient(settings)
        self.window = window
        self.step = step
        self.log_path = Path(log_path) if log_path else None
        self.max_chars = max_chars
        self.near_identity_tau = near_identity_tau
        self.calls: list[dict[str, Any]] = []
        self.last_windows: list[dict[str, Any]] = []
        self.last_invocation_ids: list[str] = []

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
        self.last_windows, self.last_invocation_ids = [], []
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
            tau = kendall_tau_with_input(perm)
            self._log({"query": query, "window": [start, end], "unit_ids": [h.unit_id for h in items[start:end]],
                       "answer": answer, "ranking": ranking, "permutation": perm, "invocation_ids": inv,
                       "identity": perm == list(range(end - start)), "kendall_tau": round(tau, 4),
                       "error": error, "seconds": round(time.time() - t0, 3)})
            if error:
                raise ClaimtraceError(f"LLM reranker failed on window {start}-{end}: {error}")
            items = apply_permutation(items, start, end, perm)
        self._warn_identity(query)
        n = len(items)
        return _renumber(items, k, [float(n - i) for i in range(n)])

    def _warn_identity(self, query: str) -> None:
        ws = self.last_windows
        ident = sum(w["identity"] for w in ws)
        near = sum(not w["identity"] and w["kendall_tau"] >= self.near_identity_tau for w in ws)
        if ident or near:
            log.warning("RankGPT: %d of %d windows came back in the input order and %d more nearly so (Kendall tau "
                        ">= %.2f) for query %r: the model may not be reranking", ident, len(ws), near,
                        self.near_identity_tau, query[:80])

    def _log(self, record: dict[str, Any]) -> None:
        self.calls.append(record)
        self.last_windows.append(record)
        self.last_invocation_ids.extend(record["invocation_ids"])
        log.info("rankgpt window %s: %s -> %s (%.1fs)", record["window"], str(record["answer"])[:200],
                 record["permutation"], record["seconds"])
        if self.log_path:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            with self.log_path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")


class RetrieverReranker:
    """Rerank M candidates by re-running a retriever over them alone (``rescore:SPEC``, e.g. ``rescore:bm25``,
    ``rescore:hybrid-finetuned:DIR``): a second, different ranking of the first stage's candidates."""

    name = "rescore"

    def __init__(self, spec: str | specs.Spec, task: str = "evidence") -> None:
        from claimtrace.retrieval.pipeline import get_retriever

        self.spec = str(spec)
        self.retriever = get_retriever(spec, task=task)

    def rerank(self, query: str, hits: Sequence[Any], k: int | None = None) -> list[Any]:
        """The hits ranked by the retriever's scores over the candidates."""
        from claimtrace.retrieval.base import search
        from claimtrace.retrieval.units import Unit

        if not hits:
            return []
        units = [Unit(id=h.unit_id, text=h.text, scope=h.scope, start=h.start, end=h.end, section=h.section,
                      paragraph_id=h.unit_id.split(".")[0]) for h in hits]
        return search(self.retriever, units, query, min(k or len(units), len(units)))


def _build_reranker(spec: specs.Spec, task: str, kwargs: dict[str, Any]) -> Reranker:
    """The reranker of one registered spec (every kind in ``claimtrace.specs.RERANKERS``; a test holds it)."""
    if isinstance(spec, specs.NoReranker):
        return NoReranker()
    if isinstance(spec, specs.CrossEncoderReranker):
        return CrossEncoderReranker(spec.arg)
    if isinstance(spec, specs.LLMReranker):
        return LLMListwiseReranker(**kwargs)
    if isinstance(spec, specs.FinetunedReranker):
        from claimtrace.retrieval.embeddings import CachedEmbedder
        from claimtrace.retrieval.finetuned import FinetunedEmbedder

        return BiEncoderReranker(CachedEmbedder(FinetunedEmbedder(spec.arg, task)))
    if isinstance(spec, specs.DenseReranker):
        from claimtrace.retrieval.embeddings import get_embedder

        return BiEncoderReranker(get_embedder(None))
    if isinstance(spec, specs.RescoreReranker):
        return RetrieverReranker(spec.arg, task)
    raise ClaimtraceError(f"reranker {spec} is registered but has no builder in claimtrace.retrieval.rerank")


def get_reranker(spec: str | specs.Spec | None, *, task: str = "evidence", **kwargs: Any) -> Reranker:
    """A reranker from a spec (a spelling or a :mod:`claimtrace.specs` spec): none, cross-encoder (the shipped
    model), cross-encoder:PATH, finetuned:DIR (bi-encoder rescoring, ``task``'s head), llm (RankGPT; ``kwargs``
    go to :class:`LLMListwiseReranker`), dense (MiniLM rescoring) or rescore:SPEC (a retriever over the
    candidates)."""
    if spec in (None, ""):
        spec = "none"
    return _build_reranker(specs.RERANKERS.parse(spec), task, kwargs)
