"""A fake conformance suite and adapter for the plugin's pytester tests (one file per option)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

ADAPTER = """
CALLS = []

class Harness:
    async def execute(self, scenario):
        raise NotImplementedError

class Adapter:
    name = "fake"
    profiles = frozenset({"core", "claude-code"})
    capabilities = frozenset({"execution", "hooks"})

    def new_harness(self):
        return Harness()

def make():
    CALLS.append(1)
    return Adapter()
"""


def make_suite(pytester: pytest.Pytester, body: str) -> str:
    """Write a fake conformance suite and adapter; return the -o value that points the plugin at it."""
    directory = pytester.mkdir("suite")
    (directory / "test_suite.py").write_text(
        "import pytest\nfrom pytest_toolharness.adapters._capabilities import requires\n" + body
    )
    pytester.makepyfile(myadapter=ADAPTER)
    return f"toolharness_suite_path={directory}"


def run(pytester: pytest.Pytester, suite: str, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        "--toolharness-conformance", "-o", suite, "--toolharness-adapter=myadapter:make", "suite", *args
    )


def in_process_args(suite: str, *before_suite: str) -> list[str]:
    """pytest's arguments for the fake suite without workers (``before_suite``: more options)."""
    return [
        "--toolharness-conformance",
        "-o",
        suite,
        "--toolharness-adapter=myadapter:make",
        "--toolharness-isolation=none",
        "-p",
        "no:hypothesispytest",
        *before_suite,
        "suite",
    ]


def run_isolated(pytester: pytest.Pytester, suite: str, *args: str, timeout: float = 300) -> pytest.RunResult:
    """Run the fake suite in a pytest subprocess under process isolation (xdist workers)."""
    return pytester.runpytest_subprocess(
        "--toolharness-conformance",
        "-o",
        suite,
        "--toolharness-adapter=myadapter:make",
        "--toolharness-isolation=process",
        "-p",
        "no:hypothesispytest",
        "suite",
        *args,
        timeout=timeout,
    )


def left_in(directory: Path, *, wait_s: float = 20.0) -> list[str]:
    """What a finished run left in ``directory`` (its ``TMPDIR``), pytest's own folders aside.

    A run removes its run directory in a detached process as it exits, so that it need not wait for
    the removal; this waits for that process (at most ``wait_s``) before it looks.
    """
    deadline = time.monotonic() + wait_s
    while True:
        left = sorted(p.name for p in directory.iterdir() if not p.name.startswith("pytest-of-"))
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)
