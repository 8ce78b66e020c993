"""The empirical relation graph: normalised variables with mentions, typed edges with status.

Relation types follow EmpiriGraph-Psy: ``directional`` (mechanistic, X -> Y), ``correlational``
(associative; undirected, stored with its endpoints in canonical order), ``moderation`` (a binary
edge from the moderator to a variable whose relation it moderates, as the gold encodes it) and
``hierarchy`` (construct -> dimension or measure). Each edge has a status: ``validated``, ``null`` or
``hypothesized`` (hierarchy edges are ``validated``). One pair of variables may carry several edges
of different types. The graph is a pydantic model (it crosses module boundaries and serialises to
JSON); :meth:`EmpiricalGraph.to_networkx` gives a ``networkx.MultiDiGraph`` view.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

import networkx as nx
from pydantic import Field, model_validator

from claimtrace.documents.model import StrictModel
from claimtrace.jsonl import json_lines
from claimtrace.schema_version import SCHEMA_VERSION

GRAPH_SCHEMA_VERSION = SCHEMA_VERSION  # the one schema version (claimtrace.schema_version)

RelationType = Literal["directional", "correlational", "moderation", "hierarchy"]
Status = Literal["validated", "null", "hypothesized"]
Role = Literal["IV", "DV", "moderator", "mediator", "control"]

RELATION_TYPES: tuple[RelationType, ...] = ("directional", "correlational", "moderation", "hierarchy")
STATUSES: tuple[Status, ...] = ("validated", "null", "hypothesized")
ROLES: tuple[Role, ...] = ("IV", "DV", "moderator", "mediator", "control")

_DETERMINERS = re.compile(r"^(?:the|a|an|their|its|his|her|our|these|those|this|that|both|either|each)\s+", re.I)
_NON_WORD = re.compile(r"[^\w\s\-/]+")
_SPACES = re.compile(r"\s+")


def normalise_name(text: str) -> str:
    """A variable's normalised name: lower case, no punctuation or leading determiners, one space."""
    t = unicodedata.normalize("NFKC", text).lower().strip()
    t = _NON_WORD.sub(" ", t)
    t = _SPACES.sub(" ", t).strip(" -/")
    prev = None
    while prev != t:
        prev = t
        t = _DETERMINERS.sub("", t).strip()
    return t


def name_key(text: str) -> str:
    """A looser key for merging mentions: normalised, hyphens as spaces, naive singular per word."""
    words = normalise_name(text).replace("-", " ").replace("/", " ").split()
    out = []
    for w in words:
        if len(w) > 4 and w.endswith("ies"):
            w = w[:-3] + "y"
        elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is", "ous")):
            w = w[:-1]
        out.append(w)
    return " ".join(out)


class Mention(StrictModel):
    """Where a variable is named in the source text (character offsets into that text)."""

    text: str
    start: int
    end: int


def find_mention(text: str, phrase: str, lo: int = 0, hi: int | None = None) -> Mention | None:
    """Where ``phrase`` occurs in ``text`` (case-insensitive), preferring ``text[lo:hi]``; None if absent."""
    phrase = phrase.strip()
    if not phrase:
        return None
    low, p = text.lower(), phrase.lower()
    i = low.find(p, lo, len(text) if hi is None else hi)
    if i < 0:
        i = low.find(p)
    if i < 0:
        return None
    return Mention(text=text[i: i + len(phrase)], start=i, end=i + len(phrase))


class Variable(StrictModel):
    """A node: a variable or construct, with its normalised name, mentions, role and hierarchy level."""

    id: str
    name: str
    mentions: list[Mention] = Field(default_factory=list)
    role: Role | None = None
    level: int = Field(0, description="0 = top-level; a dimension or measure of a level-k node is k+1")


class Edge(StrictModel):
    """A typed, directed relation ``source -> target`` (correlational: canonical order, undirected)."""

    source: str
    target: str
    type: RelationType
    status: Status = "validated"
    evidence: list[str] = Field(default_factory=list, description="evidence sentences")
    justification: str | None = None


