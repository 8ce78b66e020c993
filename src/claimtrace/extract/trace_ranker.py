"""The learned sentence rankers of the embedded extractor's two stages (hypothesis and evidence).

Each stage scores every candidate sentence as ``features @ weights``: a linear conditional-logit model (one
softmax over a paper's candidate sentences, the gold sentences its positives) trained by
``scripts/train_trace_ranker.py`` on the DEVELOPMENT part of the gold Psychological Science traces
(``shared/data/traces``; the untouched part, fixed by ``bench/traces_psychsci.py``'s hash, is never used) and, for
the hypothesis stage, the extra traces of the other shared psychsci papers (``bench/data/traces-extra``).
Weights: ``weights/trace_ranker.json``. The first features are the hand-set score the extractor used before
(``base``) and its parts, so a weight vector of (1, 0, ...) reproduces it; the others carry the structure of a
social-science paper that the biomedical training data of the classifiers lack:

- hypothesis: a testable expectation ("predicted", "hypothesized", "expected", "should", "H1:", "if ... then",
  preregistered) versus an aim or research question; a sentence that reports a result; a sentence in a later
  study than the finding's; a sentence naming a study; words shared with the finding; and features relative to the
  paper's other candidates rather than absolute values: the rank of the sentence's similarity to the finding, whether
  it is the most similar one, its similarity over the best one's, and the rank of a prediction (and of an explicit
  one) among the paper's predictions by what it shares with the finding (similarity plus stemmed word overlap), so
  the prediction tied to the finding wins over an aim and over the paper's other predictions; whether the sentence's
  paragraph states an explicit prediction, and whether the next sentence of the paragraph does; the tie of the
  sentence's paragraph to the finding (its best candidate's similarity plus word overlap, over the best
  paragraph's, and the paragraph's rank by it: a hypothesis paragraph restates the finding's variables in a sentence
  other than the prediction itself);
- evidence: its features and weights live in ``evidence_ranker.py`` (``weights/evidence_ranker.json``,
  trained by ``scripts/train_evidence_ranker.py``).

Journal boxes ("Statement of Relevance", "Open Practices", "Transparency") are not candidates of either stage;
for the hypothesis stage, a box paragraph's tail from its first explicit expectation on is (``box_body_tail``:
GROBID merges the box with the body paragraph after it). The per-paper out-of-fold misses of the hypothesis ranker:
``bench/hypothesis_cv.py`` (``docs/results/hypothesis-cv.md``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from claimtrace.cues import FINDING_REPORT
from claimtrace.cues import NULL_RESULT_WORDS as NULL_RESULT  # noqa: F401  (evidence_ranker imports it from here)
from claimtrace.cues import RANKER_STOP_WORDS as _STOP
from claimtrace.documents.studies import study_named
from claimtrace.extract.textclf import WEIGHTS_DIR
from claimtrace.lexicons import patterns

RANKER_WEIGHTS = WEIGHTS_DIR / "trace_ranker.json"

# cue patterns: resources/lexicons/extract.trace_ranker.yaml
PREDICTION, AIM_OR_QUESTION = patterns("extract.trace_ranker", "PREDICTION", "AIM_OR_QUESTION")
DESCRIPTIVE = re.compile(r"\b(M|Mdn|SD|SE)\s*=", re.I)
FOLLOW_UP, MANIPULATION, EXPLORATORY, INTERACTION = patterns(
    "extract.trace_ranker", "FOLLOW_UP", "MANIPULATION", "EXPLORATORY", "INTERACTION")
_WORD = re.compile(r"[a-z][a-z-]{3,}")

STRONG_PREDICTION, MODAL_PREDICTION, METHOD_WORDS = patterns(
    "extract.trace_ranker", "STRONG_PREDICTION", "MODAL_PREDICTION", "METHOD_WORDS")
CITATION = re.compile(r"\(([A-Z][^()]{0,80}?\d{4}[a-z]?)\)|\bet al\.|\[\d+(?:\s*[,\u2013-]\s*\d+)*\]")
KEY_CUE, LOOKBACK = patterns("extract.trace_ranker", "KEY_CUE", "LOOKBACK")
LOOKBACK_KINDS = frozenset({"discussion", "conclusion"})
BALANCE, NEGATED = patterns("extract.trace_ranker", "BALANCE", "NEGATED")

HYP_FEATURES = ("base", "sim", "cls", "cue", "prior", "prediction", "aim_only", "result", "stat",
                "later_study", "names_study", "intro", "overlap", "strong_prediction", "modal_prediction",
                "method_words", "citations", "question", "pre_method", "intro_position", "para_strong", "next_strong",
                # relative to the other candidates of the same paper (not absolute values): the rank of the
                # similarity to the finding, and the rank of a prediction among the paper's predictions
                "sim_rank", "sim_top", "sim_rel", "prediction_rank", "prediction_top", "strong_prediction_rank",
                # the tie of the sentence's paragraph to the finding
                "para_tie", "para_tie_rank")

BEHAVIOURAL, CLINICAL = patterns("extract.trace_ranker", "BEHAVIOURAL", "CLINICAL")
#: the learned rankers apply when at least this share of the domain words are behavioural ones (dev part of the
#: psychsci gold: 38 of 40 papers at or above 0.5; Evidence Inference validation articles: 60 of 75 below it)
MIN_BEHAVIOURAL_SHARE = 0.5


def behavioural_share(text: str) -> float:
    """Share of behavioural-study words among behavioural and clinical-trial words in a text."""
    b, c = len(BEHAVIOURAL.findall(text)), len(CLINICAL.findall(text))
    return b / (b + c + 1)


def social_science(text: str) -> bool:
    """Whether the learned (social-science) rankers apply to a paper's body text."""
    return behavioural_share(text) >= MIN_BEHAVIOURAL_SHARE


