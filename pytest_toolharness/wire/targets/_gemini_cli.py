"""The Gemini CLI (npm ``@google/gemini-cli``) as a target: ``gemini -p`` against the scripted Gemini API.

The CLI is pointed at the scripted server by ``GOOGLE_GEMINI_BASE_URL`` with the ``gemini-api-key``
auth type and a dummy ``GEMINI_API_KEY``; it asks for ``streamGenerateContent?alt=sse``. Its home
is the run's scratch ``HOME``, where the profile writes, from the scenario's roles
(:mod:`pytest_toolharness.wire.targets._roles`):

- ``~/.gemini/settings.json``: the auth type, folder trust, telemetry, usage statistics and updates
  off, the suite's stdio MCP server under ``mcpServers`` (its tools are ``mcp_<server>_<tool>``),
  and the scenario's hooks;
- ``~/.gemini/policies/toolharness.toml``: the permission rules as policy-engine rules of the user
  tier, deny (priority 300) beating ask (``ask_user``, 200) beating allow (100), whichever settings
  source each came from. A shell rule ``run_shell_command(git:*)`` becomes ``commandPrefix = "git"``,
  an exact one a ``commandRegex``; a path rule (``read_file(./secret.txt)``) an ``argsPattern`` on
  ``file_path`` ending in that path (the CLI may send it absolute); any other pattern an
  ``argsPattern`` on the arguments' JSON.

The scenario's ``defaultMode`` becomes an approval mode (:data:`MODES`; ``default`` unless told):
a call that no rule allows is ``ask_user``, which in headless mode is a deny, as a default-mode
harness without a user is expected to do. The scenario's PreToolUse and PostToolUse command hooks
become the CLI's BeforeTool and AfterTool hooks, through a bridge of the two protocols
(:mod:`pytest_toolharness.wire.targets._gemini_hooks`). Claude Code's other settings files become the
CLI's own sources (:func:`write_setting_sources`). It has no tool search: scenarios needing it are
not run against it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pytest_toolharness.wire.scenarios import SUITE_MCP_TIMEOUT_ENV, ToolNames
from pytest_toolharness.wire.targets._command import TargetInvocation
from pytest_toolharness.wire.targets._gemini_hooks import BRIDGE_SOURCE, gemini_hooks
from pytest_toolharness.wire.targets._roles import (
    ACTIONS,
    Rule,
    mcp_servers,
    mode_setting,
    read_settings_file,
    setting_sources,
    settings_rules,
)

__all__ = [
    "ASKED_TOOLS",
    "GEMINI_BIN_ENV",
    "GEMINI_MODEL",
    "GEMINI_NAMES",
    "MODES",
    "GeminiCliTarget",
    "approval_mode",
    "gemini_policy_toml",
    "gemini_settings",
    "literal_rules",
    "write_setting_sources",
]

#: An explicit path to the ``gemini`` binary; it wins over ``PATH``.
GEMINI_BIN_ENV = "TOOLHARNESS_GEMINI_BIN"
#: The model asked for: a Gemini 3 model, whose calls carry thought signatures (PAIR-8, G-SIG).
GEMINI_MODEL = "gemini-3-pro-preview"
#: The Gemini CLI's names for the scenario roles.
GEMINI_NAMES = ToolNames(
    read="read_file",
    shell="run_shell_command",
    tool_search=None,
    mcp_format="mcp_{server}_{tool}",
    write="write_file",
)
#: Claude Code's permission modes as the CLI's approval modes. Headless, the CLI denies what it would
#: ask, so ``dontAsk`` is its ``default``.
MODES = {
    "default": "default",
    "dontAsk": "default",
    "plan": "plan",
    "acceptEdits": "auto_edit",
    "bypassPermissions": "yolo",
}
_DECISIONS = {"allow": ("allow", 100), "ask": ("ask_user", 200), "deny": ("deny", 300)}
_PATH_TOOLS = {"read_file": "file_path", "write_file": "file_path", "replace": "file_path"}
#: The MCP server's start and tool listing, in milliseconds (the suite's server imports the mcp package).
_MCP_TIMEOUT_MS = 60_000


def _toml_string(text: str) -> str:
    # A JSON string with ASCII escapes is a valid TOML basic string.
    return json.dumps(text, ensure_ascii=True)


_REGEX_SPECIALS = re.compile(r"([\\^$.*+?()\[\]{}|/])")


def _glob_regex(pattern: str) -> str:
    # Escapes only what a JavaScript regex treats specially (re.escape's "\ " and "\-" mean the same
    # there, but only outside unicode mode): the CLI compiles the pattern with new RegExp().
    return ".*".join(_REGEX_SPECIALS.sub(r"\\\1", part) for part in pattern.split("*"))


def _conditions(rule: Rule) -> dict[str, str]:
    if rule.pattern is None:
        return {}
    if rule.tool == GEMINI_NAMES.shell:
        if rule.pattern.endswith("*") and "*" not in rule.pattern[:-1]:
            return {"commandPrefix": rule.pattern[:-1]}
        # The CLI matches '"command":"' + commandRegex against the arguments' JSON: no ^ anchor; the
        # closing quote of the JSON string ends the command.
        return {"commandRegex": f'{_glob_regex(rule.pattern)}"'}
    key = _PATH_TOOLS.get(rule.tool)
    if key is not None:
        path = _glob_regex(rule.pattern.removeprefix("./").removeprefix("~/").lstrip("/"))
        # The arguments' JSON: "file_path":"<the path itself, or anything ending in /path>". No
        # quantified group: the CLI drops a rule whose regex looks like a nested quantifier (ReDoS).
        return {"argsPattern": f'"{key}":"({path}|[^"]*/{path})"'}
    return {"argsPattern": _glob_regex(rule.pattern)}


#: What a default-mode harness asks about when no rule decides: MCP tools, the shell, file writes.
ASKED_TOOLS = ("mcp_*", "run_shell_command", "write_file", "replace")


def literal_rules(settings: dict[str, Any]) -> list[Rule]:
    """The ``permissions`` rules, allow, ask, deny; a rule text that is not ``Tool(pattern)`` names a tool.

    The CLI's policy has no rule syntax to get wrong, so a rule the suite wrote malformed (an
    unclosed parenthesis, PERM-12) reaches it as what it literally names: a tool of that name. The
    CLI then shows what it does with a rule for a tool it doesn't have.
    """
    permissions = settings.get("permissions", {})
    rules: list[Rule] = []
    for action in ACTIONS:
        texts = permissions.get(action, []) if isinstance(permissions, dict) else []
        for text in texts if isinstance(texts, list) else ():
            try:
                rules += settings_rules({"permissions": {action: [text]}})
            except ValueError:
                rules.append(Rule(action, str(text).strip()))
    return rules


def gemini_policy_toml(settings: dict[str, Any], *, default_asks: bool = True) -> str:
    """The policy file for the scenario's ``permissions`` rules (see the module docstring)."""
    lines = ["# Written by pytest-toolharness from the scenario's permission rules."]
    # Default mode asks about these when no rule decides. The CLI's own ask (a rule without
    # arguments) hides the tool from a headless model; with an argsPattern the tool is offered and
    # the call is asked about, then denied for want of a user, as in a default-mode harness.
    for tool in ASKED_TOOLS if default_asks else ():
        lines += ["", "[[rule]]", f"toolName = {_toml_string(tool)}", 'argsPattern = ".*"']
        lines += ['decision = "ask_user"', "priority = 1", 'modes = ["default"]']
    for rule in literal_rules(settings):
        decision, priority = _DECISIONS[rule.action]
        lines += ["", "[[rule]]", f"toolName = {_toml_string(rule.tool)}"]
        lines += [f"{key} = {_toml_string(value)}" for key, value in _conditions(rule).items()]
        if rule.action == "allow" and rule.tool == GEMINI_NAMES.shell and rule.pattern is None:
            # Claude Code's ``allow Bash`` allows every command, redirections included; the CLI
            # downgrades an allowed command with a redirection to an ask unless the rule says so.
            lines.append("allowRedirection = true")
        lines += [f"decision = {_toml_string(decision)}", f"priority = {priority}"]
    return "\n".join(lines) + "\n"


