"""Built-in checks on the reference list: citation integrity, malformed DOIs, retracted or corrected works, DOI look-ups."""

from __future__ import annotations

from claimtrace.checks.base import Check

CHECKS: list[Check] = []