TEST_META, NORMATIVE_MODAL = patterns("extract.trace_ranker", "TEST_META", "NORMATIVE_MODAL")


def not_a_statement(text: str) -> bool:
    """A sentence about testing an expectation or a modal of caution: it names or sounds like a hypothesis but
    states none (not a stage-1 candidate of a social-science paper while others are left)."""
    return bool(TEST_META.search(text) or NORMATIVE_MODAL.search(text))


def box_body_tail(texts: Sequence[str], pid: Sequence[object], box: np.ndarray) -> np.ndarray:
    """Sentences of a journal-box paragraph that are the body's: GROBID often merges the box ("Statement of
    Relevance") with the introduction paragraph after it, and a box summarises findings, it states no
    expectation, so from the box paragraph's first explicit expectation ("we expected", "our key prediction was")
    on the paragraph's sentences are the body's (the dev traces: 3 of 80 papers had their gold there)."""
    out = np.zeros(len(texts), dtype=bool)
    on: object = None
    for i, (t, q) in enumerate(zip(texts, pid, strict=True)):
        if not box[i]:
            on = None
            continue
        if on != q and STRONG_PREDICTION.search(t):
            on = q
        out[i] = on == q
    return out


def hypothesis_candidates(context: np.ndarray, is_table: np.ndarray, box: np.ndarray, lookback_: np.ndarray,
                          not_statement: np.ndarray, texts: Sequence[str] | None = None,
                          pid: Sequence[object] | None = None) -> np.ndarray:
    """Stage 1's candidates: the context's sentences less table rows and journal boxes (a box's merged body tail,
    ``box_body_tail``, stays when ``texts`` and ``pid`` are given); look-backs and test-meta sentences leave only
    while other candidates are left."""
    if texts is not None and pid is not None and box.any():
        box = box & ~box_body_tail(texts, pid, box)
    allowed = np.asarray(context, dtype=bool) & ~is_table & ~box
    if (allowed & ~lookback_).any():
        allowed &= ~lookback_  # a look-back restates the hypothesis; keep it only when nothing else is left
    if (allowed & ~not_statement).any():
        allowed &= ~not_statement  # "To test this hypothesis, we ...": about the hypothesis, not its statement
    return allowed


def hypothesis_span(scores: np.ndarray, pid: Sequence[object], best: int, margin: float,
                    max_sentences: int) -> tuple[int, int]:
    """The first and last sentence of the hypothesis span around ``best``: neighbours of the same paragraph whose
    ranker score is within ``margin`` of the best join it, the higher first, up to ``max_sentences``."""
    lo = hi = best
    while hi - lo + 1 < max_sentences:
        opts = [j for j in (lo - 1, hi + 1) if 0 <= j < len(scores) and pid[j] == pid[best]
                and scores[j] >= scores[best] - margin]
        if not opts:
            break
        j = max(opts, key=lambda t: scores[t])
        lo, hi = min(lo, j), max(hi, j)
    return lo, hi


