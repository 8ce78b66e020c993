"""Score how much a sentence reads like a hypothesis statement.

A linear model (``weights/hypotheses.json``, trained by ``training/train_hypotheses.py`` on
``shared/data/hypotheses``: SciARG, Meta-knowledge GENIA, PHAEDRA) over TF-IDF n-grams and cue
features. Those corpora label mostly hedged or speculative statements; explicit statements of a
study's hypothesis ("we hypothesized that", "H1", "consistent with our prediction") are rare in them,
so those cues also carry a fixed, documented prior (``EXPLICIT_PRIOR``) added to the model's logit.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from claimtrace.extract.textclf import WEIGHTS_DIR, LinearTextModel
from claimtrace.lexicons import pattern, patterns

if TYPE_CHECKING:
    from claimtrace.documents.model import Document

HYPOTHESIS_WEIGHTS = WEIGHTS_DIR / "hypotheses.json"

# cue patterns: resources/lexicons/extract.hypothesis_classifier.yaml
EXPLICIT, AIM = patterns("extract.hypothesis_classifier", "EXPLICIT", "AIM")
# Wider aim phrasings for the cue and the prior (not a feature of the trained model, whose ``aim_cue``
# keeps the narrower AIM it was trained with): "the primary aims of the process evaluation were to",
# "our objective in this study was to", "a study was set up to compare", "we therefore conducted a
# randomised trial of an intervention that aimed to reduce", "we performed a double-blind study to
# examine". The object must be the study itself, so "the goal of therapy is to ..." or "we performed a
# power calculation to determine ..." do not count.
_STUDY = r"(?:study|trial|analysis|analyses|evaluation|paper|work|research|report|investigation|experiment|project|survey)"
_AIM_VERB = (r"(?:compare|assess|evaluate|determine|examine|investigate|test|establish|explore|identify|measure|"
             r"quantify|estimate|describe|reduce|improve|prevent|confirm|demonstrate|clarify|characteri[sz]e|define|"
             r"analy[sz]e|report)")
AIM_WIDE = re.compile(
    r"\b(?:(?:the|our|this|its)\s+(?:[\w-]+\s+){0,2}?(?:aims?|objectives?|purposes?|goals?)\s+"
    r"(?:(?:of|in|for)\s+(?:[^.;:]{0,40}?\s)?" + _STUDY + r"\w*\s+)?(?:was|were|is|are)\s+(?:therefore\s+|thus\s+|hence\s+)?"
    r"(?:to|two-?fold|three-?fold)\b"
    r"|" + _STUDY + r"\s+(?:was|were|is)\s+(?:designed|set\s?up|conducted|performed|undertaken|carried out|planned)\s+"
    r"(?:in order\s+)?to\s+" + _AIM_VERB + r"\b"
    r"|\bwe\s+(?:therefore\s+|thus\s+|hence\s+)?(?:conducted|performed|designed|undertook|carried out|initiated)\s+"
    r"[^.;]{0,40}?\b" + _STUDY + r"\b[^.;]{0,60}?\s(?:to|in order to|that aimed to|aiming to|aimed to)\s+" + _AIM_VERB + r"\b"
    r"|\b(?:here|hence|therefore|thus|accordingly)\s*,?\s+(?:in (?:this|the present|our) \w+\s*,?\s+)?we\s+"
    r"(?:report|describe|present|evaluated?|compared?|examined?|assessed?|investigated?|analy[sz]ed?|tested|explored?|"
    r"studied|conducted|performed|undertook|designed)\b)",
    re.I)
LABEL = re.compile(r"\b(H\d[a-z]?|Hypothesis \d+[a-z]?)\b")
HEDGE = pattern("extract.hypothesis_classifier", "HEDGE")
RESULT_STAT = re.compile(r"(\bp\s*[<=>≤]\s*0?\.\d|\b[tFr]\s*\(\s*\d|\bχ2|\bchi2|95%\s*CI)", re.I)

#: every match of EXPLICIT holds one of these (lower-cased): an ASCII sentence without any cannot match it
_EXPLICIT_WORDS = ("we", "hypothes", "predict", "expect", "test")
_DIGIT = re.compile(r"\d")  # LABEL and RESULT_STAT match only where the text holds a digit


def explicit_cue(text: str) -> re.Match[str] | None:
    """``EXPLICIT.search(text)``, skipped for an ASCII sentence that holds none of its words."""
    if text.isascii():
        low = text.lower()
        if not any(w in low for w in _EXPLICIT_WORDS):
            return None
    return EXPLICIT.search(text)


def label_cue(text: str) -> re.Match[str] | None:
    """``LABEL.search(text)`` ("H1", "Hypothesis 2"), skipped for a text without a digit."""
    return LABEL.search(text) if _DIGIT.search(text) else None


EXPLICIT_PRIOR = 4.0  # added to the logit when an explicit hypothesis cue is present
AIM_PRIOR = 3.5  # a statement of the study's aim ("we set out to compare ...")
LABEL_PRIOR = 2.0  # "H1", "Hypothesis 2"
STAT_PRIOR = -1.5  # a sentence reporting a test statistic is a result, not a hypothesis


def hypothesis_features(text: str, ctx: dict[str, Any] | None = None) -> dict[str, float]:
    """Dense cue features of one sentence."""
    return _features(text, bool(explicit_cue(text)), bool(label_cue(text)), bool(AIM.search(text)))


def _features(text: str, explicit: bool, label: bool, aim: bool) -> dict[str, float]:
    """:func:`hypothesis_features` with the three cue searches done by the caller."""
    return {
        "explicit_cue": float(explicit),
        "hypothesis_label": float(label),
        "aim_cue": float(aim),
        "hedges": math.log1p(len(HEDGE.findall(text))),
        "has_test_statistic": float(bool(_DIGIT.search(text) and RESULT_STAT.search(text))),
        "log_words": math.log1p(len(text.split())) / 4.0,
    }


@lru_cache(maxsize=1)
def hypothesis_model() -> LinearTextModel:
    """The shipped hypothesis-sentence model (loaded once)."""
    return LinearTextModel.load(HYPOTHESIS_WEIGHTS)


def hypothesis_logit(text: str, *, priors: bool = True) -> tuple[float, list[str]]:
    """The hypothesis logit of a sentence and the cues that raised it."""
    feats = hypothesis_features(text)
    z, contrib = hypothesis_model().decision(text, feats)
    cues = [t for t, c in contrib if c > 0][:3]
    if priors:
        m = explicit_cue(text)
        if m:
            z += EXPLICIT_PRIOR
            cues.insert(0, repr(m.group(0)))
        a = (AIM.search(text) or AIM_WIDE.search(text)) if not m else None
        if a:
            z += AIM_PRIOR
            cues.insert(0, repr(a.group(0)))
        lab = label_cue(text)
        if lab:
            z += LABEL_PRIOR
            cues.insert(0, repr(lab.group(0)))
        if feats["has_test_statistic"]:
            z += STAT_PRIOR
    return z, cues


def hypothesis_cues(text: str) -> dict[str, str]:
    """The explicit hypothesis cues in a sentence: {"explicit"|"aim"|"label": matched text}."""
    out: dict[str, str] = {}
    for name, searches in (("explicit", (explicit_cue,)), ("aim", (AIM.search, AIM_WIDE.search)),
                           ("label", (label_cue,))):
        for search in searches:
            m = search(text)
            if m:
                out[name] = m.group(0)
                break
    return out


def hypothesis_score(text: str, *, priors: bool = True) -> float:
    """Probability that a sentence states a hypothesis."""
    if not priors:
        return _probability(hypothesis_model().logit(text, hypothesis_features(text)))
    z, _ = hypothesis_logit(text, priors=priors)
    return _probability(z)


def _probability(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))


def score_and_cue_bonus(text: str) -> tuple[float, float]:
    """``hypothesis_score(text, priors=False)`` and ``cue_bonus(text)`` at once (their cue searches done once)."""
    explicit, aim, label = explicit_cue(text), AIM.search(text), label_cue(text)
    p = _probability(hypothesis_model().logit(text, _features(text, bool(explicit), bool(label), bool(aim))))
    cues = [k for k, m in (("explicit", explicit), ("aim", aim or AIM_WIDE.search(text)), ("label", label)) if m]
    return p, max((CUE_BONUS[k] for k in cues), default=0.0)


# ---- where a sentence sits: stage 1's hypothesis-likeness (the embedded extractor's score without the finding) ----

#: section priors of stage 1: hypotheses and aims are stated in the introduction, not in the results
HYP_SECTION_PRIOR = {"introduction": 0.3, "methods": -0.2, "results": -0.6, "discussion": -0.5,
                     "conclusion": -0.6, "other": 0.0}
#: bonus of an explicit cue (``hypothesis_cues``) on top of the classifier's probability
CUE_BONUS = {"explicit": 1.0, "aim": 0.8, "label": 0.5}
HYP_HEADING = pattern("extract.hypothesis_classifier", "HYP_HEADING")
HEADING_PRIOR = 0.3
INTRO_LAST_PRIOR = 0.3  # the aims/hypotheses usually close the introduction
W_CLS = 0.6  # weight of the classifier's probability


def cue_bonus(text: str) -> float:
    """The strongest explicit-cue bonus of a sentence (0 when it has no cue)."""
    return max((CUE_BONUS[k] for k in hypothesis_cues(text)), default=0.0)


def position_prior(section_kind: str, section: str | None, intro_last: bool) -> float:
    """Stage 1's prior for where a sentence sits: its section kind, a hypothesis/aim heading, the introduction's
    last paragraph."""
    return (HYP_SECTION_PRIOR.get(section_kind, 0.0) + (HEADING_PRIOR if HYP_HEADING.search(section or "") else 0.0)
            + (INTRO_LAST_PRIOR if intro_last else 0.0))


def last_intro_paragraph(doc: Document) -> str | None:
    """The id of the introduction's last body paragraph (where aims and hypotheses usually close it), if any."""
    return next((p.id for p in reversed(doc.paragraphs) if p.section_kind == "introduction"), None)


def hypothesis_likeness(doc: Document) -> dict[str, float]:
    """Per body sentence id: how much it reads like the paper's hypothesis or aim where it sits (classifier
    probability x ``W_CLS`` + cue bonus + position prior; the embedded extractor's stage-1 score less the
    similarity to the finding)."""
    last = last_intro_paragraph(doc)
    return {s.id: W_CLS * hypothesis_score(s.text, priors=False) + cue_bonus(s.text)
            + position_prior(p.section_kind, p.section, p.id == last)
            for p in doc.paragraphs for s in p.sentences}
