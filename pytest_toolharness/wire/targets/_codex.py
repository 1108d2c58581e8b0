"""The Codex CLI (npm ``@openai/codex``) as a target: ``codex exec --json`` against the scripted Responses API.

Codex speaks the OpenAI Responses API over server-sent events. The profile gives each run a scratch
``CODEX_HOME`` (``home/.codex``) holding Codex's own files, written from the scenario's roles
(:mod:`pytest_toolharness.wire.targets._roles`):

- ``config.toml``: a ``model_providers.scripted`` entry whose ``base_url`` is the scripted server's
  ``/v1``, ``wire_api = "responses"``, its key read from ``TOOLHARNESS_CODEX_KEY`` (a dummy), no
  retries; ``approval_policy = "never"`` (nobody can approve); the permission mode as the sandbox
  mode and the MCP tools' default approval (:data:`MODES`); the suite's stdio MCP server under
  ``mcp_servers``, a rule on a whole MCP tool as its ``disabled_tools`` (deny) or its own
  ``approval_mode`` (allow: ``approve``, ask: ``prompt``); a deny of the whole shell tool as
  ``[features] shell_tool = false``. Codex hides every MCP tool behind its client-side
  ``tool_search`` and loads what a search finds as a ``namespace`` (``mcp__suite`` + ``echo``): the
  profile's names say so (``mcp_search``), and the scripted model searches before it calls them;
- ``rules/suite.rules``: the shell rules as Codex's execpolicy (:func:`codex_rules`);
- ``hooks.json``: the scenario's hooks, in Claude Code's shape, which Codex reads (:func:`codex_hooks`).

Codex's shell tool is ``exec_command`` with the command under ``cmd`` (``shell_key``); hooks know it
as ``Bash`` (``shell_hook_name``). It has no tool that reads a text file (``view_image`` stands in
the read role for calls with invalid input), does not read Claude Code's settings files, and its
tool search can't be switched off: scenarios needing those are not run against it.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from pytest_toolharness.wire.scenarios import ToolNames
from pytest_toolharness.wire.targets._command import TargetInvocation
from pytest_toolharness.wire.targets._roles import (
    Rule,
    mcp_servers,
    mode_setting,
    read_settings_file,
    settings_rules,
)

__all__ = [
    "CODEX_BIN_ENV",
    "CODEX_MODEL",
    "CODEX_NAMES",
    "MODES",
    "CodexTarget",
    "codex_config",
    "codex_hooks",
    "codex_rules",
    "permission_mode",
]

#: An explicit path to the ``codex`` binary; it wins over ``PATH``.
CODEX_BIN_ENV = "TOOLHARNESS_CODEX_BIN"
#: The model asked for: one of Codex's bundled catalogue (an unknown model gets fallback metadata).
CODEX_MODEL = "gpt-5.5"
#: Codex's names for the scenario roles.
CODEX_NAMES = ToolNames(
    # view_image reads a file (an image) by its required ``path``: a built-in the scenarios can call
    # with input that fails its schema. It is no Read tool: the profile does not claim ``read_tool``.
    read="view_image",
    shell="exec_command",
    tool_search=None,
    mcp_format="mcp__{server}__{tool}",
    write=None,
    shell_key="cmd",
    mcp_search="tool_search",
    shell_hook_name="Bash",
)
_KEY_ENV = "TOOLHARNESS_CODEX_KEY"
_MCP_STARTUP_SECONDS = 60
_DECISIONS = {"allow": "allow", "ask": "prompt", "deny": "forbidden"}
_MCP_APPROVALS = {"allow": "approve", "ask": "prompt"}
#: Claude Code's permission modes as Codex's MCP approval default and sandbox mode. Nobody can approve
#: (``approval_policy = "never"``), so ``prompt`` refuses: default and dontAsk ask about (so refuse) an
#: MCP tool no rule allows; plan adds the read-only sandbox (no writes); bypassPermissions approves
#: every MCP tool and runs commands unsandboxed, execpolicy ``forbidden`` rules still applying.
MODES = {
    "default": ("prompt", "danger-full-access"),
    "dontAsk": ("prompt", "danger-full-access"),
    "plan": ("prompt", "read-only"),
    "acceptEdits": ("prompt", "workspace-write"),
    "bypassPermissions": ("approve", "danger-full-access"),
}


def _toml(value: object) -> str:
    """A TOML value: strings, booleans, numbers, lists and inline tables (JSON's escapes are TOML's)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def _settings(inv: TargetInvocation) -> dict[str, Any]:
    return read_settings_file(inv.settings_path) if inv.settings_path.is_file() else {}


def _shell_rules(settings: dict[str, Any]) -> list[Rule]:
    return [rule for rule in settings_rules(settings) if rule.tool == CODEX_NAMES.shell]


def codex_rules(settings: dict[str, Any]) -> str:
    """The execpolicy file for the shell rules of ``settings`` (empty when there are none).

    A rule's pattern up to its first ``*`` is split into words, shell style: Codex matches a
    command's words against a rule's words as a prefix, so ``echo denied:*`` and ``echo denied`` are
    the same rule. Rules go weakest first (allow, prompt, forbidden): Codex takes the strictest
    decision of the rules that match.
    """
    lines = []
    for action in _DECISIONS:
        for rule in _shell_rules(settings):
            if rule.action != action or rule.pattern is None:
                continue
            try:
                words = shlex.split(rule.pattern.split("*", 1)[0])
            except ValueError:  # an unclosed quote: the rule names nothing Codex could match
                continue
            if words:
                pattern, decision = json.dumps(words), json.dumps(_DECISIONS[action])
                lines.append(f"prefix_rule(pattern={pattern}, decision={decision})")
    return "".join(f"{line}\n" for line in lines)


