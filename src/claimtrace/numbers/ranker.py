"""A small learned ranker over the places that give both arms' numbers for an ICO (torch-free, weights as JSON).

Candidates come from every generator of :mod:`claimtrace.numbers.extract` (arm column x outcome row cells, wide
rows, transposed tables, sentences, clauses, "no events" sentences, figure captions); each is described by what
varies least across trials (how well its row or sentence names the outcome and its columns the arms, the cell
grammar it was read with, whether the reading's kind fits the outcome, a baseline table) and scored by a logistic
regression trained on development trials only (``scripts/train_numbers_ranker.py``). Below the trained threshold
the ranker abstains: no candidate is chosen, the arms' numbers stay "not reported".
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

from claimtrace.documents.model import Document
from claimtrace.numbers.forms import BINARY_CUES, CONTINUOUS_CUES
from claimtrace.numbers.match import words

WEIGHTS = Path(__file__).with_name("weights") / "ranker.json"
ORIGINS = ("table", "wide", "transposed", "rows", "sentence", "clause", "zero", "caption")
_CHANGE = re.compile(r"\b(change|reduction|decrease|increase|improvement|difference|gain|loss|delta)\b", re.I)
#: an outcome counted in people ("percentage of patients who ...")
_PEOPLE = re.compile(r"\b(patients?|participants?|subjects?|people|persons?|children|women|men|infants|who|those|"
                     r"cases|individuals)\b", re.I)
_BASE_WORD = re.compile(r"\b(baseline|pre-?(?:treatment|operative|intervention)|before)\b", re.I)


def candidates(doc: Document, ico: Any) -> list[Any]:
    """Every candidate of every generator, tagged with its origin (duplicates of one place kept once)."""
    from claimtrace.numbers import extract as ex

    tables = doc.tables
    groups = (("table", ex._table_candidates(tables, ico)), ("wide", ex._table_candidates(tables, ico, wide=True)),
              ("transposed", ex._transposed_candidates(tables, ico)), ("rows", ex._arm_row_candidates(tables, ico)),
              ("sentence", ex._sentence_candidates(doc, ico)),
              ("clause", ex._clause_candidates(doc, ico)), ("zero", ex._zero_candidates(doc, ico)),
              ("caption", ex._caption_candidates(doc, ico)))
    out: list[Any] = []
    seen: set[tuple[Any, ...]] = set()
    for origin, cs in groups:
        for c in cs:
            key = (tuple(c.context), _signature(c))
            if key in seen:
                continue
            seen.add(key)
            c.origin = origin
            out.append(c)
            twin = _percent_means(c)
            if twin is not None:
                out.append(twin)
    return out


def _percent_means(c: Any) -> Any | None:
    """The same percentages read as each arm's mean of a continuous outcome ("percentage of stage 1 sleep was
    15.5% vs. 10.9%"): a share of time or of a measure, not of people; the ranker tells which reading fits."""
    vals = c.values
    if c.kind != "binary" or not all(
            "_percent" in vals.get(a, {}) and not {"events", "mean"} & set(vals.get(a, {}))
            for a in ("intervention", "comparator")):
        return None
    reads = {a: replace(r, kind="continuous", mean=vals[a]["_percent"].value) for a, r in c.reads.items()}
    return type(c)(c.score, "continuous", reads, {a: {"mean": vals[a]["_percent"]} for a in vals},
                   [*c.flags, "percent_as_mean"], list(c.context), c.origin, dict(c.meta))


def _signature(c: Any) -> tuple[Any, ...]:
    return tuple((arm, f, v.value) for arm in ("intervention", "comparator")
                 for f, v in sorted(c.values.get(arm, {}).items()))


def _where(doc: Document, c: Any, rows: dict[str, Any]) -> str:
    """The row label (with its group) or the sentence a candidate was read from."""
    texts = []
    for uid in c.context:
        if uid in rows:
            r = rows[uid]
            texts.append(f"{r.group or ''} {r.label or ''}")
        else:
            texts.append(_sentence_text(doc, uid))
    return " ".join(texts)


def _sentence_text(doc: Document, uid: str) -> str:
    return _sentences(doc).get(uid, "")


_SENT_CACHE: dict[int, dict[str, str]] = {}


def _sentences(doc: Document) -> dict[str, str]:
    key = id(doc)
    if key not in _SENT_CACHE:
        _SENT_CACHE.clear()
        _SENT_CACHE[key] = {s.id: s.text for s in doc.sentences("all")}
    return _SENT_CACHE[key]


def _has(c: Any, f: str) -> float:
    return float(all(f in c.values.get(a, {}) for a in ("intervention", "comparator")))


