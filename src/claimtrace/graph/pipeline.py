"""LLM extraction of empirical relation graphs: the five-stage pipeline and the direct baseline.

Stages (one packaged prompt ``prompts/graph/<stage>.yaml`` and one pydantic schema each):

1. ``variables`` — variables with the words that name them and a role;
2. ``normalise`` — merge near-duplicates, link constructs to dimensions/measures (hierarchy);
3. ``evidence`` — the sentences that state, test or hypothesise relations;
4. ``relations`` — typed relations with status, from the evidence sentences;
5. ``verify`` — keep, remove or retype each relation, with a justification.

Every stage's output (and its ledger invocation ids) is kept in ``EmpiricalGraph.stages``. Each
stage runs as LLM task ``graph_<stage>`` when the settings define that task (a per-stage model, e.g.
one model for stages 1 and 5 and another for 2-4), else as task ``graph``, else with the defaults.
``run_direct`` is the single-prompt baseline (task ``graph_direct``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field
from rapidfuzz import fuzz, process

from claimtrace.documents import split_sentences
from claimtrace.graph.model import (
    EmpiricalGraph,
    RelationType,
    Status,
    find_mention,
    name_key,
    normalise_name,
)
from claimtrace.llm import LLMClient, TaskOverride

STAGES = ("variables", "normalise", "evidence", "relations", "verify")
EdgeType = Literal["directional", "correlational", "moderation"]
RoleName = Literal["IV", "DV", "moderator", "mediator", "control"]


# ---- stage schemas ----------------------------------------------------------------------------
class VariableItem(BaseModel):
    """Stage 1: one variable."""

    name: str
    quote: str = ""
    role: RoleName | None = None


class VariablesOut(BaseModel):
    """Stage 1 answer."""

    variables: list[VariableItem] = Field(default_factory=list)


class NormalisedVariable(BaseModel):
    """Stage 2: one normalised variable and the names merged into it."""

    name: str
    aliases: list[str] = Field(default_factory=list)


class HierarchyLink(BaseModel):
    """Stage 2: construct -> dimension or measure."""

    parent: str
    child: str


class NormaliseOut(BaseModel):
    """Stage 2 answer."""

    variables: list[NormalisedVariable] = Field(default_factory=list)
    hierarchy: list[HierarchyLink] = Field(default_factory=list)


class EvidenceOut(BaseModel):
    """Stage 3 answer: 1-based sentence numbers."""

    sentences: list[int] = Field(default_factory=list)


class DirectRelation(BaseModel):
    """Direct baseline: one relation."""

    source: str
    target: str
    type: EdgeType
    status: Status = "validated"


class RelationItem(DirectRelation):
    """Stage 4: one typed relation with status and its sentence number."""

    sentence: int | None = None


class RelationsOut(BaseModel):
    """Stage 4 answer."""

    relations: list[RelationItem] = Field(default_factory=list)


class Decision(BaseModel):
    """Stage 5: what to do with relation ``index`` (1-based)."""

    index: int
    action: Literal["keep", "remove", "retype"]
    type: EdgeType | None = None
    status: Status | None = None
    justification: str = ""


class VerifyOut(BaseModel):
    """Stage 5 answer."""

    decisions: list[Decision] = Field(default_factory=list)


class DirectOut(BaseModel):
    """Direct baseline answer: the whole graph."""

    variables: list[str] = Field(default_factory=list)
    hierarchy: list[HierarchyLink] = Field(default_factory=list)
    relations: list[DirectRelation] = Field(default_factory=list)


# ---- helpers ----------------------------------------------------------------------------------
def _client(client: Any | None, settings: Any | None) -> Any:
    if client is not None:
        return client

    return LLMClient(settings)


def stage_task(settings: Any, stage: str) -> str:
    """The LLM task a stage runs as: ``graph_<stage>`` if configured, else ``graph``."""
    tasks = getattr(settings, "tasks", {}) or {}
    if f"graph_{stage}" in tasks:
        return f"graph_{stage}"
    return "graph"


def with_stage_models(settings: Any, models: Mapping[str, str]) -> Any:
    """A copy of LLM settings with a model override per stage (``{"variables": "m1", ...}``)."""

    tasks = dict(settings.tasks)
    for stage, model in models.items():
        key = "graph" if stage in ("default", "graph") else f"graph_{stage}"
        base = tasks.get(key, TaskOverride())
        tasks[key] = base.model_copy(update={"model": model})
    return settings.model_copy(update={"tasks": tasks})


def _ask(client: Any, prompt: str, variables: dict[str, Any], schema: type[BaseModel], task: str,
         stages: dict[str, Any], stage: str) -> Any:
    res = client.structured(prompt, variables, schema, task=task)
    stages[stage] = {"prompt": prompt, "task": task, "invocation_ids": list(res.invocation_ids),
                     "output": res.value.model_dump(mode="json") if res.ok else None,
                     "error": str(res.error) if res.error else None}
    return res.unwrap()


class _Resolver:
    """Maps names the model writes to graph variables (exact key, alias, then fuzzy)."""

    def __init__(self, graph: EmpiricalGraph, text: str) -> None:
        self.graph, self.text = graph, text
        self.alias: dict[str, str] = {}

    def add(self, name: str, role: str | None = None, quote: str = "") -> str | None:
        n = normalise_name(name)
        if not n:
            return None
        key = name_key(n)
        if key in self.alias:
            return self.alias[key]
        mention = find_mention(self.text, quote) or find_mention(self.text, name)
        var = self.graph.add_variable(n, mention, role if role in ("IV", "DV", "moderator", "mediator", "control") else None)  # type: ignore[arg-type]
        self.alias[key] = var.id
        return var.id

    def link(self, alias: str, var_id: str) -> None:
        key = name_key(alias)
        if key and key not in self.alias:
            self.alias[key] = var_id
            m = find_mention(self.text, alias)
            var = self.graph.variable(var_id)
            if m and all((x.start, x.end) != (m.start, m.end) for x in var.mentions):
                var.mentions.append(m)

    def get(self, name: str, create: bool = True) -> str | None:
        key = name_key(name)
        if not key:
            return None
        if key in self.alias:
            return self.alias[key]
        if self.alias:
            best = process.extractOne(key, list(self.alias), scorer=fuzz.token_set_ratio)
            if best and best[1] >= 85:
                return self.alias[best[0]]
        return self.add(name) if create else None


def _numbered(sentences: list[str], keep: list[int] | None = None) -> str:
    return "\n".join(f"[{i}] {s}" for i, s in enumerate(sentences, 1) if keep is None or i in keep)


# ---- the pipelines ----------------------------------------------------------------------------
def run_staged(text: str, doc_id: str = "", *, client: Any | None = None, settings: Any | None = None,
               stage_models: Mapping[str, str] | None = None) -> EmpiricalGraph:
    """The five-stage pipeline on one abstract; intermediate outputs are kept in ``graph.stages``."""
    if client is None:
        from claimtrace.llm import load_settings

        settings = settings if settings is not None else load_settings()
        if stage_models:
            settings = with_stage_models(settings, stage_models)
    else:
        settings = getattr(client, "settings", settings)
    llm = _client(client, settings)
    graph = EmpiricalGraph(id=doc_id, text=text, method="staged")
    stages: dict[str, Any] = {}
    res = _Resolver(graph, text)
    sents = [text[s:e] for s, e in split_sentences(text)]

    s1: VariablesOut = _ask(llm, "graph/variables", {"text": text}, VariablesOut,
                            stage_task(settings, "variables"), stages, "variables")
    names = [v.name for v in s1.variables if v.name.strip()]
    roles = {name_key(v.name): v.role for v in s1.variables}
    quotes = {name_key(v.name): v.quote for v in s1.variables}

    s2: NormaliseOut = _ask(llm, "graph/normalise", {"text": text, "variables": "; ".join(names)}, NormaliseOut,
                            stage_task(settings, "normalise"), stages, "normalise")
    for nv in s2.variables or [NormalisedVariable(name=n) for n in names]:
        k = name_key(nv.name)
        role = roles.get(k) or next((roles.get(name_key(a)) for a in nv.aliases if roles.get(name_key(a))), None)
        vid = res.add(nv.name, role, quotes.get(k, ""))
        if vid:
            for a in nv.aliases:
                res.link(a, vid)
    for n in names:  # stage-1 variables the normaliser dropped without merging
        if res.get(n, create=False) is None:
            res.add(n, roles.get(name_key(n)), quotes.get(name_key(n), ""))
    for h in s2.hierarchy:
        p, c = res.get(h.parent), res.get(h.child)
        if p and c:
            graph.add_edge(p, c, "hierarchy", "validated")

    var_list = "; ".join(v.name for v in graph.variables)
    s3: EvidenceOut = _ask(llm, "graph/evidence", {"sentences": _numbered(sents), "variables": var_list},
                           EvidenceOut, stage_task(settings, "evidence"), stages, "evidence")
    keep = sorted({i for i in s3.sentences if 1 <= i <= len(sents)}) or list(range(1, len(sents) + 1))

    s4: RelationsOut = _ask(llm, "graph/relations", {"sentences": _numbered(sents, keep), "variables": var_list},
                            RelationsOut, stage_task(settings, "relations"), stages, "relations")
    rels = [r for r in s4.relations if r.source.strip() and r.target.strip()]
    if rels:
        listing = "\n".join(
            f"{i}. {r.source} -> {r.target} ({r.type}, {r.status}); evidence: "
            f"{sents[r.sentence - 1] if r.sentence and 1 <= r.sentence <= len(sents) else '(none given)'}"
            for i, r in enumerate(rels, 1))
        s5: VerifyOut = _ask(llm, "graph/verify", {"relations": listing}, VerifyOut,
                             stage_task(settings, "verify"), stages, "verify")
        decisions = {d.index: d for d in s5.decisions}
    else:
        decisions = {}
    for i, r in enumerate(rels, 1):
        d = decisions.get(i)
        if d is not None and d.action == "remove":
            continue
        rtype: RelationType = d.type if d is not None and d.action == "retype" and d.type else r.type
        status: Status = d.status if d is not None and d.action == "retype" and d.status else r.status
        src, dst = res.get(r.source), res.get(r.target)
        if not src or not dst:
            continue
        ev = [sents[r.sentence - 1]] if r.sentence and 1 <= r.sentence <= len(sents) else []
        graph.add_edge(src, dst, rtype, status, ev, d.justification if d is not None else None)
    graph.stages = stages
    graph.compute_levels()
    graph.infer_roles()
    return graph


def run_direct(text: str, doc_id: str = "", *, client: Any | None = None, settings: Any | None = None,
               model: str | None = None) -> EmpiricalGraph:
    """The single-step direct-prompting baseline."""
    if client is None:
        from claimtrace.llm import load_settings

        settings = settings if settings is not None else load_settings()
        if model:
            settings = with_stage_models(settings, {"direct": model})
    else:
        settings = getattr(client, "settings", settings)
    llm = _client(client, settings)
    graph = EmpiricalGraph(id=doc_id, text=text, method="direct")
    stages: dict[str, Any] = {}
    out: DirectOut = _ask(llm, "graph/direct", {"text": text}, DirectOut, stage_task(settings, "direct"),
                          stages, "direct")
    res = _Resolver(graph, text)
    for n in out.variables:
        res.add(n)
    for h in out.hierarchy:
        p, c = res.get(h.parent), res.get(h.child)
        if p and c:
            graph.add_edge(p, c, "hierarchy", "validated")
    for r in out.relations:
        src, dst = res.get(r.source), res.get(r.target)
        if src and dst:
            graph.add_edge(src, dst, r.type, r.status)
    graph.stages = stages
    graph.compute_levels()
    graph.infer_roles()
    return graph
