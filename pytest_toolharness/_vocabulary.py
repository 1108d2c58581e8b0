"""Names the strategies share with every harness: MCP tool names and settings sources.

These are facts about Claude Code, not about the reference harness, so the strategies keep their own
copy: ``pytest_toolharness.strategies`` and the conformance suite must not import ``reference_impl``
when they check somebody else's harness. ``tests/test_naming.py`` checks both copies agree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, TypeAlias, get_args

__all__ = [
    "MCP_PREFIX",
    "SETTING_SOURCES",
    "McpName",
    "SettingSource",
    "mcp_tool_name",
    "normalize_name_for_mcp",
    "parse_mcp_name",
]

MCP_PREFIX = "mcp__"
_INVALID_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")

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
