"""Tool names: MCP naming as Claude Code does it, and name lookup with aliases."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MCP_PREFIX", "McpName", "mcp_tool_name", "normalize_name_for_mcp", "parse_mcp_name"]

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
    rest = name[len(MCP_PREFIX) :]
    if not rest:
        return None
    server, sep, tool = rest.partition("__")
    if not server:
        return None
    return McpName(server=server, tool=tool if sep else None)
