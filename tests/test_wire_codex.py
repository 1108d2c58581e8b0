"""The Codex CLI target: its config.toml, execpolicy rules and hooks from a scenario's roles, the scripted
model's search for the MCP tools Codex hides behind its ``tool_search``, and a real ``codex exec`` run.

Everything but the last test is the translation and the scripted side, which need no CLI; the real
run is skipped (saying so) when no ``codex`` binary is found (CI installs it: ``.ci/run``).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_toolharness.wire.checks import tool_bytes
from pytest_toolharness.wire.model_api import AssistantTurn, RecordedRequest, TextBlock, ToolUseBlock
from pytest_toolharness.wire.model_api._messages_view import view_as_messages_body
from pytest_toolharness.wire.model_api._responses import responses_neutral_request
from pytest_toolharness.wire.model_api._responses_sse import output_items
from pytest_toolharness.wire.scenarios import (
    CLAUDE_CODE_NAMES,
    MCP_SEARCH_ID,
    PairingIds,
    WireScenario,
    pairing_scenario,
)
from pytest_toolharness.wire.targets import (
    ClaudeCodeTarget,
    CodexProfile,
    CodexTarget,
    GeminiCliTarget,
    TargetInvocation,
    WireAdapter,
    WireHarness,
)
from pytest_toolharness.wire.targets._codex import CODEX_NAMES, codex_config, codex_hooks, codex_rules
from pytest_toolharness.wire.targets._wire_adapter import target_api, write_mcp_config

ROOT = Path(__file__).resolve().parents[1]
_CLIENT_SEARCH = {"type": "tool_search", "execution": "client", "parameters": {"type": "object"}}
_LOADED = {
    "type": "namespace",
    "name": "mcp__suite",
    "description": "Tools in the mcp__suite namespace.",
    "tools": [{"type": "function", "name": "echo", "description": "Echo.", "parameters": {"type": "object"}}],
}


def _invocation(tmp_path: Path, settings: Mapping[str, Any]) -> TargetInvocation:
    scenario = pairing_scenario(CODEX_NAMES)
    settings_path = tmp_path / "settings.json"
    settings_path.write_text(json.dumps(settings), encoding="utf-8")
    return TargetInvocation(
        prompt="p",
        settings_path=settings_path,
        mcp_config_path=write_mcp_config(tmp_path / "mcp.json", scenario),
        workdir=tmp_path,
        base_url="http://127.0.0.1:9",
    )


def _config(tmp_path: Path, settings: Mapping[str, Any]) -> dict[str, Any]:
    return tomllib.loads(codex_config(_invocation(tmp_path, settings)))


def test_config_points_codex_at_the_scripted_responses_api(tmp_path: Path) -> None:
    config = _config(tmp_path, {})
    assert config["model_provider"] == "scripted"
    provider = config["model_providers"]["scripted"]
    assert (provider["base_url"], provider["wire_api"]) == ("http://127.0.0.1:9/v1", "responses")
    assert (config["approval_policy"], config["sandbox_mode"]) == ("never", "danger-full-access")
    server = config["mcp_servers"]["suite"]
    assert server["default_tools_approval_mode"] == "prompt"
    assert config["features"] == {"shell_tool": True, "unified_exec": True}


def test_rules_and_modes_become_codex_approvals_and_sandbox(tmp_path: Path) -> None:
    settings = {
        "permissions": {
            "allow": ["mcp__suite__echo", "mcp__suite__fail"],
            "ask": ["mcp__suite__fail"],
            "deny": ["mcp__suite__empty", "exec_command"],
            "defaultMode": "plan",
        },
        "sandbox": {"enabled": True},
    }
    config = _config(tmp_path, settings)
    server = config["mcp_servers"]["suite"]
    assert server["disabled_tools"] == ["empty"]
    # An ask beats an allow of the same tool.
    assert server["tools"] == {"echo": {"approval_mode": "approve"}, "fail": {"approval_mode": "prompt"}}
    assert config["sandbox_mode"] == "read-only"
    assert config["features"] == {"shell_tool": False, "unified_exec": False}
    bypass = _config(tmp_path, {"permissions": {"defaultMode": "bypassPermissions"}})
    assert bypass["mcp_servers"]["suite"]["default_tools_approval_mode"] == "approve"
    with pytest.raises(ValueError, match="'sometimes' has no Codex equivalent"):
        _config(tmp_path, {"permissions": {"defaultMode": "sometimes"}})


def test_settings_files_land_in_codexs_own_layers(tmp_path: Path) -> None:
    """User file: the user layer (config.toml, rules/userSettings.rules); project file: the trusted
    project's .codex/config.toml and rules; local file: ``-c`` flags (the session layer) and its rules."""
    invocation = _invocation(tmp_path, {"permissions": {"allow": ["mcp__suite__echo"]}})
    files = {
        "home/.claude/settings.json": {"permissions": {"deny": ["mcp__suite__fail", "exec_command(rm:*)"]}},
        ".claude/settings.json": {
            "permissions": {"deny": ["mcp__suite__empty"], "ask": ["exec_command(git:*)"]}
        },
        ".claude/settings.local.json": {"permissions": {"ask": ["mcp__suite__echo"]}},
    }
    for place, content in files.items():
        (tmp_path / place).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / place).write_text(json.dumps(content), encoding="utf-8")
    argv = CodexTarget(Path("codex")).command(invocation)
    user = tomllib.loads((tmp_path / "home/.codex/config.toml").read_text(encoding="utf-8"))
    assert user["mcp_servers"]["suite"]["disabled_tools"] == ["fail"]  # the user file's deny
    assert user["mcp_servers"]["suite"]["tools"] == {"echo": {"approval_mode": "approve"}}  # --settings
    assert user["projects"][str(tmp_path)] == {"trust_level": "trusted"}
    project = tomllib.loads((tmp_path / ".codex/config.toml").read_text(encoding="utf-8"))
    # Codex checks each layer alone: the project's server table repeats its transport.
    assert project["mcp_servers"]["suite"]["disabled_tools"] == ["empty"]
    assert project["mcp_servers"]["suite"]["command"] == user["mcp_servers"]["suite"]["command"]
    assert (tmp_path / ".codex/rules/projectSettings.rules").read_text(encoding="utf-8") == (
        'prefix_rule(pattern=["git"], decision="prompt")\n'
    )
    assert (tmp_path / "home/.codex/rules/userSettings.rules").read_text(encoding="utf-8") == (
        'prefix_rule(pattern=["rm"], decision="forbidden")\n'
    )
    flags = argv[argv.index(str(tmp_path)) + 1 : -1]
    assert flags == ["-c", 'mcp_servers.suite.tools.echo.approval_mode="prompt"']
    assert argv[-1] == "p"


