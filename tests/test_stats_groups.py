"""The statistics engine's reader of per-group numbers (stats/groups.py), on the forms trials print."""

from __future__ import annotations

from claimtrace.stats import parse
from claimtrace.stats.groups import find_group_numbers, find_percentages, read_group_numbers, sample_sizes


def test_counts_with_totals_and_percentages() -> None:
    g = read_group_numbers("40/57 (70.2%)")
    assert g is not None and (g.kind, g.events, g.total, g.percent) == ("binary", 40, 57, "70.2")
    g = read_group_numbers("40/57 (70·2)")  # no % sign, a middle dot for the decimal point
    assert g is not None and (g.events, g.total, g.percent) == (40, 57, "70.2")
    g = read_group_numbers("12 (21.1%)")
    assert g is not None and (g.kind, g.events, g.total, g.percent) == ("binary", 12, None, "21.1")


def test_a_pair_without_a_sign_is_a_mean_and_sd_unless_the_column_says_n_percent() -> None:
    g = read_group_numbers("12 (21.1)")
    assert g is not None and (g.kind, g.mean, g.sd) == ("continuous", 12, 21.1)
    g = read_group_numbers("12 (21.1)", percent_pairs=True)
    assert g is not None and (g.kind, g.events, g.percent) == ("binary", 12, "21.1")


def test_means_with_sd_or_se() -> None:
    g = read_group_numbers("−1.5 ± 0.3")
    assert g is not None and (g.mean, g.sd, g.se_labelled) == (-1.5, 0.3, False)
    g = read_group_numbers("M = 3.2, SD = 1.1")
    assert g is not None and (g.mean, g.sd) == (3.2, 1.1)
    g = read_group_numbers("5.1 (SEM 0.4)")
    assert g is not None and (g.mean, g.sd, g.se_labelled) == (5.1, 0.4, True)
    assert read_group_numbers("3.2 (2–7)") is None  # a range is not an SD
    g = read_group_numbers("2.19*")  # a lone number (footnote mark dropped): its column header decides
    assert g is not None and (g.kind, g.plain) == ("", 2.19)


def test_offsets_in_running_text_and_sample_sizes() -> None:
    text = "12/60 (20%) on drug X and 6/60 (10%) on placebo (n = 60 each)"
    found = find_group_numbers(text)
    assert [text[g.start:g.end] for g in found] == ["12/60 (20%)", "6/60 (10%)"]
    t = "Placebo (n = 58); Drug X (N=1,024)"
    assert [(n, t[a:b]) for n, a, b in sample_sizes(t)] == [(58, "n = 58"), (1024, "N=1,024")]


def test_bare_percentages_leave_out_patterns_and_ci_bounds() -> None:
    text = "61% of controls and 42% of the intervention group (12 (21%) had 95% CI 20% to 40% spells)."
    got = find_percentages(text)
    assert [g.percent for g in got] == ["61", "42"]  # "12 (21%)" is an events pattern; the CI's level is not one
    assert all(g.kind == "binary" and g.events is None and g.total is None for g in got)
    assert text[got[0].start:got[0].end] == "61%"


# ---- behaviour that mutation testing found no test pinned -----------------------------------

def test_sem_is_a_standard_error_and_sd_a_standard_deviation() -> None:
    text = ("Reaction times were longer after stimulation (M = 512, SEM = 14) than after sham "
            "(M = 488, SD = 12), t(11) = 3.01, p = .012.")
    (r,) = parse(text)
    assert r.test == "t" and r.df1 == 11 and r.p_value == 0.012
    got = [(d.kind, d.value, d.text) for d in r.descriptives]
    assert got == [("mean", 512.0, "M = 512"), ("se", 14.0, "SEM = 14"), ("mean", 488.0, "M = 488"),
                   ("sd", 12.0, "SD = 12")]
