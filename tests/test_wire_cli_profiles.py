"""The opencode and Cline target profiles: their own config from a scenario's roles, and the artefacts
of Claude Code's conventions that made them fail for the wrong reasons (issue 16), each kept from recurring.

The real CLIs run in ``test_*_baseline_evidence_recurs`` (skipped when the CLI is not installed: CI
installs both, see ``.ci/run``); everything else is the translation, which needs no CLI.
"""

from __future__ import annotations

import json
import os
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance._wire_runs import scenario_runner
from pytest_toolharness.processes import _launch
from pytest_toolharness.wire.checks import _evidence as evidence
from pytest_toolharness.wire.model_api._turns import AssistantTurn
from pytest_toolharness.wire.scenarios._core import ToolNames, WireScenario
from pytest_toolharness.wire.scenarios._security import mode_scenario, security_scenario, stop_scenario
from pytest_toolharness.wire.scenarios._tool_calls import (
    PairingIds,
    concurrent_scenario,
    deferred_scenario,
    pairing_scenario,
    scheduling_scenario,
)
from pytest_toolharness.wire.targets._cline import CLINE_BIN_ENV, CLINE_NAMES, ClineTarget, cline_files
from pytest_toolharness.wire.targets._command import TargetInvocation, TargetOutcome
from pytest_toolharness.wire.targets._opencode import (
    OPENCODE_BIN_ENV,
    OPENCODE_NAMES,
    OpencodeTarget,
    opencode_config,
)
from pytest_toolharness.wire.targets._profiles import (
    ClineProfile,
    OpencodeProfile,
    TargetProfile,
    profile_named,
)
from pytest_toolharness.wire.targets._roles import Rule, settings_rules
from pytest_toolharness.wire.targets._wire_adapter import WireHarness, WireRun, write_mcp_config

_FORK_SERVER = Path(_launch.__file__).with_name("_forkserver.py")

PROFILES: list[TargetProfile] = [OpencodeProfile(), ClineProfile()]
SCENARIOS: list[Callable[[ToolNames], WireScenario]] = [
    pairing_scenario,
    deferred_scenario,
    concurrent_scenario,
    scheduling_scenario,
    security_scenario,
    stop_scenario,
    lambda names: mode_scenario("plan", names),
]
CLAUDE_CODE_TOOLS = {"Read", "Bash", "ToolSearch", "Write", "Edit"}


def invocation(tmp_path: Path, scenario: WireScenario) -> TargetInvocation:
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps(dict(scenario.settings)), encoding="utf-8")
    return TargetInvocation(
        prompt=scenario.prompt,
        settings_path=settings,
        mcp_config_path=write_mcp_config(tmp_path / "mcp.json", scenario),
        workdir=tmp_path,
        base_url="http://127.0.0.1:4321",
    )


def test_both_profiles_are_builtin_and_claim_core() -> None:
    for name, target_class in (("opencode", OpencodeTarget), ("cline", ClineTarget)):
        profile = profile_named(name)
        assert isinstance(profile, TargetProfile)
        assert profile.claims == ("core",)
        assert {"mcp", "read_tool", "shell_tool"} <= profile.capabilities
        assert "tool_search" not in profile.capabilities
        assert "command_hooks" not in profile.capabilities
        baseline = profile.baseline()
        assert baseline is not None
        assert baseline.is_file()
        if profile.find_binary() is not None:
            assert isinstance(profile.target(), target_class)