def gemini_settings(inv: TargetInvocation, bridge: Path) -> dict[str, Any]:
    """``~/.gemini/settings.json`` for ``inv``: offline switches, the suite's MCP server, its hooks.

    The MCP server's ``timeout`` (milliseconds, per tool call) is the scenario's
    :data:`SUITE_MCP_TIMEOUT_ENV` when it sets one.
    """
    servers = {
        server.name: {
            "command": server.command,
            "args": list(server.args),
            "env": server.env,
            "timeout": int(inv.env.get(SUITE_MCP_TIMEOUT_ENV, _MCP_TIMEOUT_MS)),
        }
        for server in mcp_servers(inv.mcp_config_path)
    }
    return {
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "mcpServers": servers,
        "hooks": gemini_hooks(read_settings_file(inv.settings_path), bridge),
    }


def approval_mode(settings: dict[str, Any]) -> str:
    """The CLI's approval mode for the scenario's ``permissions.defaultMode`` (a clear error if unknown)."""
    return mode_setting(settings, MODES, "Gemini CLI approval mode")


def write_setting_sources(inv: TargetInvocation, config: Path) -> None:
    """The scenario's other settings files as the CLI's own sources (see the module docstring).

    Claude Code's user and local files become policy files of the user tier beside the scenario's
    own (``~/.gemini/policies/<source>.toml``); the project file becomes the project's
    ``.gemini/settings.json``: whole-tool deny rules in ``tools.exclude``, allow rules in
    ``tools.allowed``, anything else in the project's ``.gemini/policies`` (the workspace tier).
    """
    for source, path in setting_sources(inv.workdir).items():
        settings = read_settings_file(path)
        if source != "projectSettings":
            policy = gemini_policy_toml(settings, default_asks=False)
            (config / "policies" / f"{source}.toml").write_text(policy, encoding="utf-8")
            continue
        rules = literal_rules(settings)
        tools: dict[str, list[str]] = {}
        rest: list[str] = []
        for rule in rules:
            if rule.pattern is None and rule.action in ("allow", "deny"):
                tools.setdefault("allowed" if rule.action == "allow" else "exclude", []).append(rule.tool)
            else:
                rest.append(f"{rule.action}:{rule.tool}")
        project = inv.workdir / ".gemini"
        (project / "policies").mkdir(parents=True, exist_ok=True)
        (project / "settings.json").write_text(
            json.dumps({"tools": tools}, indent=1, sort_keys=True), "utf-8"
        )
        if rest:
            policy = gemini_policy_toml(settings, default_asks=False)
            (project / "policies" / "project.toml").write_text(policy, encoding="utf-8")


