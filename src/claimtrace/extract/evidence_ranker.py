"""The learned sentence ranker of the embedded extractor's evidence stage (stage 2).

Each candidate (a result sentence or a table row) is scored as ``features @ weights``: a linear conditional-logit
model (one softmax over a paper's candidates, the gold evidence its positives) trained by
``scripts/train_evidence_ranker.py`` on the DEVELOPMENT part of the gold Psychological Science traces
(``shared/data/traces``; the untouched part, fixed by ``bench/traces_psychsci.py``'s hash, is never used).
Weights: ``weights/evidence_ranker.json``. The first feature is the hand-set score the extractor used before
(``base``), so a weight vector of (1, 0, ...) reproduces it; the others carry the structure of a social-science
paper:

- the study: the paragraph's study against the finding's (``evidence_study``: the study it names, plurals included,
  else the first study that is not a pilot), a later study, the General Discussion, a sentence naming another study;
- the order of the result paragraph inside its study's Results, the first result of its paragraph, the first checked
  test of its study's Results (the study's main test is usually reported first; follow-ups, simple effects and
  secondary analyses come after it);
- the kind of analysis: descriptives without a test (M, SD), follow-up / post hoc, manipulation checks, exploratory
  and control analyses, balance checks, an omnibus or main test, a sentence packed with tests, a table row;
- the finding's contrast: an interaction test when the finding is about one (and its words in the sentence), an
  interaction the finding does not ask about, a null result for a finding that is not null, the finding's words
  (and crude stems, so "congruence" meets "congruency") in the sentence, its paragraph and its section heading, the
  hypothesis's words, numbers the finding quotes;
- relative to the other candidates of the paper: the rank of the candidate's similarity to the query.

``analysis_kind`` names the kind of test a candidate reports (the error analysis of ``scripts/train_evidence_ranker.py``
uses it). The stage-1 ranker (hypothesis) lives in ``trace_ranker.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from claimtrace.documents.studies import studies_named, study_named
from claimtrace.extract.textclf import WEIGHTS_DIR
from claimtrace.extract.trace_ranker import (
    BALANCE,
    DESCRIPTIVE,
    EXPLORATORY,
    FOLLOW_UP,
    INTERACTION,
    KEY_CUE,
    MANIPULATION,
    NEGATED,
    NULL_RESULT,
    _later,
    content_words,
    same_study,
)
from claimtrace.lexicons import pattern, patterns

EVIDENCE_WEIGHTS = WEIGHTS_DIR / "evidence_ranker.json"

EV_FEATURES = ("base", "sim", "stat", "prior", "checked", "same_study", "later_study", "general",
               "first_results", "results_order", "descriptive", "follow_up", "manipulation", "exploratory",
               "interaction", "table", "discussion", "key_cue", "balance", "overlap", "null_mismatch",
               "stem_overlap", "hyp_overlap", "heading_overlap", "paragraph_overlap", "sim_rank", "first_in_paragraph",
               "omnibus", "finding_numbers", "many_tests", "contrast_match", "names_other_study", "unasked_interaction",
               "word_result", "figure_ref", "first_test_in_study")

# cue patterns: resources/lexicons/extract.evidence_ranker.yaml
OMNIBUS = pattern("extract.evidence_ranker", "OMNIBUS")
#: a contrast of two factors ("A x B", "between A and B", "interaction of A with B")
_CONTRAST = re.compile(r"\b(interaction|×|x)\b", re.I)
_INTERACTION_WORD = re.compile(r"\binteraction\b", re.I)
_SIGNIFICAN = re.compile(r"\bsignifican", re.I)
_NUMBER = re.compile(r"(?<![\w.])-?\d*\.\d+|\b\d+(?:\.\d+)?%")
FINDING_WORDS = pattern("extract.evidence_ranker", "FINDING_WORDS")
#: a reference to a table or figure (where a result stated in words keeps its numbers)
FIGURE_REF = re.compile(r"\b(Tables?|Figs?\.?|Figures?)\s*S?\d", re.I)
_NOT_A_RESULT = pattern("extract.evidence_ranker", "NOT_A_RESULT")
WORD_MIN_CHARS = 40
MEDIATION, SECONDARY, SIMPLE_EFFECT = patterns(
    "extract.evidence_ranker", "MEDIATION", "SECONDARY", "SIMPLE_EFFECT")
_TEST_STAT = re.compile(r"\b([tFrzbβχ]|chi2|χ2|OR|B)\s*(?:\([^)]*\))?\s*[=<>]\s*-?\s*\d*\.?\d", re.I)


def evidence_study(finding: str, paper_studies: list[str]) -> str | None:
    """The study whose Results hold a finding's test: the first study it names that the paper has ("Studies 1 and
    2 showed ..." -> "1"), else the paper's first study that is not a pilot (None in a paper without studies)."""
    for named in studies_named(finding):
        if any(same_study(named, s) for s in paper_studies):
            return named
    main = [s for s in paper_studies if not s.startswith("pilot")] or paper_studies
    return main[0] if main else None


