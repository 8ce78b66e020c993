"""Screening checks: per-paper rows with a severity, a message, guidance and a location (``base``)."""

from claimtrace.checks.base import (
    Check,
    CheckContext,
    CheckOptions,
    CheckRow,
    Location,
    Severity,
    registered_checks,
    run_checks,
)

__all__ = ["Check", "CheckContext", "CheckOptions", "CheckRow", "Location", "Severity", "registered_checks",
           "run_checks"]
