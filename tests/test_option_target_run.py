"""Options of a wire run: the target's environment, kept workdirs, relative commands, placeholders, profiles."""

from __future__ import annotations

import json
import shlex
import sys
import textwrap
from pathlib import Path

# Imported so pytester's in-process runs find Hypothesis loaded instead of re-importing it each run.
import hypothesis  # noqa: F401
import pytest

from pytest_toolharness.wire.targets._profiles import ENTRY_POINT_GROUP
from tests.test_option_target import FAKE_HARNESS, SUITE, statuses

# The fake harness, plus: it fails unless TOOLHARNESS_TEST_FLAG has the value the test passed.
FLAG_HARNESS = (
    "import os, sys\n"
    "if os.environ.get('TOOLHARNESS_TEST_FLAG'.replace('TOOLHARNESS_TEST_', 'MY_')) != 'a=b c':\n"
    "    sys.stderr.write('MY_FLAG is %r\\n' % os.environ.get('MY_FLAG'))\n"
    "    sys.exit(4)\n" + FAKE_HARNESS
)


@pytest.fixture(autouse=True)
def _no_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("MY_FLAG", raising=False)


def run_suite(pytester: pytest.Pytester, source: str, *extra: str) -> pytest.RunResult:
    suite = pytester.path / "suite"
    suite.mkdir(exist_ok=True)
    (suite / "test_suite.py").write_text(source)
    return pytester.runpytest(
        "--toolharness-conformance",
        "-o",
        f"toolharness_suite_path={suite}",
        "--toolharness-report=report.json",
        "suite",
        *extra,
    )


def _template(harness: Path) -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(harness))} good {{prompt}}"


def test_target_env_reaches_the_target(pytester: pytest.Pytester) -> None:
    harness = pytester.path / "flag_harness.py"
    harness.write_text(FLAG_HARNESS)
    # Without the variable the target's environment is clean: the harness fails.
    result = run_suite(pytester, SUITE, f"--toolharness-target={_template(harness)}")
    result.assert_outcomes(failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*MY_FLAG is None*"])
    result = run_suite(
        pytester,
        SUITE,
        f"--toolharness-target={_template(harness)}",
        "--toolharness-target-env=MY_FLAG=a=b c",
    )
    result.assert_outcomes(passed=1, skipped=1)
    assert statuses(pytester)["PAIR-1"] == "passed"


def test_target_env_from_the_ini_file(pytester: pytest.Pytester) -> None:
    harness = pytester.path / "flag_harness.py"
    harness.write_text(FLAG_HARNESS)
    pytester.makeini("[pytest]\ntoolharness_target_env =\n    OTHER=1\n    MY_FLAG=a=b c\n")
    result = run_suite(pytester, SUITE, f"--toolharness-target={_template(harness)}")
    result.assert_outcomes(passed=1, skipped=1)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("NOVALUE", "*--toolharness-target-env 'NOVALUE' is not NAME=VALUE*"),
        ("=x", "*--toolharness-target-env '=x' is not NAME=VALUE*"),
        (
            "ANTHROPIC_BASE_URL=http://example.com",
            "*ANTHROPIC_BASE_URL is set by the suite*can't be overridden*",
        ),
        ("HOME=/root", "*HOME is set by the suite*"),
        ("TOOLHARNESS_WORKDIR=/tmp", "*TOOLHARNESS_WORKDIR is set by the suite*"),
    ],
)
def test_bad_target_env_is_a_usage_error(pytester: pytest.Pytester, given: str, message: str) -> None:
    result = pytester.runpytest("--toolharness-target=reference", f"--toolharness-target-env={given}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


@pytest.mark.parametrize("isolation", ["none", "process"])
def test_keep_workdirs_keeps_the_request_bodies_and_says_where(
    pytester: pytest.Pytester, isolation: str
) -> None:
    """In this process or in an xdist worker, the runs land in the one folder the summary names."""
    harness = pytester.path / "fake_harness.py"
    harness.write_text(FAKE_HARNESS)
    result = run_suite(
        pytester,
        SUITE,
        f"--toolharness-target={_template(harness)}",
        "--toolharness-keep-workdirs",
        f"--toolharness-isolation={isolation}",
    )
    result.assert_outcomes(passed=1, skipped=1)
    lines = [line for line in result.stdout.lines if "wire workdirs kept in" in line]
    assert len(lines) == 1, result.stdout.str()
    root = Path(lines[0].split("kept in ", 1)[1].split(" (", 1)[0])
    bodies = sorted(root.glob("*/harness-*/*-echo/requests/*-POST-v1_messages.json"))
    # The fake harness sent two requests (the tool_use turn, then the results); each body as sent.
    assert len(bodies) == 2, sorted(str(p) for p in root.rglob("*"))
    second = json.loads(bodies[1].read_bytes())
    assert [b["tool_use_id"] for b in second["messages"][-1]["content"]] == ["toolu_1", "toolu_2"]
    assert (bodies[0].parent.parent / "settings.json").is_file()


def test_workdirs_are_deleted_without_the_option(pytester: pytest.Pytester) -> None:
    harness = pytester.path / "fake_harness.py"
    harness.write_text(FAKE_HARNESS)
    result = run_suite(pytester, SUITE, f"--toolharness-target={_template(harness)}")
    result.assert_outcomes(passed=1, skipped=1)
    assert "workdirs kept" not in result.stdout.str()


def test_a_relative_command_is_resolved_from_the_invoking_directory(pytester: pytest.Pytester) -> None:
    """The target runs in the scenario's workdir, yet ``./bin/agent`` means the one where pytest was run."""
    bin_dir = pytester.mkdir("bin")
    (bin_dir / "fake_harness.py").write_text(FAKE_HARNESS)
    agent = bin_dir / "agent"
    agent.write_text(
        f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$(dirname "$0")/fake_harness.py" good "$1"\n'
    )
    agent.chmod(0o755)
    result = run_suite(pytester, SUITE, "--toolharness-target=./bin/agent {prompt}")
    result.assert_outcomes(passed=1, skipped=1)
    assert statuses(pytester)["PAIR-1"] == "passed"


def test_an_unknown_placeholder_is_refused(pytester: pytest.Pytester) -> None:
    result = run_suite(pytester, SUITE, "--toolharness-target=my-agent -p {promt} --cfg {settings}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown placeholder(s) {promt}; the known ones are {prompt} {settings}*"])
    assert "Traceback" not in result.stderr.str()
    # JSON and shell braces are not placeholders.
    result = run_suite(pytester, SUITE, """--toolharness-target=sh -c 'echo {"a": 1} ${HOME}' {prompt}""")
    assert result.ret != pytest.ExitCode.USAGE_ERROR


