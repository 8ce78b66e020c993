"""Rewrite the path fields of committed experiment results (``docs/results/*/config.json`` and the ``dataset`` of
``summary.json``) as the runner now records them: relative to the repository root, ``../shared/...`` for the
shared data, ``~/...`` under the home folder (``claimtrace.evaluate.experiment.config.portable_path``).

Runs written before that recorded absolute paths of the checkout they ran in (a helper's worktree or the main
clone). That checkout's root is read from each file's own ``output`` field: the folder's path inside the
repository (``docs/results/NAME``) is its tail. Only the path fields change; every other value (scores,
fingerprints) is written back as it was read. ``--check`` exits 1 if a file still records an absolute path.

Usage: ``python scripts/portable_experiment_paths.py [--check]``
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from claimtrace.evaluate.experiment.config import PATH_FIELDS, portable_path  # noqa: E402


def _get(data: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for k in keys:
        if not isinstance(data, dict) or k not in data:
            return None
        data = data[k]
    return data


def _set(data: dict[str, Any], keys: tuple[str, ...], value: Any) -> None:
    for k in keys[:-1]:
        data = data[k]
    data[keys[-1]] = value


def run_root(config: dict[str, Any], folder: Path) -> Path | None:
    """The root of the checkout a run wrote from: its recorded ``output`` minus the folder's path in the repository."""
    out = str(config.get("output") or "")
    tail = folder.relative_to(REPO).as_posix()
    if Path(out).is_absolute() and out.rstrip("/").endswith("/" + tail):
        return Path(out.rstrip("/")[: -len(tail)])
    return None


def fix(folder: Path, check: bool) -> list[str]:
    """Make one result folder's recorded paths portable (or, with ``check``, list the absolute ones left)."""
    cfg_file, sum_file = folder / "config.json", folder / "summary.json"
    config = json.loads(cfg_file.read_text(encoding="utf-8"))
    root = run_root(config, folder)
    found: list[str] = []
    for keys in PATH_FIELDS:
        v = _get(config, keys)
        if isinstance(v, str) and Path(v).is_absolute():
            found.append(f"{cfg_file.relative_to(REPO)}: {'.'.join(keys)} = {v}")
            _set(config, keys, portable_path(v, root))
    summary = json.loads(sum_file.read_text(encoding="utf-8")) if sum_file.exists() else None
    if summary is not None and isinstance(summary.get("dataset"), str) and Path(summary["dataset"]).is_absolute():
        found.append(f"{sum_file.relative_to(REPO)}: dataset = {summary['dataset']}")
        summary["dataset"] = portable_path(summary["dataset"], root)
    if found and not check:  # the runner's own formatting of both files
        cfg_file.write_text(json.dumps(config, indent=2) + "\n")
        if summary is not None:
            sum_file.write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")
    return found


def main() -> int:
    """Fix (or check) every experiment result folder under docs/results/."""
    check = "--check" in sys.argv[1:]
    found = [x for f in sorted((REPO / "docs" / "results").glob("*/config.json")) for x in fix(f.parent, check)]
    for x in found:
        print(("absolute path: " if check else "made portable: ") + x)
    return 1 if check and found else 0


if __name__ == "__main__":
    raise SystemExit(main())
