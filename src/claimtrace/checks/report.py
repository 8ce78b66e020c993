"""The screening report of one paper: a traffic light per check, then the rows, as JSON, Markdown or HTML.

The HTML is one self-contained file (inline CSS, no script, no external request): each flagged row shows its
sentence with the flagged span highlighted.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import PurePath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from claimtrace.checks.base import SEVERITY_ORDER, Check, CheckOptions, CheckRow
from claimtrace.documents.model import Document
from claimtrace.schema_version import SCHEMA_VERSION
from claimtrace.stats.model import DocumentStat

Light = Literal["green", "yellow", "red"]
_LIGHT: dict[str, Light] = {"ok": "green", "info": "green", "warn": "yellow", "error": "red"}
_DOT = {"green": "🟢", "yellow": "🟡", "red": "🔴"}


class CheckSummary(BaseModel):
    """One check's line of the summary: its worst severity as a traffic light and its counts."""

    model_config = ConfigDict(extra="forbid")

    check: str
    title: str
    light: Light
    severity: str
    flags: int  # rows at warn or error
    rows: int
    message: str  # the first flagged row's message, or the check's ok message


class CheckReport(BaseModel):
    """Every check's summary and rows for one paper (``claimtrace check --json``)."""

    model_config = ConfigDict(extra="forbid")

    schema_version: str = SCHEMA_VERSION
    source: str | None = None
    title: str | None = None
    summary: list[CheckSummary] = Field(default_factory=list)
    rows: list[CheckRow] = Field(default_factory=list)


def is_flag(row: CheckRow) -> bool:
    """Whether a row is a finding (warn or error), not a record or an ok."""
    return row.severity in ("warn", "error")


def build_report(rows: Sequence[CheckRow], checks: Sequence[Check], *, source: str | None = None,
                 title: str | None = None) -> CheckReport:
    """The report: one summary line per check (in the checks' order), then every row."""
    summary: list[CheckSummary] = []
    for chk in checks:
        mine = [r for r in rows if r.check == chk.id]
        worst = max((r.severity for r in mine), key=lambda s: SEVERITY_ORDER[s], default="ok")
        flagged = [r for r in mine if is_flag(r)]
        first = flagged[0].message if flagged else (mine[0].message if mine else "")
        summary.append(CheckSummary(check=chk.id, title=chk.title, light=_LIGHT[worst], severity=worst,
                                    flags=len(flagged), rows=len(mine), message=first))
    return CheckReport(source=source, title=title, summary=summary, rows=list(rows))


def sections(report: CheckReport) -> list[tuple[CheckSummary, list[CheckRow]]]:
    """Each check with rows other than ``ok``, in the summary's order: the report's detail sections."""
    out = []
    for s in report.summary:
        rows = [r for r in report.rows if r.check == s.check and r.severity != "ok"]
        if rows:
            out.append((s, rows))
    return out


def _sentence(row: CheckRow, doc: Document | None) -> tuple[str, int, int] | None:
    """The row's sentence and the flagged span's offsets within it."""
    loc = row.location
    if doc is None or loc is None or loc.unit_id is None or loc.start is None or loc.end is None:
        return None
    try:
        unit = doc.unit(loc.unit_id)
    except KeyError:
        return None
    a = max(loc.start - unit.start, 0)
    b = min(max(loc.end - unit.start, a), len(unit.text))
    return unit.text, a, b


def _name(report: CheckReport) -> str:
    """The paper's title, else its file name."""
    return report.title or (PurePath(report.source).name if report.source else "paper")