def permission_mode(settings: dict[str, Any]) -> tuple[str, str]:
    """The MCP tools' default approval and the sandbox mode for ``permissions.defaultMode`` (:data:`MODES`)."""
    return mode_setting(settings, MODES, "Codex equivalent")


def codex_hooks(settings: dict[str, Any]) -> dict[str, Any]:
    """``hooks.json`` for the scenario's hooks: Claude Code's shape, which Codex reads as it is.

    Codex names its shell tool ``Bash`` to hooks (its model sees ``exec_command``), so a matcher's
    ``exec_command`` becomes ``Bash``.
    """
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return {"hooks": {}}
    shell = re.compile(rf"\b{re.escape(str(CODEX_NAMES.shell))}\b")
    events: dict[str, Any] = {}
    for event, groups in hooks.items():
        events[event] = [
            {**group, "matcher": shell.sub(str(CODEX_NAMES.shell_hook_name), group["matcher"])}
            if isinstance(group, dict) and isinstance(group.get("matcher"), str)
            else group
            for group in (groups if isinstance(groups, list) else [])
        ]
    return {"hooks": events}


def codex_config(inv: TargetInvocation) -> str:
    """Codex's ``config.toml`` for ``inv``: the scripted provider, MCP server, approvals and sandbox."""
    settings = _settings(inv)
    sandbox = settings.get("sandbox")
    sandboxed = isinstance(sandbox, dict) and sandbox.get("enabled") is True
    mcp_default, sandbox_mode = permission_mode(settings)
    if sandboxed and sandbox_mode == "danger-full-access":
        sandbox_mode = "workspace-write"
    rules = settings_rules(settings)
    whole = [r for r in rules if r.action == "deny" and r.pattern is None]
    lines = [
        f"model = {_toml(CODEX_MODEL)}",
        'model_provider = "scripted"',
        'approval_policy = "never"',
        f"sandbox_mode = {_toml(sandbox_mode)}",
        "check_for_update_on_startup = false",
        "",
        "[features]",
        # A deny of the whole shell tool: Codex offers no shell tool at all.
        f"shell_tool = {_toml(not any(r.tool == CODEX_NAMES.shell for r in whole))}",
        f"unified_exec = {_toml(not any(r.tool == CODEX_NAMES.shell for r in whole))}",
        "",
        "[model_providers.scripted]",
        'name = "scripted model API"',
        f"base_url = {_toml(inv.base_url + '/v1')}",
        'wire_api = "responses"',
        f"env_key = {_toml(_KEY_ENV)}",
        "request_max_retries = 0",
        "stream_max_retries = 0",
    ]
    for server in mcp_servers(inv.mcp_config_path):
        prefix = CODEX_NAMES.mcp("", server.name)
        disabled = [r.tool[len(prefix) :] for r in whole if r.tool.startswith(prefix)]
        lines += [
            "",
            f"[mcp_servers.{json.dumps(server.name)}]",
            f"command = {_toml(server.command)}",
            f"args = {_toml(list(server.args))}",
            f"env = {_toml(server.env)}",
            f"startup_timeout_sec = {_MCP_STARTUP_SECONDS}",
            f"default_tools_approval_mode = {_toml(mcp_default)}",
        ]
        if disabled:
            lines.append(f"disabled_tools = {_toml(disabled)}")
        # allow, then ask: a tool with both rules is asked about (the stronger rule wins).
        approvals = {
            r.tool[len(prefix) :]: _MCP_APPROVALS[r.action]
            for action in ("allow", "ask")
            for r in rules
            if r.action == action and r.pattern is None and r.tool.startswith(prefix)
        }
        for tool, approval in approvals.items():
            lines += ["", f"[mcp_servers.{json.dumps(server.name)}.tools.{json.dumps(tool)}]"]
            lines.append(f"approval_mode = {_toml(approval)}")
    return "\n".join(lines) + "\n"


class CodexTarget:
    """``codex exec --strict-config --json ... -C WORKDIR PROMPT`` with a scratch ``CODEX_HOME`` (docs/interop-codex.md)."""

    name = "codex"
    names = CODEX_NAMES
    #: The model API the CLI speaks (the dialect of the scripted server it needs).
    api = "responses"

    def __init__(self, binary: Path) -> None:
        self.binary = binary

    def _home(self, inv: TargetInvocation) -> Path:
        return inv.workdir / "home" / ".codex"

    def command(self, inv: TargetInvocation) -> list[str]:
        """The command line; writes ``config.toml`` (and the execpolicy rules) into the run's ``CODEX_HOME``."""
        home = self._home(inv)
        (home / "rules").mkdir(parents=True, exist_ok=True)
        (home / "config.toml").write_text(codex_config(inv), encoding="utf-8")
        (home / "rules" / "suite.rules").write_text(codex_rules(_settings(inv)), encoding="utf-8")
        hooks = json.dumps(codex_hooks(_settings(inv)), indent=1, sort_keys=True)
        (home / "hooks.json").write_text(hooks, encoding="utf-8")
        return [
            str(self.binary),
            "exec",
            # An unknown key of the written config is an error, not a setting silently ignored.
            "--strict-config",
            "--json",
            "--skip-git-repo-check",
            "--ephemeral",
            # The suite wrote these hooks itself: no one is there to review and trust them.
            "--dangerously-bypass-hook-trust",
            "-C",
            str(inv.workdir),
            inv.prompt,
        ]

    def environment(self, inv: TargetInvocation) -> dict[str, str]:
        """``CODEX_HOME`` and the dummy key."""
        return {"CODEX_HOME": str(self._home(inv)), _KEY_ENV: "sk-scripted"}

    def __repr__(self) -> str:
        return f"CodexTarget({str(self.binary)!r})"
