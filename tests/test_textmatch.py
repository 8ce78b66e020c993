"""The Evidence-Inference hit rule, the one home of "two texts state the same thing"."""

from __future__ import annotations

from claimtrace.textmatch import contains, norm, same_statement

GOLD = "Gametocyte carriage was lower with co-artemether than with chloroquine plus sulfadoxine-pyrimethamine (p < 0.001)."


def test_prefix_either_way_and_dash_normalisation() -> None:
    assert same_statement(GOLD, "Results: " + GOLD.replace("-", "\u2013"))  # the gold's first 60 chars inside
    assert same_statement(GOLD[:70] + " and so on", GOLD)  # the text's first 60 chars inside the gold
    assert norm("  A\u2212B \n C ") == "a-b c"
    # one direction is enough: the gold's first 60 characters inside a longer text that shares few tokens
    inside = "Among the secondary outcomes we also report that " + GOLD[:60]
    assert same_statement(GOLD, inside)


def test_token_share_threshold_of_the_shorter_text() -> None:
    short = "gametocyte carriage lower co-artemether chloroquine"  # every token in the gold, no 60-char prefix
    assert same_statement(GOLD, short) and same_statement(short, GOLD)
    unrelated = "Fever clearance was faster with chloroquine in children under five."
    assert not same_statement(GOLD, unrelated)
    assert not same_statement("", GOLD) and not same_statement(GOLD, "   ")


def test_contains_is_prefix_or_token_coverage() -> None:
    assert contains("Intro. " + GOLD + " More.", GOLD) == 1.0
    assert 0.0 < contains("gametocyte carriage was lower", GOLD) < 0.5
    assert contains("", GOLD) == 0.0
