"""Precision of the screening checks on fresh papers: ones not read while their rules were written.

The power flags of the 100 shared psychsci papers were all judged (``bench/checks_psychsci.py``) and read while the
power rules were fixed, so they are in-sample. This script judges a fresh sample from other real full texts in
``../shared/data``, which were not opened while the rules were written or changed (the rules were frozen at commit
6a00f87 before this script first ran them):

- ``social``: the social-science PDF twins' GROBID TEI (``documents/pdf-twins/*.tei.xml``; the two that are also
  among the 100 psychsci papers left out) and statcheck's four APA test papers (HTML);
- ``biomedical``: the Evidence-Inference articles (PMC JATS, train and validation), clinical trials, reported apart.

Round 1 (rules frozen at 6a00f87, before these papers were opened): per domain and check, up to 20 flags drawn at
random (``random.Random(2727)`` from the flags sorted by key), each judged ``correct`` or ``wrong`` against the text.
That is the fresh figure of the rules as fixed on the psychsci papers. Its biomedical power flags were all wrong, so
the power rules were fixed again (commit 53666ca) on what round 1 showed and on the **development** half of the trial
articles (``int(sha256("claimtrace-i27-fresh:" + id)[:8], 16) % 2 == 1``); the **untouched** half was not read.
Round 2 (rules frozen at 53666ca): 20 power flags drawn (``random.Random(2728)``) from the untouched half's flags,
leaving out the papers of round 1's sample. It was 6/20, so the rules were fixed a third time (bd8a1d9) on round 2's
flags; round 3 (``random.Random(2729)``, rules bd8a1d9) draws from the untouched half again, leaving out the papers of
rounds 1 and 2. It was 9/20; its wrong flags showed general forms the reader missed (effects as two rates or a list,
N "340 or 170 in each group", power as "a beta error of 20%", alpha as "false positive error rate"), and a warn row now
needs a field the text truly lacks (a field stated in a form not parsed gives an info row): rules 4b37fe7, fixed on
the judged rounds' papers only. Round 4 (``random.Random(2730)``, rules 4b37fe7) draws from the untouched half,
leaving out the papers of rounds 1-3: 5/20. Its wrong flags were again forms not read (fields stated elsewhere in the
paragraph, alpha as "Alfa=0.05" or "an a of 0.05", N not read) and pointers or discussion remarks. So the mechanism
changed (rules 465a1c6, c826b98): a field is missing (warn) only where a broad, recall-oriented detector (``FIELD_TRACES``)
finds no trace of it in the paragraph or the one before; a traced field not read is info; a pointer to the analysis
elsewhere or power in a Discussion is no record. Round 5 (``random.Random(2731)``, rules c826b98) draws from the
untouched half, leaving out the papers of rounds 1-4: the fresh figure of that design. Its pool held only 6 warn
flags (fewer than 20: all judged). Each judged round is scored from its stored judgements (its flags were drawn on
its own rules), with what each of its flags is now; only the last round (``LIVE``) is drawn when the
script runs. The social papers have too few power flags for more rounds. Judgements:
``bench/data/checks_fresh_judgements.json`` (each with its round; the annotator named there); precision with a Wilson
95% interval.

Social, every check (``social_all``; rules of main 505a564, judged before any rule was changed after reading them):
every warn/error row of every check that ``claimtrace check`` gives (statistics included) on each social paper in
every reading the data has: the twins' GROBID TEI and their PDF (claimtrace's own PDF reader), statcheck's papers as
HTML and PDF; each flag judged ``correct`` or ``wrong`` against the text (``bench/data/checks_fresh_social_judgements.json``,
the annotator named there). Per check: flags, correct, precision (Wilson 95%), for papers no check work had read
(``unseen``) and those it had (``SEEN``, with why), and per reading; a PDF flag with no flag of the same check and
message in the paper's TEI/HTML reading is listed as PDF-only (with its verdict: a wrong PDF-only flag is a reading
problem), and likewise TEI/HTML-only flags.

    PYTHONPATH=src python bench/checks_fresh.py [--list] [--part rounds|social-all|all]

``--list`` prints the sampled flags with no judgement yet. ``--part social-all`` re-runs only the social every-check
part (the rounds are kept from the committed result). Writes bench/results/checks_fresh.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from checks_common import row_key, wilson, write_result  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
TWINS = SHARED / "documents" / "pdf-twins"
STATCHECK = SHARED / "statistics" / "statcheck-test-papers"
PSYCHSCI = SHARED / "documents" / "psychsci"
EI = SHARED / "evidence-inference"
JUDGED = ROOT / "bench" / "data" / "checks_fresh_judgements.json"
SOCIAL_JUDGED = ROOT / "bench" / "data" / "checks_fresh_social_judgements.json"
#: social papers that check work had read before social_all was judged, and why (the rest: unseen)
SEEN = {
    "to_err_is_human": "metacheck's demo paper: tests/test_checks_refs.py asserts its reference rows",
    "prereg": "round 1 judged its power and unlisted flags, and the power rules were changed after",
    "psychsci-0956797620955209": "round 1 judged its power flag, and the power rules were changed after",
}
OUT = ROOT / "bench" / "results" / "checks_fresh.json"
CHECK_IDS = ("power", "reference-unlisted")
SAMPLE_SIZE = 20
SEEDS = {1: 2727, 2: 2728, 3: 2729, 4: 2730, 5: 2731}
#: the commit whose rules each round's sample was drawn on; the last round (LIVE) is drawn when the script runs
RULES = {1: "6a00f87", 2: "53666ca", 3: "bd8a1d9", 4: "4b37fe7", 5: "c826b98"}
LIVE = 5


def split_of(paper_id: str) -> str:
    """``untouched`` or ``development`` half of the trial articles, by a hash of the id."""
    h = int(hashlib.sha256(("claimtrace-i27-fresh:" + paper_id).encode()).hexdigest()[:8], 16)
    return "untouched" if h % 2 == 0 else "development"


def domain_of(paper_id: str) -> str:
    """``biomedical`` for the Evidence-Inference articles (PMC ids), else ``social``."""
    return "biomedical" if paper_id.startswith("PMC") else "social"


def papers() -> dict[str, list[tuple[str, Path]]]:
    """Each domain's papers as (id, path): ids are the file names without their suffixes."""
    in_psychsci = {p.stem for p in PSYCHSCI.glob("*.xml")}
    social = [(p.name.removesuffix(".tei.xml"), p) for p in sorted(TWINS.glob("*.tei.xml"))
              if p.name.removesuffix(".tei.xml").removeprefix("psychsci-") not in in_psychsci]
    social += [(p.stem, p) for p in sorted(STATCHECK.glob("*.htm"))]
    bio = [(p.stem, p) for split in ("train", "validation") for p in sorted((EI / split / "articles").glob("*.nxml"))]
    return {"social": social, "biomedical": bio}