@pytest.mark.parametrize(
    ("profile", "env_var"), [(OpencodeProfile(), OPENCODE_BIN_ENV), (ClineProfile(), CLINE_BIN_ENV)]
)
def test_the_binary_from_its_variable_or_path(
    profile: TargetProfile, env_var: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(env_var, str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError, match=f"{env_var}=.*missing is not an executable file"):
        profile.find_binary()
    fake = tmp_path / "cli"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv(env_var, str(fake))
    assert profile.find_binary() == fake
    monkeypatch.delenv(env_var)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert profile.find_binary() is None
    with pytest.raises(FileNotFoundError, match=f"npm install -g .*or set {env_var}"):
        profile.target()


def test_rules_read_back_as_roles() -> None:
    settings = {
        "permissions": {
            "deny": ["bash(rm -rf:*)"],
            "allow": ["suite_echo", "read(*)"],
            "ask": ["bash(git push)"],
        }
    }
    assert settings_rules(settings) == [
        Rule("allow", "suite_echo"),
        Rule("allow", "read"),
        Rule("ask", "bash", "git push"),
        Rule("deny", "bash", "rm -rf*"),
    ]
    with pytest.raises(ValueError, match="is not Tool or Tool"):
        settings_rules({"permissions": {"allow": ["bad rule("]}})
    with pytest.raises(ValueError, match="must be a list"):
        settings_rules({"permissions": {"deny": "bash"}})


def test_opencode_config_from_the_pairing_scenario(tmp_path: Path) -> None:
    scenario = pairing_scenario(OPENCODE_NAMES)
    config = opencode_config(invocation(tmp_path, scenario))
    assert config["provider"]["anthropic"]["options"]["baseURL"] == "http://127.0.0.1:4321/v1"
    assert config["autoupdate"] is False
    assert config["share"] == "disabled"
    (server,) = config["mcp"].values()
    assert server["type"] == "local"
    # The suite's MCP server: python -m, or its fork server's requester (pytest_toolharness/processes/_launch.py).
    command = server["command"]
    module = command.index("pytest_toolharness.wire.scenarios._mcp_tool_server")
    assert command[0] == sys.executable
    assert command[1:module] == ["-m"] or command[1:4] == ["-I", "-S", str(_FORK_SERVER)]
    assert command[module + 1] == "--tools"
    permission = config["permission"]
    assert permission["*"] == "ask"  # no rule: ask, which a non-interactive run can't grant
    assert permission["suite_echo"] == "allow"
    assert permission["bash"] == {"*": "ask", "echo denied-by-rule*": "deny"}
    # Deny beats allow on the same pattern: the stronger action is written last.
    settings = tmp_path / "other-settings.json"
    settings.write_text(json.dumps({"permissions": {"allow": ["bash(ls:*)"], "deny": ["bash(ls:*)"]}}))
    permission = opencode_config(_with_settings(tmp_path, scenario, settings))["permission"]
    assert permission["bash"] == {"*": "ask", "ls*": "deny"}


def _with_settings(tmp_path: Path, scenario: WireScenario, settings: Path) -> TargetInvocation:
    inv = invocation(tmp_path, scenario)
    return TargetInvocation(inv.prompt, settings, inv.mcp_config_path, inv.workdir, inv.base_url)


def test_opencode_command_writes_its_config(tmp_path: Path) -> None:
    target = OpencodeTarget(Path("/usr/bin/opencode"))
    inv = invocation(tmp_path, pairing_scenario(OPENCODE_NAMES))
    argv = target.command(inv)
    assert argv[:2] == ["/usr/bin/opencode", "run"]
    assert argv[-1] == inv.prompt
    env = target.environment(inv)
    assert json.loads(Path(env["OPENCODE_CONFIG"]).read_text()) == opencode_config(inv)
    assert env["OPENCODE_DISABLE_MODELS_FETCH"] == "1"
    assert env["OPENCODE_DISABLE_AUTOUPDATE"] == "1"


def test_cline_files_from_the_pairing_scenario(tmp_path: Path) -> None:
    inv = invocation(tmp_path, pairing_scenario(CLINE_NAMES))
    files = cline_files(inv)
    settings = files["settings/providers.json"]["providers"]["anthropic"]["settings"]
    assert settings["baseUrl"] == "http://127.0.0.1:4321/v1"
    assert settings["provider"] == "anthropic"
    (server,) = files["settings/cline_mcp_settings.json"]["mcpServers"].values()
    assert server["timeout"] >= 30
    argv = ClineTarget(Path("/usr/bin/cline")).command(inv)
    data = Path(argv[argv.index("--data-dir") + 1])
    assert json.loads((data / "settings/providers.json").read_text()) == files["settings/providers.json"]
    assert argv[-1] == inv.prompt


# -- the artefacts of issue 16, one test each ---------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
def test_artefact_scenarios_call_the_clis_own_tool_names(profile: TargetProfile) -> None:
    """Artefact: the scenarios named Claude Code's tools (Read, Bash, ToolSearch) and MCP naming (mcp__)."""
    for make in SCENARIOS:
        scenario = make(profile.names)
        names = {spec.name for spec in scenario.mcp_tools}
        for step in scenario.steps:
            if isinstance(step, AssistantTurn):
                names |= {block.name for block in step.tool_uses}
        rules = json.dumps(dict(scenario.settings))
        assert not names & CLAUDE_CODE_TOOLS, (scenario.name, names & CLAUDE_CODE_TOOLS)
        assert not [n for n in names if n.startswith("mcp__")], scenario.name
        assert "mcp__" not in rules, scenario.name


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
def test_artefact_permissions_reach_the_cli_in_its_own_config(profile: TargetProfile, tmp_path: Path) -> None:
    """Artefact: permissions came only as settings.json rule strings, which neither CLI reads."""
    if profile.name == "opencode":
        config = opencode_config(invocation(tmp_path, pairing_scenario(profile.names)))
        assert config["permission"]["bash"]["echo denied-by-rule*"] == "deny"
        assert not [key for key in config["permission"] if "(" in key]
    else:
        # Cline takes no pattern rules: the profile does not claim the role, so the path a rule
        # decides (the denied shell call) is not judged, rather than failed for the wrong reason.
        assert "permission_rules" not in profile.capabilities
        assert PairingIds.DENIED not in evidence.applicable(_run(profile), PairingIds.FAILURES)


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
def test_artefact_tool_search_is_not_an_environment_switch_for_them(profile: TargetProfile) -> None:
    """Artefact: tool search was switched by ENABLE_TOOL_SEARCH; a CLI without it failed DEFER-*."""

    class Harness:
        names = profile.names
        roles = frozenset(profile.capabilities)
        target = profile

        def run_wire(self, scenario: WireScenario) -> Any:
            raise AssertionError(f"{scenario.name} must not run against {profile.name}")

    run = scenario_runner(Harness, {"deferred": deferred_scenario, "security": security_scenario})
    with pytest.raises(
        pytest.skip.Exception, match=r"not checked: .* can't express the deferred scenario's tool_search"
    ):
        run("deferred")
    with pytest.raises(pytest.skip.Exception, match="command_hooks"):
        run("security")


def test_artefact_a_path_without_its_role_is_not_judged() -> None:
    """Artefact: a hook-blocked call counted against a CLI without command hooks (it simply ran)."""
    run = _run(ClineProfile())
    assert evidence.applicable(run, PairingIds.FAILURES) == [
        PairingIds.UNKNOWN,
        PairingIds.INVALID,
        PairingIds.ERROR,
    ]
    everything = WireRun("pairing", "t", "http://x", 1.0, [], run.outcome, [], roles=None)
    assert evidence.applicable(everything, PairingIds.FAILURES) == list(PairingIds.FAILURES)


def test_artefact_a_harness_carries_its_roles_into_each_run(tmp_path: Path) -> None:
    harness = WireHarness(OpencodeTarget(Path("/bin/false")), tmp_path, 5.0, roles=frozenset({"mcp"}))
    run = harness.run_wire(WireScenario("quick", "hi", steps=()))
    assert run.roles == frozenset({"mcp"})


def _run(profile: TargetProfile) -> WireRun:
    outcome = TargetOutcome(exit_code=0, stdout="", stderr="", timed_out=False, duration=0.0)
    return WireRun(
        "pairing",
        profile.name,
        "http://x",
        1.0,
        [],
        outcome,
        [],
        names=profile.names,
        roles=frozenset(profile.capabilities),
    )


# -- the real CLIs: the shipped evidence recurs -------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
def test_baseline_entries_carry_their_evidence(profile: TargetProfile) -> None:
    path = profile.baseline()
    assert path is not None
    entries = tomllib.loads(path.read_text(encoding="utf-8"))["expected_failures"]
    for entry in entries:
        ev = entry.get("evidence")
        assert isinstance(ev, dict), entry["id"]
        assert ev["scenario"], entry["id"]
        assert ev["file"], entry["id"]
        # Request evidence is one verbatim excerpt, call-log evidence the verbatim lines: both, and
        # their quote in docs/interop-<cli>.md, are checked in tests/test_option_baseline.py.


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
def test_baseline_request_evidence_recurs(profile: TargetProfile, tmp_path: Path) -> None:
    """Run the real CLI once on the pairing scenario: each request-byte evidence of its baseline recurs."""
    if profile.find_binary() is None:
        pytest.skip(f"{profile.name} is not installed (CI installs it: .ci/run)")
    path = profile.baseline()
    assert path is not None
    entries = [
        e
        for e in tomllib.loads(path.read_text())["expected_failures"]
        if e["evidence"]["scenario"] == "pairing"
    ]
    if not entries:
        pytest.skip(f"{profile.name}'s baseline has no pairing evidence")
    harness = WireHarness(profile.target(), tmp_path, 120.0, roles=frozenset(profile.capabilities))
    run = harness.run_wire(pairing_scenario(profile.names))
    assert run.failure() is None, run.failure()
    for entry in entries:
        recorded = (run.workdir or tmp_path) / entry["evidence"]["file"]
        body = recorded.read_bytes() if recorded.exists() else b"".join(r.body for r in run.requests)
        assert entry["evidence"]["bytes"].encode() in body, entry["id"]
    assert os.environ.get("HOME") != str(tmp_path / "home")


def test_a_missing_builtin_role_gets_a_stand_in_never_claude_codes_name() -> None:
    names = ToolNames(read=None, shell=None, tool_search=None, mcp_format="{server}_{tool}")
    assert [names.builtin(r) for r in ("read", "shell", "tool_search")] == [
        "no_read_tool",
        "no_shell_tool",
        "no_tool_search_tool",
    ]
    assert ToolNames().builtin("read") == "Read"
    with pytest.raises(ValueError, match="not a built-in role"):
        names.builtin("edit")
    first = pairing_scenario(names).steps[0]
    assert isinstance(first, AssistantTurn)
    assert not {b.name for b in first.tool_uses} & CLAUDE_CODE_TOOLS
