"""Finding detection where the abstract block is not the paper's abstract: which Discussion paragraphs are read
(a short General Discussion is topped up with the first study's Discussion) and figure text left out of the pool."""

from __future__ import annotations

from pathlib import Path

from claimtrace.documents import load_document
from claimtrace.extract.findings import (
    ABSTRACT_CHECKS,
    abstract_checks,
    abstract_problem,
    detect_findings,
    discussion_pool,
    figure_text,
)
from conftest import shared_path

MULTI_STUDY = """# Perspective seeking

## Abstract

Americans find their opponents intolerable, and people who seek to understand opponents (Smith et al., 2010) are

## Study 1

### Method

Participants (N = 300) read about a copartisan who sought or avoided opposing views.

### Results

Observers liked seekers more than avoiders, t(299) = 5.10, p < .001.

### Discussion

Observers liked copartisan perspective seekers better than perspective avoiders.

Liking was not explained by perceived warmth alone.

## Study 2

### Method

Participants (N = 400) read the same vignettes with a political target.

### Results

The preference replicated, t(399) = 4.20, p < .001.

### Discussion

The preference for seekers replicated with a political target.

## General Discussion

People like allies who seek to understand opponents' beliefs.
"""


def test_a_short_general_discussion_is_topped_up_with_the_first_discussion(tmp_path: Path) -> None:
    path = tmp_path / "multi.md"
    path.write_text(MULTI_STUDY)
    doc = load_document(path)
    assert abstract_problem(doc)
    pool = discussion_pool(doc)
    pars = list(dict.fromkeys(doc.paragraph_of(s.id.split(".")[0]).text for s, _, _ in pool))
    # the one-paragraph General Discussion first, then the first Discussion (Study 1's)
    assert [t[:22] for t in pars] == ["People like allies who", "Observers liked copart"]
    assert [r for _, r, _ in pool] == [0, 1]
    chosen = [c for c in detect_findings(doc) if c.chosen]
    assert chosen and all(c.source == "discussion" for c in chosen)
    assert any("copartisan perspective seekers" in c.text for c in chosen)


def test_a_general_discussion_of_two_paragraphs_is_read_alone(tmp_path: Path) -> None:
    path = tmp_path / "multi2.md"
    path.write_text(MULTI_STUDY + "\nThese findings held across both studies and both targets.\n")
    doc = load_document(path)
    pars = {doc.paragraph_of(s.id.split(".")[0]).study for s, _, _ in discussion_pool(doc)}
    assert pars == {"general"}


def test_axis_titles_set_letter_by_letter_are_figure_text() -> None:
    assert figure_text("2,400 2,600 2,800 3,000 Reading Time (ms) S h e P r o n o u n s P r o n o u n M a t c h")
    assert figure_text("Proportion of Average Earnings 0 10 20 30 40 50 60")
    assert not figure_text("We found a persistent bias against she pronouns, t(58) = 2.41, p = .019, in 2 of 3 studies.")
    assert not figure_text("Conditions (a), (b) and (c) differed: a b c were labelled.")


def test_abstract_checks_tell_an_introduction_from_a_real_abstract() -> None:
    folder = shared_path("documents", "psychsci")
    intro = load_document(folder / "0956797614527830.xml")  # GROBID took the introduction's opening (extra traces)
    checks = abstract_checks(intro)
    assert {"cut", "citations"} <= set(checks) <= set(ABSTRACT_CHECKS)
    assert abstract_problem(intro) == checks["cut"]  # the first failed check, in ABSTRACT_CHECKS order
    real = load_document(folder / "0956797616647519.xml")  # a real abstract (extra traces)
    assert abstract_checks(real) == {} and abstract_problem(real) is None
    assert all(c.source == "abstract" for c in detect_findings(real) if c.chosen)


def test_a_correction_notice_taken_for_the_abstract_is_no_abstract(tmp_path: Path) -> None:
    path = tmp_path / "notice.md"
    path.write_text("# Near and far\n\n## Abstract\n\nWe regret having omitted reference in our article to a study by "
                    "O'Connor and colleagues. The experiments we presented were designed by adapting their task, and "
                    "this omission does not change the results reported in the original article in any way. We apologize "
                    "for the omission and thank the authors of that study for drawing our attention to it, and we "
                    "have informed the journal of the error so that readers can find the earlier work.\n\n"
                    "## Discussion\n\nWe found that farther objects were discriminated better when they appeared "
                    "bigger.\n")
    doc = load_document(path)
    checks = abstract_checks(doc)
    assert list(checks) == ["notice"]  # a whole, uncited block of abstract length: only the notice check fails
    chosen = [c for c in detect_findings(doc) if c.chosen]
    assert chosen and chosen[0].source == "discussion" and chosen[0].text.startswith("We found")
    real = load_document(shared_path("documents", "psychsci") / "0956797616647519.xml")
    assert "notice" not in abstract_checks(real)
