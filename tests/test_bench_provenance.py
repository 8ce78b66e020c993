"""The corpus bench's CPU accounting (bench/provenance.py): a measured cluster's CPU is its own, not others'.

Real processes burn real CPU; the assertions are on the CPU counted as the measured processes' own
(other engineers' processes may load the machine, which changes ``cores`` but not what is counted as own).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from provenance import OthersCpu, ProcLedger  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux only)")

#: a child that burns this much CPU, then prints what it used and exits
BURN = "import time\nwhile time.process_time() < {cpu}: pass\nprint(time.process_time(), flush=True)\n"

#: a long-lived parent in a session of its own (like `ray start`): on each line of stdin it starts a burning
#: child and reports the child's CPU; ``ignore`` makes it ignore SIGCHLD, as Ray's raylet does, so the kernel
#: reaps the child and no cutime ever holds the child's CPU
PARENT = textwrap.dedent("""
    import signal, subprocess, sys
    if {ignore}:
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    for line in sys.stdin:
        p = subprocess.Popen([sys.executable, "-c", {burn!r}], stdout=subprocess.PIPE, text=True,
                             start_new_session={child_session})
        out = p.stdout.read()
        p.wait()
        print(out.strip(), flush=True)
""")


def _parent(ignore_sigchld: bool, child_session: bool, cpu: float) -> subprocess.Popen[str]:
    src = PARENT.format(ignore=ignore_sigchld, burn=BURN.format(cpu=cpu), child_session=child_session)
    return subprocess.Popen([sys.executable, "-c", src], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            start_new_session=True)


def _burn_once(parent: subprocess.Popen[str]) -> float:
    assert parent.stdin is not None and parent.stdout is not None
    parent.stdin.write("go\n")
    parent.stdin.flush()
    return float(parent.stdout.readline())


def _close(parent: subprocess.Popen[str]) -> None:
    assert parent.stdin is not None
    parent.stdin.close()
    parent.wait(timeout=30)


def test_an_unreaped_child_in_a_new_session_is_counted_as_own_cpu() -> None:
    # Ray's case: the parent ignores SIGCHLD, and the child (in a session of its own here) exits inside the
    # section. Its CPU is in no process's cutime, and the child exists neither at the start nor at the end,
    # so reading the session's processes at the start and at the end only (the old accounting) counts ~0.
    parent = _parent(ignore_sigchld=True, child_session=True, cpu=1.0)
    try:
        with OthersCpu(sessions=[parent.pid], interval=0.1) as oc:
            child_cpu = _burn_once(parent)
    finally:
        _close(parent)
    assert child_cpu >= 1.0
    # lost: at most the child's CPU after its last scan; the parent's own CPU adds a little
    assert oc.sessions_seconds >= 0.7 * child_cpu, (oc.sessions_seconds, child_cpu)
    assert oc.sessions_seconds <= child_cpu + 0.5, (oc.sessions_seconds, child_cpu)
    assert oc.own_seconds >= oc.sessions_seconds
    # reading the session at the start and the end only (the earlier accounting) misses the child
    assert oc.sessions_seconds_at_ends < 0.3 * child_cpu, (oc.sessions_seconds_at_ends, child_cpu)


def test_a_waited_for_child_is_counted_once() -> None:
    # the parent waits for its child: the child's CPU is both in the child's scans and in the parent's cutime
    parent = _parent(ignore_sigchld=False, child_session=False, cpu=1.0)
    try:
        with ProcLedger([parent.pid], interval=0.1) as ledger:
            child_cpu = _burn_once(parent)
    finally:
        _close(parent)
    assert child_cpu - 0.05 <= ledger.seconds() <= child_cpu + 0.5, (ledger.seconds(), child_cpu)


def test_a_child_too_short_to_be_scanned_reaches_the_count_through_its_parent() -> None:
    # a long scan interval: the child starts and exits between two scans, and only its waiting parent's
    # cutime shows it
    parent = _parent(ignore_sigchld=False, child_session=True, cpu=0.5)
    try:
        with ProcLedger([parent.pid], interval=600) as ledger:
            child_cpu = _burn_once(parent)
    finally:
        _close(parent)
    assert not any(p.pid != parent.pid for p in ledger.procs)  # the child was never scanned
    assert child_cpu - 0.05 <= ledger.seconds() <= child_cpu + 0.5, (ledger.seconds(), child_cpu)


def test_processes_outside_the_sessions_are_not_counted() -> None:
    parent = _parent(ignore_sigchld=False, child_session=False, cpu=0.5)
    try:
        with ProcLedger([], interval=0.1) as ledger:
            _burn_once(parent)
    finally:
        _close(parent)
    assert ledger.procs == [] and ledger.seconds() == 0.0


def test_shared_tool_loads_a_shared_scorer_from_its_file() -> None:
    from conftest import SHARED_ROOT, require_shared
    from provenance import SHARED, shared_tool

    if SHARED.resolve() != SHARED_ROOT.resolve():
        pytest.skip("CLAIMTRACE_SHARED points elsewhere than ../shared, which the bench scripts read")
    path = require_shared(SHARED / "tools" / "ei_eval.py")
    ev = shared_tool("ei_eval")
    assert Path(ev.__file__) == path
    first = ev.prompts("validation", True)[0]
    assert {"pmcid", "intervention", "comparator", "outcome"} <= set(first)
