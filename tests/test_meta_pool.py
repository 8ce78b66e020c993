"""``meta`` pooling reproduces a published example: BCG vaccine trials (Colditz et al. 1994), log risk ratios.

Published results (metafor's ``dat.bcg`` example, Viechtbauer 2010, J Stat Softw 36(3)): fixed effect
-0.4303 (SE 0.0405); DerSimonian–Laird random effects -0.7141 (SE 0.1787), τ² = 0.3088, I² = 92.12%,
Q(df = 12) = 152.2330.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from claimtrace.errors import ClaimtraceError
from claimtrace.numbers.meta import pool
from claimtrace.numbers.model import Study
from conftest import REPO

# tpos, tneg, cpos, cneg
BCG = [(4, 119, 11, 128), (6, 300, 29, 274), (3, 228, 11, 209), (62, 13536, 248, 12619), (33, 5036, 47, 5761),
       (180, 1361, 372, 1079), (8, 2537, 10, 619), (505, 87886, 499, 87892), (29, 7470, 45, 7232),
       (17, 1699, 65, 1600), (186, 50448, 141, 27197), (5, 2493, 3, 2338), (27, 16886, 29, 17825)]


def _studies() -> list[Study]:
    out = []
    for i, (tp, tn, cp, cn) in enumerate(BCG, 1):
        yi = math.log((tp / (tp + tn)) / (cp / (cp + cn)))
        vi = 1 / tp - 1 / (tp + tn) + 1 / cp - 1 / (cp + cn)
        out.append(Study(id=str(i), yi=yi, vi=vi))
    return out


def test_bcg_fixed_and_dersimonian_laird_match_published_values() -> None:
    res = pool(_studies(), measure="RR")
    assert round(res.fixed.estimate, 4) == -0.4303
    assert round(res.fixed.se, 4) == 0.0405
    dl = next(r for r in res.random if "DL" in r.model)
    assert round(dl.estimate, 4) == -0.7141
    assert round(dl.se, 4) == 0.1787
    assert round(res.tau2["DL"], 4) == 0.3088
    assert round(100 * res.i2, 2) == 92.12
    assert round(res.q, 4) == 152.2330
    assert res.df == 12
    assert dl.pi_low is not None and dl.pi_high is not None and dl.pi_low < dl.ci_low < dl.ci_high < dl.pi_high
    assert res.ratio


def test_meta_needs_two_studies_and_positive_variances() -> None:
    with pytest.raises(ClaimtraceError):
        pool(_studies()[:1])
    with pytest.raises(ClaimtraceError):
        pool([Study(id="a", yi=0.1, vi=0.0), Study(id="b", yi=0.2, vi=0.1)])


def test_meta_cli_writes_table_json_and_forest_plots(tmp_path: Path) -> None:
    f = tmp_path / "studies.jsonl"
    f.write_text("".join(json.dumps({"id": s.id, "yi": s.yi, "vi": s.vi}) + "\n" for s in _studies()))
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMTRACE_LLM")}
    res = subprocess.run([sys.executable, "-m", "claimtrace", "meta", str(f), "--measure", "RR", "--json",
                          "--plot", str(tmp_path / "forest")], capture_output=True, text=True, cwd=REPO, env=env)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["schema_version"] and out["k"] == 13
    assert round(out["random"][0]["estimate"], 4) == -0.7141
    for ext in (".png", ".svg"):
        p = tmp_path / f"forest{ext}"
        assert p.exists() and p.stat().st_size > 1000
    assert (tmp_path / "forest.svg").read_text().lstrip().startswith("<?xml")
    text = subprocess.run([sys.executable, "-m", "claimtrace", "meta", str(f), "--measure", "RR"], capture_output=True,
                          text=True, cwd=REPO, env=env)
    assert "random (DL)" in text.stdout and "0.4896" in text.stdout  # exp(-0.7141)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "yi": 1}\n')
    res = subprocess.run([sys.executable, "-m", "claimtrace", "meta", str(bad)], capture_output=True, text=True,
                         cwd=REPO, env=env)
    assert res.returncode == 2 and res.stderr.startswith("error:") and "Traceback" not in res.stderr


def test_bcg_reml_matches_metafor() -> None:
    # metafor: rma(yi, vi, data = dat.bcg (log RR), method = "REML"): τ² = 0.3132, estimate −0.7145 (SE 0.1798)
    pytest.importorskip("pymare", reason="PyMARE (the 'reml' extra) is not installed")
    res = pool(_studies(), measure="RR", reml=True)
    reml = next(e for e in res.random if e.model == "random (REML)")
    assert round(res.tau2["REML"], 4) == 0.3132
    assert round(reml.estimate, 4) == -0.7145
    assert round(reml.se, 4) == 0.1798
