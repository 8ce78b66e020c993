"""The wheel with the shipped trained retriever: its size, the model's share, build and install time.

    python bench/retrieval_wheel.py [--repeats 3]

Builds the wheel (`pip wheel . --no-deps`), checks that the model files are inside it with the pinned
sha256, then installs it into a fresh virtual environment (`pip install --no-deps`, so the time is the
package's own, model included, not its dependencies'), `--repeats` times; medians. Timings carry the
machine load (provenance): a loaded run's times are upper bounds.
Writes bench/results/retrieval_wheel.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from provenance import Run

REPO = Path(__file__).resolve().parents[1]
MODEL = REPO / "src" / "claimtrace" / "resources" / "retriever"
RESULTS = REPO / "bench" / "results" / "retrieval_wheel.json"


def main() -> None:
    """Build, inspect and install the wheel."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    prov = Run(data=[MODEL / "model.onnx", MODEL / "heads.npz", MODEL / "tokenizer.json", MODEL / "manifest.json"])
    manifest = json.loads((MODEL / "manifest.json").read_text())
    tmp = Path(tempfile.mkdtemp(prefix="claimtrace-wheel-"))
    builds, installs = [], []
    wheel = None
    for i in range(a.repeats):
        out = tmp / f"w{i}"
        t = time.time()
        subprocess.run([sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "-q", "-w", str(out)], check=True)
        builds.append(time.time() - t)
        wheel = next(out.glob("*.whl"))
        venv = tmp / f"venv{i}"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        t = time.time()
        subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                        "--no-deps", "--no-index", str(wheel)], check=True)
        installs.append(time.time() - t)
    assert wheel is not None
    with zipfile.ZipFile(wheel) as z:
        inside = {}
        for name, digest in manifest["files"].items():
            data = z.read(f"claimtrace/resources/retriever/{name}")
            assert hashlib.sha256(data).hexdigest() == digest, name
            inside[name] = len(data)
        model_compressed = sum(z.getinfo(f"claimtrace/resources/retriever/{n}").compress_size for n in manifest["files"])
    result = {"schema_version": "1", "wheel": wheel.name, "wheel_bytes": wheel.stat().st_size,
              "model_files_bytes": inside, "model_bytes_compressed_in_wheel": model_compressed,
              "build_s_median": round(statistics.median(builds), 2), "build_s_runs": [round(x, 2) for x in builds],
              "install_no_deps_s_median": round(statistics.median(installs), 2),
              "install_no_deps_s_runs": [round(x, 2) for x in installs], "repeats": a.repeats,
              "provenance": prov.finish()}
    RESULTS.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "provenance"}, indent=1))


if __name__ == "__main__":
    main()
