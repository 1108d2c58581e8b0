"""Telling the model which deferred tools exist (000 §6.1, §10; DEFER-3, DELTA-1..4).

Two mechanisms, as in Claude Code:

* **A, the listing**: every request starts with a user message naming every deferred tool
  (:func:`render_deferred_tools_listing`). Simple, but any change to the set rewrites the first
  message and breaks the prompt cache.
* **B, delta notices**: a persistent ``deferred_tools_delta`` transcript entry names only what
  changed since the notices already in the transcript (:func:`compute_deferred_tools_delta`).

Compaction: the announced set is folded from the notices *after the last compact boundary*. A
compaction drops the old notices from what the model sees, so the model no longer knows those
names; starting the fold afresh makes the next delta re-announce every deferred tool (DEFER-3),
instead of carrying a set the model can't see in the boundary.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from reference_impl.request._transcript import CompactBoundary, DeferredToolsDelta, TranscriptEntry
from reference_impl.tools import TOOL_SEARCH_TOOL_NAME, Tool, is_deferred_tool

__all__ = [
    "ListingStyle",
    "announced_deferred_tools",
    "compute_deferred_tools_delta",
    "format_deferred_tool_line",
    "render_deferred_tools_listing",
]

ListingStyle = Literal["tag", "claude_code"]


def _announced_in_order(entries: Iterable[TranscriptEntry]) -> dict[str, None]:
    # An insertion-ordered set (like the JS Set Claude Code folds into), so that removed names
    # come out in a stable order that never depends on hashing.
    announced: dict[str, None] = {}
    for entry in entries:
        if isinstance(entry, CompactBoundary):
            announced.clear()
        elif isinstance(entry, DeferredToolsDelta):
            for name in entry.added_names:
                announced.pop(name, None)
                announced[name] = None
            for name in entry.removed_names:
                announced.pop(name, None)
    return announced


def announced_deferred_tools(entries: Iterable[TranscriptEntry]) -> set[str]:
    """The deferred tools the model has been told about: the fold of the delta notices (DELTA-1).

    Each notice adds its ``added_names`` and then removes its ``removed_names``, in transcript
    order. A compact boundary starts the fold afresh (see the module docstring).
    """
    return set(_announced_in_order(entries))


def format_deferred_tool_line(tool: Tool) -> str:
    """One line of a notice for ``tool``: its name (Claude Code's ``formatDeferredToolLine``)."""
    return tool.name


def compute_deferred_tools_delta(
    pool: Sequence[Tool],
    entries: Iterable[TranscriptEntry],
    *,
    is_deferred: Callable[[Tool], bool] = is_deferred_tool,
) -> DeferredToolsDelta | None:
    """The notice to append now, or None when the model already knows the current set.

    added: deferred tools of ``pool`` that are not announced, in pool order. removed: announced
    names that left the pool altogether; a tool still in the pool but no longer deferred is still
    usable, so it is not reported removed (DELTA-2). Appending the result and recomputing gives
    None (DELTA-3); a tool removed and later re-added is announced again (DELTA-4).
    """
    announced = _announced_in_order(entries)
    added = [tool for tool in pool if is_deferred(tool) and tool.name not in announced]
    pool_names = {tool.name for tool in pool}
    removed = [name for name in announced if name not in pool_names]
    if not added and not removed:
        return None
    return DeferredToolsDelta(
        added_names=tuple(tool.name for tool in added),
        added_lines=tuple(format_deferred_tool_line(tool) for tool in added),
        removed_names=tuple(removed),
    )


def _sort_key(name: str) -> tuple[str, str]:
    return (name.casefold(), name)


def render_deferred_tools_listing(
    pool: Sequence[Tool],
    *,
    is_deferred: Callable[[Tool], bool] = is_deferred_tool,
    style: ListingStyle = "tag",
) -> str | None:
    """The mechanism-A listing of every deferred tool in ``pool``; None when there is none.

    ``tag`` is the seed's ``<available-deferred-tools>`` message with the names sorted.
    ``claude_code`` is the text Claude Code 2.1.x sends (CLAUDE-CODE-OBSERVED.md): built-in tools
    first, then MCP tools, each group sorted case-insensitively, with how to load them.
    """
    deferred = [tool for tool in pool if is_deferred(tool)]
    if not deferred:
        return None
    if style == "tag":
        names = sorted(tool.name for tool in deferred)
        return "<available-deferred-tools>\n" + "\n".join(names) + "\n</available-deferred-tools>"
    if style == "claude_code":
        built_in = sorted((t.name for t in deferred if not t.is_mcp), key=_sort_key)
        mcp = sorted((t.name for t in deferred if t.is_mcp), key=_sort_key)
        return (
            f"The following deferred tools are now available via {TOOL_SEARCH_TOOL_NAME}. Their schemas "
            f"are not loaded yet; use {TOOL_SEARCH_TOOL_NAME} with query "
            '"select:<name>[,<name>...]" to load them before calling them:\n' + "\n".join(built_in + mcp)
        )
    raise ValueError(f"unknown deferred tools listing style {style!r}: expected 'tag' or 'claude_code'")
