"""Interop: the wire conformance suite against the real Claude Code CLI, offline.

The CLI runs only against the suite's scripted Messages API on 127.0.0.1, with a fresh HOME per run
(see pytest_toolharness.wire.targets._claude_code). Skipped, with the reason, when no binary is installed. The
differences it is expected to show live in pytest_toolharness/baselines/claude-code.toml, with
their evidence in docs/interop-claude-code.md.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import pytest_toolharness
from pytest_toolharness.wire.checks._requests import check_pairing, check_result_order, tool_results
from pytest_toolharness.wire.scenarios._mcp_tool_server import read_call_log
from pytest_toolharness.wire.scenarios._tool_calls import ConcurrentIds, concurrent_scenario
from pytest_toolharness.wire.targets._claude_code import CLAUDE_BIN_ENV, ClaudeCodeTarget, find_claude_binary
from pytest_toolharness.wire.targets._command import TargetInvocation, base_environment
from pytest_toolharness.wire.targets._wire_adapter import run_wire_scenario
from tests._wire_suite import run_wire_suite

BASELINE = Path(pytest_toolharness.__file__).parent / "baselines" / "claude-code.toml"
REPO = Path(__file__).resolve().parents[1]


def _binary() -> Path:
    try:
        binary = find_claude_binary()
    except FileNotFoundError as error:
        pytest.skip(str(error))
    if binary is None:
        pytest.skip(
            f"no Claude Code binary: claude-agent-sdk is not installed, no `claude` on PATH, no {CLAUDE_BIN_ENV}"
        )
    return binary


def _invocation(tmp_path: Path, base_url: str = "http://127.0.0.1:9") -> TargetInvocation:
    return TargetInvocation(
        prompt="say hi",
        settings_path=tmp_path / "settings.json",
        mcp_config_path=tmp_path / "mcp.json",
        workdir=tmp_path,
        base_url=base_url,
    )


# --- the target itself (no binary needed) -----------------------------------------------------


def test_command_is_print_mode_with_suite_settings_and_only_suite_mcp(tmp_path: Path) -> None:
    target = ClaudeCodeTarget(Path("/opt/claude"))
    argv = target.command(_invocation(tmp_path))
    assert argv[:3] == ["/opt/claude", "-p", "say hi"]
    assert argv[argv.index("--settings") + 1] == str(tmp_path / "settings.json")
    assert argv[argv.index("--output-format") + 1] == "json"
    # --mcp-config is variadic: the next word must be a flag, never a positional argument.
    after = argv[argv.index("--mcp-config") + 2]
    assert argv[argv.index("--mcp-config") + 1] == str(tmp_path / "mcp.json")
    assert after == "--strict-mcp-config"


def test_plugin_folders_are_loaded_with_plugin_dir(tmp_path: Path) -> None:
    """A scenario's plugin folders reach Claude Code and the reference CLI as --plugin-dir, any target as a variable."""
    import dataclasses
    import os

    from pytest_toolharness.wire.targets._command import ReferenceTarget

    inv = dataclasses.replace(_invocation(tmp_path), plugin_dirs=(tmp_path / "p1", tmp_path / "p2"))
    for argv in (ClaudeCodeTarget(Path("/opt/claude")).command(inv), ReferenceTarget().command(inv)):
        dirs = [argv[i + 1] for i, word in enumerate(argv) if word == "--plugin-dir"]
        assert dirs == [str(tmp_path / "p1"), str(tmp_path / "p2")]
    assert base_environment(inv)["TOOLHARNESS_PLUGIN_DIRS"] == os.pathsep.join(dirs)
    assert "--plugin-dir" not in ClaudeCodeTarget(Path("/opt/claude")).command(_invocation(tmp_path))


def test_environment_is_offline_and_loopback_only(tmp_path: Path) -> None:
    target = ClaudeCodeTarget(Path("/opt/claude"))
    inv = _invocation(tmp_path)
    env = {**base_environment(inv), **target.environment(inv)}
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"
    assert env["HOME"] == str(tmp_path / "home")
    assert env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    assert env["DISABLE_AUTOUPDATER"] == "1"
    with pytest.raises(ValueError, match="only against a loopback server"):
        target.environment(_invocation(tmp_path, "https://api.anthropic.com"))


