"""Interrupted runs: Ctrl-C and SIGTERM end in a report and an "interrupted" exit, and leave no temp dirs.

Each run is a real ``pytest`` process (with real xdist workers) signalled while its tests are in the
middle of running. ``TMPDIR`` points at a directory of the test's own, so anything the plugin, the
reference adapter or the isolation left behind is visible there: only pytest's own ``pytest-of-*``
base directory may remain.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests._fake_suite import left_in, make_suite

pytestmark = pytest.mark.usefixtures("_no_step_summary")

# Generous: only there so a regression can't hang our own test run (a worker starts in seconds).
_STARTUP_S = 240
_FINISH_S = 120


@pytest.fixture
def _no_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


def _interrupt(
    directory: Path, args: list[str], markers: list[Path], sig: signal.Signals, *, group: bool
) -> tuple[int, str, list[str]]:
    """Run pytest in ``directory``, send ``sig`` once every marker exists; its exit code, output, leftovers.

    ``group``: signal the whole process group, as a terminal's Ctrl-C does (workers included);
    otherwise only the pytest process, as ``kill`` or a CI runner's cancel does.
    """
    tmp = directory / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTEST_ADDOPTS", None)
    # One worker under isolation, so "the test after the slow one never ran" holds on any machine.
    env["PYTEST_XDIST_AUTO_NUM_WORKERS"] = "1"
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args]
    with subprocess.Popen(
        command,
        cwd=directory,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    ) as process:
        try:
            deadline = time.monotonic() + _STARTUP_S
            while not all(m.exists() for m in markers) and process.poll() is None:
                assert time.monotonic() < deadline, "the tests never started"
                time.sleep(0.1)
            assert process.poll() is None, "the run ended before it was signalled"
            if group:
                os.killpg(process.pid, sig)
            else:
                process.send_signal(sig)
            out, _ = process.communicate(timeout=_FINISH_S)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
    return process.returncode, out, left_in(tmp)


SLOW_PROJECT = """
import pathlib
import time

import pytest
from pytest_toolharness.adapters.reference import make_adapter


def test_schema_snapshot(tool_schema_snapshot):
    assert tool_schema_snapshot is not None


@pytest.mark.parametrize("name", ["a", "b"])
def test_slow(name):
    make_adapter().new_harness()  # a scratch directory of the reference adapter's
    pathlib.Path(f"started-{name}").write_text("")
    time.sleep(10**6)
"""


def test_ctrl_c_under_xdist_with_syrupy_is_an_interrupted_run_and_leaves_nothing(
    pytester: pytest.Pytester,
) -> None:
    """Ctrl-C during ``pytest -n 2`` (the README's test command): no syrupy warning turned into an
    error, exit code 2 (interrupted), and no temporary directory of ours left behind."""
    pytester.makepyprojecttoml('[tool.pytest.ini_options]\nfilterwarnings = ["error"]\n')
    pytester.makepyfile(test_project=SLOW_PROJECT)
    markers = [pytester.path / "started-a", pytester.path / "started-b"]
    code, out, left = _interrupt(
        pytester.path, ["-n", "2", "test_project.py"], markers, signal.SIGINT, group=True
    )
    assert "KeyboardInterrupt" in out
    assert "syrupy: received" not in out, out
    assert "INTERNALERROR" not in out, out
    assert "Traceback" not in out, out
    assert code == pytest.ExitCode.INTERRUPTED, out
    assert left == [], out


SIGTERM_SUITE = """
import pathlib
import time

@pytest.mark.requirement("PAIR-1", "MUST")
def test_fine():
    pass

@pytest.mark.requirement("PAIR-2", "MUST")
def test_slow(harness):
    pathlib.Path("started").write_text("")
    time.sleep(10**6)

@pytest.mark.requirement("PAIR-3", "MUST")
def test_never_reached():
    pass
"""

_ROW = re.compile(r"^\s+!?\s+(PAIR-\d+)\s")

REFERENCE_ADAPTER = """
from pytest_toolharness.adapters.reference import make_adapter

def make():
    adapter = make_adapter()
    adapter.name = "ref"
    return adapter
"""


@pytest.mark.parametrize("group", [False, True], ids=["pytest-only", "process-group"])
def test_sigterm_under_isolation_reports_what_ran_and_leaves_nothing(
    pytester: pytest.Pytester, group: bool
) -> None:
    """SIGTERM to an isolated run (the suite in an xdist worker): the report is still printed and says
    what ran and what did not, the exit code says interrupted, and no temporary directory is left."""
    suite = make_suite(pytester, SIGTERM_SUITE)
    pytester.makepyfile(refadapter=REFERENCE_ADAPTER)
    args = [
        "--toolharness-conformance",
        "-o",
        suite,
        "--toolharness-adapter=refadapter:make",
        "--toolharness-isolation=process",
        "-p",
        "no:hypothesispytest",
        "suite",
    ]
    code, out, left = _interrupt(
        pytester.path, args, [pytester.path / "started"], signal.SIGTERM, group=group
    )
    assert code == pytest.ExitCode.INTERRUPTED, out
    assert "toolharness conformance: refadapter:make" in out, out
    rows = {m[1]: line for line in out.splitlines() if (m := _ROW.match(line))}
    assert "passed" in rows["PAIR-1"], out
    assert "not checked" in rows["PAIR-3"], out
    assert "INTERNALERROR" not in out, out
    assert left == [], out
