"""The session transcript: API messages plus the harness's own entries (attachments, boundaries).

A transcript is a list of :data:`TranscriptEntry`. API messages are the SDK's own
``MessageParam`` dicts; the harness adds a ``deferred_tools_delta`` attachment (000 §10) and a
compact boundary that carries the discovered-tool set across compaction (000 §8.2). Before a
request, :func:`to_api_messages` renders attachments as ``<system-reminder>`` text and merges
adjacent user messages, keeping tool results first in their message (PAIR-1).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias, cast

from anthropic.types import MessageParam, TextBlockParam

__all__ = [
    "CompactBoundary",
    "DeferredToolsDelta",
    "TranscriptEntry",
    "content_blocks",
    "system_reminder",
    "to_api_messages",
]


@dataclass(frozen=True, slots=True)
class DeferredToolsDelta:
    """A ``deferred_tools_delta`` attachment: which deferred tools were announced or withdrawn."""

    added_names: tuple[str, ...]
    added_lines: tuple[str, ...]
    removed_names: tuple[str, ...]

    def render(self) -> str:
        """The notice as the model reads it (000 §10.3), inside a system reminder."""
        parts: list[str] = []
        if self.added_lines:
            parts.append(
                "The following deferred tools are now available via ToolSearch:\n"
                + "\n".join(self.added_lines)
            )
        if self.removed_names:
            parts.append(
                "The following deferred tools are no longer available:\n" + "\n".join(self.removed_names)
            )
        return system_reminder("\n\n".join(parts))


@dataclass(frozen=True, slots=True)
class CompactBoundary:
    """Where compaction cut the history; carries the discovered tools and the summary."""

    summary: str
    pre_compact_discovered_tools: tuple[str, ...] = ()

    def render(self) -> str:
        """The summary as the first user text after compaction."""
        return "This session is being continued from a previous conversation. Summary:\n" + self.summary


TranscriptEntry: TypeAlias = MessageParam | DeferredToolsDelta | CompactBoundary


def system_reminder(text: str) -> str:
    """Wrap harness-generated text the way Claude Code shows it to the model."""
    return f"<system-reminder>\n{text}\n</system-reminder>"


def content_blocks(message: MessageParam) -> list[dict[str, Any]]:
    """A message's content as a list of block dicts (a plain string becomes one text block)."""
    content = message["content"]
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    # Deep copies: whoever edits the rendered request must never edit the transcript.
    return [copy.deepcopy(cast(dict[str, Any], block)) for block in content]


def _text(text: str) -> TextBlockParam:
    return {"type": "text", "text": text}


def to_api_messages(entries: Iterable[TranscriptEntry]) -> list[MessageParam]:
    """Render a transcript into the ``messages`` array of a request.

    Attachments and boundaries become user text; consecutive user messages are merged into one,
    with every tool_result block moved ahead of the other blocks (the API requires tool results
    to come first after a tool_use turn).
    """
    rendered: list[tuple[str, list[dict[str, Any]]]] = []
    for entry in entries:
        if isinstance(entry, DeferredToolsDelta | CompactBoundary):
            role, blocks = "user", [dict(_text(entry.render()))]
        else:
            role = entry["role"]
            if role not in ("user", "assistant"):
                raise ValueError(
                    f"a transcript message has role {role!r}; only 'user' and 'assistant' go in messages"
                )
            blocks = content_blocks(entry)
        if rendered and rendered[-1][0] == role == "user":
            rendered[-1][1].extend(blocks)
        else:
            rendered.append((role, list(blocks)))
    messages: list[MessageParam] = []
    for role, blocks in rendered:
        if role == "user":
            blocks = _tool_results_first(blocks)
        messages.append(cast(MessageParam, {"role": role, "content": blocks}))
    return messages


def _tool_results_first(blocks: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    results = [b for b in blocks if b.get("type") == "tool_result"]
    others = [b for b in blocks if b.get("type") != "tool_result"]
    return results + others
