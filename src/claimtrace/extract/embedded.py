"""The embedded extractor: offline, no LLM. Scores the paper's body sentences for each stage.

Stage 1 (hypothesis): similarity to the finding (BM25 over sentences, plus MiniLM cosine with
``similarity="hybrid"``) + the hypothesis classifier's probability + section priors (introduction and
sections titled "hypotheses" up; results down). Stage 2 (evidence): sentences that carry statistical
results, ranked by similarity to the composite query (finding + hypothesis) + statistic strength +
section priors (results up; methods and introduction down) + a bonus for sentences holding a result the
statistics engine can check (recomputed p or a consistency verdict), scaled by the square of the share of
the paper's result sentences that are checkable: in a paper that reports its tests (APA psychology), the
sentence holding the test wins over a close candidate with a bare p or no statistic, while in a paper that
mostly reports bare p-values (many clinical trials) relevance decides alone; the best
sentence is extended to its neighbours in the same paragraph when they also carry results and score
close to it, and, when the span still holds no checkable result, widened to the nearest sentence of
the same paragraph (at most ``WIDEN_DISTANCE`` away) that holds one; at most ``max_evidence_sentences``
(3 by default).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from claimtrace.documents.model import Document, Sentence
from claimtrace.documents.studies import assign_studies, box_paragraphs, studies
from claimtrace.extract.config import ContextConfig
from claimtrace.extract.context import ContextSelector
from claimtrace.extract.evidence_ranker import (
    EV_FEATURES,
    evidence_matrix,
    evidence_study,
    evidence_weights,
    word_results,
)
from claimtrace.extract.hypothesis_classifier import (
    W_CLS,
    last_intro_paragraph,
    position_prior,
    score_and_cue_bonus,
)
from claimtrace.extract.locate import normalise, span_from_offsets, span_from_table_row
from claimtrace.extract.model import Flag, TraceSpan
from claimtrace.extract.statistics import (
    is_checked,
    row_statistics_records,
    sentence_statistics,
    stat_strength,
)
from claimtrace.extract.trace_ranker import (
    HYP_FEATURES,
    explain,
    finding_study,
    hypothesis_candidates,
    hypothesis_matrix,
    hypothesis_span,
    lookback,
    not_a_statement,
    same_study,
    social_science,
    weight_vector,
)

#: the innermost heading of a Method subsection
_METHOD_HEADING = re.compile(r"\b(methods?|statistical analys[ie]s|data analys[ie]s|analytic (strategy|plan)|procedures?|"
                             r"participants|measures|materials|design|sample)\b", re.I)
EV_SECTION_PRIOR = {"results": 0.3, "discussion": -0.05, "conclusion": -0.1, "methods": -0.35,
                    "introduction": -0.5, "other": 0.0}
#: words of a sentence that states a significance threshold rather than a result
_THRESHOLD = re.compile(r"\b(criteri(on|a)|thresholds?|alpha|α|cut-?offs?|set at|(was|were) considered|deemed|"
                        r"corrected|correction|bold(face)?)\b", re.I)
_RESULT_HEADING = re.compile(r"result|finding|outcome|efficacy|effect", re.I)
_HYP_MIN_SCORE = 0.45
W_SIM_HYP = 0.7  # weight of the similarity to the finding (stage 1's priors: hypothesis_classifier)
W_SIM_EV, W_STAT = 1.0, 0.6
MIN_EVIDENCE_STRENGTH = 0.3
EXTEND_RATIO = 0.85
W_QUERY_FINDING = 0.7  # weight of the finding vs the hypothesis in the stage-2 similarity
W_CHECKED = 0.4  # bonus for a sentence whose result the engine can check, times the paper's checked share squared
HYP_MAX_SENTENCES = 3
#: how close (in ranker logit) a neighbour must score to join the hypothesis span; dev part, hypothesis hits for
#: margins 0 / 0.5 / 1 / 2 / 4 / unlimited: 27 / 28 / 28 / 28 / 29 / 29 of 40: the smallest margin that reaches 28
HYP_EXTEND_MARGIN = 1.0
WIDEN_DISTANCE = 2  # how far (in sentences of the same paragraph) the span may widen to reach a checkable test


@dataclass
class StageOutput:
    """What one extraction stage returns: the span (or None), flags, and LLM bookkeeping."""

    span: TraceSpan | None
    flags: list[Flag] = field(default_factory=list)
    invocation_ids: list[str] = field(default_factory=list)
    model: str | None = None
    context_paragraphs: list[str] | None = None


class DocIndex:
    """Per-document precomputation shared by both stages and every finding."""

    def __init__(self, doc: Document, similarity: str = "bm25", table_rows: bool = False) -> None:
        from claimtrace.retrieval.bm25 import BM25Retriever
        from claimtrace.retrieval.units import document_units

        self.doc = doc
        self.sents: list[Sentence] = doc.sentences("body")
        self.units = document_units(doc, ["sentence", "table-row"] if table_rows else ["sentence"])
        by_id = {s.id: s for s in self.sents}
        # table rows stand in as pseudo-sentences (scope "table"); they compete in stage 2 only
        self.sents = [by_id[u.id] if u.scope != "table" else
                      Sentence(id=u.id, text=u.text, start=u.start, end=u.end, scope="table") for u in self.units]
        self.is_table = np.array([u.scope == "table" for u in self.units], dtype=bool)
        self.pid = [u.paragraph_id for u in self.units]
        self.kind = [u.section_kind for u in self.units]
        self.section = [u.section or "" for u in self.units]
        self.pos = {s.id: i for i, s in enumerate(self.sents)}
        if doc.paragraphs and all(p.study is None for p in doc.paragraphs):
            assign_studies(doc)  # a Document built before studies were assigned (a cache)
        par_study = {p.id: p.study for p in doc.paragraphs}
        self.study: list[str | None] = [par_study.get(p) for p in self.pid]
        self.studies = studies(doc)
        #: a behavioural/social-science paper: the learned rankers, journal boxes, study masks and the table-row rule
        #: apply (a clinical trial keeps the hand-set scoring the Evidence-Inference figures were measured with)
        self.social = social_science(doc.body_text)
        boxes = box_paragraphs(doc) if self.social else set()
        self.box = np.array([p in boxes for p in self.pid], dtype=bool)
        #: Discussion sentences that look back on the expectation ("we expected ..."): not hypothesis candidates
        self.lookback = np.array([self.social and lookback(u.text, k) for u, k in zip(self.units, self.kind, strict=True)],
                                 dtype=bool)
        #: sentences about testing an expectation, or modals of caution: they state no hypothesis
        self.not_statement = np.array([self.social and not_a_statement(u.text) for u in self.units], dtype=bool)
        last = last_intro_paragraph(doc)
        self.intro_last = np.array([last is not None and p == last for p in self.pid], dtype=bool)
        self.similarity = similarity
        self._bm25 = BM25Retriever()
        self._bm25_index = self._bm25.build(self.units) if self.units else None
        # with table rows: sentences keep the scores of a sentence-only index (table rows change no
        # sentence's score), and rows are scored in the joint index on the sentences' scale
        sent_units = [u for u in self.units if u.scope != "table"]
        self._bm25_sent = self._bm25.build(sent_units) if table_rows and sent_units and self.is_table.any() else None
        self.sims_cache: dict[str, np.ndarray] = {}
        self._hyp: np.ndarray | None = None
        self._cue: np.ndarray | None = None
        self.norm: list[str] | None = None
        self._stat: np.ndarray | None = None
        self._engine: np.ndarray | None = None
        self._emb: np.ndarray | None = None
        self._embedder: Any = None

    @property
    def hyp(self) -> np.ndarray:
        """Hypothesis-classifier probability of every sentence."""
        if self._hyp is None:
            self._score_sentences()
        assert self._hyp is not None
        return self._hyp

    @property
    def cue(self) -> np.ndarray:
        """Explicit hypothesis/aim cue bonus of every sentence."""
        if self._cue is None:
            self._score_sentences()
        assert self._cue is not None
        return self._cue

    @cached_property
    def texts(self) -> list[str]:
        """The text of every unit."""
        return [s.text for s in self.sents]

    @cached_property
    def hyp_prior(self) -> np.ndarray:
        """Stage 1's position prior of every unit (its section, heading, the introduction's last paragraph)."""
        return np.array([position_prior(k, sec, bool(last))
                         for k, sec, last in zip(self.kind, self.section, self.intro_last, strict=True)])

    @cached_property
    def hyp_kinds(self) -> list[str]:
        """The section kind stage 1's position features see: a Method subsection under an introduction-level
        heading ("Background / ... / Statistical analysis") is method text, by its innermost heading."""
        return ["methods" if _METHOD_HEADING.search(sec.rsplit("/", 1)[-1]) else k
                for k, sec in zip(self.kind, self.section, strict=True)]

    @cached_property
    def ev_prior(self) -> np.ndarray:
        """Stage 2's section prior of every unit (results up; methods and introduction down; a result heading)."""
        return np.array([EV_SECTION_PRIOR.get(k, 0.0) + (0.1 if _RESULT_HEADING.search(sec) else 0.0)
                         for k, sec in zip(self.kind, self.section, strict=True)])

    def _score_sentences(self) -> None:
        """The classifier probability and the cue bonus of every sentence, in one pass (they share their searches)."""
        both = [score_and_cue_bonus(s.text) for s in self.sents]
        self._hyp = np.array([b[0] for b in both])
        self._cue = np.array([b[1] for b in both])

    @property
    def stat(self) -> np.ndarray:
        """Statistic-strength cue of every sentence; a p-value in a sentence that states a significance threshold
        and where the statistics engine reads no result ("a criterion of p < .05 was used") does not count."""
        if self._stat is None:
            eng = self.engine
            self._stat = np.array([stat_strength(s.text, p_mention=bool(e) or bool(t) or not _THRESHOLD.search(s.text))
                                   for s, e, t in zip(self.sents, eng, self.is_table, strict=True)])
        return self._stat

    @property
    def engine(self) -> np.ndarray:
        """Statistics engine level of every sentence (or table row): 2 a checked result, 1 a parsed one, 0 none."""
        if self._engine is None:
            levels = sentence_statistics(self.doc)
            for s, is_row in zip(self.sents, self.is_table, strict=True):
                if is_row:
                    recs = row_statistics_records(self.doc, s.id)[0]
                    levels[s.id] = 2 if any(is_checked(r) for r in recs) else int(bool(recs))
            self._engine = np.array([levels.get(s.id, 0) for s in self.sents], dtype=np.int8)
        return self._engine

    def sim(self, query: str) -> np.ndarray:
        """Similarity of every sentence to a query, each component scaled to [0, 1]."""
        n = len(self.sents)
        if not n or self._bm25_index is None:
            return np.zeros(n)
        bm = np.asarray(self._bm25.scores(self._bm25_index, query), dtype=np.float64)
        sent = ~self.is_table
        if self._bm25_sent is not None:
            top = bm[sent].max() if sent.any() else 0.0
            top = top if top > 0 else bm.max()  # no sentence matches: rows on their own scale
            rows = np.clip(bm / top, 0, 1) if top > 0 else np.zeros(n)
            bm = np.zeros(n)
            bs = np.asarray(self._bm25.scores(self._bm25_sent, query), dtype=np.float64)
            bm[sent] = bs / bs.max() if bs.max() > 0 else bs
            bm[~sent] = rows[~sent]
        else:
            bm = bm / bm.max() if bm.max() > 0 else bm
        if self.similarity == "bm25":
            return bm
        if self._emb is None:
            from claimtrace.retrieval.embeddings import get_embedder

            self._embedder = get_embedder(None, cache=False)
            self._emb = np.asarray(self._embedder.encode([s.text for s in self.sents]))
        q = np.asarray(self._embedder.encode([query]))[0]
        cos = self._emb @ q
        lo = hi = 0.0
        if sent.any():
            lo, hi = float(np.median(cos[sent])), float(cos[sent].max())
        dn = np.clip((cos - lo) / (hi - lo), 0, 1) if hi > lo else np.zeros(n)
        if self.similarity == "dense":
            return dn
        return np.asarray(0.5 * bm + 0.5 * dn)