def flags_of(paths: list[tuple[str, Path]]) -> dict[str, list[tuple[str, str, dict[str, Any]]]]:
    """Per check, its flags as (key, paper, row JSON)."""
    from claimtrace.checks import CheckContext, registered_checks, run_checks
    from claimtrace.documents import load_document

    checks = registered_checks()
    out: dict[str, list[tuple[str, str, dict[str, Any]]]] = {c: [] for c in CHECK_IDS}
    for pid, path in paths:
        doc = load_document(path)
        for r in run_checks(CheckContext(document=doc, stats=[]), checks=checks, only=list(CHECK_IDS)):
            if r.severity in ("warn", "error"):
                row = r.model_dump(mode="json")
                out[r.check].append((row_key(pid, row), pid, row))
    return out


def _readings() -> list[tuple[str, str, str, Path]]:
    """Every social paper's readings as (paper, reading, file name, path): TEI and PDF, or HTML and PDF."""
    in_psychsci = {p.stem for p in PSYCHSCI.glob("*.xml")}
    out: list[tuple[str, str, str, Path]] = []
    for tei in sorted(TWINS.glob("*.tei.xml")):
        pid = tei.name.removesuffix(".tei.xml")
        if pid.removeprefix("psychsci-") in in_psychsci:
            continue
        out += [(pid, "tei", tei.name, tei), (pid, "pdf", f"{pid}.pdf", TWINS / f"{pid}.pdf")]
    for htm in sorted(STATCHECK.glob("*.htm")):
        out += [(htm.stem, "html", htm.name, htm), (htm.stem, "pdf", f"{htm.stem}.pdf", htm.with_suffix(".pdf"))]
    return out


def _twin_text(check: str, message: str) -> str:
    """A flag as its twin in the paper's other reading would say it (spacing and minus signs ignored)."""
    return check + ":" + "".join(message.replace("\u03ea", "-").replace("\u2212", "-").split())


