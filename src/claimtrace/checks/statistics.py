"""Built-in checks on the statistics: consistency, imprecise p, marginal wording, effect sizes, GRIM/GRIMMER, df vs N, power."""

from __future__ import annotations

from claimtrace.checks.base import Check

CHECKS: list[Check] = []
