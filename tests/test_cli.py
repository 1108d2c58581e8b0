"""``toolharness check``: runs the suite alone against an adapter and prints the report."""

from __future__ import annotations

import json
import sys

import pytest

from pytest_toolharness._cli import build_pytest_args, host_plugin_blocks, main

SUITE = """
import pytest

@pytest.mark.requirement("PAIR-1", "MUST")
def test_pairing(harness):
    assert harness.capabilities == frozenset()

@pytest.mark.requirement("PAIR-5", "SHOULD")
def test_order():
    assert False, "out of order"
"""


@pytest.fixture(autouse=True)
def _no_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


def test_check_runs_only_the_suite_and_prints_the_report(pytester: pytest.Pytester) -> None:
    (pytester.mkdir("suite") / "test_suite.py").write_text(SUITE)
    pytester.makepyfile(
        myadapter="class A:\n    capabilities = frozenset()\n\ndef make():\n    return A()\n",
        test_own="def test_own():\n    raise AssertionError('the user tests must not run')\n",
    )
    result = pytester.run(
        sys.executable,
        "-m",
        "pytest_toolharness._cli",
        "check",
        "--suite-path=suite",
        "--adapter=myadapter:make",
        "--report=report.json",
        "--",
        "-p",
        "no:hypothesispytest",
    )
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "*toolharness conformance: myadapter:make*",
            "*PAIR-1*MUST*passed*",
            "*PAIR-5*SHOULD*failed*out of order",
        ]
    )
    assert "the user tests must not run" not in result.stdout.str()
    statuses = {
        r["id"]: r["status"] for r in json.loads((pytester.path / "report.json").read_text())["requirements"]
    }
    assert (statuses["PAIR-1"], statuses["PAIR-5"]) == ("passed", "failed")


def test_options_become_pytest_arguments() -> None:
    import argparse

    options = argparse.Namespace(
        suite_path=None,
        adapter="pkg.mod:make",
        report="r.json",
        level="strict",
        requirement=["PAIR", "DEFER-1"],
        baseline="b.toml",
        workers="2",
    )
    args = build_pytest_args(options, ["-x"])
    # The host's addopts and unrelated plugins are left out of the suite's run (tests/test_host_isolation.py).
    blocks = host_plugin_blocks()
    isolation = ["-p", "no:cacheprovider", "-o", "addopts=", *blocks]
    assert args[2 : 3 + len(isolation)] == ["--toolharness-conformance", *isolation]
    assert args[3 + len(isolation) :] == [
        "--toolharness-adapter=pkg.mod:make",
        "--toolharness-report=r.json",
        "--toolharness-level=strict",
        "--toolharness-requirement=PAIR",
        "--toolharness-requirement=DEFER-1",
        "--toolharness-baseline=b.toml",
        "-n",
        "2",
        "-x",
    ]
    # The suite by package name, so pytest finds the project's configuration from the current directory.
    assert args[:2] == ["--pyargs", "conformance"]


def test_bad_level_is_rejected(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["check", "--level", "sometimes"])
    assert "invalid choice: 'sometimes'" in capsys.readouterr().err


def test_wire_options_become_pytest_arguments() -> None:
    from pytest_toolharness._cli import _parser as build_parser

    options = build_parser().parse_args(
        ["check", "--target", "opencode", "--target-env", "A=1", "--target-env", "B=x y", "--keep-workdirs"]
    )
    args = build_pytest_args(options, [])
    assert "--toolharness-target=opencode" in args
    assert args.index("--toolharness-target-env=A=1") < args.index("--toolharness-target-env=B=x y")
    assert "--toolharness-keep-workdirs" in args
    plain = build_pytest_args(build_parser().parse_args(["check", "--target", "opencode"]), [])
    assert not [a for a in plain if a.startswith(("--toolharness-target-env", "--toolharness-keep"))]