class EmbeddedExtractor:
    """Offline extractor: sentence scoring with BM25/MiniLM similarity, the hypothesis classifier and cues."""

    name = "embedded"

    def __init__(self, *, similarity: str = "bm25", max_evidence_sentences: int = 3,
                 selector: ContextSelector | None = None, table_rows: bool = False) -> None:
        self.similarity = similarity
        self.table_rows = table_rows
        self.max_evidence_sentences = max(1, max_evidence_sentences)
        self.selector = selector or ContextSelector()
        self._index: DocIndex | None = None
        #: keep each stage's feature matrix and candidate mask in ``last_features`` (the ranker's training)
        self.record_features = False
        self.last_features: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        #: the stage-2 inputs of the features (``scripts/train_evidence_ranker.py`` recomputes features from them)
        self.last_evidence_inputs: dict[str, Any] = {}

    def index(self, doc: Document) -> DocIndex:
        """The per-document index (rebuilt when the document changes)."""
        if self._index is None or self._index.doc.id != doc.id:
            self._index = DocIndex(doc, self.similarity, self.table_rows)
        return self._index

    def _allowed(self, ix: DocIndex, query: str, config: ContextConfig, gold: Sequence[str] | None,
                 task: str = "evidence") -> np.ndarray:
        """Mask of the sentences inside the configuration's context."""
        # the finding itself (a body sentence when the paper has no abstract) is never its own answer
        first_line = normalise(query.split("\n")[0])
        if ix.norm is None:
            ix.norm = [normalise(s.text) for s in ix.sents]
        mask = np.array([t != first_line for t in ix.norm], dtype=bool)
        if config.mode == "fulltext":
            return mask
        pids = self.selector.paragraphs(ix.doc, query, config, gold, task=task)
        if pids is None:
            return mask
        keep = set(pids)
        return mask & np.array([p in keep or t for p, t in zip(ix.pid, ix.is_table, strict=True)], dtype=bool)

    def hypothesis(self, doc: Document, finding: str, config: ContextConfig,
                   gold: Sequence[str] | None = None) -> StageOutput:
        """Stage 1: the sentence(s) stating the core hypothesis the finding answers."""
        ix = self.index(doc)
        if not ix.sents:
            return StageOutput(None, [Flag(code="no_hypothesis", stage="hypothesis", message="the document has no body sentences")])
        sim = ix.sim(finding)
        prior = ix.hyp_prior
        base = W_SIM_HYP * sim + W_CLS * ix.hyp + ix.cue + prior
        allowed = hypothesis_candidates(self._allowed(ix, finding, config, gold, "hypothesis"), ix.is_table, ix.box,
                                        ix.lookback, ix.not_statement, ix.texts, ix.pid)
        score = np.where(allowed, base, -np.inf)
        best = int(np.argmax(score))
        if not np.isfinite(score[best]) or score[best] < _HYP_MIN_SCORE:
            return StageOutput(None, [Flag(code="no_hypothesis", stage="hypothesis",
                                           message=f"no sentence scored as a hypothesis (best {float(score[best]):.2f} "
                                                   f"< {_HYP_MIN_SCORE})")])
        ref = finding_study(finding, ix.studies)
        how = f"hand-set score {float(score[best]):.2f} (similarity, classifier, cues, section)"
        w = weight_vector("hypothesis", HYP_FEATURES) if ix.social else None
        learned: np.ndarray | None = None
        if self.record_features:
            self.last_features["hypothesis"] = (self.hypothesis_features(ix, finding, sim, prior, base, allowed), allowed)
        if w is not None:
            x = self.hypothesis_features(ix, finding, sim, prior, base, allowed)
            learned = np.where(allowed, x @ w, -np.inf)
            best = int(np.argmax(learned))
            score = np.where(allowed, learned - learned[best] + base[best], -np.inf)  # on the hand-set scale
            how = (f"learned ranker {float(learned[best]):.2f} (study {ref or 'none'}): "
                   f"{explain(HYP_FEATURES, x[best], w)}")
        if ix.box[best]:
            how += "; in a journal box's paragraph after its first explicit expectation (body text GROBID merged in)"
        lo = hi = best
        if learned is None:
            # a hypothesis statement continued in the next sentence ("Specifically, we predicted ...")
            nxt = best + 1
            if nxt < len(ix.sents) and ix.pid[nxt] == ix.pid[best] and ix.hyp[nxt] >= 0.5 and score[nxt] >= 0.8 * score[best]:
                hi = nxt
        else:
            # a prediction stated over neighbouring sentences ("First, ... Second, ... Third, ..."): neighbours of
            # the same paragraph whose ranker score is within HYP_EXTEND_MARGIN of the best, up to 3 sentences
            lo, hi = hypothesis_span(learned, ix.pid, best, HYP_EXTEND_MARGIN, HYP_MAX_SENTENCES)
        span = span_from_offsets(doc, ix.sents[lo].start, ix.sents[hi].end, method="extracted",
                                 score=round(float(score[best]), 4))
        span.study, span.how_chosen = ix.study[best], how
        return StageOutput(span)

    def hypothesis_features(self, ix: DocIndex, finding: str, sim: np.ndarray, prior: np.ndarray,
                            base: np.ndarray, allowed: np.ndarray | None = None) -> np.ndarray:
        """Stage 1's feature matrix over the index's units (``trace_ranker.HYP_FEATURES``), the relative features
        ranked among the ``allowed`` candidates."""
        parts = {"base": base, "sim": sim, "cls": ix.hyp, "cue": ix.cue, "prior": prior,
                 "stat": (ix.engine >= 1).astype(float)}
        # a Method subsection under an introduction-level heading ("Background / ... / Statistical analysis") is
        # method text: its innermost heading decides the kind the position features see
        return hypothesis_matrix(ix.texts, parts, ix.hyp_kinds, ix.study,
                                 finding_study(finding, ix.studies), ix.studies, finding, allowed, pid=ix.pid)

    def evidence_features(self, ix: DocIndex, finding: str, sim: np.ndarray, stat: np.ndarray, prior: np.ndarray,
                          base: np.ndarray, hypothesis: str = "", only: np.ndarray | None = None) -> np.ndarray:
        """Stage 2's feature matrix over the index's units (``evidence_ranker.EV_FEATURES``; rows outside ``only``
        stay 0)."""
        parts = {"base": base, "sim": sim, "stat": stat, "prior": prior, "engine": ix.engine}
        return evidence_matrix(ix.texts, parts, ix.kind, ix.study, ix.pid, ix.is_table,
                               evidence_study(finding, ix.studies), ix.studies, finding, sections=ix.section,
                               hypothesis=hypothesis, only=only)

    def evidence(self, doc: Document, query: str, config: ContextConfig,
                 gold: Sequence[str] | None = None, max_sentences: int | None = None) -> StageOutput:
        """Stage 2: the consecutive sentences (at most ``max_sentences``) reporting the statistical test."""
        ix = self.index(doc)
        flags: list[Flag] = []
        if not ix.sents:
            return StageOutput(None, [Flag(code="no_evidence", stage="evidence", message="the document has no body sentences")])
        limit = max(1, max_sentences or self.max_evidence_sentences)
        finding, _, hyp = query.partition("\n")
        sim = ix.sim(finding)
        if hyp.strip() and hyp.strip() != finding.strip():
            # the composite query: the finding names the compared variables, the hypothesis adds context
            sim = W_QUERY_FINDING * sim + (1.0 - W_QUERY_FINDING) * ix.sim(hyp)
        stat = ix.stat
        prior = ix.ev_prior
        eng = ix.engine
        parsed = int((eng >= 1).sum())
        share = float((eng >= 2).sum()) / parsed if parsed else 0.0  # how often this paper reports checkable tests
        relevance = W_SIM_EV * sim + W_STAT * stat + prior
        score = relevance + W_CHECKED * share * share * (eng >= 2)
        allowed = self._allowed(ix, query, config, gold) & ~ix.box
        how = "hand-set score (similarity, statistic strength, section, checkable test)"
        w = evidence_weights() if ix.social else None
        word = word_results(ix.texts, ix.pid, ix.kind, ix.is_table, eng, stat,
                            MIN_EVIDENCE_STRENGTH) if ix.social else None
        cand, what = evidence_candidates(allowed, stat, ix.is_table, eng, ix.study, ix.kind,
                                         evidence_study(finding, ix.studies), ix.social, word=word)
        x: np.ndarray | None = None
        if w is not None or self.record_features:  # features of the units that can win (the others stay 0)
            x = self.evidence_features(ix, finding, sim, stat, prior, score, hyp.strip(),
                                       cand if cand.any() else allowed)
        if self.record_features and x is not None:
            self.last_features["evidence"] = (x, cand)
            self.last_evidence_inputs = {"word": None if word is None else word.copy(), "finding": finding, "hypothesis": hyp.strip(), "base": score, "sim": sim, "stat": stat, "prior": prior,
                                         "relevance": relevance, "cand": cand.copy(),
                                         "allowed": allowed.copy()}
        if w is not None and x is not None:
            score = x @ w
        if not cand.any():
            flags.append(Flag(code="no_statistics", stage="evidence",
                              message="no sentence in the context reports a statistical result; chose the most relevant sentence"))
            cand = allowed
        if not cand.any():
            return StageOutput(None, [Flag(code="no_evidence", stage="evidence", message="the context is empty")])
        masked = np.where(cand, score, -np.inf)
        best = int(np.argmax(masked))
        if x is not None and w is not None:
            how = (f"learned ranker {float(masked[best]):.2f}, the best of {int(cand.sum())} candidates ({what}); "
                   f"features that decided: {explain(EV_FEATURES, x[best], w)}")
            rest = np.where(np.arange(len(masked)) == best, -np.inf, masked)
            second = int(np.argmax(rest))
            if np.isfinite(rest[second]):
                how += (f"; ahead of the runner-up ({float(rest[second]):.2f}, \"{ix.sents[second].text[:60]}...\") by "
                        f"{explain(EV_FEATURES, x[best] - x[second], w, top=3)}")
        if ix.is_table[best]:
            row = span_from_table_row(doc, ix.sents[best].id, score=round(float(masked[best]), 4))
            row.how_chosen = how + "; a table row: the prose of the context reports no checkable test"
            return StageOutput(row, flags)
        lo, hi = evidence_span(ix.pid, ix.is_table, cand, allowed, stat, relevance, eng, best, limit)
        span = span_from_offsets(doc, ix.sents[lo].start, ix.sents[hi].end, method="extracted",
                                 score=round(float(masked[best]), 4))
        span.study, span.how_chosen = ix.study[best], how
        return StageOutput(span, flags)


