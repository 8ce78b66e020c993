"""An embedded extractor that needs no LLM: sentence patterns for variables and relation cues.

Variables are the noun phrases that relation cues connect ("X predicted Y", "effects of X on Y",
"relationship between X and Y", "X moderated the effect of Y on Z", "X mediated ...", "dimensions of
X: A, B and C", "X (i.e., A, or B)"). The status of each relation comes from its clause: statistics
(p-values read by the statistics engine, ``claimtrace.stats``),
negation cues ("no support", "did not", "independent of", "no differences") -> ``null``;
hypothesis cues ("we hypothesized", "purpose ... whether", "expected", "will") -> ``hypothesized``;
reported findings -> ``validated``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from claimtrace.cues import NS_ABBREV, RELATION_NEGATION, p_significance
from claimtrace.documents import split_sentences
from claimtrace.graph.model import EmpiricalGraph, RelationType, Status, find_mention, name_key
from claimtrace.lexicons import patterns
from claimtrace.stats import parse

# ---- status cues ----------------------------------------------------------------------------
# cue patterns: resources/lexicons/graph.offline.yaml
_HYPO, _VALID = patterns("graph.offline", "HYPO", "VALID")


def p_values(text: str) -> list[tuple[str, float]]:
    """(comparator, p) pairs the statistics engine reads in a piece of text ("ns" as p = 1)."""

    found: list[tuple[str, float]] = []
    for st in parse(text):
        if st.p_comparison == "ns":
            found.append(("ns", 1.0))
        elif st.p_value is not None:
            found.append((st.p_comparison or "=", float(st.p_value)))
    return found


def clause_status(clause: str, alpha: float = 0.05) -> Status:
    """The status a clause gives a relation: statistics first, then negation, hypothesis, finding cues."""
    ps = p_values(clause)
    if ps:
        # several results in one clause: any significant one validates the relation
        return "validated" if any(p_significance(c, p, alpha) for c, p in ps) else "null"
    if NS_ABBREV.search(clause):
        return "null"
    if RELATION_NEGATION.search(clause):
        return "null"
    if _HYPO.search(clause) and not re.search(r"\b(?:results?|found|showed|indicated|revealed)\b", clause, re.I):
        return "hypothesized"
    if _VALID.search(clause):
        return "validated"
    return "hypothesized"


# ---- noun phrases ---------------------------------------------------------------------------
_LEFT_CUT, _RIGHT_CUT, _LEAD_NOISE, _TRAIL_NOISE, _STOP_NP, _COORD = patterns(
    "graph.offline", "LEFT_CUT", "RIGHT_CUT", "LEAD_NOISE", "TRAIL_NOISE", "STOP_NP", "COORD")


def _clean_np(text: str) -> str:
    t = " ".join(text.split()).strip(" ,;:.-'\"")
    prev = None
    while prev != t:
        prev = t
        t = _LEAD_NOISE.sub("", t).strip(" ,;:.-")
        t = _TRAIL_NOISE.sub("", t).strip(" ,;:.-")
    words = t.split()
    if len(words) > 7:
        t = " ".join(words[-7:])
    if not re.search(r"[A-Za-z]{3,}", t) or _STOP_NP.match(t):
        return ""
    return t


def _left_np(clause: str, end: int) -> str:
    head = clause[:end]
    cuts = list(_LEFT_CUT.finditer(head))
    if cuts:
        head = head[cuts[-1].end():]
    return _clean_np(head)


def _right_np(clause: str, start: int) -> str:
    tail = clause[start:]
    m = _RIGHT_CUT.search(tail)
    if m:
        tail = tail[: m.start()]
    return _clean_np(tail)


def _split_coord(np: str) -> list[str]:
    parts = [_clean_np(p) for p in _COORD.split(np)]
    parts = [p for p in parts if p]
    # "anxiety and depression symptoms": keep together when a part is a lone short word
    if len(parts) > 1 and any(len(p.split()) == 1 and len(p) < 4 for p in parts):
        return [np] if _clean_np(np) else []
    return parts or ([np] if _clean_np(np) else [])


def _split_pair(np: str) -> tuple[str, str] | None:
    """"the performance-voluntary turnover relationship" -> ("performance", "voluntary turnover")."""
    m = re.match(r"^(.+?)\s*[-–—/]\s*(.+?)(?:\s+(?:relationships?|relations?|associations?|links?|"
                 r"connections?))?$", np.strip())
    if m and " " in (m.group(1) + " " + m.group(2)):
        a, b = _clean_np(m.group(1)), _clean_np(m.group(2))
        if a and b:
            return a, b
    return None


# ---- relation patterns ----------------------------------------------------------------------
_NP = r"(?P<{}>[\w'’\-/ ]{{2,90}}?)"
_REL_NOUN = r"(?:relationships?|relations?|associations?|links?|correlations?)"
_EFFECT_NOUN = r"(?:effects?|influences?|impacts?|effectiveness|contributions?|consequences?|role)"


@dataclass
class _Rel:
    kind: str  # directional | correlational | moderation | mediation | hierarchy
    a: list[str]
    b: list[str]
    extra: list[str]
    status_override: Status | None = None


def _pat(rx: str) -> re.Pattern[str]:
    return re.compile(rx, re.I)


_RIGHT = "(?P<R>[^,;.()]{2,120})"
#: what a moderator or mediator acts on: "the relationship between X and Y", "the effect of X on Y"
_LINK_NOUN = r"(?:relationships?|relations?|associations?|links?|effects?)"


def _by_form(verbs: str, joins: str) -> str:
    """A moderation or mediation in the passive: "the relationship between X and Y was <verbs> by R"."""
    return (r"\b" + _LINK_NOUN + r"\s+(?:between|of)\s+" + _NP.format("X") + rf"\s+(?:{joins})\s+" + _NP.format("Y")
            + rf"\s+(?:was|were|is|are)\s+(?:\w+\s+)?{verbs}\s+by\s+" + _RIGHT)


def _active_form(verbs: str, joins: str) -> str:
    """A moderation or mediation in the active, its moderator or mediator before: "<verbs> the effect of X on R"."""
    return (rf"\b{verbs}\s+(?:the\s+)?(?:{_LINK_NOUN}|impact)\s+(?:between|of)\s+" + _NP.format("X")
            + rf"\s+(?:{joins})\s+" + _RIGHT)


_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    # moderation
    ("mod_interact", _pat(r"\binteract(?:s|ed|ing)?\s+with\s+" + _NP.format("M2") +
                          r"\s+to\s+(?:influence|predict|affect|shape|determine)\s+" + _RIGHT)),
    ("mod_by", _pat(_by_form("(?:moderated|buffered|qualified|conditioned)", "and|on|with"))),
    ("mod_active", _pat(_active_form("(?:moderated|moderates|moderate|buffered|buffers|qualified)", "and|on|with"))),
    ("mod_buffer", _pat(r"\b(?:support\s+for\s+|evidence\s+for\s+|role\s+of\s+)?" + _NP.format("M") +
                        r"\s+as\s+(?:a\s+|potential\s+)?(?:buffers?|moderators?)\s+(?:of|for|in)\s+" + _RIGHT)),
    # mediation
    ("med_by", _pat(_by_form("mediated", "and|on"))),
    ("med_active", _pat(_active_form("(?:mediated|mediates|mediate)", "and|on"))),
    # hierarchy
    ("hier_colon", _pat(r"\b(?:dimensions?|components?|facets?|subscales?|themes?|aspects?|forms?|types?|"
                        r"domains?|factors?|indicators?|measures?|subtypes?|categories)\s+of\s+" + _NP.format("P") +
                        r"\s*:\s*(?P<L>[^.;]{3,300})")),
    ("hier_of_list", _pat(r"\b(?:dimensions?|components?|facets?|subscales?|aspects?|domains?)\s+of\s+"
                          + _NP.format("P") + r"\s*\(\s*(?P<L>[^)]{3,300})\)")),
    ("hier_ie", _pat(r"(?P<P>[\w'’\- ]{3,80}?)\s*\(\s*(?:i\.\s?e\.|e\.\s?g\.|including|namely)\s*,?\s*(?P<L>[^)]{3,300})\)")),
    ("hier_including", _pat(r"(?P<P>[\w'’\- ]{3,80}?),?\s+(?:including|such\s+as|namely|comprising|consisting\s+of)\s+"
                            r"(?P<L>[^.;()]{3,200})")),
    ("hier_measured", _pat(r"(?P<P>[\w'’\- ]{3,80}?)\s+(?:was|were)\s+(?:measured|assessed|operationali[sz]ed|indexed)\s+"
                           r"(?:by|with|as|using|through)\s+" + _RIGHT)),
    # directional
    ("dir_effect", _pat(r"\b" + _EFFECT_NOUN + r"\s+of\s+" + _NP.format("X") + r"\s+(?:on|in|for)\s+" + _RIGHT)),
    ("dir_influence_of", _pat(r"\b(?:influence|impact|effect)\s+of\s+" + _NP.format("X") + r"\s+on\s+" + _RIGHT)),
    ("dir_verb", _pat(r"\b(?P<V>predicted|predicts|predict|predicting|led\s+to|leads?\s+to|resulted\s+in|results\s+in|"
                      r"caused|causes|increased|increases|decreased|decreases|reduced|reduces|improved|improves|"
                      r"enhanced|enhances|affected|affects|influenced|influences|impaired|impairs|facilitated|"
                      r"facilitates|promoted|promotes|"
                      r"related\s+to|contributed\s+to|contributes\s+to|was\s+(?:a\s+)?(?:significant\s+)?predictor\s+of|"
                      r"were\s+(?:significant\s+)?predictors\s+of|for\s+the\s+induction\s+of)\s+" + _RIGHT)),
    # correlational
    ("corr_between", _pat(r"\b" + _REL_NOUN + r"\s+(?:between|among)\s+" + _NP.format("X") + r"\s+and\s+" + _RIGHT)),
    ("corr_verb", _pat(r"\b(?:was|were|is|are)\s+(?:\w+\s+)?(?:positively\s+|negatively\s+|significantly\s+|"
                       r"strongly\s+|weakly\s+|not\s+|un)?(?:associated|correlated|linked|related)\s+(?:with|to)\s+" + _RIGHT)),
    ("corr_correlated", _pat(r"\b(?:correlated|associated|covaried)\s+with\s+" + _RIGHT)),
    ("corr_independent", _pat(r"\b(?:was|were|is|are)\s+(?:\w+\s+)?(?:independent\s+of|unrelated\s+to)\s+" + _RIGHT)),
]


def _relations(clause: str) -> list[_Rel]:
    """Relation candidates in one clause."""
    rels: list[_Rel] = []
    taken: list[tuple[int, int]] = []

    def overlaps(m: re.Match[str]) -> bool:
        return any(m.start() < e and s < m.end() for s, e in taken)

    for name, rx in _PATTERNS:
        for m in rx.finditer(clause):
            if overlaps(m) and not name.startswith("hier"):
                continue
            g = m.groupdict()
            rel: _Rel | None = None
            if name == "mod_interact":
                mods = _split_coord(_left_np(clause, m.start()))
                x = _clean_np(g["M2"])
                right = _right_np(clause, m.start("R"))
                pair = _split_pair(right)
                ys = list(pair) if pair else _split_coord(right)
                if mods and x and ys:
                    rel = _Rel("moderation", mods, [x, *ys], [])
                    rels.append(_Rel("directional", [x], ys if not pair else [pair[1]], []))
            elif name in ("mod_by", "med_by"):
                x, y = _clean_np(g["X"]), _clean_np(g["Y"])
                mods = _split_coord(_right_np(clause, m.start("R")))
                if x and y and mods:
                    rel = _Rel("moderation" if name == "mod_by" else "mediation", mods, [x], [y])
            elif name in ("mod_active", "med_active"):
                mods = _split_coord(_left_np(clause, m.start()))
                x, y = _clean_np(g["X"]), _right_np(clause, m.start("R"))
                if mods and x and y:
                    rel = _Rel("moderation" if name == "mod_active" else "mediation", mods, [x], [y])
            elif name == "mod_buffer":
                mods = _split_coord(_clean_np(g["M"]))
                target = _right_np(clause, m.start("R"))
                if mods and target:
                    rel = _Rel("moderation", mods, [target], [])
            elif name.startswith("hier"):
                parent = _clean_np(g["P"]) if name != "hier_measured" else _left_np(clause, m.start("P") + len(g["P"]))
                raw = g.get("L") or g.get("R") or ""
                raw = re.sub(r"\bor\s+(?=[a-z])", ", ", raw) if name == "hier_ie" else raw
                kids = [k for k in _split_coord(_clean_np(raw) and raw) if k and k != parent]
                kids = [_clean_np(k) for k in kids]
                kids = [k for k in kids if k]
                if parent and kids:
                    rel = _Rel("hierarchy", [parent], kids, [])
            elif name in ("dir_effect", "dir_influence_of"):
                xs = _split_coord(_clean_np(g["X"]))
                ys = _split_coord(_right_np(clause, m.start("R")))
                if xs and ys:
                    rel = _Rel("directional", xs, ys, [])
            elif name == "dir_verb":
                xs = _split_coord(_left_np(clause, m.start()))
                ys = _split_coord(_right_np(clause, m.start("R")))
                if xs and ys:
                    rel = _Rel("directional", xs, ys, [])
            elif name == "corr_between":
                xs = _split_coord(_clean_np(g["X"]))
                ys = _split_coord(_right_np(clause, m.start("R")))
                if xs and ys:
                    rel = _Rel("correlational", xs, ys, [])
            elif name in ("corr_verb", "corr_correlated", "corr_independent"):
                xs = _split_coord(_left_np(clause, m.start()))
                ys = _split_coord(_right_np(clause, m.start("R")))
                if xs and ys:
                    rel = _Rel("correlational", xs, ys, [], "null" if name == "corr_independent" else None)
            if rel is not None:
                rels.append(rel)
                taken.append((m.start(), m.end()))
    return rels


_CLAUSE_SPLIT = re.compile(r";|\s+but\s+|,\s+(?:whereas|although|while)\s+|\s+and\s+that\s+", re.I)


def _clauses(sentence: str) -> list[tuple[int, str]]:
    out, pos = [], 0
    for m in _CLAUSE_SPLIT.finditer(sentence):
        out.append((pos, sentence[pos:m.start()]))
        pos = m.end()
    out.append((pos, sentence[pos:]))
    return [(s, c) for s, c in out if c.strip()]


def extract_offline(text: str, doc_id: str = "") -> EmpiricalGraph:
    """The empirical relation graph of an abstract from sentence patterns (no LLM)."""
    graph = EmpiricalGraph(id=doc_id, text=text, method="offline")
    for s_start, s_end in split_sentences(text):
        sentence = text[s_start:s_end]
        sent_status = None
        for c_off, clause in _clauses(sentence):
            status = clause_status(clause)
            if sent_status is None:
                sent_status = status
            for rel in _relations(clause):
                st: Status = rel.status_override or status
                lo, hi = s_start + c_off, s_start + c_off + len(clause)

                def var(name: str, lo: int = lo, hi: int = hi) -> str:
                    return graph.add_variable(name, find_mention(text, name, lo, hi)).id

                a_ids = [var(x) for x in rel.a]
                b_ids = [var(x) for x in rel.b]
                e_ids = [var(x) for x in rel.extra]
                ev = [sentence]
                if rel.kind == "hierarchy":
                    for p in a_ids:
                        for c in b_ids:
                            graph.add_edge(p, c, "hierarchy", "validated", ev)
                elif rel.kind == "moderation":
                    targets = [*b_ids, *e_ids]
                    # moderating a variable's relation: also the far ends of that variable's relations
                    for t in list(targets):
                        for e in graph.edges:
                            if e.type == "directional" and e.source == t and e.target not in targets:
                                targets.append(e.target)
                    for mo in a_ids:
                        graph.variable(mo).role = "moderator"
                        for t in targets:
                            graph.add_edge(mo, t, "moderation", st, ev)
                elif rel.kind == "mediation":
                    for med in a_ids:
                        graph.variable(med).role = "mediator"
                        for x in b_ids:
                            graph.add_edge(x, med, "directional", st, ev)
                        for y in e_ids:
                            graph.add_edge(med, y, "directional", st, ev)
                else:
                    rtype: RelationType = "directional" if rel.kind == "directional" else "correlational"
                    for x in a_ids:
                        for y in b_ids:
                            graph.add_edge(x, y, rtype, st, ev)
    _merge_short_names(graph)
    # drop variables that ended up in no relation (a pattern matched but an edge was refused)
    used = {e.source for e in graph.edges} | {e.target for e in graph.edges}
    graph.variables = [v for v in graph.variables if v.id in used]
    graph.compute_levels()
    graph.infer_roles()
    return graph


def _merge_short_names(graph: EmpiricalGraph) -> None:
    """Merge a shortened later mention ("microaggressions") into the one longer name it ends
    ("workplace microaggressions"), moving its mentions and edges."""

    keys = {v.id: name_key(v.name) for v in graph.variables}
    for v in list(graph.variables):
        k = keys[v.id]
        longer = [u for u in graph.variables if u.id != v.id and keys[u.id].endswith(" " + k)]
        if len(longer) != 1:
            continue
        target = longer[0]
        target.mentions.extend(m for m in v.mentions if m not in target.mentions)
        old_edges, graph.edges = graph.edges, []
        for e in old_edges:
            s = target.id if e.source == v.id else e.source
            t = target.id if e.target == v.id else e.target
            graph.add_edge(s, t, e.type, e.status, e.evidence, e.justification)
        graph.variables = [u for u in graph.variables if u.id != v.id]
        if target.role is None:
            target.role = v.role