def lookback(text: str, kind: str) -> bool:
    """A Discussion or Conclusion sentence that looks back on the paper's expectation (not its statement)."""
    return kind in LOOKBACK_KINDS and bool(LOOKBACK.search(text))


def content_words(text: str) -> set[str]:
    """The content words of a text (lower-case, four letters or more, no stop words)."""
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def finding_study(finding: str, paper_studies: list[str]) -> str | None:
    """The study a finding names, else the paper's first study (None in a paper without studies)."""
    named = study_named(finding)
    if named and any(same_study(named, s) for s in paper_studies):
        return named
    return paper_studies[0] if paper_studies else None


_STUDY_NUMBER = re.compile(r"\d+|pilot")


@lru_cache(maxsize=1024)
def same_study(a: str | None, b: str | None) -> bool:
    """Studies "1" and "1a" are the same study (a sub-experiment of it)."""
    if a is None or b is None:
        return False
    na, nb = _STUDY_NUMBER.match(a), _STUDY_NUMBER.match(b)
    return bool(na and nb and na.group(0) == nb.group(0))


def _later(study: str | None, ref: str | None, order: list[str]) -> bool:
    if study in (None, "general") or ref is None or same_study(study, ref):
        return False
    idx = {s: i for i, s in enumerate(order)}
    return idx.get(study, 0) > min((i for s, i in idx.items() if same_study(s, ref)), default=0)


def rank_within(values: np.ndarray, among: np.ndarray) -> np.ndarray:
    """``1 / (1 + rank)`` of each value among the selected entries (rank 0: the highest), 0 for the others."""
    out = np.zeros(len(values))
    idx = np.flatnonzero(among)
    if len(idx):
        out[idx[np.argsort(-values[idx], kind="stable")]] = 1.0 / (1.0 + np.arange(len(idx)))
    return out


@lru_cache(maxsize=4)
def _stem_sets(texts: tuple[str, ...]) -> tuple[frozenset[str], ...]:
    """BM25's stemmed tokens of each text (cached: a paper's sentences are the same for each of its findings)."""
    from claimtrace.retrieval.bm25 import tokenize

    return tuple(frozenset(t) for t in tokenize(list(texts)))


def stem_overlap(finding: str, texts: list[str]) -> np.ndarray:
    """Share of the finding's stemmed content words (BM25's tokens) that each text holds."""
    fw = _stem_sets((finding,))[0]
    return np.array([len(fw & t) / (len(fw) or 1) for t in _stem_sets(tuple(texts))])


class SentenceCues(NamedTuple):
    """The finding-independent cues of one sentence that stage 1's features read."""

    prediction: bool
    aim_only: bool
    result: bool
    names_study: bool
    strong_prediction: bool
    modal_prediction: bool
    method_words: bool
    citations: float
    question: bool
    words: frozenset[str]


@lru_cache(maxsize=8192)
def sentence_cues(text: str) -> SentenceCues:
    """A sentence's regex cues and content words, computed once per sentence text (a paper's sentences are the
    same for each of its findings)."""
    pred = bool(PREDICTION.search(text))
    return SentenceCues(pred, not pred and bool(AIM_OR_QUESTION.search(text)), bool(FINDING_REPORT.search(text)),
                        study_named(text) is not None, bool(STRONG_PREDICTION.search(text)),
                        bool(MODAL_PREDICTION.search(text)), bool(METHOD_WORDS.search(text)),
                        min(len(CITATION.findall(text)), 3) / 3.0, text.rstrip().endswith("?"),
                        frozenset(content_words(text)))


