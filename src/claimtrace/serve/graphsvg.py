"""A paper's relation graph (rows of the graph_edges table) as an SVG drawing, laid out with networkx."""

from __future__ import annotations

from html import escape
from typing import Any

STATUS_COLOURS = {"validated": "#1b7f3b", "null": "#9a9a9a", "hypothesized": "#2f5fb3"}
W, H, R = 640.0, 420.0, 7.0


def graph_svg(edges: list[dict[str, Any]]) -> str | None:
    """An SVG of the variables (nodes) and relations (arrows coloured by status), or None without edges."""
    if not edges:
        return None
    import networkx as nx

    g = nx.MultiDiGraph()
    names: dict[str, str] = {}
    for e in edges:
        names[e["source_id"]] = e.get("source_name") or e["source_id"]
        names[e["target_id"]] = e.get("target_name") or e["target_id"]
        g.add_edge(e["source_id"], e["target_id"])
    pos = nx.spring_layout(nx.Graph(g), seed=7) if g.number_of_nodes() > 1 else {n: (0.0, 0.0) for n in g}
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)

    def at(n: str) -> tuple[float, float]:
        x, y = pos[n]
        px = 90 + (W - 180) * ((x - x0) / (x1 - x0) if x1 > x0 else 0.5)
        py = 40 + (H - 80) * ((y - y0) / (y1 - y0) if y1 > y0 else 0.5)
        return round(px, 1), round(py, 1)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="graph" viewBox="0 0 {W:.0f} {H:.0f}" role="img" '
             f'aria-label="relation graph">',
             "<defs>" + "".join(
                 f'<marker id="arrow-{s}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
                 f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{c}"/></marker>'
                 for s, c in STATUS_COLOURS.items()) + "</defs>"]
    for e in edges:
        (ax, ay), (bx, by) = at(e["source_id"]), at(e["target_id"])
        dx, dy = bx - ax, by - ay
        d = max((dx * dx + dy * dy) ** 0.5, 1e-6)
        ex, ey = bx - dx / d * (R + 2), by - dy / d * (R + 2)
        status = str(e.get("status")) if e.get("status") in STATUS_COLOURS else "hypothesized"
        colour = STATUS_COLOURS[status]
        dash = ' stroke-dasharray="5 4"' if status == "null" else ""
        title = escape(f"{names[e['source_id']]} → {names[e['target_id']]}: {e.get('type')} ({status})")
        parts.append(f'<line x1="{ax}" y1="{ay}" x2="{ex:.1f}" y2="{ey:.1f}" stroke="{colour}" stroke-width="1.8"'
                     f'{dash} marker-end="url(#arrow-{status})"><title>{title}</title></line>')
        parts.append(f'<text x="{(ax + bx) / 2:.1f}" y="{(ay + by) / 2 - 4:.1f}" class="edge-label" '
                     f'text-anchor="middle">{escape(str(e.get("type") or ""))}</text>')
    for n in g.nodes:
        x, y = at(n)
        label = names[n] if len(names[n]) <= 32 else names[n][:31] + "…"
        parts.append(f'<circle cx="{x}" cy="{y}" r="{R}" class="node"><title>{escape(names[n])}</title></circle>')
        parts.append(f'<text x="{x}" y="{y + R + 13:.1f}" text-anchor="middle" class="node-label">{escape(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)