def features(doc: Document, ico: Any, cands: list[Any]) -> list[dict[str, float]]:
    """The ranker's features of each candidate of one ICO (names as in the weights file)."""
    from claimtrace.numbers.extract import expand

    outcome = ico.outcome.phrase
    binary_o, cont_o = bool(BINARY_CUES.search(outcome)), bool(CONTINUOUS_CUES.search(outcome))
    change_o = bool(_CHANGE.search(outcome))
    people_o = bool(_PEOPLE.search(outcome))
    rows: list[dict[str, float]] = []
    table_rows = {r.id: r for t in doc.tables for r in t.rows}
    for c in cands:
        where = _where(doc, c, table_rows)
        m = c.meta
        # the paper's abbreviations read as the generators read them ("AEs" names "adverse events")
        o_score = ico.outcome.score(expand(where, ico.abbrevs))
        ws = [w for w in words(where) if not w.replace(".", "").isdigit()]
        precision = (sum(1 for w in ws if w[:5] in {x[:5] for x in words(outcome)}) / len(ws)) if ws else 0.0
        f: dict[str, float] = {f"origin_{o}": float(c.origin == o) for o in ORIGINS}
        f.update({
            "rule_score": c.score,
            "outcome": o_score,
            "precision": precision if c.origin in ("table", "wide", "transposed", "rows") else 0.0,
            "label": m.get("label", 0.0),
            "covered": m.get("covered", 0.0),
            "caption": m.get("caption", 0.0),
            "baseline": m.get("baseline", 0.0),
            "demote": m.get("demote", 0.0),
            "positional": m.get("positional", 0.0),
            "other_measure": m.get("other_measure", 0.0),
            "arm_i": m.get("arm_i", 0.0),
            "arm_c": m.get("arm_c", 0.0),
            "row_time": m.get("time", 0.0),
            "time_row": m.get("time_row", 0.0),
            "time_named": m.get("time_named", 0.0),
            "time_final": m.get("time_final", 0.0),
            "arm_rows": m.get("arm_rows", 0.0),
            "kind_binary_fit": float(c.kind == "binary" and binary_o),
            "kind_binary_misfit": float(c.kind == "binary" and cont_o and not binary_o),
            "kind_continuous_fit": float(c.kind == "continuous" and (cont_o or not binary_o)),
            "kind_continuous_misfit": float(c.kind == "continuous" and binary_o and not cont_o),
            "kind_empty": float(c.kind not in ("binary", "continuous")),
            "has_sd": _has(c, "sd"),
            "has_n": _has(c, "group_size"),
            "has_events": _has(c, "events"),
            "has_percent": _has(c, "_percent"),
            "same_values": float(_same(c)),
            "se_labelled": float("sd_may_be_se" in c.flags),
            "swapped": float("arms_swapped" in c.flags),
            "percent_mean": float("percent_as_mean" in c.flags),
            "percent_mean_people": float("percent_as_mean" in c.flags and people_o),
            "percent_binary_people": float("percent_as_mean" not in c.flags and _has(c, "_percent") > 0 and people_o),
            "where_baseline": float(bool(_BASE_WORD.search(where)) and not _BASE_WORD.search(outcome)),
            "change_fit": float(bool(_CHANGE.search(where)) == change_o),
            "abstract": float(any(u.startswith("a") for u in c.context) and c.origin in ("sentence", "clause")),
        })
        rows.append(f)
    best = {k: max((r[k] for r in rows), default=0.0) for k in ("outcome", "label", "rule_score")}
    n = len(rows)
    for r in rows:
        r["outcome_gap"] = r["outcome"] - best["outcome"]
        r["label_gap"] = r["label"] - best["label"] if r["label"] else -1.0
        r["rule_gap"] = r["rule_score"] - best["rule_score"]
        r["log_candidates"] = math.log1p(n)
    return rows


def _same(c: Any) -> bool:
    i, k = c.values.get("intervention", {}), c.values.get("comparator", {})
    keys = [f for f in ("events", "mean") if f in i and f in k]
    return bool(keys) and all(i[f].value == k[f].value for f in keys)


@cache
def load_weights(path: str = str(WEIGHTS)) -> dict[str, Any]:
    """The shipped weights: feature names, standardisation, coefficients, intercept and abstention threshold."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def probabilities(rows: list[dict[str, float]], weights: dict[str, Any] | None = None) -> list[float]:
    """The ranker's probability that each candidate gives the ICO's numbers."""
    w = weights or load_weights()
    out = []
    for r in rows:
        z = w["intercept"]
        for name, mu, sd, coef in zip(w["features"], w["mean"], w["scale"], w["coef"], strict=True):
            z += coef * (r.get(name, 0.0) - mu) / sd
        out.append(1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z)))))
    return out


def choose(doc: Document, ico: Any, cands: list[Any], weights: dict[str, Any] | None = None) -> Any | None:
    """The candidate the ranker puts first, or None (abstain) when its probability is under the threshold."""
    if not cands:
        return None
    w = weights or load_weights()
    probs = probabilities(features(doc, ico, cands), w)
    k = max(range(len(cands)), key=lambda j: probs[j])
    return cands[k] if probs[k] >= w["threshold"] else None