THIRD_PARTY = textwrap.dedent(
    """
    import shlex, sys
    from pathlib import Path
    from pytest_toolharness.wire.scenarios._core import ToolNames
    from pytest_toolharness.wire.targets._command import CommandTarget

    HARNESS = Path(__file__).with_name("fake_harness.py")


    class Profile:
        name = "third-party-cli"
        description = "a CLI from another package"
        claims = ("core",)
        capabilities = frozenset({"mcp"})
        names = ToolNames(read=None, shell=None, tool_search=None, mcp_format="{server}_{tool}")

        def find_binary(self):
            return Path(sys.executable)

        def target(self):
            target = CommandTarget(f"{shlex.quote(sys.executable)} {shlex.quote(str(HARNESS))} good {{prompt}}")
            target.name = "third-party-cli"
            return target

        def baseline(self):
            return Path(__file__).with_name("baseline.toml")


    def profile():
        return Profile()
    """
)


def test_a_target_name_resolves_through_the_entry_point_group(pytester: pytest.Pytester) -> None:
    """A package's profile, declared in the group by a real dist-info on sys.path, is what the name runs."""
    site = pytester.mkdir("site")
    (site / "third_party_cli.py").write_text(THIRD_PARTY)
    (site / "fake_harness.py").write_text(FAKE_HARNESS)
    (site / "baseline.toml").write_text('[[expected_failures]]\nid = "PAIR-5"\nreason = "known"\n')
    info = site / "third_party_cli-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: third-party-cli\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\nthird-party-cli = third_party_cli:profile\n"
    )
    pytester.syspathinsert(site)
    try:
        result = run_suite(pytester, SUITE, "--toolharness-target=third-party-cli")
    finally:
        sys.modules.pop("third_party_cli", None)
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*toolharness: baseline: the target's packaged *site/baseline.toml*"])
    assert statuses(pytester)["PAIR-1"] == "passed"
    # The profile claims core only: a claude-code requirement is not claimed, not "not checked".
    assert statuses(pytester)["EXEC-3"] == "not claimed"
