"""Wire-target command templates: a relative program starts, a misspelt placeholder is refused."""

from __future__ import annotations

import shlex
import sys

import pytest

from tests.test_option_target import FAKE_HARNESS, SUITE, run_suite, statuses


@pytest.fixture(autouse=True)
def _no_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


def test_a_relative_target_command_runs_from_the_invocation_directory(pytester: pytest.Pytester) -> None:
    (pytester.path / "fake_harness.py").write_text(FAKE_HARNESS)
    script = pytester.path / "t.sh"
    script.write_text(
        f'#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(str(pytester.path / "fake_harness.py"))} good "$@"\n'
    )
    script.chmod(0o755)
    result = run_suite(pytester, SUITE, "--toolharness-target=./t.sh {prompt}")
    result.assert_outcomes(passed=1, skipped=1)
    assert statuses(pytester)["PAIR-1"] == "passed"


def test_an_unknown_placeholder_is_refused_with_the_known_ones(pytester: pytest.Pytester) -> None:
    result = run_suite(pytester, SUITE, "--toolharness-target=my-agent -p {promt}")
    # A usage error (on stderr), before anything runs.
    out = result.stdout.str() + result.stderr.str()
    assert "unknown placeholder(s) {promt}" in out
    assert "{prompt} {settings} {mcp_config} {workdir}" in out
    assert result.ret == pytest.ExitCode.USAGE_ERROR