def test_explicit_binary_that_is_missing_is_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(CLAUDE_BIN_ENV, str(tmp_path / "nope"))
    with pytest.raises(FileNotFoundError, match=f"{CLAUDE_BIN_ENV}=.*not an executable file"):
        find_claude_binary()


# --- the real CLI ---------------------------------------------------------------------------


def test_wire_suite_matches_the_baseline(tmp_path: Path) -> None:
    """Every wire requirement passes except the baseline's, and each baseline entry really fails."""
    _binary()
    done, rows = run_wire_suite("claude-code", tmp_path / "report.json", f"--toolharness-baseline={BASELINE}")
    assert rows, done.stdout[-3000:] + done.stderr[-3000:]
    statuses = {i: r["status"] for i, r in rows.items()}
    expected = {e["id"] for e in tomllib.loads(BASELINE.read_text())["expected_failures"]}
    failed = sorted(i for i, s in statuses.items() if s == "failed")
    assert failed == [], (
        f"Claude Code failed wire requirements not in the baseline: {failed}\n{done.stdout[-4000:]}"
    )
    shown = {i for i, s in statuses.items() if s == "expected failure"}
    assert shown == expected, (
        f"baseline {sorted(expected)} but the run showed expected failures {sorted(shown)} "
        f"(a baseline entry that passes is stale: the difference is gone or no wire test exercises it)"
    )
    assert done.returncode == 0, done.stdout[-4000:]


def test_results_come_in_completion_order(tmp_path: Path) -> None:
    """Evidence for the PAIR-5 baseline entry: the wire suite's ``concurrent`` scenario.

    A slow and a fast read-only MCP call, then an unknown tool: Claude Code answers the slow call last,
    after the unknown tool and the fast call (those two race: either may come first), while the MCP
    server's log shows both calls overlapped.
    """
    target = ClaudeCodeTarget(_binary())
    run = run_wire_scenario(target, concurrent_scenario(), tmp_path / "run", timeout=120)
    assert run.failure() is None, run.failure()
    assert check_pairing(run.requests) == []
    results = tool_results(run.requests)
    assert all(len(results[i]) == 1 for i in ConcurrentIds.ALL), results
    problems = check_result_order(run.requests)
    assert problems, "Claude Code kept tool_use order: remove PAIR-5 from the baseline"
    answered = [tool_use_id for tool_use_id in results if tool_use_id in ConcurrentIds.ALL]
    assert answered[-1] == ConcurrentIds.SLOW, answered
    assert set(answered[:-1]) == {ConcurrentIds.UNKNOWN, ConcurrentIds.FAST}, answered
    kinds = [(e["event"], e["tool"]) for e in read_call_log(tmp_path / "run")]
    assert kinds[:2] == [("start", "slow"), ("start", "fast")], kinds


def test_baseline_evidence_recurs(tmp_path: Path) -> None:
    """Each baseline entry with evidence: its scenario, run on the real CLI, records those bytes in that file.

    The scenarios are the wire suite's own (``conformance/test_wire_rules.py``), so the evidence is
    what ``--toolharness-keep-workdirs`` shows a user; a drawn finding's (``drawn-...``) is the shrunk
    scenario the profile's packaged replay file holds for that test.
    """
    from conformance._wire_drawn import read_replay
    from conformance.test_wire_rules import _SCENARIOS

    target = ClaudeCodeTarget(_binary())
    entries = [e for e in tomllib.loads(BASELINE.read_text())["expected_failures"] if "evidence" in e]
    assert {e["id"] for e in entries} >= {"PAIR-5", "PERM-12", "PERM-17", "CONC-4", "RESULT-3"}
    for entry in entries:
        evidence = entry["evidence"]
        if evidence["scenario"].startswith("drawn-"):
            drawn = read_replay(BASELINE.with_suffix(".drawn.jsonl"), "claude-code", evidence["scenario"])
            assert drawn, f"{BASELINE.with_suffix('.drawn.jsonl')} holds no {evidence['scenario']} scenario"
            scenario = drawn[0].scenario()
        else:
            scenario = {**_SCENARIOS, "concurrent": concurrent_scenario}[evidence["scenario"]]()
        run = run_wire_scenario(target, scenario, tmp_path / entry["id"], timeout=120)
        assert run.failure() is None, run.failure()
        recorded = (tmp_path / entry["id"] / evidence["file"]).read_bytes()
        assert evidence["bytes"].encode() in recorded, (entry["id"], recorded[:2000])