def test_the_wire_adapter_speaks_the_api_its_target_names(tmp_path: Path) -> None:
    """``toolharness check --target`` picks the model API from the target: each profile's ``api``."""
    assert WireAdapter(CodexTarget(Path("codex"))).api == "responses"
    assert WireAdapter(GeminiCliTarget(Path("gemini"))).api == "gemini"
    assert WireAdapter(ClaudeCodeTarget(Path("claude"))).api == "messages"

    class Odd:
        name, api = "odd", "smoke-signals"

    with pytest.raises(ValueError, match="speaks api 'smoke-signals'; known"):
        target_api(Odd())  # type: ignore[arg-type]


def test_shell_rules_become_execpolicy_prefix_rules_strongest_last() -> None:
    rules = codex_rules(
        {
            "permissions": {
                "deny": ["exec_command(git push:*)", "exec_command(echo 'a b)"],
                "ask": ["exec_command(rm -rf *)"],
                "allow": ["exec_command(git:*)", "mcp__suite__echo"],
            }
        }
    )
    assert rules.splitlines() == [
        'prefix_rule(pattern=["git"], decision="allow")',
        'prefix_rule(pattern=["rm", "-rf"], decision="prompt")',
        'prefix_rule(pattern=["git", "push"], decision="forbidden")',
    ]


def test_hooks_keep_claude_codes_shape_with_the_shell_named_as_codex_tells_hooks() -> None:
    hook = {"type": "command", "command": "true"}
    settings = {
        "hooks": {
            "PreToolUse": [{"matcher": "exec_command", "hooks": [hook]}, {"matcher": "*", "hooks": [hook]}],
            "PostToolUse": [{"matcher": "mcp__suite__echo|exec_command_x", "hooks": [hook]}],
        }
    }
    assert codex_hooks(settings)["hooks"] == {
        "PreToolUse": [{"matcher": "Bash", "hooks": [hook]}, {"matcher": "*", "hooks": [hook]}],
        "PostToolUse": [{"matcher": "mcp__suite__echo|exec_command_x", "hooks": [hook]}],
    }
    assert CODEX_NAMES.hook_name("exec_command") == "Bash"
    assert CODEX_NAMES.hook_name("mcp__suite__echo") == "mcp__suite__echo"