def social_all() -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    """Every warn/error row of every check (as ``claimtrace check`` gives them) on every social reading, judged."""
    from claimtrace.checks.report import screen
    from claimtrace.documents import load_document

    doc = json.loads(SOCIAL_JUDGED.read_text(encoding="utf-8")) if SOCIAL_JUDGED.exists() else {"judgements": {}}
    judged: dict[str, dict[str, Any]] = doc["judgements"]
    flags: list[dict[str, Any]] = []
    todo: list[tuple[str, dict[str, Any]]] = []
    for pid, reading, name, path in _readings():
        keys: set[str] = set()
        for r in screen(load_document(path), source=name).rows:
            if r.severity not in ("warn", "error"):
                continue
            row = r.model_dump(mode="json")
            key = row_key(name, row)
            while key in keys:  # two flags at one place (two citations in one bracket): numbered
                key += "+"
            keys.add(key)
            j = judged.get(key)
            if j is None:
                todo.append((key, row))
            flags.append({"key": key, "paper": pid, "reading": reading, "check": r.check, "severity": r.severity,
                          "message": r.message, "seen": pid in SEEN, "verdict": j["verdict"] if j else None,
                          "note": j.get("note") if j else None})
    twins: dict[tuple[str, str], set[str]] = {}
    for x in flags:
        twins.setdefault((x["paper"], x["reading"]), set()).add(_twin_text(x["check"], x["message"]))
    for x in flags:
        other = "tei" if x["paper"] + ".tei.xml" in {n for _p, _r, n, _q in _readings()} else "html"
        mate = other if x["reading"] == "pdf" else "pdf"
        x["only_in_this_reading"] = _twin_text(x["check"], x["message"]) not in twins.get((x["paper"], mate), set())

    def score(items: list[dict[str, Any]]) -> dict[str, Any]:
        ok = [x for x in items if x["verdict"]]
        return wilson(sum(x["verdict"] == "correct" for x in ok), len(ok))

    groups = {"all": lambda x: True, "unseen": lambda x: not x["seen"], "seen": lambda x: x["seen"],
              "unseen_tei_html": lambda x: not x["seen"] and x["reading"] != "pdf",
              "unseen_pdf": lambda x: not x["seen"] and x["reading"] == "pdf",
              "tei_html": lambda x: x["reading"] != "pdf", "pdf": lambda x: x["reading"] == "pdf"}
    def per_check(items: list[dict[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for c in sorted({x["check"] for x in items} | {"power"}):
            mine = [x for x in items if x["check"] == c]
            out[c] = {g: {"flags": len(sel), "papers": len({x["paper"] for x in sel}), "precision": score(sel)}
                      for g, f in groups.items() for sel in [[x for x in mine if f(x)]]}
        return out

    # the headline: every flag as judged on the rules of main 505a564 (the judgement file holds exactly those)
    before = []
    for key, j in judged.items():
        name, check = key.split(":")[:2]
        pid = name.removesuffix(".tei.xml").removesuffix(".pdf").removesuffix(".htm")
        before.append({"paper": pid, "reading": {".pdf": "pdf", ".htm": "html"}.get(Path(name).suffix, "tei"),
                       "check": check, "seen": pid in SEEN, "verdict": j["verdict"]})
    readings = _readings()
    result = {"rules": "main 505a564", "annotator": doc.get("annotator"), "how": doc.get("how"),
              "papers": sorted({p for p, _r, _n, _q in readings}), "readings": len(readings), "seen": SEEN,
              "before_fix": {"note": "every flag of main 505a564's rules, judged before any rule was changed after "
                             "reading these papers: the headline", "overall": {g: score([x for x in before if f(x)])
                                                                               for g, f in groups.items()},
                             "checks": per_check(before)},
              "overall": {g: score([x for x in flags if f(x)]) for g, f in groups.items()},
              "checks": per_check(flags),
              "pdf_only": [x for x in flags if x["reading"] == "pdf" and x["only_in_this_reading"]],
              "tei_html_only": [x for x in flags if x["reading"] != "pdf" and x["only_in_this_reading"]],
              "flags": flags}
    return result, todo


def main() -> None:
    """Run the checks on the fresh papers, draw the samples, merge the judgements, write the result file."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list", action="store_true", help="print sampled flags without a judgement")
    ap.add_argument("--part", choices=("rounds", "social-all", "all"), default="all",
                    help="what to re-run (the other part is kept from the committed result)")
    args = ap.parse_args()
    if args.part == "social-all":
        from provenance import Run

        prov = Run(data=[TWINS, STATCHECK, SOCIAL_JUDGED])
        kept: dict[str, Any] = json.loads(OUT.read_text(encoding="utf-8")) if OUT.exists() else {"schema_version": "1"}
        kept["social_all"], todo_s = social_all()
        kept["social_all"]["provenance"] = prov.finish()
        write_result(OUT, ROOT, kept, todo_s, args.list)
        return
    for d in (TWINS, STATCHECK, EI):
        if not d.is_dir():
            sys.exit(f"error: {d}: shared data not available")
    from provenance import Run

    prov = Run(data=[TWINS, STATCHECK, EI, JUDGED])
    doc = json.loads(JUDGED.read_text(encoding="utf-8")) if JUDGED.exists() else {"judgements": {}}
    judged: dict[str, dict[str, Any]] = doc["judgements"]
    result: dict[str, Any] = {"schema_version": "1", "annotator": doc.get("annotator"),
                              "annotators": {k: v for k, v in doc.items() if k.startswith("annotator")}, "rules": RULES,
                              "seeds": SEEDS, "live_round": LIVE, "domains": {}}
    todo: list[tuple[str, dict[str, Any]]] = []
    done_rounds = {rnd: {k: j for k, j in judged.items() if j.get("round") == rnd} for rnd in range(1, LIVE)}
    seen_papers = {k.split(":")[0] for d in done_rounds.values() for k in d}

    def item(key: str, pid: str, r: dict[str, Any] | None) -> dict[str, Any]:
        j = judged.get(key)
        if j is None and r is not None:
            todo.append((key, r))
        return {"key": key, "paper": pid, "split": split_of(pid) if domain_of(pid) == "biomedical" else None,
                "message": r["message"] if r else None, "verdict": j["verdict"] if j else None,
                "note": j.get("note") if j else None}

    def score(items: list[dict[str, Any]]) -> dict[str, Any]:
        ok = [x for x in items if x["verdict"]]
        return wilson(sum(x["verdict"] == "correct" for x in ok), len(ok))

    for domain, paths in papers().items():
        flags = flags_of(paths)
        dom: dict[str, Any] = {"papers": len(paths), "checks": {}}
        for c in CHECK_IDS:
            now = {k: (pid, r) for k, pid, r in flags[c]}
            entry: dict[str, Any] = {"flags": len(now), "papers_flagged": len({p for p, _r in now.values()}),
                                     "rounds": {}}
            # the rounds already judged, from their stored judgements (drawn on their own rules), with each flag now
            for rnd, dj in done_rounds.items():
                rows = [{**item(k, k.split(":")[0], None), "flag_now": now[k][1]["message"] if k in now else None}
                        for k in sorted(dj) if f":{c}:" in k and domain_of(k.split(":")[0]) == domain]
                if rows:
                    entry["rounds"][str(rnd)] = {"rules": RULES[rnd], "seed": SEEDS[rnd], "precision": score(rows),
                                                 "still_flagged": sum(x["flag_now"] is not None for x in rows),
                                                 "sample": rows}
            # the live round: drawn now, from the untouched half's trial power flags, papers of earlier rounds left out
            if c == "power" and domain == "biomedical":
                pool = sorted((k, pid, r) for k, (pid, r) in now.items()
                              if split_of(pid) == "untouched" and pid not in seen_papers)
                pick = random.Random(SEEDS[LIVE]).sample(pool, min(SAMPLE_SIZE, len(pool)))
                live = [item(k, pid, r) for k, pid, r in sorted(pick, key=lambda x: x[0])]
                entry["rounds"][str(LIVE)] = {"rules": RULES[LIVE], "seed": SEEDS[LIVE], "pool": len(pool),
                                              "pool_rule": "untouched half, papers of earlier rounds left out",
                                              "precision": score(live), "sample": live}
            dom["checks"][c] = entry
        result["domains"][domain] = dom
    if args.part == "all":
        result["social_all"], todo_s = social_all()
        todo += todo_s
    elif OUT.exists() and "social_all" in (kept := json.loads(OUT.read_text(encoding="utf-8"))):
        result["social_all"] = kept["social_all"]
    result["unjudged"] = len(todo)
    result["provenance"] = prov.finish()
    write_result(OUT, ROOT, result, todo, args.list)

if __name__ == "__main__":
    main()
