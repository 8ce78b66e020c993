"""Structure-first graph evaluation.

Predicted and gold graphs name the same variable differently, so nodes are aligned by structure:
an injective partial mapping of predicted to gold nodes that maximises the number of aligned typed
edges (a gold edge ``u -> v`` of type ``t`` is aligned when the mapped nodes carry a predicted edge of
type ``t`` in the same direction; correlational edges are undirected; with ``use_status`` the status
must agree too). Label similarity breaks ties: among mappings with the most aligned edges the one
with the largest total name similarity wins. The search is an exact branch-and-bound over the
nodes of the smaller graph (most connected first): the edge bound counts, for edges with a decided
endpoint, only those the decided endpoint's image can still realise, and for edges between undecided
nodes at most as many as the predicted graph still has of that type among unused nodes; the
similarity bound adds each remaining node's best similarity among unused nodes. Precision = aligned
/ predicted edges, recall = aligned / gold edges.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field
from rapidfuzz import fuzz
from scipy.optimize import linear_sum_assignment

from claimtrace.errors import InputError
from claimtrace.graph.model import EmpiricalGraph, normalise_name

Method = Literal["bnb", "exhaustive", "greedy"]
SIM_SCALE = 1000  # similarities are integers 0..1000, so sums are exact


def label_similarity(a: str, b: str) -> float:
    """Similarity of two variable names in [0, 1] (rapidfuzz token-set ratio of normalised names)."""
    na, nb = normalise_name(a), normalise_name(b)
    if not na or not nb:
        return 0.0
    return float(fuzz.token_set_ratio(na, nb)) / 100.0


class AlignResult(BaseModel):
    """An optimal (or best found) node alignment."""

    mapping: dict[str, str] = Field(default_factory=dict, description="predicted node id -> gold node id")
    matched: int = 0
    similarity: float = 0.0
    optimal: bool = True
    explored: int = 0
    method: str = "bnb"
    use_status: bool = True


# ---- the search core ------------------------------------------------------------------------

@dataclass
class _Side:
    nodes: list[str]
    labels: list[str]
    # edges as (i, j, key, undirected)
    edges: list[tuple[int, int, str, bool]]


@dataclass
class _Problem:
    a: _Side
    b: _Side
    sim: list[list[int]]
    # a adjacency: a -> list of (neighbour, key, orientation) orientation 'o' a->n, 'i' n->a, 'u' undirected
    a_adj: list[list[tuple[int, str, str]]] = field(default_factory=list)
    b_set: set[tuple[int, int, str]] = field(default_factory=set)
    b_partners: dict[tuple[int, str, str], list[int]] = field(default_factory=dict)
    b_incident: list[list[tuple[int, str]]] = field(default_factory=list)
    b_adj: list[list[tuple[int, str, str]]] = field(default_factory=list)


def _side(graph: EmpiricalGraph, use_status: bool) -> _Side:
    ids = [v.id for v in graph.variables]
    index = {vid: i for i, vid in enumerate(ids)}
    seen: set[tuple[int, int, str]] = set()
    edges = []
    for e in graph.edges:
        i, j = index[e.source], index[e.target]
        if i == j:
            continue
        key = f"{e.type}:{e.status}" if use_status else e.type
        und = e.type == "correlational"
        if und and j < i:
            i, j = j, i
        if (i, j, key) in seen:
            continue
        seen.add((i, j, key))
        edges.append((i, j, key, und))
    return _Side(ids, [v.name for v in graph.variables], edges)


def _problem(a: _Side, b: _Side) -> _Problem:
    sim = [[round(label_similarity(la, lb) * SIM_SCALE) for lb in b.labels] for la in a.labels]
    p = _Problem(a, b, sim)
    p.a_adj = [[] for _ in a.nodes]
    for i, j, key, und in a.edges:
        p.a_adj[i].append((j, key, "u" if und else "o"))
        p.a_adj[j].append((i, key, "u" if und else "i"))
    p.b_incident = [[] for _ in b.nodes]
    p.b_adj = [[] for _ in b.nodes]
    for i, j, key, und in b.edges:
        p.b_set.add((i, j, key))
        if und:
            p.b_set.add((j, i, key))
        p.b_partners.setdefault((i, key, "u" if und else "o"), []).append(j)
        p.b_partners.setdefault((j, key, "u" if und else "i"), []).append(i)
        p.b_incident[i].append((j, key))
        p.b_adj[i].append((j, key, "u" if und else "o"))
        p.b_adj[j].append((i, key, "u" if und else "i"))
        p.b_incident[j].append((i, key))
    return p


def _pair_ok(p: _Problem, b: int, nb: int, key: str, orient: str) -> bool:
    if orient == "o":
        return (b, nb, key) in p.b_set
    if orient == "i":
        return (nb, b, key) in p.b_set
    return (b, nb, key) in p.b_set


def _gain(p: _Problem, a: int, b: int, phi: list[int]) -> int:
    """Edges between ``a`` and already-mapped A nodes that map onto B edges if a -> b."""
    g = 0
    for n, key, orient in p.a_adj[a]:
        nb = phi[n]
        if nb >= 0 and _pair_ok(p, b, nb, key, orient):
            g += 1
    return g


class _Search:
    def __init__(self, p: _Problem, max_nodes: int, time_limit: float | None) -> None:
        self.p = p
        na, nbn = len(p.a.nodes), len(p.b.nodes)
        self.max_nodes = max_nodes
        self.deadline = (time.perf_counter() + time_limit) if time_limit else None
        self.explored = 0
        self.aborted = False
        deg = [len(adj) for adj in p.a_adj]
        # order: most connected first, then neighbours of what is decided (keeps the bound tight)
        order: list[int] = []
        left = set(range(na))
        while left:
            linked = [x for x in left if any(n not in left for n, _, _ in p.a_adj[x])]
            pool = linked or list(left)
            x = max(pool, key=lambda k: (sum(1 for n, _, _ in p.a_adj[k] if n not in left), deg[k], -k))
            order.append(x)
            left.discard(x)
        self.order = order
        self.b_active = [bool(p.b_incident[b]) for b in range(nbn)]
        # candidate lists per A node sorted by similarity (for the similarity bound)
        self.by_sim = [sorted(range(nbn), key=lambda b, a=a: -p.sim[a][b]) for a in range(na)]  # type: ignore[misc]
        self.overlap = _overlaps(p)
        self.phi = [-1] * na
        self.used = [False] * nbn
        self.best_m = -1
        self.best_s = -1
        self.best_phi: list[int] = [-1] * na
        # counts of edges by key: A edges with both endpoints undecided, B edges with both unused
        self.a_uu: dict[str, int] = {}
        for _, _, key, _ in p.a.edges:
            self.a_uu[key] = self.a_uu.get(key, 0) + 1
        self.b_free: dict[str, int] = {}
        for _, _, key, _ in p.b.edges:
            self.b_free[key] = self.b_free.get(key, 0) + 1
        self.decided = [False] * na

    def _max_sim(self, a: int) -> int:
        for b in self.by_sim[a]:
            if not self.used[b]:
                return self.p.sim[a][b]
        return 0

    def _bound(self, depth: int, cur_m: int) -> int:
        p = self.p
        ub = cur_m
        for key, n in self.a_uu.items():
            if n:
                ub += min(n, self.b_free.get(key, 0))
        # edges between an undecided node and a mapped decided node: realisable only if the
        # image has a partner edge of that key/orientation to an unused B node
        for k in range(depth, len(self.order)):
            a = self.order[k]
            for n, key, orient in p.a_adj[a]:
                if self.decided[n] and self.phi[n] >= 0:
                    back = {"o": "i", "i": "o", "u": "u"}[orient]
                    partners = p.b_partners.get((self.phi[n], key, back), ())
                    if any(not self.used[x] for x in partners):
                        ub += 1
        return ub

    def _tight_bound(self, depth: int, cur_m: int) -> int:
        """Two bounds, the smaller wins.

        (1) each undecided node's edges to decided nodes capped by its best single image, plus the
        per-type count bound for edges among undecided nodes; (2) per undecided node, the best image's
        gain towards decided nodes plus half the degree overlap (per type and orientation) towards
        undecided nodes / unused predicted nodes (each undecided-undecided edge is counted at both ends).
        """
        p = self.p
        uu_global = 0
        for key, n in self.a_uu.items():
            if n:
                uu_global += min(n, self.b_free.get(key, 0))
        free_deg: dict[int, dict[tuple[str, str], int]] = {}
        for b in range(len(p.b.nodes)):
            if self.used[b] or not self.b_active[b]:
                continue
            d: dict[tuple[str, str], int] = {}
            for (n, key, orient) in p.b_adj[b]:
                if not self.used[n]:
                    d[(key, orient)] = d.get((key, orient), 0) + 1
            free_deg[b] = d
        ub1 = 2 * (cur_m + uu_global)
        rows: list[list[int]] = []
        cols = list(free_deg)
        for k in range(depth, len(self.order)):
            a = self.order[k]
            adeg: dict[tuple[str, str], int] = {}
            has_d = False
            for n, key, orient in p.a_adj[a]:
                if not self.decided[n]:
                    adeg[(key, orient)] = adeg.get((key, orient), 0) + 1
                elif self.phi[n] >= 0:
                    has_d = True
            if not has_d and not adeg:
                continue
            best_d = 0
            row = []
            for b in cols:
                g = _gain(p, a, b, self.phi) if has_d else 0
                if g > best_d:
                    best_d = g
                d = free_deg[b]
                row.append(2 * g + sum(min(c, d.get(ko, 0)) for ko, c in adeg.items()))
            ub1 += 2 * best_d
            rows.append(row)
        if not rows or not cols:
            return min(ub1 // 2, cur_m)
        # an injective assignment of undecided nodes to unused images bounds the sum of their caps
        w = np.array(rows, dtype=np.int64)
        r, c = linear_sum_assignment(w, maximize=True)
        ub2 = 2 * cur_m + int(w[r, c].sum())
        return min(ub1, ub2) // 2

    def _assignment_sim_bound(self, depth: int, cur_s: int) -> int:
        """Similarity bound by an optimal assignment of the undecided nodes to the unused images."""
        rows = [self.order[k] for k in range(depth, len(self.order))]
        cols = [b for b in range(len(self.p.b.nodes)) if not self.used[b]]
        if not rows or not cols:
            return cur_s
        w = np.array([[self.p.sim[a][b] for b in cols] for a in rows], dtype=np.int64)
        r, c = linear_sum_assignment(w, maximize=True)
        return cur_s + int(w[r, c].sum())

    def _sim_bound(self, depth: int, cur_s: int) -> int:
        s = cur_s
        for k in range(depth, len(self.order)):
            s += self._max_sim(self.order[k])
        return s

    def _better(self, m: int, s: int) -> bool:
        return m > self.best_m or (m == self.best_m and s > self.best_s)

    def _leaf(self, cur_m: int, cur_s: int) -> None:
        if self._better(cur_m, cur_s):
            self.best_m, self.best_s = cur_m, cur_s
            self.best_phi = list(self.phi)

    def _take(self, a: int, b: int) -> None:
        p = self.p
        self.decided[a] = True
        for n, key, _ in p.a_adj[a]:
            if not self.decided[n]:
                self.a_uu[key] -= 1
        if b >= 0:
            self.used[b] = True
            self.phi[a] = b
            for n, key in p.b_incident[b]:
                if not self.used[n]:
                    self.b_free[key] -= 1

    def _undo(self, a: int, b: int) -> None:
        p = self.p
        if b >= 0:
            for n, key in p.b_incident[b]:
                if not self.used[n]:
                    self.b_free[key] += 1
            self.used[b] = False
            self.phi[a] = -1
        for n, key, _ in p.a_adj[a]:
            if not self.decided[n]:
                self.a_uu[key] += 1
        self.decided[a] = False

    def run(self, depth: int = 0, cur_m: int = 0, cur_s: int = 0) -> None:
        """Depth-first branch-and-bound."""
        self.explored += 1
        if self.explored > self.max_nodes or (
            self.deadline is not None and self.explored % 1024 == 0 and time.perf_counter() > self.deadline
        ):
            self.aborted = True
            return
        if depth == len(self.order):
            self._leaf(cur_m, cur_s)
            return
        ub_s = self._sim_bound(depth, cur_s)
        ub_m = self._bound(depth, cur_m)
        if ub_m < self.best_m or (ub_m == self.best_m and ub_s <= self.best_s):
            return
        ub_m = self._tight_bound(depth, cur_m)
        if ub_m < self.best_m or (ub_m == self.best_m and ub_s <= self.best_s):
            return
        if ub_m == self.best_m and self._assignment_sim_bound(depth, cur_s) <= self.best_s:
            return  # cannot beat the incumbent's similarity among equally good mappings
        p = self.p
        a = self.order[depth]
        cands = []
        for b in range(len(p.b.nodes)):
            if self.used[b]:
                continue
            cands.append((_gain(p, a, b, self.phi), self.overlap[a][b], p.sim[a][b], b))
        cands.sort(key=lambda t: (-t[0], -t[1], -t[2], t[3]))
        for g, _, s, b in cands:
            self._take(a, b)
            self.run(depth + 1, cur_m + g, cur_s + s)
            self._undo(a, b)
            if self.aborted:
                return
        self._take(a, -1)
        self.run(depth + 1, cur_m, cur_s)
        self._undo(a, -1)


def _greedy(p: _Problem) -> tuple[int, int, list[int]]:
    """Greedy: A nodes in order of degree, each to the free B node with the largest immediate gain."""
    na, nbn = len(p.a.nodes), len(p.b.nodes)
    phi = [-1] * na
    used = [False] * nbn
    m = s = 0
    for a in sorted(range(na), key=lambda k: -len(p.a_adj[k])):
        best: tuple[int, int, int] | None = None
        for b in range(nbn):
            if used[b]:
                continue
            cand = (_gain(p, a, b, phi), p.sim[a][b], -b)
            if best is None or cand > best:
                best = cand
        if best is not None:
            phi[a] = -best[2]
            used[-best[2]] = True
            m += best[0]
            s += best[1]
    return m, s, phi


def _degree_profile(adj: list[tuple[int, str, str]]) -> dict[tuple[str, str], int]:
    d: dict[tuple[str, str], int] = {}
    for _, key, orient in adj:
        d[(key, orient)] = d.get((key, orient), 0) + 1
    return d


def _overlaps(p: _Problem) -> list[list[int]]:
    """Per (A node, B node): how many incident edges could match by type and orientation alone."""
    a_prof = [_degree_profile(adj) for adj in p.a_adj]
    b_prof = [_degree_profile(adj) for adj in p.b_adj]
    return [[sum(min(c, bp.get(k, 0)) for k, c in ap.items()) for bp in b_prof] for ap in a_prof]


def _multistart_greedy(p: _Problem, order: list[int], overlap: list[list[int]],
                       max_starts: int = 64) -> tuple[int, int, list[int]]:
    """Greedy extensions in connected order, one per start image of the first node; the best one.

    Each node goes to the free image with the largest (immediate gain, degree-profile overlap,
    similarity). A cheap, good incumbent for the branch-and-bound.
    """
    na, nbn = len(p.a.nodes), len(p.b.nodes)
    if not na or not nbn:
        return 0, 0, [-1] * na
    first = order[0]
    starts = sorted(range(nbn), key=lambda b: (-overlap[first][b], -p.sim[first][b]))[:max_starts]
    best: tuple[int, int, list[int]] = (-1, -1, [-1] * na)
    for b0 in starts:
        phi = [-1] * na
        used = [False] * nbn
        phi[first], used[b0] = b0, True
        for a in order[1:]:
            cand: tuple[int, int, int, int] | None = None
            for b in range(nbn):
                if not used[b]:
                    key = (_gain(p, a, b, phi), overlap[a][b], p.sim[a][b], -b)
                    if cand is None or key > cand:
                        cand = key
            if cand is not None:
                phi[a] = -cand[3]
                used[-cand[3]] = True
        m, sim_total = _score_phi(p, phi)
        if (m, sim_total) > best[:2]:
            best = (m, sim_total, phi)
    return best


def _score_phi(p: _Problem, phi: list[int]) -> tuple[int, int]:
    m = sum(1 for i, j, key, _ in p.a.edges if phi[i] >= 0 and phi[j] >= 0 and (phi[i], phi[j], key) in p.b_set)
    return m, sum(p.sim[a][b] for a, b in enumerate(phi) if b >= 0)


def _exhaustive(p: _Problem) -> tuple[int, int, list[int], int]:
    """Every injective partial mapping (only for small graphs)."""
    na, nbn = len(p.a.nodes), len(p.b.nodes)
    best = (-1, -1)
    best_phi = [-1] * na
    count = 0
    choices = [*range(nbn), -1]
    for combo in itertools.product(choices, repeat=na):
        imgs = [b for b in combo if b >= 0]
        if len(imgs) != len(set(imgs)):
            continue
        count += 1
        phi = list(combo)
        m, s = _score_phi(p, phi)
        if (m, s) > best:
            best, best_phi = (m, s), phi
    return best[0], best[1], best_phi, count


def align_graphs(pred: EmpiricalGraph, gold: EmpiricalGraph, *, use_status: bool = True,
                 method: Method = "bnb", max_nodes: int = 5_000_000, time_limit: float | None = 60.0,
                 initial: dict[str, str] | None = None) -> AlignResult:
    """The node alignment of ``pred`` to ``gold`` that maximises aligned typed edges (then similarity).

    ``initial`` (pred id -> gold id) seeds the branch-and-bound incumbent, e.g. the alignment found
    with status for the search without status. If the time or node budget runs out, the best
    mapping found is returned with ``optimal=False``.
    """
    sp, sg = _side(pred, use_status), _side(gold, use_status)
    # search over the smaller node set
    swap = len(sp.nodes) < len(sg.nodes)
    a, b = (sp, sg) if swap else (sg, sp)
    prob = _problem(a, b)
    optimal = True
    explored = 0
    if method == "greedy":
        m, sim_total, phi = _greedy(prob)
        optimal = False
    elif method == "exhaustive":
        if (len(b.nodes) + 1) ** len(a.nodes) > 50_000_000:
            raise InputError(None, "graphs too large for exhaustive alignment")
        m, sim_total, phi, explored = _exhaustive(prob)
    else:
        search = _Search(prob, max_nodes, time_limit)
        gm, gs, gphi = max(_greedy(prob), _multistart_greedy(prob, search.order, search.overlap), key=lambda t: (t[0], t[1]))
        search.best_m, search.best_s, search.best_phi = gm, gs, gphi
        if initial:
            a_index = {n: k for k, n in enumerate(a.nodes)}
            b_index = {n: k for k, n in enumerate(b.nodes)}
            seed = [-1] * len(a.nodes)
            for pid, gid in initial.items():
                x, y = (pid, gid) if swap else (gid, pid)
                if x in a_index and y in b_index and b_index[y] not in seed:
                    seed[a_index[x]] = b_index[y]
            sm, ss = _score_phi(prob, seed)
            if (sm, ss) > (gm, gs):
                search.best_m, search.best_s, search.best_phi = sm, ss, seed
        search.run()
        m, sim_total, phi = search.best_m, search.best_s, search.best_phi
        optimal = not search.aborted
        explored = search.explored
    mapping: dict[str, str] = {}
    for ai, bi in enumerate(phi):
        if bi < 0:
            continue
        if swap:
            mapping[a.nodes[ai]] = b.nodes[bi]
        else:
            mapping[b.nodes[bi]] = a.nodes[ai]
    return AlignResult(mapping=mapping, matched=m, similarity=sim_total / SIM_SCALE, optimal=optimal, explored=explored,
                       method=method, use_status=use_status)