class GeminiCliTarget:
    """``gemini -p PROMPT --approval-mode MODE -o json -m MODEL`` with its home written for the run."""

    name = "gemini"
    names = GEMINI_NAMES
    #: The model API the CLI speaks (the dialect of the scripted server it needs).
    api = "gemini"

    def __init__(self, binary: Path) -> None:
        self.binary = binary

    def command(self, inv: TargetInvocation) -> list[str]:
        """The command line; writes ``~/.gemini/settings.json`` and the policy file of the run first."""
        config = inv.workdir / "home" / ".gemini"
        (config / "policies").mkdir(parents=True, exist_ok=True)
        bridge = config / "toolharness_hook_bridge.py"
        bridge.write_text(BRIDGE_SOURCE, encoding="utf-8")
        settings = json.dumps(gemini_settings(inv, bridge), indent=1, sort_keys=True)
        (config / "settings.json").write_text(settings, encoding="utf-8")
        scenario = read_settings_file(inv.settings_path)
        (config / "policies" / "toolharness.toml").write_text(gemini_policy_toml(scenario), encoding="utf-8")
        write_setting_sources(inv, config)
        return [
            str(self.binary),
            "-p",
            inv.prompt,
            "--approval-mode",
            approval_mode(scenario),
            "--output-format",
            "json",
            "-m",
            GEMINI_MODEL,
        ]

    def environment(self, inv: TargetInvocation) -> dict[str, str]:
        """The scripted server's address, a dummy key, no sandbox, no browser."""
        return {
            "GOOGLE_GEMINI_BASE_URL": inv.base_url,
            "GEMINI_API_KEY": "x",
            "GEMINI_CLI_NO_RELAUNCH": "true",
            "NO_BROWSER": "true",
            "GEMINI_SANDBOX": "false",
        }

    def __repr__(self) -> str:
        return f"GeminiCliTarget({str(self.binary)!r})"
