"""When a session compacts by itself, and the summary request that compaction sends."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reference_impl.request import CompactBoundary, DeferredToolsDelta, TranscriptEntry, content_blocks

__all__ = ["SUMMARY_PROMPT", "CompactionPolicy", "render_for_summary"]

SUMMARY_PROMPT = (
    "Summarize the conversation below for a continuation of it: the user's requests, what was done, "
    "which tools were used and what they found, and what is left to do. Reply with the summary only."
)


@dataclass(frozen=True, slots=True)
class CompactionPolicy:
    """When the loop compacts by itself, and how much it keeps.

    Before a request, when the transcript holds more than ``max_entries`` entries, the loop asks the
    model for a summary (``summary_max_tokens``) and keeps the last ``keep_last`` entries (moved
    earlier when needed so no tool_result loses its tool_use). ``max_entries=None`` never compacts
    on its own; :meth:`AgentSession.compact` still works.
    """

    max_entries: int | None = None
    keep_last: int = 2
    summary_max_tokens: int = 1024

    def __post_init__(self) -> None:
        if self.max_entries is not None and self.max_entries < 1:
            raise ValueError(f"CompactionPolicy.max_entries must be >= 1 or None, got {self.max_entries}")
        if self.keep_last < 0:
            raise ValueError(f"CompactionPolicy.keep_last must be >= 0, got {self.keep_last}")
        if self.summary_max_tokens < 1:
            raise ValueError(
                f"CompactionPolicy.summary_max_tokens must be >= 1, got {self.summary_max_tokens}"
            )


def render_for_summary(entries: Sequence[TranscriptEntry]) -> str:
    """The transcript as plain text, for a summary request that carries no tools.

    Plain text, not messages: the history holds tool_use/tool_result pairs and tool_reference
    blocks that a request without tools can't carry.
    """
    lines: list[str] = []
    for entry in entries:
        if isinstance(entry, DeferredToolsDelta | CompactBoundary):
            lines.append(f"[harness] {entry.render()}")
            continue
        role = entry["role"]
        for block in content_blocks(entry):
            kind = block.get("type")
            if kind == "text":
                lines.append(f"[{role}] {block.get('text', '')}")
            elif kind == "tool_use":
                lines.append(f"[{role} calls {block.get('name')}] {block.get('input')!r}")
            elif kind == "tool_result":
                inner = block.get("content")
                if isinstance(inner, list):
                    inner = " ".join(str(i.get("text") or i.get("tool_name") or i.get("type")) for i in inner)
                lines.append(f"[tool result] {inner}")
    return "\n".join(lines)