def paragraph_tie(values: np.ndarray, pid: Sequence[object], among: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each sentence's paragraph by its best value among the selected sentences: that value over the best
    paragraph's, and ``1 / (1 + rank)`` of the paragraph (rank 0: the best; equal values share a rank; 0 for the
    sentences not selected)."""
    best: dict[object, float] = {}
    for v, q, ok in zip(values, pid, among, strict=True):
        if ok:
            best[q] = max(best.get(q, 0.0), float(v))
    if not best:
        return np.zeros(len(values)), np.zeros(len(values))
    top = max(best.values())
    rank = {v: 1.0 / (1.0 + k) for k, v in enumerate(sorted(set(best.values()), reverse=True))}
    rel = np.array([best.get(q, 0.0) / top if top > 0 else 0.0 for q in pid])
    return rel, np.array([rank[best[q]] if ok else 0.0 for q, ok in zip(pid, among, strict=True)])


def hypothesis_matrix(texts: list[str], parts: dict[str, np.ndarray], kinds: Sequence[str], studies_: list[str | None],
                      ref: str | None, order: list[str], finding: str, candidates: np.ndarray | None = None,
                      pid: Sequence[object] | None = None) -> np.ndarray:
    """Stage-1 feature matrix (rows: sentences, columns: ``HYP_FEATURES``); the relative features rank each
    sentence among ``candidates`` (default: all); ``pid``: each sentence's paragraph (default: its own)."""
    fw = content_words(finding)
    # the introduction by position: the sentences before the first Method paragraph (psychology papers often
    # carry no "Introduction" heading, so the section kind says "other")
    first_method = next((i for i, k in enumerate(kinds) if k in ("methods", "results")), len(kinds))
    # the paragraph states an explicit prediction ("We predicted ..."), and the next sentence of the paragraph does:
    # a sentence that sets up or opens the prediction span
    pids = list(pid) if pid is not None else list(range(len(texts)))
    cues = [sentence_cues(t) for t in texts]
    strong = [c.strong_prediction for c in cues]
    strong_pars = {q for q, st in zip(pids, strong, strict=True) if st}
    para_strong = [q in strong_pars for q in pids]
    next_strong = [i + 1 < len(texts) and pids[i + 1] == pids[i] and strong[i + 1] for i in range(len(texts))]
    rows = []
    for i, c in enumerate(cues):
        rows.append([
            parts["base"][i], parts["sim"][i], parts["cls"][i], parts["cue"][i], parts["prior"][i],
            float(c.prediction), float(c.aim_only), float(c.result),
            parts["stat"][i], float(_later(studies_[i], ref, order)), float(c.names_study),
            float(kinds[i] == "introduction" or studies_[i] is None),
            len(fw & c.words) / (len(fw) or 1), float(c.strong_prediction),
            float(c.modal_prediction), float(c.method_words),
            c.citations, float(c.question), float(i < first_method),
            i / first_method if i < first_method else 0.0, float(para_strong[i]), float(next_strong[i])])
    n = len(texts)
    cand = np.ones(n, dtype=bool) if candidates is None else np.asarray(candidates, dtype=bool)
    sim = np.asarray(parts["sim"], dtype=np.float64)
    is_pred = np.array([c.prediction for c in cues], dtype=bool)
    is_strong = np.array(strong, dtype=bool)
    tie = sim + stem_overlap(finding, texts) if n else sim  # what the finding and the sentence share
    sim_rank, pred_rank = rank_within(sim, cand), rank_within(tie, cand & is_pred)
    top = float(sim[cand].max()) if cand.any() else 0.0
    para_rel, para_rank = paragraph_tie(tie, pids, cand)
    rel = np.column_stack([sim_rank, (sim_rank == 1.0).astype(float), sim / top if top > 0 else np.zeros(n),
                           pred_rank, (pred_rank == 1.0).astype(float), rank_within(tie, cand & is_strong),
                           para_rel, para_rank])
    x = np.asarray(rows, dtype=np.float64).reshape(n, len(HYP_FEATURES) - rel.shape[1])
    return np.hstack([x, rel.reshape(n, -1)])


@lru_cache(maxsize=1)
def ranker_weights() -> dict[str, Any]:
    """The shipped ranker weights ({"hypothesis": {name: w}, "evidence": {name: w}, ...}); empty when absent."""
    if not RANKER_WEIGHTS.is_file():
        return {}
    return dict(json.loads(RANKER_WEIGHTS.read_text()))


def weight_vector(stage: str, names: tuple[str, ...]) -> np.ndarray | None:
    """The weights of one stage in the order of ``names`` (None when no weights ship)."""
    w = ranker_weights().get(stage)
    if not w:
        return None
    return np.array([float(w.get(n, 0.0)) for n in names])


def explain(names: tuple[str, ...], row: np.ndarray, w: np.ndarray, top: int = 4) -> str:
    """The features that raised (or lowered) one candidate's score most, as text for ``how_chosen``."""
    contrib = sorted(((float(v * wt), n) for n, v, wt in zip(names, row, w, strict=True) if v), key=lambda x: -abs(x[0]))
    return ", ".join(f"{n} {c:+.2f}" for c, n in contrib[:top])