def evidence_candidates(allowed: np.ndarray, stat: np.ndarray, is_table: np.ndarray, eng: np.ndarray,
                        study: Sequence[str | None], kind: Sequence[str], ref: str | None,
                        social: bool, word: np.ndarray | None = None) -> tuple[np.ndarray, str]:
    """Stage 2's candidates and what they are (for ``how_chosen``): units of the context that report a result, and
    (``word``, ``evidence_ranker.word_results``) Results sentences that report a finding in words; in a
    social-science paper a table row only when the prose reports no checkable test, and only the finding's study's
    Results when they report one."""
    cand = allowed & (stat >= MIN_EVIDENCE_STRENGTH)
    what = "units of the context that report a result"
    if word is not None and (allowed & word).any():
        cand = cand | (allowed & word)
        what += " or state one in words"
    if social and (cand & ~is_table & (eng >= 2)).any():
        cand &= ~is_table  # a table row only when the prose reports no test
        what = "sentences that report a result (no table rows: the prose reports a checkable test)"
    if social and ref is not None:  # (dev part: 23/40 evidence hits with or without this mask; kept as the design asks)
        own = np.array([same_study(st, ref) and k == "results" for st, k in zip(study, kind, strict=True)])
        if (cand & own & (eng >= 2)).any():
            cand &= own  # the finding's study's Results, when they report a checkable test
            what = f"result sentences of study {ref}'s Results (the finding's study)"
    return np.asarray(cand), what


