"""The suite's record of tool calls: every start and end, numbered in the order they happened.

A :class:`CallRecorder` is owned by the test; a scripted tool behaviour records into it whatever the
harness under test is, so a test can see overlaps, calls that should never have happened, and aborts.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "CallEvent",
    "CallRecorder",
]


@dataclass(frozen=True, slots=True)
class CallEvent:
    """One start or end of a tool call, numbered in the order the recorder saw it."""

    seq: int
    kind: Literal["start", "end", "abort_seen"]
    tool_use_id: str
    tool_name: str
    tool_input: Mapping[str, Any]


class CallRecorder:
    """Records tool-call starts and ends with a global sequence number (thread- and task-safe).

    Overlap is judged by sequence numbers, never by wall-clock time: call A overlaps call B when
    B started after A started and before A ended.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counter = itertools.count()
        self.events: list[CallEvent] = []
        self._triggers: list[tuple[int, asyncio.Event, frozenset[str] | None]] = []

    def trigger_after_starts(
        self, count: int, event: asyncio.Event, *, of: Iterable[str] | None = None
    ) -> None:
        """Set ``event`` as soon as ``count`` calls have started (fault injection: abort mid-batch).

        ``of`` counts only the starts of those tool_use ids: a gate for a group of calls then opens when
        the group has started, whichever other calls a harness running all at once started first.
        """
        ids = None if of is None else frozenset(of)
        self._triggers.append((count, event, ids))
        if self._starts(ids) >= count:
            event.set()

    def _starts(self, ids: frozenset[str] | None) -> int:
        return sum(1 for e in self.events if e.kind == "start" and (ids is None or e.tool_use_id in ids))

    def record(
        self,
        kind: Literal["start", "end", "abort_seen"],
        tool_use_id: str,
        name: str,
        tool_input: Mapping[str, Any],
    ) -> None:
        """Add one event."""
        with self._lock:
            self.events.append(CallEvent(next(self._counter), kind, tool_use_id, name, dict(tool_input)))
            reached = [event for count, event, ids in self._triggers if self._starts(ids) >= count]
        if kind == "start":
            for event in reached:
                event.set()

    def started(self) -> list[str]:
        """The tool_use ids whose call started, in start order."""
        return [e.tool_use_id for e in self.events if e.kind == "start"]

    def ended(self) -> list[str]:
        """The tool_use ids whose call returned or raised, in end order."""
        return [e.tool_use_id for e in self.events if e.kind == "end"]

    def inputs(self, tool_use_id: str) -> list[Mapping[str, Any]]:
        """The inputs the call with this id actually ran with."""
        return [e.tool_input for e in self.events if e.kind == "start" and e.tool_use_id == tool_use_id]

    def overlapping_pairs(self) -> list[tuple[str, str]]:
        """Pairs of calls whose runs overlapped (a call with no end runs to the end of the record)."""
        spans: dict[str, tuple[int, int]] = {}
        last = len(self.events) + 1
        for event in self.events:
            if event.kind == "start":
                spans[event.tool_use_id] = (event.seq, last)
            elif event.kind == "end" and event.tool_use_id in spans:
                spans[event.tool_use_id] = (spans[event.tool_use_id][0], event.seq)
        ordered = sorted(spans.items(), key=lambda item: item[1][0])
        pairs = []
        for (a, (a_start, a_end)), (b, (b_start, _b_end)) in itertools.combinations(ordered, 2):
            if a_start < b_start < a_end:
                pairs.append((a, b))
        return pairs
