"""Discovered tools, rebuilt from the transcript, and a compaction that keeps them (000 §8; DEFER-7).

A deferred tool is *discovered* once a ToolSearch result named it in a ``tool_reference`` block.
Nothing else records it: the set is rebuilt from the messages before every request. Compaction
deletes those messages, so the boundary that replaces them carries the set
(``pre_compact_discovered_tools``), and :func:`extract_discovered_tool_names` reads both.

:func:`compact` does not carry the *announced* deferred-tool set (the DELTA fold): the notices it
removes are gone from what the model sees, so the fold restarts at the boundary and the next
delta re-announces every deferred tool (see :mod:`reference_impl.request._notices`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from reference_impl.request._transcript import (
    CompactBoundary,
    DeferredToolsDelta,
    TranscriptEntry,
    content_blocks,
)

__all__ = ["compact", "extract_discovered_tool_names", "iter_tool_references"]


def iter_tool_references(block: Mapping[str, Any]) -> Iterator[str]:
    """The tool names of the ``tool_reference`` blocks inside one ``tool_result`` block."""
    if block.get("type") != "tool_result":
        return
    content = block.get("content")
    if isinstance(content, str) or not isinstance(content, Iterable):
        return
    for item in content:
        if isinstance(item, Mapping) and item.get("type") == "tool_reference":
            name = item.get("tool_name")
            if isinstance(name, str) and name:
                yield name


def extract_discovered_tool_names(entries: Iterable[TranscriptEntry]) -> frozenset[str]:
    """Every tool a ToolSearch result referenced, plus what compact boundaries carried (DEFER-7)."""
    discovered: set[str] = set()
    for entry in entries:
        if isinstance(entry, CompactBoundary):
            discovered.update(entry.pre_compact_discovered_tools)
        elif isinstance(entry, DeferredToolsDelta):
            continue
        elif entry["role"] == "user":
            for block in content_blocks(entry):
                discovered.update(iter_tool_references(block))
    return frozenset(discovered)


def _is_message(entry: TranscriptEntry) -> bool:
    return not isinstance(entry, DeferredToolsDelta | CompactBoundary)


def _has_block(entry: TranscriptEntry, block_type: str) -> bool:
    if not _is_message(entry):
        return False
    return any(block.get("type") == block_type for block in content_blocks(entry))  # type: ignore[arg-type]


def _safe_cut(entries: Sequence[TranscriptEntry], cut: int) -> int:
    """Move ``cut`` back until the kept tail doesn't start with tool results whose tool_use is cut off.

    The first message of the tail must not be a user message holding tool_result blocks: its
    tool_use blocks would be in the summarised part and the API would refuse the orphans (PAIR-1).
    """
    while cut > 0:
        first = next((i for i in range(cut, len(entries)) if _is_message(entries[i])), None)
        if first is None or not _has_block(entries[first], "tool_result"):
            return cut
        previous = next((i for i in range(first - 1, -1, -1) if _is_message(entries[i])), None)
        if previous is None:
            return cut  # results with no tool_use anywhere: nothing to keep them with
        cut = previous
    return cut


def compact(entries: Sequence[TranscriptEntry], summary: str, *, keep_last: int) -> list[TranscriptEntry]:
    """Replace all but the last ``keep_last`` entries with a :class:`CompactBoundary`.

    The boundary carries the summary and every tool discovered so far, sorted (so compaction
    loses none: DEFER-7). The cut moves earlier when needed so that no tool_result is kept
    without the assistant message holding its tool_use (PAIR-1); the tail may therefore be a
    little longer than ``keep_last``; it never reaches back past an earlier boundary, which the
    new one replaces. The input is not changed.
    """
    if keep_last < 0:
        raise ValueError(f"compact(keep_last={keep_last}): keep_last must be 0 or more")
    if not isinstance(summary, str):
        raise TypeError(f"compact(summary=...): the summary must be a str, got {type(summary).__name__}")
    # An earlier boundary starts the history: the new summary replaces it (and carries its
    # discovered set), so the tail never reaches back past it and one boundary remains.
    last_boundary = max((i for i, e in enumerate(entries) if isinstance(e, CompactBoundary)), default=-1)
    cut = _safe_cut(entries, max(0, len(entries) - keep_last, last_boundary + 1))
    boundary = CompactBoundary(
        summary=summary,
        pre_compact_discovered_tools=tuple(sorted(extract_discovered_tool_names(entries))),
    )
    return [boundary, *(e for e in entries[cut:] if not isinstance(e, CompactBoundary))]
