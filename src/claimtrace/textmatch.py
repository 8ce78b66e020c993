"""Whether two texts state the same thing: the Evidence-Inference hit rule, the one home of that notion.

Texts are compared after :func:`norm` (white space folded, Unicode minus and dashes made ASCII, lower
case). Two texts match (:func:`same_statement`) when one holds the other's first 60 characters, or when
at least 60% of the shorter one's tokens (``[a-z0-9.]+``) occur in the longer one. Retrieval metrics,
training-data labels and the experiment's hit rates all use this rule.
"""

from __future__ import annotations

import re

PREFIX = 60
TOKEN_SHARE = 0.6


def norm(s: str) -> str:
    """Whitespace- and dash-normalised, lower-cased text."""
    return re.sub(r"\s+", " ", re.sub(r"[\u2212\u2013\u2014]", "-", s or "")).strip().lower()


def tokens(s: str) -> set[str]:
    """The set of ``[a-z0-9.]+`` tokens of the normalised text."""
    return set(re.findall(r"[a-z0-9.]+", norm(s)))


def same_statement(gold: str, text: str) -> bool:
    """True when two texts state the same thing (the Evidence-Inference hit rule; empty text never matches)."""
    g, t = norm(gold), norm(text)
    if not g or not t:
        return False
    if g[:PREFIX] in t or t[:PREFIX] in g:
        return True
    a, b = tokens(g), tokens(t)
    return len(a & b) / (min(len(a), len(b)) or 1) >= TOKEN_SHARE


def contains(container: str, gold: str) -> float:
    """How much of a gold text a unit holds: 1.0 when it holds its first 60 characters, else token coverage."""
    c, g = norm(container), norm(gold)
    if not c or not g:
        return 0.0
    if g[:PREFIX] in c:
        return 1.0
    gt = tokens(g)
    return len(gt & tokens(c)) / (len(gt) or 1)
