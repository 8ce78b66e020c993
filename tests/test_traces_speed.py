"""The shortcuts of the traces speed work give what the plain computation gives, on real sentences.

Each shortcut (a cue search skipped when its words or a digit are absent, the classifier's logit without its sorted
contributions, the probability and cue bonus in one pass, the BM25 token cache, ``clean_text``'s ASCII path) is
compared with the plain computation it replaces, on the sentences of real papers (the bundled Evidence Inference
article, and Psychological Science TEIs where the shared data is present) and on variants that defeat the shortcuts
(non-ASCII letters that match ASCII ones under re.IGNORECASE, tabs, line breaks, runs of spaces, ligatures).
"""

from __future__ import annotations

import math
import re
import unicodedata
from pathlib import Path

import pytest

from claimtrace.cues import P_MENTION, RESULT_WORDS
from claimtrace.documents import load_document
from claimtrace.documents.builder import _DASHES, _SPACE_CHARS, _ZERO_WIDTH, clean_text
from claimtrace.extract import hypothesis_classifier as hc
from claimtrace.extract import statistics as st
from claimtrace.retrieval.bm25 import tokenize, tokenize_uncached
from conftest import EI_ARTICLE, SHARED


def _sentences() -> list[str]:
    paths = [EI_ARTICLE, *sorted((SHARED / "documents" / "psychsci").glob("*.xml"))[:4]]
    texts = [s.text for p in paths if Path(p).is_file() for s in load_document(str(p)).sentences("body")]
    texts += ["We hypothesized that H1 holds (t(40) = 2.1, p = .04).", "The χ² test was significant.",
              "A chi-square test showed no effect.", "Hypothesis 2 was supported", "tabs\there  and\nlines",
              "a ﬁgure – with dashes\u00a0and\u200b zero width", ""]
    # non-ASCII letters that re.IGNORECASE matches to ASCII ones: the ASCII shortcuts must not apply to them
    texts += [t.replace("s", "\u017f").replace("k", "\u212a") for t in texts[:200:7]]
    return texts


SENTS = _sentences()


def _span(m: re.Match[str] | None) -> tuple[int, int] | None:
    return m.span() if m else None


def test_cue_searches_match_the_plain_searches() -> None:
    assert len(SENTS) > 100
    for t in SENTS:
        assert _span(hc.explicit_cue(t)) == _span(hc.EXPLICIT.search(t)), t
        assert _span(hc.label_cue(t)) == _span(hc.LABEL.search(t)), t
    assert hc.explicit_cue("Con\u017fi\u017ftent with our hypothe\u017fi\u017f") is not None  # ſ matches s


def _plain_stat_strength(text: str, p_mention: bool = True) -> float:
    s = 0.0
    if p_mention and (P_MENTION.search(text) or st._P_PLURAL.search(text)):
        s += 0.5
    if st._CI.search(text):
        s += 0.3
    if st._TEST.search(text):
        s += 0.3
    if st._DESC.search(text):
        s += 0.25
    if RESULT_WORDS.search(text):
        s += 0.15
    return min(s, 1.0)


def test_stat_strength_matches_the_plain_searches() -> None:
    assert any(st.stat_strength(t) > 0 for t in SENTS)
    for t in SENTS:
        for pm in (True, False):
            assert st.stat_strength(t, p_mention=pm) == _plain_stat_strength(t, pm), t


def test_logit_is_the_decision_sum() -> None:
    model = hc.hypothesis_model()
    for t in SENTS:
        feats = hc.hypothesis_features(t)
        assert model.logit(t, feats) == model.decision(t, feats)[0], t


def test_score_and_cue_bonus_match_the_separate_functions() -> None:
    model = hc.hypothesis_model()
    bonuses = set()
    for t in SENTS:
        z, _ = model.decision(t, hc.hypothesis_features(t))
        p = 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))
        both = hc.score_and_cue_bonus(t)
        assert both == (p, hc.cue_bonus(t)) == (hc.hypothesis_score(t, priors=False), hc.cue_bonus(t)), t
        bonuses.add(both[1])
    assert len(bonuses) > 1  # some sentences carry a cue


def test_token_cache_gives_the_uncached_tokens() -> None:
    texts = SENTS[:150]
    assert tokenize(texts) == tokenize_uncached(texts)
    mixed = texts[100:160] + texts[:10] + ["a new text about participants", texts[3]]
    assert tokenize(mixed) == tokenize_uncached(mixed)
    out = tokenize(texts[:2])
    out[0].append("changed")  # the caller's lists are its own
    assert tokenize(texts[:2]) == tokenize_uncached(texts[:2])


def _plain_clean_text(text: str, dashes: bool = False) -> str:
    text = text.translate(_ZERO_WIDTH).translate(_SPACE_CHARS)
    text = unicodedata.normalize("NFC", text)
    text = text.replace("\ufb00", "ff").replace("\ufb01", "fi").replace("\ufb02", "fl")
    text = text.replace("\ufb03", "ffi").replace("\ufb04", "ffl").replace("\ufb05", "st").replace("\ufb06", "st")
    if dashes:
        text = text.translate(_DASHES)
    text = re.sub(r"[ ]*\n[ ]*", " ", text)
    return re.sub(r" {2,}", " ", text).strip()


@pytest.mark.parametrize("dashes", [False, True])
def test_clean_text_matches_the_plain_steps(dashes: bool) -> None:
    raw = EI_ARTICLE.read_text(encoding="utf-8")
    pieces = [raw[i:i + 300] for i in range(0, len(raw), 300)] + SENTS
    pieces += ["  lead and trail  ", "a \t\x0b\x0c\r b", "line \n  break", "e\u0301 composed", "\ufb03 \u2212 1"]
    for t in pieces:
        assert clean_text(t, dashes=dashes) == _plain_clean_text(t, dashes), repr(t)