def word_results(texts: Sequence[str], pids: Sequence[str], kinds: Sequence[str], is_table: np.ndarray,
                 eng: np.ndarray, stat: np.ndarray, min_strength: float) -> np.ndarray:
    """Result sentences that report a finding in words, without a statistic of their own: a Results sentence with a
    finding word ("significant", "interaction", "differed", "higher", ...) that is not a plan or a design, backed by
    "significant", a table/figure reference in its paragraph, or a statistic in the next sentence of its paragraph."""
    n = len(texts)
    refs = {pid for t, pid in zip(texts, pids, strict=True) if FIGURE_REF.search(t)}
    out = np.zeros(n, dtype=bool)
    for i, t in enumerate(texts):
        if kinds[i] != "results" or is_table[i] or stat[i] >= min_strength or len(t) < WORD_MIN_CHARS:
            continue
        m = FINDING_WORDS.search(t)
        if m is None or _NOT_A_RESULT.search(t):
            continue
        nxt = i + 1 < n and pids[i + 1] == pids[i] and eng[i + 1] >= 1
        out[i] = bool(_SIGNIFICAN.search(t)) or pids[i] in refs or nxt
    return out


def analysis_kind(text: str, is_table: bool = False, checked: bool = True) -> str:
    """The kind of analysis a candidate reports, the first that applies: "table row", "manipulation check",
    "mediation", "follow-up", "simple effect", "descriptive", "exploratory", "secondary analysis", "interaction",
    "main or omnibus test", "stated in words" (no statistic), else "test" (the error analysis of the trainer)."""
    if is_table:
        return "table row"
    for name, rx in (("manipulation check", MANIPULATION), ("mediation", MEDIATION), ("follow-up", FOLLOW_UP),
                     ("simple effect", SIMPLE_EFFECT)):
        if rx.search(text):
            return name
    if DESCRIPTIVE.search(text) and not checked:
        return "descriptive"
    if EXPLORATORY.search(text):
        return "exploratory"
    if SECONDARY.search(text):
        return "secondary analysis"
    if re.search(r"\binteraction\b|×", text, re.I):
        return "interaction"
    if OMNIBUS.search(text):
        return "main or omnibus test"
    if not _TEST_STAT.search(text) and not re.search(r"\bp\s*[<=>]", text):
        return "stated in words"
    return "test"


def stems(text: str) -> set[str]:
    """Crude stems of a text's content words (their first five letters: "congruence" and "congruency" meet)."""
    return {w[:5] for w in content_words(text)}


def _share(a: set[str], b: set[str]) -> float:
    return len(a & b) / (len(a) or 1)


class UnitCues(NamedTuple):
    """The finding-independent cues of one candidate text (``unit_cues``)."""

    descriptive: bool
    follow_up: bool
    manipulation: bool
    exploratory: bool
    interaction_word: bool
    key_cue: bool
    balance: bool
    null_result: bool
    omnibus: bool
    contrast: bool
    figure_ref: bool
    words: frozenset[str]
    stems: frozenset[str]
    numbers: frozenset[str]
    n_stats: float  # test statistics named, capped at 4, over 4
    named_study: str | None


@lru_cache(maxsize=8192)
def unit_cues(text: str) -> UnitCues:
    """The cues of one candidate text that do not depend on the finding, computed once per text (the matrix is
    built for every finding of a paper), as ``trace_ranker.sentence_cues`` does for stage 1."""
    return UnitCues(bool(DESCRIPTIVE.search(text)), bool(FOLLOW_UP.search(text)), bool(MANIPULATION.search(text)),
                    bool(EXPLORATORY.search(text)), bool(_INTERACTION_WORD.search(text)), bool(KEY_CUE.search(text)),
                    bool(BALANCE.search(text)), bool(NULL_RESULT.search(text)), bool(OMNIBUS.search(text)),
                    bool(_CONTRAST.search(text)), bool(FIGURE_REF.search(text)), frozenset(content_words(text)),
                    frozenset(stems(text)), frozenset(_NUMBER.findall(text)),
                    min(len(_TEST_STAT.findall(text)), 4) / 4.0, study_named(text))


