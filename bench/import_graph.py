"""The package-level import graph of ``src/claimtrace``: upward imports, cycles and function-local imports.

Nodes are ``claimtrace.<first name>`` (a subpackage or a top-level module such as ``claimtrace.api``) and
``claimtrace`` itself (its ``__init__``). An edge A -> B is any import, at module level or inside a function,
from a module of A of a module of B; imports under ``if TYPE_CHECKING:`` are counted apart and are no edge
(they never run). The layer of each node comes from the ``layers`` contract in ``pyproject.toml``
(``[tool.importlinter]``, the one home of the layer order), so a figure is read against the same contract
``lint-imports`` checks:

- ``upward``: edges from a lower layer to a higher one (the contract forbids them);
- ``lateral``: edges between two independent siblings of one layer (``|`` in the contract);
- ``unlayered``: nodes the contract does not place (a figure the contract should make zero);
- ``cycles``: strongly connected components of more than one node (``networkx``), with their members;
- ``function_local``: ``import`` statements inside a function body, all of them and those of ``claimtrace``
  modules (the ones that hide an edge from a reader and from import-time failure).

Also reports, for each cycle the architecture issue names, whether it is still there.

    python bench/import_graph.py --label after
    # the figures of another tree (its src/, read against this tree's contract):
    git archive main src | tar -x -C /tmp/ct-main && python bench/import_graph.py --src /tmp/ct-main/src --label before

Writes (merges its label into) bench/results/import_graph.json.
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import networkx as nx

from provenance import Run

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "import_graph.json"

#: the cycles the architecture issue (28) names, as paths that must not close
NAMED = {
    "conclude<->numbers": ["claimtrace.conclude", "claimtrace.numbers"],
    "graph->evaluate": ["claimtrace.graph", "claimtrace.evaluate"],
    "evaluate->batch->cli": ["claimtrace.evaluate", "claimtrace.batch", "claimtrace.cli"],
    "claimtrace->api->graph->evaluate->batch->cli->serve->corpus->claimtrace": [
        "claimtrace", "claimtrace.api", "claimtrace.graph", "claimtrace.evaluate", "claimtrace.batch",
        "claimtrace.cli", "claimtrace.serve", "claimtrace.corpus"],
}


def layer_order(pyproject: Path) -> list[list[tuple[str, bool]]]:
    """The layers contract, top first: each layer a list of (node, independent) from ``pyproject.toml``."""
    conf = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    contracts = conf.get("tool", {}).get("importlinter", {}).get("contracts", [])
    layers: list[str] = next((c["layers"] for c in contracts if c.get("type") == "layers"), [])
    out: list[list[tuple[str, bool]]] = []
    for spec in layers:
        sep = "|" if "|" in spec else ":"
        out.append([(name.strip(), sep == "|") for name in spec.split(sep)])
    return out


def module_name(src: Path, path: Path) -> str:
    """The dotted module name of a file under ``src``."""
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def node_of(module: str) -> str:
    """The package-level node of a dotted ``claimtrace`` module name."""
    parts = module.split(".")
    return ".".join(parts[:2])


def _targets(node: ast.Import | ast.ImportFrom, mod: str, is_pkg: bool, modules: set[str]) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = node.module or ""
    if node.level:
        pkg = mod.split(".") if is_pkg else mod.split(".")[:-1]
        pkg = pkg[: len(pkg) - node.level + 1]
        base = ".".join([*pkg, base] if base else pkg)
    out = []
    for a in node.names:
        sub = f"{base}.{a.name}"
        out.append(sub if sub in modules else base)
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def scan(src: Path) -> dict[str, Any]:
    """Every import of every ``claimtrace`` module under ``src``, by where it stands."""
    files = sorted((src / "claimtrace").rglob("*.py"))
    modules = {module_name(src, f) for f in files}
    edges: Counter[tuple[str, str]] = Counter()
    module_edges: Counter[tuple[str, str]] = Counter()
    local_all = local_internal = type_only = 0
    local_by_node: Counter[str] = Counter()

    for f in files:
        mod = module_name(src, f)
        is_pkg = f.name == "__init__.py"
        tree = ast.parse(f.read_text(encoding="utf-8"), str(f))

        def visit(n: ast.AST, in_func: bool, in_tc: bool, mod: str = mod, is_pkg: bool = is_pkg) -> None:
            nonlocal local_all, local_internal, type_only
            if isinstance(n, ast.Import | ast.ImportFrom):
                targets = [t for t in _targets(n, mod, is_pkg, modules)
                           if t == "claimtrace" or t.startswith("claimtrace.")]
                if in_func:
                    local_all += 1
                    if targets:
                        local_internal += 1
                        local_by_node[node_of(mod)] += 1
                if in_tc:
                    type_only += bool(targets)
                    return
                for t in targets:
                    a, b = node_of(mod), node_of(t)
                    if a != b:
                        edges[a, b] += 1
                        if not in_func:
                            module_edges[a, b] += 1
                return
            func = in_func or isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            if isinstance(n, ast.If) and _is_type_checking(n.test):
                for c in n.body:
                    visit(c, func, True)
                for c in n.orelse:
                    visit(c, func, in_tc)
                return
            for child in ast.iter_child_nodes(n):
                visit(child, func, in_tc)

        visit(tree, False, False)
    return {"edges": edges, "module_edges": module_edges, "local_all": local_all,
            "local_internal": local_internal, "local_by_node": local_by_node, "type_only": type_only,
            "modules": len(modules)}


def _closes(g: nx.DiGraph, path: list[str]) -> bool:
    """True when the nodes of a named cycle still lie on one cycle of the graph (one strongly connected component)."""
    if not all(p in g for p in path):
        return False
    return any(set(path) <= c for c in nx.strongly_connected_components(g))


def measure(src: Path, layers: list[list[tuple[str, bool]]]) -> dict[str, Any]:
    """The figures of one tree against a layer order."""
    s = scan(src)
    rank: dict[str, int] = {}
    independent: dict[str, bool] = {}
    for i, layer in enumerate(reversed(layers)):  # 0 = the bottom layer
        for name, indep in layer:
            rank[name] = i
            independent[name] = indep
    nodes = {n for e in s["edges"] for n in e} | set(s["local_by_node"])
    upward, lateral = [], []
    for (a, b), n in sorted(s["edges"].items()):
        if a not in rank or b not in rank:
            continue
        if rank[b] > rank[a]:
            upward.append({"from": a, "to": b, "imports": n})
        elif rank[a] == rank[b] and independent[a]:
            lateral.append({"from": a, "to": b, "imports": n})
    g = nx.DiGraph(list(s["edges"]))
    gm = nx.DiGraph(list(s["module_edges"]))
    cycles = sorted((sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1), key=len, reverse=True)
    mcycles = [sorted(c) for c in nx.strongly_connected_components(gm) if len(c) > 1]
    return {
        "modules": s["modules"],
        "package_edges": len(s["edges"]),
        "upward_edges": len(upward),
        "upward_imports": sum(u["imports"] for u in upward),
        "upward": upward,
        "lateral_edges": len(lateral),
        "lateral": lateral,
        "unlayered": sorted(n for n in nodes if n not in rank and n != "claimtrace"),
        "cycles": len(cycles),
        "cycle_members": cycles,
        "nodes_in_cycles": sum(len(c) for c in cycles),
        "cycles_module_level_only": len(mcycles),
        "function_local_imports": s["local_all"],
        "function_local_claimtrace_imports": s["local_internal"],
        "function_local_claimtrace_by_node": dict(s["local_by_node"].most_common()),
        "type_checking_claimtrace_imports": s["type_only"],
        "named_cycles_present": {k: _closes(g, v) for k, v in NAMED.items()},
    }


def main() -> None:
    """Measure a tree and merge its figures under ``--label`` into the result file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", type=Path, default=ROOT / "src", help="the src/ folder to measure")
    ap.add_argument("--label", default="after", help="the key the figures are stored under")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    layers = layer_order(ROOT / "pyproject.toml")
    if not layers:
        raise SystemExit("pyproject.toml has no [tool.importlinter] layers contract")
    run = Run()
    figures = measure(args.src.resolve(), layers)
    try:
        commit = subprocess.run(["git", "-C", str(args.src), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=False).stdout.strip()
    except OSError:
        commit = ""
    result: dict[str, Any] = json.loads(args.out.read_text()) if args.out.exists() else {}
    result["layers_top_first"] = [[n for n, _ in layer] for layer in layers]
    result[args.label] = {"src": str(args.src), "commit": commit, **figures}
    result["provenance"] = run.finish()
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    keys = ("upward_edges", "upward_imports", "lateral_edges", "cycles", "nodes_in_cycles",
            "function_local_claimtrace_imports", "function_local_imports")
    print(args.label, {k: figures[k] for k in keys}, "unlayered:", figures["unlayered"])
    print("named cycles present:", figures["named_cycles_present"])


if __name__ == "__main__":
    main()
