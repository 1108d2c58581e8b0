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
- ``hooks.json``: the scenario's hooks, in Claude Code's shape, which Codex reads (:func:`codex_hooks`);
- Claude Code's user, project and local settings files in Codex's own config layers: the user layer
  (``config.toml``, ``rules/userSettings.rules``), the trusted project's ``.codex/`` and the session
  layer (``-c`` flags), see :meth:`CodexTarget._setting_layers`.

Codex's shell tool is ``exec_command`` with the command under ``cmd`` (``shell_key``); hooks know it
as ``Bash`` (``shell_hook_name``). It has no tool that reads a text file (``view_image`` stands in
the read role for calls with invalid input), its rules are Starlark ``prefix_rule`` calls (Claude
Code's rule texts, malformed ones included, have no counterpart: no ``rule_texts``), and its tool
search can't be switched off: scenarios needing those are not run against it.
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
    McpServer,
    Rule,
    mcp_servers,
    mode_setting,
    read_settings_file,
    setting_sources,
    settings_rules,
)

__all__ = [
    "CODEX_BIN_ENV",
    "CODEX_MODEL",
    "CODEX_NAMES",
    "MODES",
    "CodexTarget",
    "codex_config",
    "codex_flags",
    "codex_hooks",
    "codex_layer",
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


def _mcp_entries(rules: list[Rule], servers: list[str]) -> list[tuple[tuple[str, ...], object]]:
    """Codex's keys for ``rules`` on whole tools: a deny of the shell or of an MCP tool, an MCP tool's approval.

    Each is a key path and its value; one layer of Codex's config (a file or ``-c`` flags) holds them.
    """
    whole = [r for r in rules if r.pattern is None]
    entries: list[tuple[tuple[str, ...], object]] = []
    if any(r.tool == CODEX_NAMES.shell and r.action == "deny" for r in whole):
        # A deny of the whole shell tool: Codex offers no shell tool at all.
        entries += [(("features", "shell_tool"), False), (("features", "unified_exec"), False)]
    for server in servers:
        prefix = CODEX_NAMES.mcp("", server)
        disabled = [r.tool[len(prefix) :] for r in whole if r.action == "deny" and r.tool.startswith(prefix)]
        if disabled:
            entries.append((("mcp_servers", server, "disabled_tools"), disabled))
        # allow, then ask: a tool with both rules is asked about (the stronger rule wins).
        approvals = {
            r.tool[len(prefix) :]: _MCP_APPROVALS[r.action]
            for action in ("allow", "ask")
            for r in whole
            if r.action == action and r.tool.startswith(prefix)
        }
        entries += [(("mcp_servers", server, "tools", t, "approval_mode"), a) for t, a in approvals.items()]
    return entries


def _dotted(path: tuple[str, ...]) -> str:
    return ".".join(p if re.fullmatch(r"[A-Za-z0-9_-]+", p) else json.dumps(p) for p in path)


def _server_tables(
    server: McpServer, mcp_default: str, entries: list[tuple[tuple[str, ...], object]]
) -> list[str]:
    """The server's table with its keys of ``entries`` (its disabled tools, its tools' approvals)."""
    lines = [
        "",
        f"[mcp_servers.{json.dumps(server.name)}]",
        f"command = {_toml(server.command)}",
        f"args = {_toml(list(server.args))}",
        f"env = {_toml(server.env)}",
        f"startup_timeout_sec = {_MCP_STARTUP_SECONDS}",
        f"default_tools_approval_mode = {_toml(mcp_default)}",
    ]
    mine = [(path[2:], value) for path, value in entries if path[:2] == ("mcp_servers", server.name)]
    lines += [f"{_dotted(path)} = {_toml(value)}" for path, value in mine if len(path) == 1]
    for path, value in mine:
        if len(path) > 1:
            lines += ["", f"[mcp_servers.{_dotted((server.name, *path[:-1]))}]"]
            lines.append(f"{path[-1]} = {_toml(value)}")
    return lines


def codex_layer(rules: list[Rule], servers: list[McpServer], mcp_default: str) -> str:
    """A project's ``.codex/config.toml`` holding ``rules`` (:func:`_mcp_entries`).

    Codex checks each layer on its own: a server's table needs its transport in every layer that
    names the server, so the layer repeats the server's definition beside its rules.
    """
    entries = _mcp_entries(rules, [server.name for server in servers])
    lines = [f"{_dotted(path)} = {_toml(value)}" for path, value in entries if path[0] == "features"]
    for server in servers:
        lines += _server_tables(server, mcp_default, entries)
    return "\n".join(lines) + "\n"


def codex_flags(rules: list[Rule], servers: list[str]) -> list[str]:
    """``rules`` as Codex's session layer: ``-c key=value`` flags (:func:`_mcp_entries`)."""
    return [
        arg
        for path, value in _mcp_entries(rules, servers)
        for arg in ("-c", f"{_dotted(path)}={_toml(value)}")
    ]


def _sources(inv: TargetInvocation) -> dict[str, dict[str, Any]]:
    return {source: read_settings_file(path) for source, path in setting_sources(inv.workdir).items()}


def codex_config(inv: TargetInvocation) -> str:
    """Codex's ``config.toml`` (its user layer) for ``inv``: the scripted provider, MCP server, approvals, sandbox.

    The rules of ``--settings`` and of Claude Code's user settings file go here; a project settings
    file makes the working directory a trusted project (its ``.codex/config.toml`` is then read).
    """
    settings = _settings(inv)
    sources = _sources(inv)
    sandbox = settings.get("sandbox")
    sandboxed = isinstance(sandbox, dict) and sandbox.get("enabled") is True
    mcp_default, sandbox_mode = permission_mode(settings)
    if sandboxed and sandbox_mode == "danger-full-access":
        sandbox_mode = "workspace-write"
    servers = mcp_servers(inv.mcp_config_path)
    rules = settings_rules(settings) + settings_rules(sources.get("userSettings", {}))
    entries = _mcp_entries(rules, [server.name for server in servers])
    features = dict((path[1], value) for path, value in entries if path[0] == "features")
    lines = [
        f"model = {_toml(CODEX_MODEL)}",
        'model_provider = "scripted"',
        'approval_policy = "never"',
        f"sandbox_mode = {_toml(sandbox_mode)}",
        "check_for_update_on_startup = false",
        "",
        "[features]",
        f"shell_tool = {_toml(features.get('shell_tool', True))}",
        f"unified_exec = {_toml(features.get('unified_exec', True))}",
        "",
        "[model_providers.scripted]",
        'name = "scripted model API"',
        f"base_url = {_toml(inv.base_url + '/v1')}",
        'wire_api = "responses"',
        f"env_key = {_toml(_KEY_ENV)}",
        "request_max_retries = 0",
        "stream_max_retries = 0",
    ]
    if "projectSettings" in sources:
        lines += ["", f"[projects.{json.dumps(str(inv.workdir))}]", 'trust_level = "trusted"']
    for server in servers:
        lines += _server_tables(server, mcp_default, entries)
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
        return [*self._base_command(inv), *self._setting_layers(inv), inv.prompt]

    def _setting_layers(self, inv: TargetInvocation) -> list[str]:
        """Claude Code's other settings files in Codex's own layers; the ``-c`` flags of the local file.

        user: the user layer (``config.toml``, :func:`codex_config`) and ``rules/userSettings.rules``;
        project: the trusted project's ``.codex/config.toml`` and ``.codex/rules/projectSettings.rules``;
        local (Codex has no per-user project file): the session layer, ``-c`` flags, above the
        project's as Claude Code's local file is, and ``rules/localSettings.rules``.
        """
        servers = [server.name for server in mcp_servers(inv.mcp_config_path)]
        flags: list[str] = []
        for source, settings in _sources(inv).items():
            rules_dir = (
                inv.workdir / ".codex" / "rules" if source == "projectSettings" else self._home(inv) / "rules"
            )
            rules_dir.mkdir(parents=True, exist_ok=True)
            (rules_dir / f"{source}.rules").write_text(codex_rules(settings), encoding="utf-8")
            if source == "projectSettings":
                mcp_default = permission_mode(_settings(inv))[0]
                layer = codex_layer(settings_rules(settings), mcp_servers(inv.mcp_config_path), mcp_default)
                (inv.workdir / ".codex" / "config.toml").write_text(layer, encoding="utf-8")
            elif source == "localSettings":
                flags += codex_flags(settings_rules(settings), servers)
        return flags

    def _base_command(self, inv: TargetInvocation) -> list[str]:
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
        ]

    def environment(self, inv: TargetInvocation) -> dict[str, str]:
        """``CODEX_HOME`` and the dummy key."""
        return {"CODEX_HOME": str(self._home(inv)), _KEY_ENV: "sk-scripted"}

    def __repr__(self) -> str:
        return f"CodexTarget({str(self.binary)!r})"