@dataclass
class _Request:
    """What :meth:`WireScenario.answer` reads of a request: its tools and its Messages-shaped messages."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=lambda: [{"name": "tool_search"}])


def _searched(call_id: str, found: str) -> list[dict[str, Any]]:
    return [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": call_id, "name": "tool_search", "input": {}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": found}]},
    ]


def test_the_scripted_model_searches_until_it_finds_the_mcp_tools_then_plays_the_scenario() -> None:
    scenario = pairing_scenario(CODEX_NAMES).for_target(CODEX_NAMES)
    first = scenario.answer(_Request())  # type: ignore[arg-type]
    (search,) = first.tool_uses
    assert (search.id, search.name) == (f"{MCP_SEARCH_ID}000", "tool_search")
    assert search.input == {"query": "echo fail empty guarded", "limit": 4}
    empty = _searched(search.id, "[]")
    again = scenario.answer(_Request(empty))  # type: ignore[arg-type]
    assert [u.id for u in again.tool_uses] == [f"{MCP_SEARCH_ID}001"]
    found = empty + _searched(f"{MCP_SEARCH_ID}001", json.dumps([_LOADED]))
    step = scenario.answer(_Request(found))  # type: ignore[arg-type]
    assert step is scenario.steps[0]
    # The shell call carries its command under Codex's key.
    shell = next(u for u in step.tool_uses if u.id == PairingIds.DENIED)
    assert shell.input == {"cmd": "echo denied-by-rule"}


def test_a_scenario_is_unchanged_for_a_target_that_needs_nothing_else() -> None:
    scenario = pairing_scenario()
    assert scenario.for_target(CLAUDE_CODE_NAMES) is scenario
    assert WireScenario("x", "p", steps=()).for_target(CODEX_NAMES).mcp_search is None


def test_responses_server_sends_a_client_tool_search_call_and_namespaced_calls() -> None:
    turn = AssistantTurn(
        (
            TextBlock("x"),
            ToolUseBlock("call_s", "tool_search", {"query": "echo"}),
            ToolUseBlock("call_e", "mcp__suite__echo", {"text": "hi"}),
        )
    )
    body = {"tools": [_CLIENT_SEARCH], "input": [{"type": "tool_search_output", "tools": [_LOADED]}]}
    _, search, call = output_items(turn, suffix="S", encrypted=False, body=body)
    assert search == {
        "id": "tsc_S001",
        "type": "tool_search_call",
        "status": "completed",
        "call_id": "call_s",
        "execution": "client",
        "arguments": {"query": "echo"},
    }
    assert (call["namespace"], call["name"]) == ("mcp__suite", "echo")
    # Without the client-side search tool and the loaded namespace, plain function calls.
    _, plain_search, plain = output_items(turn, suffix="S", encrypted=False, body={})
    assert (plain_search["type"], plain["name"]) == ("function_call", "mcp__suite__echo")
    assert "namespace" not in plain


def test_the_neutral_view_reads_searches_loaded_tools_and_unmarked_failures() -> None:
    body = {
        "model": "gpt-5.5",
        "tools": [_CLIENT_SEARCH],
        "input": [
            {
                "type": "tool_search_call",
                "call_id": "s1",
                "execution": "client",
                "arguments": {"query": "echo"},
            },
            {"type": "tool_search_output", "call_id": "s1", "execution": "client", "tools": [_LOADED]},
            {
                "type": "function_call",
                "call_id": "c1",
                "name": "echo",
                "namespace": "mcp__suite",
                "arguments": "{}",
            },
            {"type": "function_call", "call_id": "c2", "name": "nope", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "echo-ok"},
            {"type": "function_call_output", "call_id": "c2", "output": "unsupported call: nope"},
        ],
    }
    view = responses_neutral_request(body)
    assert [t["name"] for t in view["tools"]] == ["tool_search", "mcp__suite__echo"]
    messages = view_as_messages_body(view, body)["messages"]
    calls = [b for m in messages for b in m["content"] if b["type"] == "tool_use"]
    assert [(c["id"], c["name"]) for c in calls] == [
        ("s1", "tool_search"),
        ("c1", "mcp__suite__echo"),
        ("c2", "nope"),
    ]
    results = {b["tool_use_id"]: b for m in messages for b in m["content"] if b["type"] == "tool_result"}
    assert "is_error" not in results["c1"]
    assert results["c2"]["is_error"] is True  # PAIR-3 on a flagless API: the text says it failed


def test_hosted_tools_are_told_apart_by_type_in_the_tool_bytes() -> None:
    body = {"model": "m", "input": [], "tools": [_CLIENT_SEARCH, {"type": "web_search"}]}
    raw = json.dumps(body).encode()
    request = RecordedRequest(0, "POST", "/v1/responses", {}, {}, raw, body, 200)
    assert [name for name, _ in tool_bytes(request)] == ["tool_search", "web_search"]


def test_every_baselined_finding_names_its_test_and_signature() -> None:
    """Baselines by finding: each Codex entry names the failing test and the text of its failure."""
    baseline = tomllib.loads((ROOT / "pytest_toolharness/baselines/codex.toml").read_text("utf-8"))
    for entry in baseline["expected_failures"]:
        assert entry["test"].startswith("test_"), entry["id"]
        assert entry["match"], entry["id"]


def test_real_codex_finds_the_mcp_tools_and_calls_them_through_their_namespace(tmp_path: Path) -> None:
    """A real ``codex exec`` on the pairing scenario: the search finds the tools and the echo call runs."""
    profile = CodexProfile()
    if profile.find_binary() is None:
        pytest.skip("codex is not installed (CI installs it: .ci/run)")
    harness = WireHarness(profile.target(), tmp_path, 120.0, roles=frozenset(profile.capabilities))
    run = harness.run_wire(pairing_scenario(profile.names))
    assert run.failure() is None, run.failure()
    assert any(e.get("tool") == "echo" and e.get("outcome") == "ok" for e in run.mcp_calls)
    last = run.requests[-1].json
    kinds = [item.get("type") for item in last["input"]]
    assert "tool_search_output" in kinds
    assert any(item.get("namespace") == "mcp__suite" for item in last["input"])