def evidence_span(pids: Sequence[str], is_table: np.ndarray, cand: np.ndarray, allowed: np.ndarray, stat: np.ndarray,
                  relevance: np.ndarray, eng: np.ndarray, best: int, limit: int) -> tuple[int, int]:
    """The evidence span around the best unit: its same-paragraph neighbours that also report results and score
    close to it (by relevance alone: the checkable bonus chose the core), then widened to a checkable test."""
    lo = hi = best
    near = np.where(cand, relevance, -np.inf)
    while hi - lo + 1 < limit:
        options = []
        for j in (lo - 1, hi + 1):
            if 0 <= j < len(pids) and pids[j] == pids[best] and cand[j] and stat[j] >= 0.5 and not is_table[j] \
                    and near[j] >= EXTEND_RATIO * near[best]:
                options.append(j)
        if not options:
            break
        j = max(options, key=lambda t: near[t])
        lo, hi = min(lo, j), max(hi, j)
    lo, hi = _widen_to_check(pids, allowed, eng, lo, hi, limit)
    # a result stated in words just before its statistic ("There was a significant interaction. F(1, 40) = ...")
    # joins it: one evidence element, its words for the text and its numbers for the statistics
    j = lo - 1
    if hi - lo + 1 < limit and j >= 0 and pids[j] == pids[lo] and cand[j] and not is_table[j] \
            and stat[j] < MIN_EVIDENCE_STRENGTH:
        lo = j
    return lo, hi


def _widen_to_check(pids: Sequence[str], allowed: np.ndarray, eng: np.ndarray, lo: int, hi: int,
                    limit: int) -> tuple[int, int]:
    """Widen [lo, hi] to the nearest same-paragraph sentence holding a checkable result, when it holds none."""
    if (eng[lo:hi + 1] >= 2).any():
        return lo, hi
    pid = pids[lo]
    # a checkable test first; for a core with no statistic at all (a result stated in words), a parsed one
    for level in (2,) if (eng[lo:hi + 1] >= 1).any() else (2, 1):
        for d in range(1, WIDEN_DISTANCE + 1):
            for j in (hi + d, lo - d):  # the test usually follows the claim ("..., t(40) = 2.1, p = .04")
                if not (0 <= j < len(pids)) or pids[j] != pid or not allowed[j] or eng[j] < level:
                    continue
                nlo, nhi = min(lo, j), max(hi, j)
                if nhi - nlo + 1 <= limit:
                    return nlo, nhi
    return lo, hi
