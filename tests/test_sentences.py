"""Sentence splitting on scientific prose: abbreviations, statistics, citations; exact offsets."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claimtrace.documents import load_document, split_sentences
from conftest import shared_path


def split(text: str) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text)]


CASES = [
    ("Smith et al. found an effect. It was large.", ["Smith et al. found an effect.", "It was large."]),
    ("As reported by Smith et al. The effect was large.", ["As reported by Smith et al.", "The effect was large."]),
    ("Smith et al. (2019) showed this. Next.", ["Smith et al. (2019) showed this.", "Next."]),
    ("We used tools, e.g. hammers, i.e. heavy ones. Then we stopped.",
     ["We used tools, e.g. hammers, i.e. heavy ones.", "Then we stopped."]),
    ("As shown in Fig. 2, the effect holds. See Eq. 3 for details.",
     ["As shown in Fig. 2, the effect holds.", "See Eq. 3 for details."]),
    ("Treatment vs. Control was compared (cf. Table 2). Next.",
     ["Treatment vs. Control was compared (cf. Table 2).", "Next."]),
    ("The sample was approx. 200 people. Next.", ["The sample was approx. 200 people.", "Next."]),
    ("The difference was significant, p < .05. The next test was not.",
     ["The difference was significant, p < .05.", "The next test was not."]),
    ("Means differed (M = 3.2, SD = 1.1). Next.", ["Means differed (M = 3.2, SD = 1.1).", "Next."]),
    ("A t-test showed t(98) = 2.45, p = .016. Another.", ["A t-test showed t(98) = 2.45, p = .016.", "Another."]),
    ("The odds ratio was 2.1, 95% CI [1.2, 3.4]. Another.", ["The odds ratio was 2.1, 95% CI [1.2, 3.4].", "Another."]),
    ("Risk was lower (OR = 0.56 (0.32-0.97)). Another one.", ["Risk was lower (OR = 0.56 (0.32-0.97)).", "Another one."]),
    ("This was reported before [12. Smith. 2001]. Then more.",
     ["This was reported before [12. Smith. 2001].", "Then more."]),
    ("J. R. R. Tolkien wrote it. A. B. Jones agreed.", ["J. R. R. Tolkien wrote it.", "A. B. Jones agreed."]),
    ("Data were collected in the U.S. and the U.K. The study ended.",
     ["Data were collected in the U.S. and the U.K.", "The study ended."]),
    ("Follow-up was 12 mo. Outcomes were good.", ["Follow-up was 12 mo.", "Outcomes were good."]),
    ("Samples were kept for 24 h. Then they were analysed.", ["Samples were kept for 24 h.", "Then they were analysed."]),
    ("Energy was 2200 kcal/d. Protein was 80 g/d.", ["Energy was 2200 kcal/d.", "Protein was 80 g/d."]),
    ("E. coli was grown at 37 °C. Growth was measured.", ["E. coli was grown at 37 °C.", "Growth was measured."]),
    ("Levels of vitamin A. A total of 20 were tested.", ["Levels of vitamin A.", "A total of 20 were tested."]),
    ("In Exp. 1, we found X. In Exp. 2, we did not.", ["In Exp. 1, we found X.", "In Exp. 2, we did not."]),
    ("We used SPSS ver. 22.0 (IBM Corp., Armonk, NY). Next.", ["We used SPSS ver. 22.0 (IBM Corp., Armonk, NY).", "Next."]),
    ("This was shown previously.1,2 The next study differed.",
     ["This was shown previously.1,2", "The next study differed."]),
    ("This is the end.Another starts without space.", ["This is the end.", "Another starts without space."]),
    ("Results were robust (see Table 2). (This was expected.) Next.",
     ["Results were robust (see Table 2).", "(This was expected.)", "Next."]),
    ("Two questions: 1. Does X lead to Y? 2. Is it safe?", ["Two questions: 1. Does X lead to Y?", "2. Is it safe?"]),
    ("It was given in 2010. 45 patients came!", ["It was given in 2010.", "45 patients came!"]),
    ('He said "it works." Then left.', ['He said "it works."', "Then left."]),
    ("Apples, pears, etc. were sold. Collected apples, etc. The rest was not.",
     ["Apples, pears, etc. were sold.", "Collected apples, etc.", "The rest was not."]),
    # a bulleted list GROBID merged into one paragraph: each item is a sentence, the bullet opens it
    ("• Hypothesis 1: X should rise (e.g., Y). • • Hypothesis 2: Z should fall. • H3: W too",
     ["• Hypothesis 1: X should rise (e.g., Y).", "• • Hypothesis 2: Z should fall.", "• H3: W too"]),
    ("We coded: • Age • Sex. Next (• not here).", ["We coded:", "• Age", "• Sex.", "Next (• not here)."]),
]


@pytest.mark.parametrize(("text", "expected"), CASES, ids=[c[0][:40] for c in CASES])
def test_split_cases(text: str, expected: list[str]) -> None:
    assert split(text) == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*list("ab AB.?!()[]12 \n\t;,\"'"), "et al.", "Fig.", "p < .05", "U.S.", " The"]),
                max_size=80).map("".join))
def test_offsets_are_exact_ordered_and_trimmed(text: str) -> None:
    spans = split_sentences(text)
    last = 0
    for a, b in spans:
        assert last <= a < b <= len(text)
        assert text[a:b] == text[a:b].strip()
        last = b
    # nothing but whitespace is lost between sentences
    covered = "".join(text[a:b] for a, b in spans)
    assert re.sub(r"\s", "", covered) == re.sub(r"\s", "", text)


def test_a_real_bulleted_hypothesis_list_splits_into_its_items() -> None:
    # GROBID merged "• • Hypothesis 3: ... • • Hypothesis 4: ..." into one paragraph: one sentence per hypothesis
    doc = load_document(shared_path("documents", "psychsci", "0956797616671712.xml"))
    items = [s.text for s in doc.sentences("body") if re.match(r"[•\s]*Hypothesis \d:", s.text)]
    assert [re.search(r"Hypothesis (\d)", t).group(1) for t in items] == ["1", "2", "3", "4"]  # type: ignore[union-attr]
    assert all(t.count("Hypothesis") == 1 for t in items)


def test_real_articles_have_no_enumerator_or_abbreviation_fragments() -> None:
    base = shared_path("evidence-inference", "validation", "articles")
    bad: list[str] = []
    n = 0
    for path in sorted(base.glob("*.nxml"))[:40]:
        doc = load_document(path)
        for s in doc.sentences("all"):
            n += 1
            text = (doc.body_text if s.scope == "body" else doc.abstract_text)[s.start : s.end]
            assert text == s.text
            if re.fullmatch(r"\(?(\d{1,3}|[a-z])[.)]", s.text) or re.search(
                    r"\b(et al|e\.g|i\.e|Fig|vs|approx|cf)\.$", s.text):
                bad.append(s.text)
        assert all(p.text.startswith(p.sentences[0].text) for p in doc.paragraphs)
    assert n > 4000
    assert not bad, bad[:10]