def markdown(report: CheckReport, doc: Document | None = None) -> str:
    """The report as Markdown: the summary table, then each check's flagged rows with their sentence."""
    out = [f"# Screening report: {_name(report)}", "",
           "| | check | flags | first finding |", "|---|---|---|---|"]
    for s in report.summary:
        cell = s.message.replace("|", r"\|")
        out.append(f"| {_DOT[s.light]} | {s.title} | {s.flags} | {cell} |")
    for s, rows in sections(report):
        out += ["", f"## {_DOT[s.light]} {s.title}", ""]
        for r in rows:
            where = r.location.unit_id if r.location and r.location.unit_id else ""
            out.append(f"- **{r.severity}** {r.message}" + (f" ({where})" if where else ""))
            if r.guidance and is_flag(r):
                out.append(f"  - {r.guidance}")
            sent = _sentence(r, doc)
            if sent is not None:
                text, a, b = sent
                out.append(f"  > {text[:a]}**{text[a:b]}**{text[b:]}".replace("\n", " "))
    out.append("")
    return "\n".join(out)


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;
color:#222;line-height:1.45}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.35rem .5rem;text-align:left;
vertical-align:top}
.light{display:inline-block;width:.9rem;height:.9rem;border-radius:50%}
.green{background:#2e9d4a}.yellow{background:#e7b416}.red{background:#cc3232}
.row{border-left:4px solid #ccc;padding:.3rem .7rem;margin:.6rem 0}.row.warn{border-color:#e7b416}
.row.error{border-color:#cc3232}.row.info{border-color:#7aa7d6}
.sev{font-weight:600;text-transform:uppercase;font-size:.75rem;margin-right:.4rem}
blockquote{margin:.3rem 0 .2rem 0;color:#444;background:#fafafa;padding:.3rem .6rem}
mark{background:#ffe58a;padding:0 .1rem}.guide{color:#555;font-size:.9rem}.where{color:#888;font-size:.8rem}
"""


def to_html(report: CheckReport, doc: Document | None = None) -> str:
    """The report as one self-contained HTML page (inline CSS, no scripts, no external resources)."""
    e = html.escape
    title = e(_name(report))
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             # no request may leave the page: nothing is loaded from anywhere, not even this page's own origin
             "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
             f"<title>Screening report: {title}</title><style>{_CSS}</style></head><body>",
             f"<h1>Screening report</h1><p>{title}</p>", "<table><thead><tr><th></th><th>check</th><th>flags</th>"
             "<th>first finding</th></tr></thead><tbody>"]
    for s in report.summary:
        parts.append(f'<tr><td><span class="light {s.light}" title="{s.severity}"></span></td>'
                     f'<td><a href="#{e(s.check)}">{e(s.title)}</a></td><td>{s.flags}</td><td>{e(s.message)}</td></tr>')
    parts.append("</tbody></table>")
    for s, rows in sections(report):
        parts.append(f'<h2 id="{e(s.check)}"><span class="light {s.light}"></span> {e(s.title)}</h2>')
        for r in rows:
            where = ""
            if r.location is not None:
                bits = [b for b in (r.location.section, r.location.unit_id,
                                    f"page {r.location.page}" if r.location.page else None) if b]
                where = f'<span class="where">{e(" · ".join(bits))}</span>'
            parts.append(f'<div class="row {r.severity}"><span class="sev">{r.severity}</span>{e(r.message)} {where}')
            sent = _sentence(r, doc)
            if sent is not None:
                text, a, b = sent
                parts.append(f"<blockquote>{e(text[:a])}<mark>{e(text[a:b])}</mark>{e(text[b:])}</blockquote>")
            if r.guidance and is_flag(r):
                parts.append(f'<div class="guide">{e(r.guidance)}</div>')
            parts.append("</div>")
    parts.append("</body></html>")
    return "\n".join(parts)


def text_lines(report: CheckReport) -> list[tuple[str, str, int, str]]:
    """(light, title, flags, message) per check: the terminal summary."""
    return [(s.light, s.title, s.flags, s.message) for s in report.summary]


def report_dict(report: CheckReport) -> dict[str, Any]:
    """The JSON of ``--json``."""
    return report.model_dump(mode="json")


def screen(doc: Document, options: CheckOptions | None = None, only: Sequence[str] | None = None, *,
           source: str | None = None, stats: Sequence[DocumentStat] | None = None) -> CheckReport:
    """Run the registered checks (``only``: these ids) on one Document and build its report."""
    from claimtrace.checks.base import CheckContext, registered_checks, run_checks
    from claimtrace.stats import analyze_document

    opts = options or CheckOptions()
    checks = registered_checks()
    if only:
        unknown = sorted(set(only) - {c.id for c in checks})
        if unknown:
            raise ValueError(f"unknown check id(s): {', '.join(unknown)} (known: {', '.join(c.id for c in checks)})")
        checks = [c for c in checks if c.id in set(only)]
    found = list(stats) if stats is not None else analyze_document(doc, alpha=opts.alpha)
    rows = run_checks(CheckContext(document=doc, stats=found, options=opts), checks=checks)
    return build_report(rows, checks, source=source, title=doc.title)
