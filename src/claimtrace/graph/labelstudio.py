"""Loader for the EmpiriGraph-Psy Label Studio export.

Each task holds the abstract (``data.AB``) and one or more annotations. In an annotation's
``result`` list, variables are spans labelled ``Variable`` (``type: labels``; an optional
``textarea`` result from ``var_name`` with the same id gives the normalised name) and relations
are ``type: relation`` items from ``from_id`` to ``to_id`` with labels such as
``direction__validated``, ``correlation__null``, ``moderation__hypothesized`` or ``hierarchy``;
one relation may carry several labels (several typed edges on one pair).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claimtrace.documents import split_sentences
from claimtrace.errors import InputError
from claimtrace.graph.model import EmpiricalGraph, Mention, RelationType, Status
from claimtrace.jsonl import read_data

_TYPE_PREFIX: dict[str, RelationType] = {
    "direction": "directional",
    "directional": "directional",
    "correlation": "correlational",
    "correlational": "correlational",
    "moderation": "moderation",
    "hierarchy": "hierarchy",
}
_STATUSES: dict[str, Status] = {"validated": "validated", "null": "null", "hypothesized": "hypothesized",
                                "hypothesised": "hypothesized"}
_TEXT_FIELDS = ("AB", "abstract", "text")


def parse_relation_label(label: str) -> tuple[RelationType, Status]:
    """``direction__validated`` -> ("directional", "validated"); ``hierarchy`` -> ("hierarchy", "validated")."""
    head, _, tail = label.strip().lower().partition("__")
    rtype = _TYPE_PREFIX.get(head)
    if rtype is None:
        raise ValueError(f"unknown relation label {label!r}")
    if not tail:
        return rtype, "validated"
    status = _STATUSES.get(tail)
    if status is None:
        raise ValueError(f"unknown relation status in label {label!r}")
    return rtype, status


def is_labelstudio_export(data: Any) -> bool:
    """True when parsed JSON looks like a Label Studio export (tasks with ``annotations`` and ``data``)."""
    items = data if isinstance(data, list) else [data]
    return bool(items) and all(isinstance(t, dict) and "annotations" in t and "data" in t for t in items)


def load_labelstudio(path: str | Path, annotation: int = 0) -> list[EmpiricalGraph]:
    """Read a Label Studio export file into one graph per task (the ``annotation``-th, default first)."""
    p = Path(path)
    data = read_data(p, "json")
    if not is_labelstudio_export(data):
        raise InputError(p, "not a Label Studio export (expected tasks with 'data' and 'annotations')")
    return load_labelstudio_data(data, str(p), annotation=annotation)


def load_labelstudio_data(data: Any, source: str = "", annotation: int = 0) -> list[EmpiricalGraph]:
    """Graphs from parsed Label Studio JSON; tasks without that annotation are left out."""
    tasks = data if isinstance(data, list) else [data]
    graphs = []
    for task in tasks:
        anns = [a for a in task.get("annotations", []) if not a.get("was_cancelled")]
        if len(anns) <= annotation:
            continue
        graphs.append(task_graph(task, anns[annotation], source))
    if not graphs:
        raise InputError(source or None, f"no task has annotation #{annotation + 1}")
    return graphs


def annotator_graphs(data: Any) -> dict[str, list[EmpiricalGraph]]:
    """All non-cancelled annotations of each task, keyed by task id (for inter-annotator agreement)."""
    tasks = data if isinstance(data, list) else [data]
    out: dict[str, list[EmpiricalGraph]] = {}
    for task in tasks:
        anns = [a for a in task.get("annotations", []) if not a.get("was_cancelled")]
        out[str(task.get("id"))] = [task_graph(task, a, "") for a in anns]
    return out


def task_text(task: dict[str, Any]) -> str:
    """The annotated text of a task (the abstract)."""
    data = task.get("data") or {}
    for key in _TEXT_FIELDS:
        if isinstance(data.get(key), str):
            return str(data[key])
    return ""


def task_graph(task: dict[str, Any], ann: dict[str, Any], source: str = "") -> EmpiricalGraph:
    """One annotation of one task as an EmpiricalGraph (variables merged by normalised name)."""
    tid = str(task.get("id", ""))
    where = f"{source}: task {tid}" if source else f"task {tid}"
    text = task_text(task)
    results = ann.get("result") or []
    spans: dict[str, dict[str, Any]] = {}
    names: dict[str, str] = {}
    for r in results:
        value = r.get("value") or {}
        if r.get("type") == "labels" and "Variable" in (value.get("labels") or []):
            spans[str(r["id"])] = value
        elif r.get("type") == "textarea" and r.get("from_name") == "var_name":
            t = value.get("text")
            t = (t[0] if t else "") if isinstance(t, list) else (t or "")
            if str(t).strip():
                names[str(r["id"])] = str(t).strip()
    graph = EmpiricalGraph(id=tid, text=text or None, method="gold")
    node_of: dict[str, str] = {}
    for rid, value in spans.items():
        span_text = str(value.get("text") or "")
        name = names.get(rid) or span_text.strip().rstrip(".,;:").strip()
        if not name:
            continue
        start, end = int(value.get("start", 0)), int(value.get("end", 0))
        if text and text[start:end].strip() != span_text.strip():
            # offsets that disagree with the span text: trust the text where it occurs
            found = text.find(span_text.strip())
            if found >= 0:
                start, end = found, found + len(span_text.strip())
        mention_text = text[start:end] if text else span_text
        var = graph.add_variable(name, Mention(text=mention_text, start=start, end=end))
        node_of[rid] = var.id
    for r in results:
        if r.get("type") != "relation":
            continue
        src, dst = node_of.get(str(r.get("from_id"))), node_of.get(str(r.get("to_id")))
        if src is None or dst is None:
            raise InputError(None, f"{where}: relation between unknown spans {r.get('from_id')!r} -> {r.get('to_id')!r}")
        if r.get("direction") == "left":
            src, dst = dst, src
        evidence = _sentence_around(text, graph, src, dst)
        for label in r.get("labels") or []:
            try:
                rtype, status = parse_relation_label(label)
            except ValueError as exc:
                raise InputError(None, f"{where}: {exc}") from None
            graph.add_edge(src, dst, rtype, status, evidence=evidence)
    graph.compute_levels()
    graph.infer_roles()
    return graph


def _sentence_around(text: str, graph: EmpiricalGraph, a: str, b: str) -> list[str]:
    """The sentence(s) holding mentions of both endpoints, as evidence (empty when none)."""
    if not text:
        return []

    sents = split_sentences(text)
    ma, mb = graph.variable(a).mentions, graph.variable(b).mentions
    out = []
    for s, e in sents:
        if any(s <= m.start < e for m in ma) and any(s <= m.start < e for m in mb):
            out.append(text[s:e])
    return out
