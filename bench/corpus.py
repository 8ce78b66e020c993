"""Corpus-run throughput: parse,stats,traces (embedded extractor) over >= 1,000 real papers.

In one run, on the same corpus: the local engine with 1 and 2 workers, and the Ray engine with 2
workers on a local cluster (``ray start --head`` on 127.0.0.1, connected by address). Records papers
per minute (wall clock, start-up included), peak memory per worker, the 2-vs-1 speed-up, Ray's
overhead ratio, and checks that the three runs wrote the same rows. Each timed run records the CPU
that other processes used meanwhile (``provenance.OthersCpu``: the machine's busy time minus the run's
own processes, Ray's cluster and its workers included); a run where they used more than
``OTHERS_LOADED_CORES`` is flagged ``loaded`` and its timings are upper bounds, not the speed.

Also: ``--part storage`` times pyarrow vs DuckDB writing and reading the run's tables (the store's
library choice), and ``--part llm`` measures LLM calls and tokens per paper with the LLM extractor on a
small sample (the real local LLM), for the 1M-paper extrapolation. ``--part report`` writes the
throughput and extrapolation sections of docs/corpus.md from the result files.

Usage: ``python bench/corpus.py [--part throughput|storage|llm|report] [--limit N] [--repeats N] [--result FILE]``
-> ``bench/results/corpus_throughput.json``, ``corpus_storage.json``, ``corpus_llm.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from provenance import OthersCpu, Run  # noqa: E402

SHARED = REPO.parent / "shared" / "data"
RESULTS = REPO / "bench" / "results"
SUFFIXES = {".nxml", ".xml", ".pdf", ".html", ".htm", ".txt", ".md", ".tei"}


def corpus_files() -> list[Path]:
    """EI train + validation JATS, every paper under documents/, and the EvidenceBench papers."""
    files = sorted(SHARED.glob("evidence-inference/*/articles/*.nxml"))
    files += sorted(p for p in (SHARED / "documents").rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES)
    files += sorted((SHARED / "evidencebench" / "papers").glob("*.md"))
    return files


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _rows(out: Path, table: str) -> list[str]:
    from claimtrace.corpus.store import Store

    return Store(out, create=False).result_rows(table)


#: a timed run is ``loaded`` when other processes used more than this many cores on average while it ran
OTHERS_LOADED_CORES = 0.25


def _run_cli(listfile: Path, out: Path, extra: list[str], env: dict[str, str], sessions: list[int]) -> dict[str, Any]:
    """One timed ``claimtrace run``; the CPU that other processes used meanwhile decides ``loaded``."""
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "-m", "claimtrace", "run", str(listfile), "--out", str(out), "--json", *extra]
    load0 = _load()
    with OthersCpu(sessions=sessions) as others:
        t0 = time.perf_counter()
        res = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO)
        wall = time.perf_counter() - t0
    if res.returncode != 0:
        raise SystemExit(f"run failed: {res.stderr[-2000:]}")
    s = json.loads(res.stdout)
    workers_cpu = sum(s.get("worker_cpu_seconds", {}).values())
    return {"command": " ".join(["claimtrace", "run", "CORPUS", "--out", "OUT", *extra]),
            "papers": s["papers"], "computed": s["computed"], "failed": s["failed"],
            "seconds": round(wall, 2), "papers_per_minute": round(60 * s["computed"] / wall, 1),
            "worker_peak_rss_mb": s["worker_peak_rss_mb"],
            "worker_cpu_seconds": s.get("worker_cpu_seconds", {}),
            "driver_cpu_seconds": s.get("driver_cpu_seconds"),
            # how busy the workers were: their CPU over (workers x wall); < 1 when they waited (for the
            # driver, for work, or for a core that another process held)
            "worker_cpu_share": round(workers_cpu / (len(s.get("worker_cpu_seconds") or [1]) * wall), 3),
            # the CPU counted as the run's own (this process, the CLI and its workers, the Ray cluster's
            # processes), and the cluster's part of it: for Ray, about the workers' CPU plus the cluster's
            "own_cpu_seconds": others.own_seconds, "cluster_cpu_seconds": others.sessions_seconds,
            # for comparison: the cluster's CPU read at the start and the end of the run only (the accounting
            # before the ledger, blind to Ray's workers, which exit unreaped before the end)
            "cluster_cpu_seconds_at_ends": others.sessions_seconds_at_ends,
            "load_before": load0, "load_after": _load(), "others_cpu_cores": others.cores,
            "loaded": others.cores > OTHERS_LOADED_CORES}


_SPIN = "n = {n}\nx = 0\nfor i in range(n):\n    x += i * i\n"


def _ray_accounting(ray_runs: list[dict[str, Any]]) -> dict[str, Any]:
    """How much of the Ray runs' CPU the accounting counts as the cluster's: its CPU over the workers' own
    report of theirs (``worker_cpu_seconds``); about 1 (a little above: the cluster's other processes) when
    the workers are counted, about 0 when they are not (they would then be counted as other processes')."""
    runs = [r for r in ray_runs if r.get("cluster_cpu_seconds") is not None and sum(r["worker_cpu_seconds"].values())]
    ratios = [r["cluster_cpu_seconds"] / sum(r["worker_cpu_seconds"].values()) for r in runs]
    at_ends = [r["cluster_cpu_seconds_at_ends"] / sum(r["worker_cpu_seconds"].values()) for r in runs]
    return {"cluster_cpu_over_workers_cpu": [round(x, 3) for x in ratios],
            "median": round(statistics.median(ratios), 3) if ratios else None,
            # the same read at the start and the end of each run only (the earlier accounting)
            "at_ends_over_workers_cpu": [round(x, 3) for x in at_ends],
            "at_ends_median": round(statistics.median(at_ends), 3) if at_ends else None}


def _spin_procs(n: int, k: int, own_sessions: bool) -> float:
    """Seconds for k processes, started together, to each run the same CPU-bound loop."""
    t0 = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-c", _SPIN.format(n=n)], start_new_session=own_sessions)
             for _ in range(k)]
    for p in procs:
        p.wait()
    return time.perf_counter() - t0


def parallel_capacity(n: int = 20_000_000, repeats: int = 3) -> dict[str, Any]:
    """How much faster 2 CPU-bound processes finish 2 equal jobs than 1 process doing both: the machine's
    ceiling for the 2-worker speed-up (2.0 on two free cores; less when the cores are shared or are SMT
    siblings). Measured twice: with both processes in this session (as a local pool's workers are) and
    each in a session of its own. Linux's autogroup scheduler shares the CPU between sessions first: while
    other sessions keep the cores busy, all the processes of one session get about one session's share,
    so the first figure falls towards 1 and the second does not."""
    same, own = [], []
    with OthersCpu() as others:
        for _ in range(repeats):
            serial = sum(_spin_procs(n, 1, False) for _ in range(2))
            same.append(serial / _spin_procs(n, 2, False))
            own.append(serial / _spin_procs(n, 2, True))
    return {"speedup_2_processes": round(statistics.median(same), 3),
            "speedup_2_processes_own_sessions": round(statistics.median(own), 3), "repeats": repeats,
            "others_cpu_cores": others.cores, "loaded": others.cores > OTHERS_LOADED_CORES}


def _partial_key(files: list[Path], repeats: int) -> str:
    """What an interrupted run must share with this one for its timings to be kept: commit, corpus, repeats."""
    import hashlib

    from provenance import git_commit

    listing = hashlib.sha256("\n".join(map(str, files)).encode()).hexdigest()
    return json.dumps([git_commit(), listing, repeats])


def throughput(limit: int | None, repeats: int, work: Path, fresh: bool, result_file: Path) -> None:
    """Local 1 and 2 workers and Ray 2 workers, interleaved, ``repeats`` times; resumable (``work``)."""
    files = corpus_files()[:limit] if limit else corpus_files()
    run = Run(data=[SHARED / "evidence-inference" / "train" / "articles",
                    SHARED / "evidence-inference" / "validation" / "articles",
                    SHARED / "documents", SHARED / "evidencebench" / "papers"])
    if fresh:
        shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True, exist_ok=True)
    listfile = work / "corpus.txt"
    listfile.write_text("".join(f"{f}\n" for f in files))
    # runs done by an interrupted invocation of the same command on the same commit are kept
    partial_file = work / "partial.json"
    key = _partial_key(files, repeats)
    partial = json.loads(partial_file.read_text()) if partial_file.exists() else {}
    if partial.get("key") != key:
        partial = {"key": key, "runs": {}, "capacity": None}
    if partial["capacity"] is None:
        partial["capacity"] = parallel_capacity()
        partial_file.write_text(json.dumps(partial, indent=2))
    print(f"machine: 2 processes run {partial['capacity']['speedup_2_processes']}x as fast as 1", file=sys.stderr)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "RAY_AUTH_MODE": "disabled"}
    port = _free_port()
    ray_tmp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
    ray_bin = shutil.which("ray", path=str(Path(sys.executable).parent)) or "ray"
    head = subprocess.Popen([ray_bin, "start", "--head", "--block", "--node-ip-address", "127.0.0.1", "--port", str(port),
                             "--num-cpus", "2", "--include-dashboard", "false", "--disable-usage-stats",
                             "--temp-dir", ray_tmp], env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    configs = {"local_1": ["--workers", "1"], "local_2": ["--workers", "2"],
               "ray_2": ["--workers", "2", "--engine", "ray", "--ray-address", f"127.0.0.1:{port}"]}
    runs: dict[str, list[dict[str, Any]]] = {k: [r for r in partial["runs"].get(k, [])] for k in configs}
    try:
        time.sleep(10)
        for rep in range(repeats):
            for name, extra in configs.items():
                if any(r["repeat"] == rep for r in runs[name]):
                    continue
                r = _run_cli(listfile, work / name, extra, env, sessions=[head.pid])
                r["repeat"] = rep
                runs[name].append(r)
                partial["runs"] = runs
                partial_file.write_text(json.dumps(partial, indent=2))
                print(f"{name} #{rep}: {r['papers_per_minute']} papers/min, other processes "
                      f"{r['others_cpu_cores']} cores, load {r['load_before']}->{r['load_after']}", file=sys.stderr)
        # the last run of each configuration is still on disk: compare their rows
        missing = [k for k in configs if not (work / k / "manifest.json").exists()]
        if missing:
            raise SystemExit(f"no store left for {missing}: re-run with --fresh")
        same = {t: _rows(work / "local_1", t) == _rows(work / "local_2", t) == _rows(work / "ray_2", t)
                for t in ("papers", "traces", "statistics", "errors")}
    finally:
        os.killpg(head.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            head.wait(timeout=30)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(head.pid, signal.SIGKILL)  # whatever of the cluster is left
        shutil.rmtree(ray_tmp, ignore_errors=True)
    med = {k: statistics.median(r["papers_per_minute"] for r in v) for k, v in runs.items()}
    peak = {k: max(max(r["worker_peak_rss_mb"].values(), default=0) for r in v) for k, v in runs.items()}
    loaded = any(r["loaded"] for v in runs.values() for r in v)
    result = {
        "schema_version": "2",
        "corpus": {"papers": len(files), "what": "EI train+validation JATS (.nxml), every paper under documents/ "
                   "(JATS, TEI, PDF), EvidenceBench Markdown papers"},
        "steps": "parse,stats,traces", "extractor": "embedded", "repeats": repeats,
        "runs": runs,
        "papers_per_minute_median": med,
        "worker_peak_rss_mb_max": peak,
        "speedup_2_vs_1": round(med["local_2"] / med["local_1"], 3),
        "ray_overhead_ratio": round(med["local_2"] / med["ray_2"], 3),
        "targets": {"speedup_2_vs_1": ">= 1.7", "ray_overhead_ratio": "<= 1.15 (Ray within 15% of local)"},
        "machine_parallel_capacity": partial["capacity"],
        "same_rows_in_all_runs": same,
        "loaded": loaded,
        "loaded_rule": (f"a timed run is loaded when other processes used more than {OTHERS_LOADED_CORES} cores on "
                        "average while it ran (/proc/stat busy time minus the CPU of the run's own processes: the "
                        "CLI and its workers, and every process of the Ray cluster's session and their descendants, "
                        "scanned every 0.2 s, so Ray's workers count even though they exit unreaped)"),
        "ray_cpu_accounting": _ray_accounting(runs["ray_2"]),
        "note": ("timings from a loaded machine are upper bounds, not the speed" if loaded else
                 "other processes stayed below the threshold in every timed run"),
        "provenance": run.finish(own_processes=3),
    }
    result_file.write_text(json.dumps(result, indent=2) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    print(json.dumps({k: result[k] for k in ("papers_per_minute_median", "speedup_2_vs_1", "ray_overhead_ratio",
                                              "same_rows_in_all_runs", "loaded", "ray_cpu_accounting")}, indent=2))


def storage(limit: int | None) -> None:
    """pyarrow vs DuckDB: write the traces and statistics rows of a run as Parquet, read them back, query."""
    import duckdb
    import pyarrow.parquet as pq

    from claimtrace.corpus.runner import discover, run_corpus
    from claimtrace.corpus.store import Store
    from claimtrace.corpus.work import RunSettings

    files = corpus_files()[: limit or 200]
    run = Run(data=[SHARED / "evidence-inference" / "train" / "articles"])
    work = Path(tempfile.mkdtemp(prefix="corpus-storage-", dir="/tmp"))
    (work / "c.txt").write_text("".join(f"{f}\n" for f in files))
    run_corpus(discover(str(work / "c.txt")), work / "r", RunSettings(), workers=2)
    out: dict[str, Any] = {}
    for table in ("statistics", "traces"):
        data = Store(work / "r", create=False).read(table)
        t_pa, t_dd, r_pa, r_dd, q_dd = [], [], [], [], []
        for i in range(5):
            p1, p2 = work / f"pa{i}.parquet", work / f"dd{i}.parquet"
            t0 = time.perf_counter()
            pq.write_table(data, p1, compression="zstd")
            t_pa.append(time.perf_counter() - t0)
            con = duckdb.connect()
            con.register("t", data)
            t0 = time.perf_counter()
            con.execute(f"COPY t TO '{p2}' (FORMAT parquet, COMPRESSION zstd)")
            t_dd.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            pq.read_table(p1)
            r_pa.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            con.sql(f"SELECT * FROM read_parquet('{p1}')").to_arrow_table()
            r_dd.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            con.sql(f"SELECT paper_id, count(*) FROM read_parquet('{p1}') GROUP BY 1").fetchall()
            q_dd.append(time.perf_counter() - t0)
            con.close()
        out[table] = {"rows": data.num_rows,
                      "write_ms_median": {"pyarrow": round(1000 * statistics.median(t_pa), 2),
                                          "duckdb": round(1000 * statistics.median(t_dd), 2)},
                      "read_ms_median": {"pyarrow": round(1000 * statistics.median(r_pa), 2),
                                         "duckdb": round(1000 * statistics.median(r_dd), 2)},
                      "group_by_ms_median_duckdb": round(1000 * statistics.median(q_dd), 2),
                      "file_bytes": {"pyarrow": (work / "pa0.parquet").stat().st_size,
                                     "duckdb": (work / "dd0.parquet").stat().st_size}}
    shutil.rmtree(work, ignore_errors=True)
    result = {"schema_version": "1", "papers": len(files), "repeats": 5, "tables": out, "provenance": run.finish()}
    (RESULTS / "corpus_storage.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(out, indent=2))


def _bootstrap_mean_ci(xs: list[float], reps: int = 10000, seed: int = 0) -> list[float]:
    import random

    rng = random.Random(seed)
    means = sorted(statistics.fmean(rng.choices(xs, k=len(xs))) for _ in range(reps))
    return [round(means[int(0.025 * reps)], 1), round(means[int(0.975 * reps) - 1], 1)]


def llm_sample(n: int, base_url: str, model: str | None, work: Path, run_it: bool = True,
               timeout: float = 1800.0, retries: int = 0) -> None:
    """LLM calls and tokens per paper: ``claimtrace run --extractor llm`` (real local LLM) on the n smallest
    EI validation papers, one paper per committed batch, into ``work`` (re-running the same command resumes;
    done papers are skipped). Per-paper usage comes from the run's ``papers`` table (llm_* columns).
    ``run_it=False`` (``--llm-summarize``) summarizes what the run folder holds (e.g. after stopping it).
    The shared local server answers one request at a time: a long ``timeout`` and no retries wait in its
    queue rather than sending the same request again (a timed-out request still costs the server its time)."""
    from claimtrace.corpus.store import Store

    files = sorted(SHARED.glob("evidence-inference/validation/articles/*.nxml"), key=lambda f: (f.stat().st_size, f.name))[:n]
    run = Run(data=files)
    work.mkdir(parents=True, exist_ok=True)
    listfile = work / "corpus.txt"
    listfile.write_text("".join(f"{f}\n" for f in files))
    # a cache of its own: every call of a first attempt is a real request (a resumed paper may hit it)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "CLAIMTRACE_CACHE_DIR": str(work / "llm-cache")}
    (work / "llm.toml").write_text(f"[llm]\ntimeout = {timeout}\nmax_retries = {retries}\n")
    extra = ["--steps", "parse,traces", "--extractor", "llm", "--workers", "1", "--batch-size", "1",
             "--llm-settings", str(work / "llm.toml"), "--llm-base-url", base_url, *(["--llm-model", model] if model else [])]
    cmd = [sys.executable, "-m", "claimtrace", "run", str(listfile), "--out", str(work / "results"), "--json", *extra]
    if run_it:
        print("running: " + " ".join(cmd), file=sys.stderr)
        res = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO)
        if res.returncode != 0:
            raise SystemExit(f"run failed: {res.stderr[-2000:]}")
    papers = [p for p in Store(work / "results", create=False).read("papers").to_pylist() if p["status"] == "ok"]
    per = [{"path": Path(p["path"]).name, "size_bytes": p["size_bytes"], "n_paragraphs": p["n_paragraphs"],
            "n_traces": p["n_traces"],
            "llm_calls": p["llm_calls"], "llm_cache_hits": p["llm_cache_hits"], "llm_failures": p.get("llm_failures"),
            "llm_prompt_tokens": p["llm_prompt_tokens"], "llm_completion_tokens": p["llm_completion_tokens"],
            "llm_tokens": (p["llm_prompt_tokens"] or 0) + (p["llm_completion_tokens"] or 0),
            "seconds": p["seconds"]} for p in papers]
    per.sort(key=lambda r: r["path"])
    calls = [float(r["llm_calls"] + r["llm_cache_hits"]) for r in per]
    toks = [float(r["llm_tokens"]) for r in per]
    prompt = sum(r["llm_prompt_tokens"] or 0 for r in per)

    def spread(xs: list[float]) -> dict[str, Any]:
        if not xs:
            return {}
        return {"mean": round(statistics.fmean(xs), 1), "median": statistics.median(xs), "min": min(xs),
                "max": max(xs), "sd": round(statistics.stdev(xs), 1) if len(xs) > 1 else None,
                "mean_ci95_bootstrap": _bootstrap_mean_ci(xs) if len(xs) >= 5 else None}  # none from 4 or fewer

    result = {"schema_version": "2", "papers": len(per), "papers_asked": n, "endpoint": base_url, "model": model,
              "steps": "parse,traces", "extractor": "llm (default configuration: hybrid retrieval, LLM reranker)",
              "sample": "the n smallest EI validation articles (by bytes)",
              "command": "claimtrace run CORPUS --out OUT " + " ".join(extra).replace(str(work), "WORK"),
              "llm_timeout_s": timeout, "llm_retries": retries,
              "failed": len(Store(work / "results", create=False).read("papers").to_pylist()) - len(per),
              "cache_hits": sum(r["llm_cache_hits"] for r in per),
              "note": ("tokens count only requests sent (cache hits, from a resumed paper, carry none)"),
              "per_paper": per,
              "llm_calls_per_paper": spread(calls), "llm_tokens_per_paper": spread(toks),
              "prompt_token_share": round(prompt / sum(toks), 3) if sum(toks) else None,
              "seconds_per_paper": spread([float(r["seconds"]) for r in per]),
              "provenance": run.finish()}
    (RESULTS / "corpus_llm.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: result[k] for k in ("papers", "llm_calls_per_paper", "llm_tokens_per_paper")}, indent=2))


def _fmt(x: float) -> str:
    return f"{x:,.1f}"


def _loaded_runs(tp: dict[str, Any], configs: tuple[str, ...]) -> list[str]:
    return [k for k in configs if any(r["loaded"] for r in tp["runs"][k])]


def _verdict(tp: dict[str, Any], configs: tuple[str, ...], met: bool) -> str:
    """Whether a ratio of these configurations' runs measures its target, by the runs' ``loaded`` flags."""
    loaded = _loaded_runs(tp, configs)
    if loaded:
        return (f"**not a valid measurement of the target**: other processes used the cores during the "
                f"{' and '.join(loaded)} runs")
    return (f"a valid measurement (other processes stayed below the threshold in every {' and '.join(configs)} "
            f"run): target **{'met' if met else 'NOT met'}**")


def throughput_lines(tp: dict[str, Any]) -> list[str]:
    """The throughput section of docs/corpus.md from a ``corpus_throughput.json``; its wording follows the flags."""
    m = tp["papers_per_minute_median"]
    lines = [f"Written by `python bench/corpus.py --part report` from `bench/results/corpus_throughput.json` "
             f"(command `{tp['provenance']['command']}`, commit `{tp['provenance']['commit']}`).", "",
             f"Corpus: {tp['corpus']['papers']} real papers ({tp['corpus']['what']}); steps {tp['steps']}, "
             f"{tp['extractor']} extractor; {tp['repeats']} repeat(s) of each configuration, interleaved, in one run.",
             "",
             "| engine | workers | papers/min (median, wall clock incl. start-up) | peak RSS per worker (MiB) "
             "| other processes' CPU (cores, max) | loaded |",
             "|---|---|---|---|---|---|"]
    for k, label, w in (("local_1", "local", 1), ("local_2", "local", 2), ("ray_2", "ray (local cluster)", 2)):
        runs = tp["runs"][k]
        others = max((r.get("others_cpu_cores", float("nan")) for r in runs), default=float("nan"))
        lines.append(f"| {label} | {w} | {_fmt(m[k])} | {tp['worker_peak_rss_mb_max'][k]} | {others} "
                     f"| {'yes' if any(r['loaded'] for r in runs) else 'no'} |")
    cap = tp.get("machine_parallel_capacity")
    speedup, ray = tp["speedup_2_vs_1"], tp["ray_overhead_ratio"]
    lines += ["", f"- 2 workers vs 1: **{speedup}x** (target >= 1.7), "
              + _verdict(tp, ("local_1", "local_2"), speedup >= 1.7) + ".",
              f"- Ray overhead (local 2 / Ray 2 papers per minute): **{ray}** (target <= 1.15), "
              + _verdict(tp, ("local_2", "ray_2"), ray <= 1.15) + ".",
              "- Same rows in all three runs (ignoring batch ids, worker names and times): "
              + ", ".join(f"{t} {'yes' if v else 'NO'}" for t, v in tp["same_rows_in_all_runs"].items()) + "."]
    acc = tp.get("ray_cpu_accounting")
    if acc and acc.get("median") is not None:
        lines.append(f"- The Ray runs' own CPU: the cluster's processes (scanned during each run) used "
                     f"**{acc['median']}x** the CPU that the Ray workers report for themselves (median of "
                     f"{len(acc['cluster_cpu_over_workers_cpu'])} runs; above 1 by the cluster's other processes), "
                     "and it counts as the run's own, not as other processes'"
                     + (f" (reading the cluster at the start and the end of each run only gives "
                        f"{acc['at_ends_median']}x: Ray's workers exit unreaped before the end)"
                        if acc.get("at_ends_median") is not None else "") + ".")
    if cap is not None:
        lines.append(f"- The machine's own ceiling, measured in the same run: two CPU-bound processes in one session "
                     f"finish two equal jobs **{cap['speedup_2_processes']}x** as fast as one process"
                     + (f", {cap['speedup_2_processes_own_sessions']}x when each has a session of its own"
                        if "speedup_2_processes_own_sessions" in cap else "")
                     + f" (other processes' CPU meanwhile {cap['others_cpu_cores']} cores). The local engine's "
                     "workers share the run's session, so its 2-worker speed-up can only approach the first figure.")
    if "loaded_rule" in tp:
        lines.append(f"- Loaded rule: {tp['loaded_rule']}.")
    loaded = _loaded_runs(tp, ("local_1", "local_2", "ray_2"))
    lines += [f"- Machine: {tp['provenance']['machine']['cores']} cores; load (1 min) "
              f"{tp['provenance']['machine']['load_average_at_start'][0]} at start, "
              f"{tp['provenance']['machine']['load_average_at_end'][0]} at end. "
              + (f"**Other processes used the cores during the {' and '.join(loaded)} runs: those timings are "
                 "upper bounds, not the speed.** Re-run the command above on an idle machine." if loaded else
                 "Other processes stayed below the threshold in every timed run: the timings are this machine's "
                 "speed."),
              "- No confidence interval: with the repeats above each ratio is a single (or median) measurement.",
              ""]
    return lines


def report(price_in: float, price_out: float) -> None:
    """Write the throughput and extrapolation sections of docs/corpus.md from the result files."""
    doc = REPO / "docs" / "corpus.md"
    doc.write_text(render_report(doc.read_text(), price_in, price_out))


def render_report(body: str, price_in: float = 0.15, price_out: float = 0.60) -> str:
    """docs/corpus.md's text with its throughput block regenerated from the result files."""
    import math

    tp = json.loads((RESULTS / "corpus_throughput.json").read_text())
    st = json.loads((RESULTS / "corpus_storage.json").read_text()) if (RESULTS / "corpus_storage.json").exists() else None
    llm = json.loads((RESULTS / "corpus_llm.json").read_text()) if (RESULTS / "corpus_llm.json").exists() else None
    m = tp["papers_per_minute_median"]
    lines = throughput_lines(tp)
    if st is not None:
        sm = st["provenance"]["machine"]
        lines += [f"Storage library (bench/results/corpus_storage.json, medians of 5; load "
                  f"{sm['load_average_at_start'][0]} -> {sm['load_average_at_end'][0]} on {sm['cores']} cores"
                  + (", loaded: relative, not absolute, figures" if sm["loaded"] else "") + "):", ""]
        for t, v in st["tables"].items():
            lines.append(f"- `{t}` ({v['rows']} rows from {st['papers']} papers): write pyarrow "
                         f"{v['write_ms_median']['pyarrow']} ms vs DuckDB {v['write_ms_median']['duckdb']} ms; "
                         f"read pyarrow {v['read_ms_median']['pyarrow']} ms vs DuckDB {v['read_ms_median']['duckdb']} ms; "
                         f"a GROUP BY in DuckDB {v['group_by_ms_median_duckdb']} ms.")
        lines.append("")
    # extrapolation to 1M papers
    ppm1 = m["local_1"]
    core_hours = 1_000_000 / ppm1 / 60
    lines += ["### 1 million papers", "",
              f"- Offline (embedded extractor): at the measured {_fmt(ppm1)} papers/min of one worker, 1M papers are "
              f"{core_hours:,.1f} core-hours: **{max(1, math.ceil(core_hours / 24))} core(s) for 24 h**, plus a "
              "driver, assuming linear scaling (measured here up to 2 workers, see above) and papers like these "
              "(mostly JATS; PDFs parse far slower)"
              + (". The measurement was loaded, so this is an upper bound on the cores needed."
                 if _loaded_runs(tp, ("local_1",)) else ".")]
    cpu = [sum(r["worker_cpu_seconds"].values()) / r["computed"] for r in tp["runs"]["local_1"]
           if r.get("worker_cpu_seconds") and r["computed"]]
    if cpu:
        cpu_s = statistics.median(cpu)
        cpu_hours = cpu_s * 1_000_000 / 3600
        lines.append(f"- By the worker's CPU time instead of the wall clock (less sensitive to other processes, "
                     f"model loading included): {cpu_s:.4f} CPU-seconds per paper, {cpu_hours:,.1f} core-hours for 1M "
                     f"papers: **{max(1, math.ceil(cpu_hours / 24))} core(s) for 24 h** on cores like these.")
    if llm is not None and isinstance(llm.get("llm_tokens_per_paper"), dict):
        calls, toks = llm["llm_calls_per_paper"], llm["llm_tokens_per_paper"]
        share = llm.get("prompt_token_share") or 0.9
        cost = toks["mean"] / 1e6 * (price_in * share + price_out * (1 - share))
        ci = toks.get("mean_ci95_bootstrap")
        model = llm["model"] or "the local LLM server's default model (Qwen2.5-Coder-1.5B, scripts/local-llm.sh)"
        per = ", ".join(f"{r['llm_calls'] + r['llm_cache_hits']} calls / {r['llm_tokens']:,} tokens"
                        for r in llm["per_paper"])
        zero = [r for r in llm["per_paper"] if r["llm_calls"] + r["llm_cache_hits"] == 0]
        no_body = sum(1 for r in zero if r.get("n_paragraphs") == 0)
        lines += [f"- With an LLM (extractor {llm['extractor']}, `claimtrace run` on {llm['papers']} paper(s): "
                  f"{llm['sample']}, with {model}; `bench/results/corpus_llm.json`): per paper {per}. Mean "
                  f"{calls['mean']} calls (range {calls['min']:g}-{calls['max']:g}) and {toks['mean']:,.0f} tokens "
                  f"(range {toks['min']:,.0f}-{toks['max']:,.0f}"
                  + (f"; 95% bootstrap interval of the mean {ci[0]:,.0f}-{ci[1]:,.0f}, n={llm['papers']}" if ci else "")
                  + f"), {share:.0%} of them prompt tokens. At a stated ${price_in}/M input and ${price_out}/M output "
                  f"tokens: **${cost:.4f} per paper, ${cost * 1e6:,.0f} per million papers** "
                  f"({toks['mean'] * 1e6 / 1e9:,.1f} billion tokens)"
                  + (f"; the interval of the mean gives ${cost * ci[0] / toks['mean'] * 1e6:,.0f}-"
                     f"${cost * ci[1] / toks['mean'] * 1e6:,.0f} per million" if ci else "")
                  + (f". {len(zero)} of the papers needed no LLM call"
                     + (f" ({no_body} of them with no body text for the extractor to search: abstract-only records)"
                        if all("n_paragraphs" in r for r in zero) else "") if zero else "")
                  + f". Failed LLM requests in the sample: {sum(r.get('llm_failures') or 0 for r in llm['per_paper'])} "
                  "(they carry no token count). The sample is the smallest papers of the set, so a typical paper's "
                  "calls and tokens may differ (more findings in a longer abstract mean more calls)."]
    elif llm is not None:
        lines.append(f"- With an LLM: measured on {llm['papers']} paper only ({llm['llm_calls_per_paper']} calls, "
                     f"{llm['llm_tokens_per_paper']:,.0f} tokens): re-run `python bench/corpus.py --part llm`.")
    else:
        lines.append("- With an LLM: not measured yet (`python bench/corpus.py --part llm`).")
    text = "\n".join(lines) + "\n"
    start, end = "<!-- throughput:start -->", "<!-- throughput:end -->"
    i, j = body.index(start) + len(start), body.index(end)
    return body[:i] + "\n" + text + body[j:]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", default="throughput", choices=["throughput", "storage", "llm", "report"])
    ap.add_argument("--limit", type=int, default=None, help="only the first N papers (development)")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--work", type=Path, default=Path("/tmp/claimtrace-bench-corpus-throughput"),
                    help="--part throughput: its folder (an interrupted run resumes from it; removed at the end)")
    ap.add_argument("--fresh", action="store_true", help="--part throughput: discard an interrupted run's timings")
    ap.add_argument("--result", type=Path, default=RESULTS / "corpus_throughput.json",
                    help="--part throughput: the result file (the report reads the default one)")
    ap.add_argument("--llm-papers", type=int, default=2)
    ap.add_argument("--llm-base-url", default="http://127.0.0.1:8089/v1")
    ap.add_argument("--llm-model", default=None)
    ap.add_argument("--llm-timeout", type=float, default=1800.0, help="--part llm: seconds per request")
    ap.add_argument("--llm-retries", type=int, default=0, help="--part llm: retries of a failed request")
    ap.add_argument("--llm-summarize", action="store_true",
                    help="--part llm: only summarize the papers the run folder holds (no run)")
    ap.add_argument("--llm-work", type=Path, default=Path("/tmp/claimtrace-bench-corpus-llm"),
                    help="--part llm: the run's folder (kept: re-running resumes)")
    ap.add_argument("--price-in", type=float, default=0.15, help="stated $ per million input tokens")
    ap.add_argument("--price-out", type=float, default=0.60, help="stated $ per million output tokens")
    a = ap.parse_args()
    if a.part == "throughput":
        throughput(a.limit, a.repeats, a.work, a.fresh, a.result)
    elif a.part == "storage":
        storage(a.limit)
    elif a.part == "llm":
        llm_sample(a.llm_papers, a.llm_base_url, a.llm_model, a.llm_work, not a.llm_summarize, a.llm_timeout,
                   a.llm_retries)
    else:
        report(a.price_in, a.price_out)


if __name__ == "__main__":
    main()
