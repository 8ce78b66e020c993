"""Mutation score of the fast test suite over ``stats``, ``evaluate`` and ``llm/cache`` (cosmic-ray).

    python bench/mutation.py --target DIR --label before --out bench/results/mutation_before.json

``DIR`` is a copy of the source tree (``git archive COMMIT | tar -x -C DIR``): cosmic-ray writes each
mutation into the files on disk, so it never runs in a working tree. The mutants are a deterministic
sample: a mutant is kept when ``sha256(path:operator:occurrence:seed)`` falls under ``--rate``, so an
unchanged file gives the same mutants in every run (before and after a change to the tests). Each kept
mutant runs the fast tests of the three areas (``TESTS``, ``-x``, LLM-marked tests left out). Score =
killed / (killed + survived); timeouts count as killed, incompetent mutants are left out; 95% exact
(Clopper-Pearson) interval. Resumable: ``cosmic-ray exec`` does only the work its session has not done.

After tests are added, ``--survivors-of BEFORE_DIR`` measures the same mutants again without rerunning what
was killed: ``DIR`` is a copy of the later tree whose mutated modules must be byte-identical to BEFORE_DIR's;
each sampled mutant that survived there is applied again and only the test files that are new or changed
since BEFORE_DIR run against it (the tests that were already there passed on it). Killed-before plus newly
killed over the same n is the score after; per-mutant results are kept in ``DIR/recheck.json`` (resumable).

    python bench/mutation.py --target DIR --survivors-of BEFORE_DIR --label after --out bench/results/mutation_after.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from scipy.stats import binomtest

from provenance import Run

MODULES = ["src/claimtrace/stats", "src/claimtrace/evaluate", "src/claimtrace/llm/cache.py"]
# plotting only: nothing in the fast suite draws a plot
EXCLUDED = ["src/claimtrace/evaluate/plots.py"]
TESTS = [
    "tests/test_stats_properties.py", "tests/test_stats_real.py", "tests/test_evaluate_metrics.py",
    "tests/test_evaluate_evidence.py", "tests/test_llm_faults.py", "tests/test_llm_prompts.py",
    "tests/test_llm_settings.py",
]
EXTRA_TESTS = ["tests/test_mutants.py", "tests/test_cues.py", "tests/test_textmatch.py", "tests/test_presets.py",
               "tests/test_experiment_resume.py",  # added by issue 18 (present after)
               "tests/test_evaluate_gaps.py", "tests/test_stats_gaps.py",
               "tests/test_uncertainty_gaps.py"]  # added by issue 18's second pass (i18b)


def _config(target: Path, python: str, timeout: float) -> Path:
    tests = [t for t in [*TESTS, *EXTRA_TESTS] if (target / t).exists()]
    cmd = f"{python} -m pytest -x -q -p no:cacheprovider -p no:randomly -m 'not llm' " + " ".join(tests)
    cfg = target / "cosmic-ray.toml"
    cfg.write_text(
        "[cosmic-ray]\n"
        f"module-path = {json.dumps(MODULES)}\n"
        f"timeout = {timeout}\n"
        f"excluded-modules = {json.dumps(EXCLUDED)}\n"
        f"test-command = {json.dumps(cmd)}\n"
        "\n[cosmic-ray.distributor]\nname = \"local\"\n",
        encoding="utf-8",
    )
    return cfg


def _keep(path: str, operator: str, occurrence: int, seed: int, rate: float) -> bool:
    h = hashlib.sha256(f"{path}:{operator}:{occurrence}:{seed}".encode()).hexdigest()
    return int(h[:8], 16) / 0xFFFFFFFF < rate


def _sample(session: Path, seed: int, rate: float) -> tuple[int, int]:
    from cosmic_ray.work_db import use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    total = kept = 0
    with use_db(str(session)) as db:
        skip = []
        for item in db.pending_work_items:
            total += 1
            m = item.mutations[0]
            if _keep(str(m.module_path), m.operator_name, m.occurrence, seed, rate):
                kept += 1
            else:
                skip.append(item.job_id)
        if skip:
            db.set_multiple_results(skip, WorkResult(output="not sampled", worker_outcome=WorkerOutcome.SKIPPED))
    return total, kept


_ANNOTATION = re.compile(r"(->|^\s*(?:async\s+)?def\s|^\s*\w+\s*:\s*[\w\[\]., ]*\||\(\s*\w+\s*:|,\s*\w+\s*:)")


def _source_line(path: Path, line: int) -> str:
    try:
        return path.read_text(encoding="utf-8").splitlines()[line - 1]
    except (OSError, IndexError):
        return ""


def _count_kept(session: Path, seed: int, rate: float) -> int:
    from cosmic_ray.work_db import use_db

    with use_db(str(session)) as db:
        return sum(1 for item in db.work_items
                   if _keep(str(item.mutations[0].module_path), item.mutations[0].operator_name,
                            item.mutations[0].occurrence, seed, rate))


def _score(killed: int, survived: int) -> dict[str, Any]:
    n = killed + survived
    if not n:
        return {"killed": killed, "survived": survived, "n": 0, "score": None, "ci95": None}
    ci = binomtest(killed, n).proportion_ci(0.95, method="exact")
    return {"killed": killed, "survived": survived, "n": n, "score": round(killed / n, 4),
            "ci95": [round(ci.low, 4), round(ci.high, 4)]}


def _results(session: Path, seed: int, rate: float) -> dict[str, Any]:
    from cosmic_ray.work_db import use_db

    per: dict[str, Counter[str]] = defaultdict(Counter)
    survivors = []
    with use_db(str(session)) as db:
        for item, res in db.completed_work_items:
            m = item.mutations[0]
            if res.output == "not sampled" or not _keep(str(m.module_path), m.operator_name, m.occurrence, seed, rate):
                continue
            mod = str(m.module_path)
            if res.worker_outcome != "normal":
                per[mod]["incompetent"] += 1
            elif res.is_killed:
                per[mod]["killed"] += 1
            else:
                per[mod]["survived"] += 1
                line = _source_line(session.parent / mod, m.start_pos[0])
                annotation = "BitOr" in m.operator_name and bool(_ANNOTATION.search(line))
                per[mod]["survived_in_annotation"] += annotation
                survivors.append({"module": mod, "line": m.start_pos[0], "operator": m.operator_name,
                                  "occurrence": m.occurrence, "source": line.strip()[:160],
                                  "in_type_annotation": annotation})
        pending = sum(1 for _ in db.pending_work_items)
    total = Counter[str]()
    for c in per.values():
        total.update(c)
    ann = total["survived_in_annotation"]
    return {
        "overall": {**_score(total["killed"], total["survived"]), "incompetent": total["incompetent"]},
        # "X | None" in a type annotation under `from __future__ import annotations` is never evaluated:
        # those mutants cannot change behaviour (equivalent), so a second score leaves them out
        "overall_without_annotation_mutants": {**_score(total["killed"], total["survived"] - ann),
                                               "left_out": ann},
        "per_module": {k: {**_score(c["killed"], c["survived"]), "incompetent": c["incompetent"]}
                       for k, c in sorted(per.items())},
        "pending": pending,
        "survivors": sorted(survivors, key=lambda s: (s["module"], s["line"])),
    }


def _module_files(root: Path) -> dict[str, str]:
    """sha256 of every file under the mutated modules (the mutants are defined by these bytes)."""
    out = {}
    for m in MODULES:
        base = root / m
        for f in sorted([base] if base.is_file() else base.rglob("*.py")):
            out[str(f.relative_to(root))] = hashlib.sha256(f.read_bytes()).hexdigest()
    return out


def _recheck(target: Path, before: Path, seed: int, rate: float, timeout: float) -> dict[str, Any]:
    """Re-apply the sampled survivors of ``before``'s session in ``target`` and run only the new or changed
    test files against each; killed-before + newly killed over the same mutants."""
    from cosmic_ray.mutating import mutate_and_test
    from cosmic_ray.work_db import use_db

    # the before tree's modules as exported (its files may hold a mutant while its session runs)
    pristine = json.loads((before / "modules.json").read_text()) if (before / "modules.json").exists() \
        else _module_files(before)
    if _module_files(target) != pristine:
        sys.exit("error: the mutated modules differ between --target and --survivors-of; run a full session instead")
    tests = [t for t in [*TESTS, *EXTRA_TESTS] if (target / t).exists()
             and (not (before / t).exists() or (before / t).read_bytes() != (target / t).read_bytes())]
    if not tests:
        sys.exit("error: no test file is new or changed since --survivors-of")
    cmd = f"{sys.executable} -m pytest -x -q -p no:cacheprovider -p no:randomly -m 'not llm' " + " ".join(tests)
    store = target / "recheck.json"
    done: dict[str, str] = json.loads(store.read_text()) if store.exists() else {}
    before_res = _results(before / "session.sqlite", seed, rate)
    with use_db(str(before / "session.sqlite")) as db:
        items = [(item, res) for item, res in db.completed_work_items
                 if res.output != "not sampled" and _keep(str(item.mutations[0].module_path),
                                                          item.mutations[0].operator_name,
                                                          item.mutations[0].occurrence, seed, rate)]
    os.environ["PYTHONPATH"] = str(target / "src")
    cwd = os.getcwd()
    os.chdir(target)
    try:
        for item, res in items:
            if res.worker_outcome != "normal" or res.is_killed or item.job_id in done:
                continue
            out = mutate_and_test(item.mutations, cmd, timeout)
            done[item.job_id] = "killed" if out.is_killed else str(out.test_outcome or out.worker_outcome)
            store.write_text(json.dumps(done, indent=1))
            print(f"{item.mutations[0].module_path}:{item.mutations[0].start_pos[0]} "
                  f"{item.mutations[0].operator_name}: {done[item.job_id]}", file=sys.stderr)
    finally:
        os.chdir(cwd)
    newly = {j for j, v in done.items() if v == "killed"}
    survivors = []
    for item, res in items:
        if res.worker_outcome == "normal" and not res.is_killed and item.job_id not in newly:
            m = item.mutations[0]
            survivors.append({"module": str(m.module_path), "line": m.start_pos[0], "operator": m.operator_name,
                              "occurrence": m.occurrence, "source": _source_line(target / m.module_path,
                                                                                 m.start_pos[0]).strip()[:160]})
    b = before_res["overall"]
    return {"before": b, "overall": {**_score(b["killed"] + len(newly), b["survived"] - len(newly)),
                                     "incompetent": b["incompetent"]},
            "newly_killed": len(newly), "recheck_tests": tests, "pending": before_res["pending"],
            "survivors": sorted(survivors, key=lambda s: (s["module"], s["line"]))}


def main() -> None:
    """Initialise (once), sample, execute (resumable) and score a cosmic-ray session."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", type=Path, required=True, help="a copy of the source tree (mutated in place)")
    ap.add_argument("--label", required=True, help="before / after")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--rate", type=float, default=0.02, help="share of mutants sampled")
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per mutant's test run")
    ap.add_argument("--commit", default=None, help="the commit the target was exported from")
    ap.add_argument("--survivors-of", type=Path, default=None,
                    help="an earlier target: rerun only its sampled survivors with the new or changed tests")
    args = ap.parse_args()
    target = args.target.resolve()
    run = Run(data=[])
    if args.survivors_of is not None:
        before = args.survivors_of.resolve()
        result = {"schema_version": "1", "label": args.label, "tool": "cosmic-ray 8.7.0",
                  "target_commit": args.commit, "modules": MODULES, "excluded": EXCLUDED,
                  "method": "survivors of the earlier session rerun against the new or changed test files",
                  "survivors_of": str(before),
                  "sampling": {"rate": args.rate, "seed": args.seed,
                               **json.loads((before / "sample.json").read_text())},
                  **_recheck(target, before, args.seed, args.rate, args.timeout), "provenance": run.finish()}
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print(json.dumps({"before": result["before"], "after": result["overall"]}))
        return
    cfg = _config(target, sys.executable, args.timeout)
    session = target / "session.sqlite"
    cr = [sys.executable, "-m", "cosmic_ray.cli"]
    env = {**os.environ, "PYTHONPATH": str(target / "src")}
    if not session.exists():
        (target / "modules.json").write_text(json.dumps(_module_files(target), indent=1))
        subprocess.run([*cr, "init", str(cfg), str(session)], cwd=target, env=env, check=True)
    # (re)sample: a smaller rate on a resumed session keeps a subset of the earlier sample
    total, _ = _sample(session, args.seed, args.rate)
    counts = json.loads((target / "sample.json").read_text()) if (target / "sample.json").exists() else {}
    counts["total"] = max(total, counts.get("total", 0))
    counts["kept"] = _count_kept(session, args.seed, args.rate)
    (target / "sample.json").write_text(json.dumps(counts))
    subprocess.run([*cr, "exec", str(cfg), str(session)], cwd=target, env=env, check=True)
    result = {
        "schema_version": "1",
        "label": args.label,
        "tool": "cosmic-ray 8.7.0",
        "target_commit": args.commit,
        "modules": MODULES,
        "excluded": EXCLUDED,
        "tests": [t for t in [*TESTS, *EXTRA_TESTS] if (target / t).exists()],
        "sampling": {"rate": args.rate, "seed": args.seed, "mutants_total": counts["total"],
                     "mutants_sampled": counts["kept"],
                     "rule": "keep when sha256(path:operator:occurrence:seed)[:8]/0xffffffff < rate"},
        **_results(session, args.seed, args.rate),
        "provenance": run.finish(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result["overall"]))


if __name__ == "__main__":
    main()
