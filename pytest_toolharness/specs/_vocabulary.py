"""Claude Code's vocabulary, as the plugin's strategies and the conformance suite spell it.

Settings sources and their precedence, permission modes, hook events and MCP tool names are facts
about Claude Code, not about the reference harness, so the plugin keeps its own copy:
``pytest_toolharness.strategies`` and the conformance suite must not import ``reference_impl`` when
they check somebody else's harness. This module is the plugin's only spelling of them (the
strategies and the suite import it); ``tests/test_vocabulary.py`` holds it to the harness's copy
and to the shared design documents.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, TypeAlias, get_args

__all__ = [
    "ALL_HOOK_EVENTS",
    "CLAUDE_CODE_TOOLS",
    "CONTENTLESS_TOOLS",
    "LIFECYCLE_EVENTS",
    "MCP_PREFIX",
    "PERMISSION_MODES",
    "SETTINGS_FILES",
    "SETTINGS_PRECEDENCE",
    "SETTING_SOURCES",
    "TOOL_HOOK_EVENTS",
    "TOOL_MATCHER_EVENTS",
    "HookEvent",
    "LifecycleEvent",
    "McpName",
    "PermissionMode",
    "SettingSource",
    "mcp_tool_name",
    "normalize_name_for_mcp",
    "parse_mcp_name",
]

SettingSource: TypeAlias = Literal[
    "userSettings",
    "projectSettings",
    "localSettings",
    "policySettings",
    "flagSettings",
    "cliArg",
    "command",
    "session",
]
SETTING_SOURCES: tuple[SettingSource, ...] = get_args(SettingSource)
"""Every settings source a permission rule can come from (004 §9.1)."""

SETTINGS_PRECEDENCE: tuple[SettingSource, ...] = (
    "userSettings",
    "projectSettings",
    "localSettings",
    "flagSettings",
    "policySettings",
)
"""The settings files, lowest precedence first: user, shared project, local project, ``--settings``,
managed policy (a later file's value for a key wins; rules are merged: deny > ask > allow, PERM-4)."""

SETTINGS_FILES: dict[SettingSource, str] = {
    "userSettings": "~/.claude/settings.json",
    "projectSettings": ".claude/settings.json",
    "localSettings": ".claude/settings.local.json",
}
"""Where Claude Code reads each settings file it finds by itself: ``~`` is the home directory, the
rest is relative to the project (working) directory. ``flagSettings`` is ``--settings FILE``."""

PermissionMode: TypeAlias = Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"]
PERMISSION_MODES: tuple[PermissionMode, ...] = get_args(PermissionMode)
"""Every permission mode, as spelled in settings (``defaultMode``) and on the command line."""

CLAUDE_CODE_TOOLS: tuple[str, ...] = (
    "Agent",
    "AskUserQuestion",
    "Bash",
    "BashOutput",
    "Edit",
    "ExitPlanMode",
    "Glob",
    "Grep",
    "KillShell",
    "LS",
    "MultiEdit",
    "NotebookEdit",
    "NotebookRead",
    "Read",
    "SlashCommand",
    "Skill",
    "Task",
    "TodoWrite",
    "ToolSearch",
    "WebFetch",
    "WebSearch",
    "Write",
)
"""Claude Code's built-in tool names a permission rule may name. A name one typing slip from one of them
(``WebFecth``, ``Bahs``) names no tool as written: PERM-12 refuses such a deny rule or reads it as the
built-in meant; a name further from all of them may be a tool the program adds."""

CONTENTLESS_TOOLS: tuple[str, ...] = (
    "AskUserQuestion",
    "BashOutput",
    "ExitPlanMode",
    "KillShell",
    "TodoWrite",
    "ToolSearch",
    "WebSearch",
)
"""Claude Code's built-in tools that have no content a rule could match: ``WebSearch(cats)`` names
nothing (a rule names the whole tool: ``WebSearch``), so a deny or ask rule written so guards nothing."""

HookEvent: TypeAlias = Literal["PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"]
TOOL_HOOK_EVENTS: tuple[HookEvent, ...] = get_args(HookEvent)
"""The hook events the tool pipeline runs, around each tool call."""

TOOL_MATCHER_EVENTS: tuple[str, ...] = (*TOOL_HOOK_EVENTS, "PermissionDenied")
"""The hook events whose ``matcher`` is a tool name (a regular expression over tool names)."""

ALL_HOOK_EVENTS: tuple[str, ...] = (
    *TOOL_MATCHER_EVENTS,
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "Notification",
)
"""The Claude Code hook events known by name: the tool events, then the lifecycle ones (HOOK-7)."""

LifecycleEvent: TypeAlias = Literal[
    "UserPromptSubmit", "Stop", "SubagentStop", "SessionStart", "SessionEnd", "PreCompact", "Notification"
]
LIFECYCLE_EVENTS: tuple[LifecycleEvent, ...] = get_args(LifecycleEvent)
"""The hook events of an agent loop's lifecycle moments (HOOK-7), in ``ALL_HOOK_EVENTS`` order."""

MCP_PREFIX = "mcp__"
_INVALID_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")


def normalize_name_for_mcp(name: str) -> str:
    """Replace every character outside ``[A-Za-z0-9_-]`` with ``_`` (Claude Code's rule)."""
    return _INVALID_NAME_CHARS.sub("_", name)


def mcp_tool_name(server: str, tool: str) -> str:
    """The harness name of an MCP server's tool: ``mcp__<server>__<tool>``, normalised."""
    return f"{MCP_PREFIX}{normalize_name_for_mcp(server)}__{normalize_name_for_mcp(tool)}"


@dataclass(frozen=True, slots=True)
class McpName:
    """A parsed ``mcp__server[__tool]`` name; ``tool`` is None for a server-level name."""

    server: str
    tool: str | None


def parse_mcp_name(name: str) -> McpName | None:
    """Split ``mcp__server__tool`` (or ``mcp__server``) into its parts; None if not an MCP name.

    The server is the text up to the first ``__`` after the prefix; everything after it is the
    tool name (tool names may themselves contain ``__``).
    """
    if not name.startswith(MCP_PREFIX):
        return None
    server, sep, tool = name[len(MCP_PREFIX) :].partition("__")
    if not server:
        return None
    return McpName(server=server, tool=tool if sep else None)
