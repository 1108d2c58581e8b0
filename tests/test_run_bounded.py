"""Bounded runs: a harness that hangs or crashes ends in a report and a non-zero exit, by itself.

Each run is a real pytest subprocess with the suite isolated in an xdist worker; the outer timeout
is generous and only there so a regression can't hang our own test run.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time

import pytest

from tests._fake_suite import in_process_args, left_in, make_suite, run_isolated

pytestmark = pytest.mark.usefixtures("_no_step_summary")


@pytest.fixture
def _no_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


MISBEHAVING = """
import asyncio
import ctypes
import os
import time

@pytest.mark.requirement("PAIR-1", "MUST")
def test_sleeps_forever():
    time.sleep(10**6)

@pytest.mark.requirement("PAIR-2", "MUST")
def test_blocks_in_c_holding_the_gil():
    ctypes.PyDLL(None).sleep(10**6)

@pytest.mark.requirement("PAIR-3", "MUST")
def test_hangs_async():
    asyncio.run(asyncio.sleep(10**6))

@pytest.mark.requirement("PAIR-4", "MUST")
def test_exits_the_process():
    os._exit(3)

@pytest.mark.requirement("PAIR-5", "SHOULD")
def test_raises_system_exit():
    raise SystemExit(2)

@pytest.mark.requirement("PAIR-6", "MUST")
def test_fine():
    pass
"""


def test_hangs_and_crashes_end_in_a_report_naming_each_test(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = make_suite(pytester, MISBEHAVING)
    # Two workers, as on a 2-core machine (isolation starts as many as -n auto would).
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "2")
    result = run_isolated(pytester, suite, "--toolharness-test-timeout=3", "--toolharness-report=r.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    out = result.stdout.str()
    assert "created: 2/2 workers" in out
    for name in ("test_sleeps_forever", "test_blocks_in_c_holding_the_gil", "test_hangs_async"):
        assert f"hung: suite/test_suite.py::{name} did not finish within its budget of 3 s" in out
    assert "crashed: the process running suite/test_suite.py::test_exits_the_process died" in out
    statuses = {r["id"]: r for r in json.loads((pytester.path / "r.json").read_text())["requirements"]}
    for requirement_id in ("PAIR-1", "PAIR-2", "PAIR-3", "PAIR-4", "PAIR-5"):
        assert statuses[requirement_id]["status"] == "failed", statuses[requirement_id]
    assert "hung" in statuses["PAIR-1"]["reason"]
    assert "time.sleep" in out or "test_sleeps_forever" in statuses["PAIR-1"]["reason"]
    assert statuses["PAIR-6"]["status"] == "passed"


ONE_HANGS_FIRST = """
import time

@pytest.mark.requirement("PAIR-1", "MUST")
def test_hangs():
    time.sleep(10**6)

@pytest.mark.requirement("PAIR-2", "MUST")
def test_fine_a():
    pass

@pytest.mark.requirement("PAIR-3", "MUST")
def test_fine_b():
    pass

@pytest.mark.requirement("PAIR-6", "MUST")
def test_fine_c():
    pass
"""


@pytest.mark.parametrize("stop_first", [False, True], ids=["every-test", "exitfirst"])
def test_a_hung_test_of_the_only_worker_does_not_stall_the_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, stop_first: bool
) -> None:
    """One worker (as the mutant runner runs the suite): its replacement gets the tests left, and runs the last.

    A worker runs a test only once it holds the next one or is told to shut down; the replacement
    was given one single-test unit and both sides waited for ever (found by a PERM-14 mutant whose
    backtracking matcher hung a test).
    """
    suite = make_suite(pytester, ONE_HANGS_FIRST)
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "1")
    args = ["--toolharness-test-timeout=3", *(["--exitfirst"] if stop_first else [])]
    result = run_isolated(pytester, suite, *args, timeout=120)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    out = result.stdout.str()
    assert "hung: suite/test_suite.py::test_hangs did not finish within its budget of 3 s" in out
    result.assert_outcomes(failed=1, passed=3)


def test_the_run_budget_ends_the_run_with_a_report(pytester: pytest.Pytester) -> None:
    suite = make_suite(
        pytester,
        """
import time

@pytest.mark.requirement("PAIR-1", "MUST")
def test_fine():
    pass

@pytest.mark.requirement("PAIR-2", "MUST")
def test_slow():
    time.sleep(10**6)
""",
    )
    # A budget well past a worker's start-up, so the first test has run when it is spent.
    result = run_isolated(pytester, suite, "--toolharness-test-timeout=0", "--toolharness-run-timeout=40")
    assert result.ret not in (pytest.ExitCode.OK, None)
    result.stdout.fnmatch_lines(["*toolharness: the run budget of 40 s was spent*"])
    result.stdout.fnmatch_lines(["*toolharness conformance: myadapter:make*"])


def test_sigterm_gives_a_report_and_removes_temporary_directories(pytester: pytest.Pytester) -> None:
    suite = make_suite(
        pytester,
        """
