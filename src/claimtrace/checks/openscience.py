"""Built-in open-science checks: OSF/AsPredicted/... links and data, code, materials and preregistration statements."""

from __future__ import annotations

from claimtrace.checks.base import Check

CHECKS: list[Check] = []
