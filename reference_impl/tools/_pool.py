"""Tool pool assembly: built-ins sorted as a contiguous prefix, MCP tools sorted after (CACHE-2)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from reference_impl.tools._tool import Tool

__all__ = ["ToolDenyFilter", "assemble_tool_pool", "find_tool_by_name"]

ToolDenyFilter = Callable[[Tool], bool]
"""Returns True for a tool that a rule denies as a whole (PERM-10); such tools are removed."""


def _sort_key(tool: Tool) -> tuple[str, str]:
    # Case-insensitive, as Claude Code's localeCompare; the exact name breaks ties so that the
    # order is total and never depends on the input order.
    return (tool.name.casefold(), tool.name)


def assemble_tool_pool(
    built_in: Iterable[Tool],
    mcp: Iterable[Tool] = (),
    *,
    is_denied: ToolDenyFilter | None = None,
) -> tuple[Tool, ...]:
    """The tools the model may see, in wire order.

    Built-in tools sorted by name form a prefix; MCP tools sorted by name follow, so adding or
    removing an MCP tool never moves a built-in tool and the cached prefix stays byte-stable.
    Names are unique: on a clash the built-in tool wins (and among MCP tools, the first one in
    sorted order). Tools for which ``is_denied`` returns True are removed before anything else.
    """
    built_in_kept = [t for t in built_in if not (is_denied and is_denied(t))]
    mcp_kept = [t for t in mcp if not (is_denied and is_denied(t))]
    pool: list[Tool] = []
    seen: set[str] = set()
    for tool in sorted(built_in_kept, key=_sort_key) + sorted(mcp_kept, key=_sort_key):
        if tool.name in seen:
            continue
        seen.add(tool.name)
        pool.append(tool)
    return tuple(pool)


def find_tool_by_name(tools: Sequence[Tool], name: str, *, use_aliases: bool = True) -> Tool | None:
    """The tool called ``name``; failing that, the tool that lists ``name`` as an alias (EXEC-3)."""
    for tool in tools:
        if tool.name == name:
            return tool
    if use_aliases:
        for tool in tools:
            if name in tool.aliases:
                return tool
    return None