import pathlib
import tempfile
import time

@pytest.mark.requirement("PAIR-1", "MUST")
def test_fine():
    pass

@pytest.mark.requirement("PAIR-2", "MUST")
def test_slow():
    with tempfile.TemporaryDirectory(prefix="toolharness-sigterm-") as tmp:
        pathlib.Path("tmpdir.txt").write_text(tmp)
        time.sleep(10**6)
""",
    )
    command = [sys.executable, "-m", "pytest", *in_process_args(suite, "-p", "no:cacheprovider")]
    marker = pytester.path / "tmpdir.txt"
    with subprocess.Popen(command, cwd=pytester.path, stdout=subprocess.PIPE, text=True) as process:
        deadline = time.monotonic() + 120
        while not marker.exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.1)
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=120)
    assert process.returncode != 0
    assert "toolharness conformance: myadapter:make" in out
    assert "PAIR-1" in out
    tmp = marker.read_text()
    assert not (pytester.path / tmp).exists()


# Issue 12's "done when": a harness (not a test) that sleeps forever, sync or async, one that calls
# os._exit, and one with no capabilities each end in a report and a non-zero exit, by themselves,
# within the run budget, and leave no temporary directory behind.
MISBEHAVING_HARNESSES = """
import asyncio
import os
import time

from pytest_toolharness.adapters.reference import make_adapter


class Harness:
    def __init__(self, how):
        self.how = how

    async def execute(self, scenario):
        if self.how == "sleeps":
            time.sleep(10**6)  # blocks the event loop: no asyncio timeout can end it
        elif self.how == "hangs_async":
            await asyncio.sleep(10**6)
        elif self.how == "exits":
            os._exit(3)
        raise AssertionError("unreachable")


class Adapter:
    def __init__(self, how, capabilities):
        self.name = how
        self.how = how
        self.capabilities = capabilities
        self.reference = make_adapter()  # a scratch directory, as a real adapter has

    def new_harness(self):
        self.reference.new_harness()
        return Harness(self.how)


def sleeps():
    return Adapter("sleeps", frozenset({"execution"}))

def hangs_async():
    return Adapter("hangs_async", frozenset({"execution"}))

def exits():
    return Adapter("exits", frozenset({"execution"}))

def no_capabilities():
    return Adapter("no_capabilities", frozenset())
"""

_STATUS = re.compile(r"^\s+!?\s*(PAIR-[12])\s+MUST\s+(passed|failed|not checked)\b", re.MULTILINE)

HARNESS_SUITE = """
import asyncio

@requires("execution")
@pytest.mark.requirement("PAIR-1", "MUST")
def test_pairing(harness):
    asyncio.run(harness.execute(None))

@requires("execution")
@pytest.mark.requirement("PAIR-2", "MUST")
def test_after_it(harness):
    pass
"""


@pytest.mark.parametrize(
    ("factory", "verdict"),
    [
        ("sleeps", "hung: suite/test_suite.py::test_pairing did not finish within its budget of 5 s"),
        ("hangs_async", "hung: suite/test_suite.py::test_pairing did not finish within its budget of 5 s"),
        ("exits", "crashed: the process running suite/test_suite.py::test_pairing died"),
        ("no_capabilities", "nothing was checked: every requirement test was skipped"),
    ],
    ids=["sleeps", "hangs-async", "exits", "no-capabilities"],
)
def test_a_misbehaving_harness_ends_in_a_report_by_itself(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, factory: str, verdict: str
) -> None:
    """Issue 12, done when: the run ends by itself (per-test budget 5 s, run budget 600 s, never
    spent) with the report, the verdict on the test that misbehaved, and a non-zero exit; the rest
    of the suite still runs; no temporary directory of the worker's is left."""
    suite = make_suite(pytester, HARNESS_SUITE)
    pytester.makepyfile(harnesses=MISBEHAVING_HARNESSES)
    tmp = pytester.mkdir("tmp")
    monkeypatch.setenv("TMPDIR", str(tmp))
    result = pytester.runpytest_subprocess(
        "--toolharness-conformance",
        "-o",
        suite,
        f"--toolharness-adapter=harnesses:{factory}",
        "--toolharness-isolation=process",
        "--toolharness-test-timeout=5",
        "--toolharness-run-timeout=600",
        "-p",
        "no:hypothesispytest",
        "-p",
        "no:cacheprovider",
        "suite",
        timeout=300,
    )
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, out
    assert verdict in out, out
    assert f"toolharness conformance: harnesses:{factory}" in out
    assert "run budget" not in out
    statuses = dict(_STATUS.findall(out))
    if factory == "no_capabilities":
        assert statuses == {"PAIR-1": "not checked", "PAIR-2": "not checked"}, out
    else:
        assert statuses == {"PAIR-1": "failed", "PAIR-2": "passed"}, out
    assert left_in(tmp) == [], out
