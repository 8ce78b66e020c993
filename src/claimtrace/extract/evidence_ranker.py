"""The learned sentence ranker of the embedded extractor's evidence stage (stage 2).

Each candidate (a result sentence or a table row) is scored as ``features @ weights``: a linear conditional-logit
model (one softmax over a paper's candidates, the gold evidence its positives) trained by
``scripts/train_evidence_ranker.py`` on the DEVELOPMENT part of the gold Psychological Science traces
(``shared/data/traces``; the untouched part, fixed by ``bench/traces_psychsci.py``'s hash, is never used).
Weights: ``weights/evidence_ranker.json``. The first feature is the hand-set score the extractor used before
(``base``), so a weight vector of (1, 0, ...) reproduces it; the others carry the structure of a social-science
paper: the paragraph's study against the finding's study (same / later / General Discussion); the order of the
result paragraph inside its study's Results; descriptives without a test (M, SD); follow-up, post hoc,
manipulation-check, exploratory and control analyses; an interaction test when the finding is about one; a table
row. The stage-1 ranker (hypothesis) lives in ``trace_ranker.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

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

EVIDENCE_WEIGHTS = WEIGHTS_DIR / "evidence_ranker.json"

EV_FEATURES = ("base", "sim", "stat", "prior", "checked", "same_study", "later_study", "general",
               "first_results", "results_order", "descriptive", "follow_up", "manipulation", "exploratory",
               "interaction", "table", "discussion", "key_cue", "balance", "overlap", "null_mismatch")


def evidence_matrix(texts: list[str], parts: dict[str, np.ndarray], kinds: Sequence[str], studies_: list[str | None],
                    pids: list[str], is_table: np.ndarray, ref: str | None, order: list[str], finding: str) -> np.ndarray:
    """Stage-2 feature matrix (rows: sentences or table rows, columns: ``EV_FEATURES``)."""
    about_interaction = bool(INTERACTION.search(finding))
    fw = content_words(finding)
    finding_null = bool(NEGATED.search(finding))
    # order of the result paragraphs (with a parsed statistic) inside each study's Results
    rank: dict[str, int] = {}
    seen: dict[str | None, list[str]] = {}
    for i, pid in enumerate(pids):
        if kinds[i] == "results" and not is_table[i] and parts["engine"][i] >= 1:
            lst = seen.setdefault(studies_[i], [])
            if pid not in lst:
                lst.append(pid)
            rank.setdefault(pid, lst.index(pid))
    rows = []
    for i, t in enumerate(texts):
        r = rank.get(pids[i])
        tested = parts["engine"][i] >= 2
        rows.append([
            parts["base"][i], parts["sim"][i], parts["stat"][i], parts["prior"][i], float(tested),
            float(ref is not None and same_study(studies_[i], ref)), float(_later(studies_[i], ref, order)),
            float(studies_[i] == "general"), float(r == 0), 1.0 / (1.0 + r) if r is not None else 0.0,
            float(bool(DESCRIPTIVE.search(t)) and not tested), float(bool(FOLLOW_UP.search(t))),
            float(bool(MANIPULATION.search(t))), float(bool(EXPLORATORY.search(t))),
            float(about_interaction and bool(re.search(r"\binteraction\b", t, re.I))), float(is_table[i]),
            float(kinds[i] in ("discussion", "conclusion")), float(bool(KEY_CUE.search(t))),
            float(bool(BALANCE.search(t))), len(fw & content_words(t)) / (len(fw) or 1),
            float(not finding_null and bool(NULL_RESULT.search(t)))])
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
