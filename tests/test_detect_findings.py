"""Finding detection where the abstract block is not the paper's abstract: which Discussion paragraphs are read
(a short General Discussion is topped up with the first study's Discussion) and figure text left out of the pool."""

from __future__ import annotations

from pathlib import Path

from claimtrace.documents import load_document
from claimtrace.extract.findings import (
    ABSTRACT_CHECKS,
    DISCUSSION_KEEP_P,
    DISCUSSION_TOP,
    abstract_checks,
    abstract_problem,
    caption_text,
    detect_findings,
    discussion_choice,
    discussion_non_result,
    discussion_pool,
    discussion_scores,
    figure_text,
    title_overlap,
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
    pars = {getattr(doc.paragraph_of(s.id.split(".")[0]), "study", None) for s, _, _ in discussion_pool(doc)}
    assert pars == {"general"}


def test_axis_titles_set_letter_by_letter_are_figure_text() -> None:
    assert figure_text("2,400 2,600 2,800 3,000 Reading Time (ms) S h e P r o n o u n s P r o n o u n M a t c h")
    assert figure_text("Proportion of Average Earnings 0 10 20 30 40 50 60")
    assert not figure_text("We found a persistent bias against she pronouns, t(58) = 2.41, p = .019, in 2 of 3 studies.")
    assert not figure_text("Conditions (a), (b) and (c) differed: a b c were labelled.")
    assert figure_text("Spatial Condition Divergent-goal Single-goal Words/Trial ab da ea gl gr le mi pr st zo Word Item")
    assert not figure_text("It is so as to be of use in it that we did it.")  # seven short words, then a longer one


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


def test_a_discussion_sentence_that_restates_the_title_scores_higher() -> None:
    title = "Honest People Choose Dishonest Partners"
    assert title_overlap("The majority of honest participants preferred dishonest partners.", title) == 0.6  # 3 of 5 stems
    assert title_overlap("Human societies are based on cooperation.", title) == 0.0
    texts = ["Most honest participants chose a partner who was dishonest.",
             "Most participants chose a partner in the second round."]
    flat = [(0.3, ""), (0.3, "")]
    with_title = discussion_scores(texts, flat, title=title)
    without = discussion_scores(texts, flat)
    assert with_title[0][0] > with_title[1][0]
    assert with_title[0][0] - with_title[1][0] > without[0][0] - without[1][0]


def test_figure_legend_lines_are_left_out_of_the_discussion_pool(tmp_path: Path) -> None:
    assert caption_text("Error bars indicate 95% confidence intervals.")
    assert caption_text("Data are from only the preelection periods.")
    assert caption_text("The experimental setup.")
    assert not caption_text("There are three possible reasons why replication studies fail: (a) method, (b) power.")
    path = tmp_path / "legend.md"
    path.write_text(MULTI_STUDY.replace("People like allies who seek to understand opponents' beliefs.",
                                        "People like allies who seek to understand opponents' beliefs. Error bars "
                                        "indicate 95% confidence intervals. Diff."))
    texts = [s.text for s, _, _ in discussion_pool(load_document(path))]
    assert texts[0].startswith("People like allies") and not any(caption_text(t) for t in texts)


def test_discussion_findings_keep_the_best_three_and_more_the_scorer_calls_findings() -> None:
    assert DISCUSSION_TOP == 3
    assert discussion_choice([0.9, 0.4, 0.3, 0.2, 0.1], 5) == [0, 1, 2]  # the best three, whatever their score
    assert discussion_choice([0.9, 0.8, 0.7, 0.6, 0.55, 0.5], 5) == [0, 1, 2, 3, 4]  # at most max_findings
    assert discussion_choice([0.9, 0.8, 0.7, 0.4, DISCUSSION_KEEP_P], 5) == [0, 1, 2, 4]
    assert discussion_choice([0.9, 0.8, 0.7], 1) == [0]


def test_an_introduction_block_gives_between_three_and_five_discussion_findings() -> None:
    doc = load_document(shared_path("documents", "psychsci") / "0956797614527830.xml")  # extra traces
    chosen = [c for c in detect_findings(doc) if c.chosen]
    assert 3 <= len(chosen) <= 5 and all(c.source == "discussion" for c in chosen)
    assert all(c.reason.startswith(abstract_problem(doc) or "?") for c in chosen)
    extra = [c for c in chosen if "Discussion score >=" in c.reason]
    assert all(c.score >= DISCUSSION_KEEP_P for c in extra)
    assert len(chosen) == 3 + len(extra)
    assert len([c for c in detect_findings(doc, max_findings=2) if c.chosen]) == 2  # the caller's cap holds


def test_prior_work_methods_and_limitations_are_never_discussion_findings() -> None:
    assert discussion_non_result("This is consistent with the findings of Saygin et al. (2004), who reported that "
                                 "patients were impaired.") is not None  # prior work
    assert discussion_non_result("Our result is consistent with that of Saygin et al. (2004).") is None  # this study
    assert discussion_non_result("Participants were asked to wear a virtual-reality headset.") is not None  # method
    assert discussion_non_result("We tested for age-cohort interactions, none were statistically significant.") is None
    assert discussion_non_result("Future studies may tease apart the neurons, but here we show that depth helps.") is None
    assert discussion_non_result("Our design did not allow a precise determination of causality.") is not None
    assert discussion_non_result("What is people's automatic tendency in a tempting situation?") is not None
    assert discussion_non_result("Participants may not have fully appreciated the benefits of cheating.") is not None
    assert discussion_non_result("Only hedonic behavior reduced risk, which might reflect weak ties.") is None
    doc = load_document(shared_path("documents", "psychsci") / "0956797613520608.xml")  # extra traces
    cands = detect_findings(doc)
    chosen = [c for c in cands if c.chosen]
    assert chosen and all(c.source == "discussion" and discussion_non_result(c.text) is None for c in chosen)
    left = [c for c in cands if not c.chosen and discussion_non_result(c.text)]
    assert left and all("not chosen: " + (discussion_non_result(c.text) or "?") in c.reason for c in left)


def test_an_abstract_result_worded_as_an_ability_is_chosen() -> None:
    doc = load_document(shared_path("documents", "psychsci") / "0956797621996660.xml")  # extra traces
    chosen = [c.text for c in detect_findings(doc) if c.chosen]
    assert any("were able to guide their search" in t for t in chosen)
    assert not any(t.startswith("Can you efficiently look") for t in chosen)  # the opening question is no finding