class EmpiricalGraph(StrictModel):
    """A paper's empirical relation graph."""

    schema_version: str = GRAPH_SCHEMA_VERSION
    id: str = ""
    text: str | None = Field(None, description="the text the mention offsets index (usually the abstract)")
    method: str | None = None
    variables: list[Variable] = Field(default_factory=list)
    edges: list[Edge] = Field(default_factory=list)
    stages: dict[str, Any] = Field(default_factory=dict, description="intermediate outputs of a staged pipeline")

    @model_validator(mode="after")
    def _check_endpoints(self) -> EmpiricalGraph:
        ids = [v.id for v in self.variables]
        if len(set(ids)) != len(ids):
            raise ValueError("duplicate variable ids")
        known = set(ids)
        for e in self.edges:
            if e.source not in known or e.target not in known:
                raise ValueError(f"edge {e.source!r} -> {e.target!r} names an unknown variable")
        return self

    # ---- building ------------------------------------------------------------------------
    def variable(self, var_id: str) -> Variable:
        """The variable with this id."""
        for v in self.variables:
            if v.id == var_id:
                return v
        raise KeyError(f"no variable {var_id!r}")

    def find(self, name: str) -> Variable | None:
        """The variable whose name key equals that of ``name``, if any."""
        key = name_key(name)
        for v in self.variables:
            if name_key(v.name) == key:
                return v
        return None

    def add_variable(self, name: str, mention: Mention | None = None, role: Role | None = None) -> Variable:
        """Add a variable (or return the existing one with the same name key), recording a mention."""
        var = self.find(name)
        if var is None:
            var = Variable(id=f"v{len(self.variables) + 1}", name=normalise_name(name) or name.strip())
            self.variables.append(var)
        if mention is not None and all((m.start, m.end) != (mention.start, mention.end) for m in var.mentions):
            var.mentions.append(mention)
        if role is not None and var.role is None:
            var.role = role
        return var

    def add_edge(self, source: str, target: str, type: RelationType, status: Status = "validated",
                 evidence: Iterable[str] = (), justification: str | None = None) -> Edge | None:
        """Add a typed edge between two variable ids; merges evidence into an existing identical edge.

        A self-loop is refused (returns None); correlational edges are stored in canonical order.
        If the same pair and type already exist, the edge is kept once (with the stronger status:
        validated > null > hypothesized) and the evidence is merged.
        """
        if source == target:
            return None
        ids = {v.id for v in self.variables}
        if source not in ids or target not in ids:
            raise KeyError(f"edge endpoints must be variables: {source!r}, {target!r}")
        if type == "correlational" and target < source:
            source, target = target, source
        if type == "hierarchy":
            status = "validated"
        for e in self.edges:
            if (e.source, e.target, e.type) == (source, target, type):
                if STATUSES.index(status) < STATUSES.index(e.status):
                    e.status = status
                for s in evidence:
                    if s not in e.evidence:
                        e.evidence.append(s)
                return e
        edge = Edge(source=source, target=target, type=type, status=status, evidence=list(dict.fromkeys(evidence)),
                    justification=justification)
        self.edges.append(edge)
        return edge

    def compute_levels(self) -> None:
        """Set each variable's hierarchy level from the hierarchy edges (parent level + 1)."""
        children: dict[str, list[str]] = {}
        has_parent: set[str] = set()
        for e in self.edges:
            if e.type == "hierarchy":
                children.setdefault(e.source, []).append(e.target)
                has_parent.add(e.target)
        level = {v.id: 0 for v in self.variables}
        frontier = [v.id for v in self.variables if v.id not in has_parent]
        seen = set(frontier)
        while frontier:
            nxt = []
            for u in frontier:
                for c in children.get(u, []):
                    if c not in seen:
                        level[c] = level[u] + 1
                        seen.add(c)
                        nxt.append(c)
            frontier = nxt
        for v in self.variables:
            v.level = level.get(v.id, 0)

    def infer_roles(self) -> None:
        """Fill missing roles from the edges: moderators, IVs (sources) and DVs (targets)."""
        for v in self.variables:
            if v.role is not None:
                continue
            out_types = {e.type for e in self.edges if e.source == v.id}
            in_types = {e.type for e in self.edges if e.target == v.id}
            if "moderation" in out_types:
                v.role = "moderator"
            elif "directional" in out_types and "directional" in in_types:
                v.role = "mediator"
            elif "directional" in out_types:
                v.role = "IV"
            elif "directional" in in_types:
                v.role = "DV"

    # ---- views and exports --------------------------------------------------------------
    def to_networkx(self) -> nx.MultiDiGraph:
        """A networkx MultiDiGraph: node attrs name/role/level, edge key = relation type."""
        g = nx.MultiDiGraph(id=self.id)
        for v in self.variables:
            g.add_node(v.id, name=v.name, role=v.role or "", level=v.level)
        for e in self.edges:
            g.add_edge(e.source, e.target, key=e.type, type=e.type, status=e.status,
                       evidence=" | ".join(e.evidence))
        return g

    def to_json(self) -> str:
        """The graph as JSON text."""
        return self.model_dump_json(indent=2)

    def to_graphml(self) -> str:
        """The graph as GraphML text."""
        lines = nx.generate_graphml(self.to_networkx(), prettyprint=True)
        return "\n".join(lines) + "\n"

    def to_mermaid(self) -> str:
        """The graph as a Mermaid flowchart (status as the edge label; correlational dotted both ways)."""
        out = ["flowchart LR"]
        for v in self.variables:
            label = v.name.replace('"', "'")
            role = f" ({v.role})" if v.role else ""
            out.append(f'    {v.id}["{label}{role}"]')
        for e in self.edges:
            lab = e.type if e.type == "hierarchy" else f"{e.type}: {e.status}"
            if e.type == "correlational":
                arrow = f"<-. {lab} .->"
            elif e.type == "hierarchy":
                arrow = f"-- {lab} ---"
            elif e.type == "moderation":
                arrow = f"-. {lab} .->"
            else:
                arrow = f"-- {lab} -->"
            out.append(f"    {e.source} {arrow} {e.target}")
        return "\n".join(out) + "\n"

    def render_png(self, path: str | Path, title: str | None = None) -> Path:
        """Draw the graph into a PNG file with matplotlib (edge colour = type, line style = status)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        g = self.to_networkx()
        fig, ax = plt.subplots(figsize=(max(6.0, 1.2 * len(self.variables) + 3), 6.0))
        if len(g):
            pos = nx.spring_layout(nx.Graph(g), seed=7, k=1.6 / max(1, len(g)) ** 0.5)
            nx.draw_networkx_nodes(g, pos, ax=ax, node_color="#dde8f6", edgecolors="#335", node_size=900)
            nx.draw_networkx_labels(g, pos, ax=ax, labels={v.id: _wrap(v.name) for v in self.variables},
                                    font_size=7)
            colours = {"directional": "#1f5fbf", "correlational": "#2a9d4a", "moderation": "#d2691e",
                       "hierarchy": "#777777"}
            styles: dict[str, Any] = {"validated": "solid", "null": "dotted", "hypothesized": "dashed"}
            for i, e in enumerate(self.edges):
                nx.draw_networkx_edges(
                    g, pos, ax=ax, edgelist=[(e.source, e.target)], edge_color=colours[e.type],
                    style=styles[e.status], arrows=True, arrowsize=14, node_size=900,
                    arrowstyle="-" if e.type in ("correlational", "hierarchy") else "-|>",
                    connectionstyle=f"arc3,rad={0.08 + 0.08 * (i % 3)}",
                )
            from matplotlib.lines import Line2D

            handles = [Line2D([0], [0], color=c, label=t) for t, c in colours.items()]
            handles += [Line2D([0], [0], color="black", linestyle=s, label=k) for k, s in styles.items()]
            ax.legend(handles=handles, loc="lower left", fontsize=7, frameon=False)
        else:
            ax.text(0.5, 0.5, "(no variables)", ha="center", va="center")
        ax.set_title(title or self.id or "empirical relation graph", fontsize=9)
        ax.axis("off")
        out = Path(path)
        fig.savefig(out, format="png", dpi=130, bbox_inches="tight")
        plt.close(fig)
        return out


def _wrap(text: str, width: int = 18) -> str:
    words, lines, cur = text.split(), [], ""
    for w in words:
        if cur and len(cur) + len(w) + 1 > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}".strip()
    if cur:
        lines.append(cur)
    return "\n".join(lines)


def load_graphs(path: str | Path) -> dict[str, EmpiricalGraph]:
    """Read graphs keyed by id: project graph JSON (one graph, a list, or JSONL) or a Label Studio export."""
    from claimtrace.errors import InputError
    from claimtrace.graph.labelstudio import is_labelstudio_export, load_labelstudio_data

    p = Path(path)
    if not p.exists():
        raise InputError(p, "no such file")
    text = p.read_text(encoding="utf-8", errors="replace")
    if not text.strip():
        raise InputError(p, "empty file")
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError:
        data = [obj for _, obj in json_lines(p, text)]
    if is_labelstudio_export(data):
        return {g.id: g for g in load_labelstudio_data(data, str(p))}
    items = data if isinstance(data, list) else [data]
    out: dict[str, EmpiricalGraph] = {}
    for i, obj in enumerate(items):
        if not isinstance(obj, dict):
            raise InputError(p, f"item {i + 1}: expected a graph object")
        if obj.get("error"):
            continue  # a failed batch line: nothing to score
        graph_obj = obj.get("graph", obj) if isinstance(obj.get("graph"), dict) else obj
        fields = {k: v for k, v in graph_obj.items() if k in EmpiricalGraph.model_fields}
        if "variables" not in fields and "edges" not in fields:
            raise InputError(p, f"item {i + 1}: not a graph (no 'variables'/'edges')")
        try:
            g = EmpiricalGraph.model_validate(fields)
        except Exception as exc:
            first = str(exc).splitlines()
            raise InputError(p, f"item {i + 1}: invalid graph ({first[0] if first else exc})") from None
        gid = str(obj.get("id") or g.id or (len(items) == 1 and "graph") or i)
        g.id = gid
        if gid in out:
            raise InputError(p, f"duplicate graph id {gid!r}")
        out[gid] = g
    if not out:
        raise InputError(p, "no graphs in file")
    return out
