"""Statistics-engine behaviour that surviving mutants showed no test pinned (bench/mutation.py)."""

from __future__ import annotations

from claimtrace.stats import parse


def test_sem_is_a_standard_error_and_sd_a_standard_deviation() -> None:
    text = ("Reaction times were longer after stimulation (M = 512, SEM = 14) than after sham "
            "(M = 488, SD = 12), t(11) = 3.01, p = .012.")
    (r,) = parse(text)
    assert r.test == "t" and r.df1 == 11 and r.p_value == 0.012
    got = [(d.kind, d.value, d.text) for d in r.descriptives]
    assert got == [("mean", 512.0, "M = 512"), ("se", 14.0, "SEM = 14"), ("mean", 488.0, "M = 488"),
                   ("sd", 12.0, "SD = 12")]
