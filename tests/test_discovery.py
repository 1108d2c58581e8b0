"""Discovered tools from the transcript, and compaction that keeps them and the pairing (DEFER-7, PAIR-1)."""

from __future__ import annotations

from typing import Any

import pytest
from anthropic.types import MessageParam
from hypothesis import given
from hypothesis import strategies as st

from reference_impl import TranscriptEntry
from reference_impl.request import (
    CompactBoundary,
    DeferredToolsDelta,
    announced_deferred_tools,
    compact,
    extract_discovered_tool_names,
    to_api_messages,
)


def search_turn(use_id: str, names: list[str]) -> list[MessageParam]:
    """An assistant ToolSearch call and the user message with its tool_reference result."""
    return [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": use_id, "name": "ToolSearch", "input": {"query": "x"}}],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": use_id,
                    "content": [{"type": "tool_reference", "tool_name": n} for n in names],
                },
                {"type": "text", "text": "Tool loaded."},
            ],
        },
    ]


def test_references_in_tool_results_are_discovered() -> None:
    entries: list[TranscriptEntry] = [
        {"role": "user", "content": "find tools"},
        *search_turn("t1", ["WebFetch", "mcp__s__a"]),
        *search_turn("t2", ["WebFetch"]),
    ]
    assert extract_discovered_tool_names(entries) == {"WebFetch", "mcp__s__a"}


def test_references_outside_user_tool_results_are_not_discovered() -> None:
    entries: list[TranscriptEntry] = [
        {"role": "assistant", "content": [{"type": "text", "text": "tool_reference"}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": "WebFetch"}]},
        {"role": "user", "content": [{"type": "tool_reference", "tool_name": "Stray"}]},  # type: ignore[list-item]
        DeferredToolsDelta(added_names=("A",), added_lines=("A",), removed_names=()),
    ]
    assert extract_discovered_tool_names(entries) == frozenset()


def test_boundary_set_is_part_of_discovery() -> None:
    entries: list[TranscriptEntry] = [
        CompactBoundary(summary="s", pre_compact_discovered_tools=("Cron",)),
        *search_turn("t1", ["WebFetch"]),
    ]
    assert extract_discovered_tool_names(entries) == {"Cron", "WebFetch"}


def test_compact_keeps_discovered_tools_and_restarts_announcements() -> None:
    entries: list[TranscriptEntry] = [
        {"role": "user", "content": "go"},
        DeferredToolsDelta(added_names=("WebFetch",), added_lines=("WebFetch",), removed_names=()),
        *search_turn("t1", ["WebFetch"]),
        {"role": "assistant", "content": "done"},
        {"role": "user", "content": "more"},
    ]
    compacted = compact(entries, "summary text", keep_last=1)
    assert compacted[0] == CompactBoundary(summary="summary text", pre_compact_discovered_tools=("WebFetch",))
    assert compacted[1:] == [{"role": "user", "content": "more"}]
    assert extract_discovered_tool_names(compacted) == {"WebFetch"}
    # The notices are gone from what the model sees, so the fold restarts: re-announce.
    assert announced_deferred_tools(compacted) == set()
    assert entries[0] == {"role": "user", "content": "go"}  # the input is unchanged


def test_compact_moves_cut_to_keep_tool_use_with_result() -> None:
    entries: list[TranscriptEntry] = [{"role": "user", "content": "go"}, *search_turn("t1", ["A"])]
    compacted = compact(entries, "s", keep_last=1)
    assert compacted[1:] == entries[1:]


def test_compact_rejects_negative_keep_last() -> None:
    with pytest.raises(ValueError, match=r"keep_last=-1"):
        compact([], "s", keep_last=-1)


def _check_pairing(messages: list[MessageParam]) -> None:
    """PAIR-1: each user message answers exactly the previous assistant message's tool_use ids."""
    asked: set[str] = set()
    for message in messages:
        blocks: list[Any] = [] if isinstance(message["content"], str) else list(message["content"])
        if message["role"] == "assistant":
            assert not asked, f"tool_use ids {asked} were not answered"
            asked = {b["id"] for b in blocks if b["type"] == "tool_use"}
        else:
            answered = [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"]
            assert sorted(answered) == sorted(asked)
            types = [b["type"] for b in blocks]
            assert types == sorted(types, key=lambda t: t != "tool_result")
            asked = set()


@st.composite
def transcripts(draw: st.DrawFn) -> list[TranscriptEntry]:
    entries: list[TranscriptEntry] = [{"role": "user", "content": "start"}]
    for turn in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["search", "text", "delta"]))
        if kind == "search":
            names = draw(st.lists(st.sampled_from(["A", "B", "mcp__s__c"]), max_size=3, unique=True))
            entries.extend(search_turn(f"id{turn}", names))
        elif kind == "text":
            entries.append({"role": "assistant", "content": "ok"})
            entries.append({"role": "user", "content": f"next {turn}"})
        else:
            entries.append(DeferredToolsDelta(added_names=("A",), added_lines=("A",), removed_names=()))
    return entries


@given(transcripts(), st.integers(0, 20), st.integers(1, 3))
def test_compaction_loses_no_discovered_tool_and_keeps_pairs(
    entries: list[TranscriptEntry], keep_last: int, rounds: int
) -> None:
    """DEFER-7, PAIR-1: after any number of compactions at any cut, the discovered set is the same
    and the rendered messages pair every tool_use with its tool_result."""
    before = extract_discovered_tool_names(entries)
    current = entries
    for _ in range(rounds):
        current = compact(current, "summary", keep_last=keep_last)
        assert extract_discovered_tool_names(current) == before
        assert sum(isinstance(e, CompactBoundary) for e in current) == 1
        _check_pairing(to_api_messages(current))
        assert current[-1] == entries[-1] or keep_last == 0
