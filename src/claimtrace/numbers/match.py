"""Matching ICO descriptions to table headers, row labels and sentences: word overlap with aliases."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from claimtrace.cues import STOP_WORDS

_STOP = STOP_WORDS | frozenset([
    "all", "any", "arm", "arms", "between", "both", "but", "change", "changes", "did", "difference",
    "differences", "do", "does", "e.g", "given", "had", "has", "have", "her", "his", "i.e", "incidence",
    "into", "it", "means", "no", "not", "numbers", "one", "other", "over", "patient", "percentage",
    "proportion", "receive", "received", "receiving", "score", "scores", "them", "they", "treated",
    "treatment", "under", "use", "used", "using", "while", "within"
])
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]*|\d+(?:\.\d+)?")


def words(text: str) -> list[str]:
    """Lower-cased content words (stop words dropped), numbers kept."""
    out = []
    for w in _WORD.findall(text):
        lw = w.lower().strip("-")
        if (len(w) == 1 and w.isupper()) or (lw and lw not in _STOP and (len(lw) > 1 or lw.isdigit())):  # "group A"
            out.append(lw)
    return out


def _stem(w: str) -> str:
    """The first five letters; a short plural loses its "s" first ("dots" and "dot", "rats" and "rat")."""
    if any(c.isdigit() for c in w):
        return w
    if 4 <= len(w) <= 5 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    return w[:5]


@dataclass
class Terms:
    """One ICO element: the full phrase and its aliases (parenthesised labels, abbreviations)."""

    phrase: str
    aliases: list[list[str]] = field(default_factory=list)

    @classmethod
    def of(cls, phrase: str) -> Terms:
        """Terms for a phrase: the whole phrase plus each parenthesised label as an alias."""
        aliases = [words(phrase)]
        for inner in re.findall(r"\(([^()]{1,40})\)", phrase):
            ws = words(inner)
            if ws and not inner.lower().startswith(("i.e", "e.g")):
                aliases.append(ws)
        outer = re.sub(r"\([^()]*\)", " ", phrase)
        if words(outer) and words(outer) != aliases[0]:
            aliases.append(words(outer))
        return cls(phrase, [a for a in aliases if a])

    def score(self, text: str) -> float:
        """The best share of an alias's words (stemmed; a 4+ letter abbreviation matches its word) in the text, 0..1."""
        have = {_stem(w) for w in words(text)}
        if not have or not self.aliases:
            return 0.0
        short = {h for h in have if len(h) == 4 and h.isalpha()}  # "Plac" for placebo
        best = 0.0
        for alias in self.aliases:
            stems = [_stem(w) for w in alias]
            hit = sum(s in have or (len(s) == 5 and s[:4] in short) for s in stems) / len(stems)
            best = max(best, hit)
        return best


def distinctive(a: Terms, b: Terms) -> Terms:
    """The terms of ``a`` without the words it shares with ``b`` (to tell two arms apart)."""
    other = {_stem(w) for alias in b.aliases for w in alias}
    aliases = [[w for w in alias if _stem(w) not in other] for alias in a.aliases]
    return Terms(a.phrase, [x for x in aliases if x] or a.aliases)


def mentions(terms: Terms, text: str) -> list[int]:
    """Character offsets in ``text`` where a word of one of the aliases occurs."""
    stems = {_stem(w) for alias in terms.aliases for w in alias}
    return [m.start() for m in _WORD.finditer(text) if _stem(m.group().lower()) in stems]
