"""The Gemini CLI target: the scenario's roles written as the CLI's own settings.json and policy rules."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from pytest_toolharness.wire.targets import TargetInvocation, profile_named
from pytest_toolharness.wire.targets._gemini_cli import (
    ASKED_TOOLS,
    GEMINI_NAMES,
    GeminiCliTarget,
    gemini_policy_toml,
)


def _invocation(tmp_path: Path, permissions: dict[str, list[str]]) -> TargetInvocation:
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"permissions": permissions}), encoding="utf-8")
    mcp = tmp_path / "mcp.json"
    mcp.write_text(
        json.dumps({"mcpServers": {"suite": {"command": "python3", "args": ["-m", "srv"]}}}), "utf-8"
    )
    return TargetInvocation("go", settings, mcp, tmp_path, "http://127.0.0.1:9")


def test_the_profile_is_registered() -> None:
    profile = profile_named("gemini")
    assert profile is not None
    assert profile.names == GEMINI_NAMES
    assert profile.claims == ("core",)


def test_the_run_gets_its_home_and_the_scripted_server(tmp_path: Path) -> None:
    inv = _invocation(tmp_path, {"allow": ["run_shell_command"]})
    target = GeminiCliTarget(Path("/usr/bin/gemini"))
    argv = target.command(inv)
    assert argv[:3] == ["/usr/bin/gemini", "-p", "go"]
    assert "--approval-mode" in argv
    settings = json.loads((tmp_path / "home/.gemini/settings.json").read_text("utf-8"))
    assert settings["security"]["auth"]["selectedType"] == "gemini-api-key"
    assert settings["mcpServers"]["suite"]["command"] == "python3"
    assert target.environment(inv)["GOOGLE_GEMINI_BASE_URL"] == "http://127.0.0.1:9"
    assert (tmp_path / "home/.gemini/policies/toolharness.toml").is_file()


def _rules(permissions: dict[str, list[str]]) -> list[dict[str, object]]:
    """The scenario's rules as written, without the default-mode asks every policy starts with."""
    rules = tomllib.loads(gemini_policy_toml({"permissions": permissions}))["rule"]
    assert isinstance(rules, list)
    asks = [r for r in rules if r["priority"] == 1]
    assert [r["toolName"] for r in asks] == list(ASKED_TOOLS)
    assert all(r["decision"] == "ask_user" and r["modes"] == ["default"] for r in asks)
    return [r for r in rules if r["priority"] != 1]


def test_deny_beats_ask_beats_allow_by_priority() -> None:
    """PERM-4 in the CLI's terms: deny 300 > ask_user 200 > allow 100, whatever order the rules came in."""
    rules = _rules({"deny": ["run_shell_command"], "allow": ["run_shell_command"], "ask": ["read_file"]})
    by_decision = {r["decision"]: r["priority"] for r in rules}
    assert by_decision == {"allow": 100, "ask_user": 200, "deny": 300}


@pytest.mark.parametrize(
    ("rule", "condition"),
    [
        ("run_shell_command(git:*)", {"commandPrefix": "git"}),
        ("run_shell_command(echo x)", {"commandRegex": 'echo x"'}),
        ("read_file(./secret.txt)", {"argsPattern": '"file_path":"(secret\\.txt|[^"]*/secret\\.txt)"'}),
    ],
)
def test_patterns_become_policy_conditions(rule: str, condition: dict[str, str]) -> None:
    (written,) = _rules({"deny": [rule]})
    assert {k: v for k, v in written.items() if k not in ("toolName", "decision", "priority")} == condition


@pytest.mark.parametrize("path", ["secret.txt", "./secret.txt", "/tmp/w/secret.txt"])
def test_a_path_rule_matches_the_path_however_the_cli_sends_it(path: str) -> None:
    """A deny on ``./secret.txt`` matches the arguments' JSON with a relative or absolute path."""
    (written,) = _rules({"deny": ["read_file(./secret.txt)"]})
    assert re.search(str(written["argsPattern"]), json.dumps({"file_path": path}, separators=(",", ":")))
    assert not re.search(str(written["argsPattern"]), json.dumps({"file_path": "/tmp/w/not-secret.txt"}))


#: The Gemini CLI's own test of a policy regex (isSafeRegExp in its bundle): a rule failing it is dropped.
_CLI_NESTED_QUANTIFIER = re.compile(r"\([^)]*[*+?{].*\)[*+?{]")


@pytest.mark.parametrize("rule", ["read_file(./secret.txt)", "read_file(src/*.py)", "run_shell_command(a*b)"])
def test_every_pattern_passes_the_clis_regex_safety_test(rule: str) -> None:
    """A rule the CLI finds unsafe is dropped without a word: a deny would silently not apply."""
    (written,) = _rules({"deny": [rule]})
    for key in ("argsPattern", "commandRegex"):
        if key in written:
            assert _CLI_NESTED_QUANTIFIER.search(str(written[key])) is None


@pytest.mark.parametrize(
    ("rule", "command", "matches"),
    [
        ("run_shell_command(touch suite-deny-ran.txt)", "touch suite-deny-ran.txt", True),
        ("run_shell_command(touch suite-deny-ran.txt)", "touch suite-deny-ran.txt2", False),
        ("run_shell_command(touch a*b)", "touch a-and-b", True),
    ],
)
def test_a_command_regex_matches_as_the_cli_applies_it(rule: str, command: str, matches: bool) -> None:
    """The CLI searches '"command":"' + commandRegex in the arguments' JSON (buildArgsPatterns in its bundle)."""
    (written,) = _rules({"deny": [rule]})
    pattern = '"command":"' + str(written["commandRegex"])
    assert bool(re.search(pattern, json.dumps({"command": command}, separators=(",", ":")))) is matches