def evidence_matrix(texts: list[str], parts: dict[str, np.ndarray], kinds: Sequence[str], studies_: list[str | None],
                    pids: list[str], is_table: np.ndarray, ref: str | None, order: list[str], finding: str, *,
                    sections: Sequence[str] | None = None, hypothesis: str = "",
                    only: np.ndarray | None = None) -> np.ndarray:
    """Stage-2 feature matrix (rows: sentences or table rows, columns: ``EV_FEATURES``).

    Besides each candidate's own cues, some features compare a candidate with the others of its paper: the rank of
    its similarity to the query among the result sentences, whether it is the first result of its paragraph. Rows
    outside ``only`` (units that cannot win: not candidates) are left 0, which keeps the stage fast."""
    about_interaction = bool(INTERACTION.search(finding))
    fw = content_words(finding)
    fs, hs = stems(finding), stems(hypothesis) - stems(finding)
    fnum = set(_NUMBER.findall(finding))
    finding_null = bool(NEGATED.search(finding))
    sections = sections or [""] * len(texts)
    # order of the result paragraphs (with a parsed statistic) inside each study's Results
    rank: dict[str, int] = {}
    seen: dict[str | None, list[str]] = {}
    for i, pid in enumerate(pids):
        if kinds[i] == "results" and not is_table[i] and parts["engine"][i] >= 1:
            lst = seen.setdefault(studies_[i], [])
            if pid not in lst:
                lst.append(pid)
            rank.setdefault(pid, lst.index(pid))
    keep = np.ones(len(texts), dtype=bool) if only is None else np.asarray(only, dtype=bool)
    wanted = {pids[i] for i in np.where(keep)[0]}
    unit_stems = {i: set(unit_cues(texts[i]).stems) for i, pid in enumerate(pids) if pid in wanted}
    par_stems: dict[str, set[str]] = {}
    first_stat: dict[str, int] = {}
    for i, st in unit_stems.items():
        par_stems.setdefault(pids[i], set()).update(st)
    for i, pid in enumerate(pids):
        if parts["engine"][i] >= 1 and not is_table[i]:
            first_stat.setdefault(pid, i)
    # the rank of each result unit's similarity among the paper's result units
    res = np.array([parts["stat"][i] >= 0.3 for i in range(len(texts))], dtype=bool)
    sim_rank = np.zeros(len(texts))
    if res.any():
        idx = np.where(res)[0]
        order_ = idx[np.argsort(-np.asarray(parts["sim"])[idx], kind="stable")]
        for r_, i in enumerate(order_):
            sim_rank[i] = 1.0 / (1.0 + r_)
    # the first checked test of each study's Results among the units that can win (the study's main test comes first)
    first_test: dict[str | None, int] = {}
    for i in range(len(texts)):
        if keep[i] and kinds[i] == "results" and not is_table[i] and parts["engine"][i] >= 2:
            first_test.setdefault(studies_[i], i)
    rows = []
    zero = [0.0] * len(EV_FEATURES)
    for i, t in enumerate(texts):
        if not keep[i]:
            rows.append(zero)
            continue
        r = rank.get(pids[i])
        tested = parts["engine"][i] >= 2
        ts = unit_stems[i]
        c = unit_cues(t)
        named = c.named_study
        rows.append([
            parts["base"][i], parts["sim"][i], parts["stat"][i], parts["prior"][i], float(tested),
            float(ref is not None and same_study(studies_[i], ref)), float(_later(studies_[i], ref, order)),
            float(studies_[i] == "general"), float(r == 0), 1.0 / (1.0 + r) if r is not None else 0.0,
            float(c.descriptive and not tested), float(c.follow_up),
            float(c.manipulation), float(c.exploratory),
            float(about_interaction and c.interaction_word), float(is_table[i]),
            float(kinds[i] in ("discussion", "conclusion")), float(c.key_cue),
            float(c.balance), len(fw & c.words) / (len(fw) or 1),
            float(not finding_null and c.null_result),
            _share(fs, ts), _share(hs, ts) if hs else 0.0, _share(fs, stems(sections[i])),
            _share(fs, par_stems.get(pids[i], set())), sim_rank[i], float(first_stat.get(pids[i]) == i),
            float(c.omnibus and not c.follow_up),
            _share(fnum, set(c.numbers)) if fnum else 0.0, c.n_stats,
            float(about_interaction and c.contrast) * _share(fs, ts),
            float(named is not None and ref is not None and not same_study(named, ref)),
            float(not about_interaction and c.interaction_word),
            float(parts["stat"][i] < 0.3 and not is_table[i]), float(c.figure_ref),
            float(first_test.get(studies_[i]) == i)])
    return np.asarray(rows, dtype=np.float64).reshape(len(texts), len(EV_FEATURES))


@lru_cache(maxsize=1)
def evidence_weights_file() -> dict[str, Any]:
    """The shipped evidence-ranker file ({"evidence": {name: w}, "evidence_fit": ...}); empty when absent."""
    if not EVIDENCE_WEIGHTS.is_file():
        return {}
    return dict(json.loads(EVIDENCE_WEIGHTS.read_text()))


def evidence_weights() -> np.ndarray | None:
    """The evidence weights in the order of ``EV_FEATURES`` (None when no weights ship)."""
    w = evidence_weights_file().get("evidence")
    if not w:
        return None
    return np.array([float(w.get(n, 0.0)) for n in EV_FEATURES])
