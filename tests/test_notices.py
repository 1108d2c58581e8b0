"""Deferred-tool listing and delta notices (DEFER-3, DELTA-1..4)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from pydantic import BaseModel

from reference_impl import (
    Tool,
    ToolContext,
    ToolOutput,
    TranscriptEntry,
    assemble_tool_pool,
    build_tool,
    mcp_tool,
)
from reference_impl.request import (
    CompactBoundary,
    DeferredToolsDelta,
    announced_deferred_tools,
    compute_deferred_tools_delta,
    render_deferred_tools_listing,
)
from reference_impl.tools import is_deferred_tool


async def _noop(_input: Any, _context: ToolContext) -> ToolOutput:
    return ToolOutput(content="ok")


class _Empty(BaseModel):
    pass


def built_in(name: str, *, defer: bool = False) -> Tool:
    return build_tool(name, f"The {name} tool.", _noop, input_model=_Empty, should_defer=defer)


def mcp(server: str, name: str, *, always_load: bool = False) -> Tool:
    meta = {"anthropic/alwaysLoad": True} if always_load else None
    return mcp_tool(
        server, name, f"{name} on {server}.", {"type": "object", "properties": {}}, _noop, meta=meta
    )


BUILT_INS = (
    built_in("Read"),
    built_in("ToolSearch"),
    built_in("WebFetch", defer=True),
    built_in("Cron", defer=True),
)


def _delta(added: tuple[str, ...] = (), removed: tuple[str, ...] = ()) -> DeferredToolsDelta:
    return DeferredToolsDelta(added_names=added, added_lines=added, removed_names=removed)


def test_announced_is_the_fold_added_then_removed() -> None:
    entries: list[TranscriptEntry] = [
        _delta(("a", "b")),
        {"role": "user", "content": "hi"},
        _delta(("c",), ("a",)),
        _delta(("a",), ("a",)),  # same notice adds then removes: removed wins
    ]
    assert announced_deferred_tools(entries) == {"b", "c"}


def test_compact_boundary_restarts_the_fold() -> None:
    entries: list[TranscriptEntry] = [_delta(("a",)), CompactBoundary(summary="s"), _delta(("b",))]
    assert announced_deferred_tools(entries) == {"b"}


def test_first_delta_announces_deferred_tools_in_pool_order() -> None:
    pool = assemble_tool_pool(
        BUILT_INS, [mcp("zeta", "x"), mcp("alpha", "y"), mcp("k", "z", always_load=True)]
    )
    delta = compute_deferred_tools_delta(pool, [])
    assert delta is not None
    assert delta.added_names == ("Cron", "WebFetch", "mcp__alpha__y", "mcp__zeta__x")
    assert delta.added_lines == delta.added_names
    assert delta.removed_names == ()
    assert compute_deferred_tools_delta(pool, [delta]) is None
    assert "now available via ToolSearch:\nCron\nWebFetch" in delta.render()


def test_tool_that_stops_being_deferred_is_not_removed() -> None:
    """DELTA-2: still in the pool, now always loaded: usable, so not reported removed."""
    before = assemble_tool_pool(BUILT_INS, [mcp("s", "t")])
    first = compute_deferred_tools_delta(before, [])
    assert first is not None
    after = assemble_tool_pool(BUILT_INS, [mcp("s", "t", always_load=True)])
    assert compute_deferred_tools_delta(after, [first]) is None
    gone = compute_deferred_tools_delta(BUILT_INS, [first])
    assert gone == _delta(removed=("mcp__s__t",))
    assert "no longer available:\nmcp__s__t" in gone.render()


def test_removed_then_readded_is_announced_again() -> None:
    """DELTA-4."""
    with_tool = assemble_tool_pool(BUILT_INS, [mcp("s", "t")])
    entries: list[TranscriptEntry] = []
    for pool in (with_tool, BUILT_INS, with_tool):
        delta = compute_deferred_tools_delta(pool, entries)
        assert delta is not None
        entries.append(delta)
    assert entries[-1] == _delta(added=("mcp__s__t",))


def test_listing_tag_style_sorted() -> None:
    pool = assemble_tool_pool(BUILT_INS, [mcp("b", "x"), mcp("a", "y")])
    listing = render_deferred_tools_listing(pool)
    assert listing == (
        "<available-deferred-tools>\nCron\nWebFetch\nmcp__a__y\nmcp__b__x\n</available-deferred-tools>"
    )


def test_listing_claude_code_style_built_ins_first() -> None:
    pool = assemble_tool_pool([*BUILT_INS, built_in("zz", defer=True)], [mcp("a", "y")])
    listing = render_deferred_tools_listing(pool, style="claude_code")
    assert listing is not None
    assert listing.startswith("The following deferred tools are now available via ToolSearch.")
    assert "select:<name>[,<name>...]" in listing
    assert listing.splitlines()[1:] == ["Cron", "WebFetch", "zz", "mcp__a__y"]


def test_listing_none_without_deferred_tools_and_bad_style_named() -> None:
    assert render_deferred_tools_listing([built_in("Read")]) is None
    with pytest.raises(ValueError, match="listing style 'xml'"):
        render_deferred_tools_listing(BUILT_INS, style="xml")  # type: ignore[arg-type]


_SERVERS = ("slack", "github", "jira")
_TOOL_NAMES = ("send", "search", "get")


class DeltaMachine(RuleBasedStateMachine):
    """DELTA-1..4 over random pool changes, always_load toggles, notices and compactions.

    The model keeps its own announced set, updated from the notices the machine appends.
    """

    def __init__(self) -> None:
        super().__init__()
        self.mcp_tools: dict[str, Tool] = {}
        self.entries: list[TranscriptEntry] = []
        self.model_announced: set[str] = set()
        self.ever_removed: set[str] = set()

    @property
    def pool(self) -> tuple[Tool, ...]:
        return assemble_tool_pool(BUILT_INS, self.mcp_tools.values())

    @rule(server=st.sampled_from(_SERVERS), name=st.sampled_from(_TOOL_NAMES), always_load=st.booleans())
    def add_mcp_tool(self, server: str, name: str, always_load: bool) -> None:
        tool = mcp(server, name, always_load=always_load)
        self.mcp_tools[tool.name] = tool

    @precondition(lambda self: bool(self.mcp_tools))
    @rule(data=st.data())
    def remove_tool(self, data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(sorted(self.mcp_tools)))
        del self.mcp_tools[name]

    @precondition(lambda self: bool(self.mcp_tools))
    @rule(data=st.data())
    def toggle_always_load(self, data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(sorted(self.mcp_tools)))
        tool = self.mcp_tools[name]
        self.mcp_tools[name] = tool.with_changes(always_load=not tool.always_load)

    @rule()
    def user_message(self) -> None:
        self.entries.append({"role": "user", "content": "next"})

    @rule()
    def append_delta(self) -> None:
        """DELTA-2 (the notice's content) and DELTA-3 (recomputing after it gives None)."""
        pool = self.pool
        delta = compute_deferred_tools_delta(pool, self.entries)
        pool_names = {t.name for t in pool}
        expected_added = [t.name for t in pool if is_deferred_tool(t) and t.name not in self.model_announced]
        expected_removed = {n for n in self.model_announced if n not in pool_names}
        if delta is None:
            assert not expected_added
            assert not expected_removed
            return
        assert list(delta.added_names) == expected_added
        assert set(delta.removed_names) == expected_removed
        assert len(delta.removed_names) == len(expected_removed)
        self.entries.append(delta)
        self.model_announced = (self.model_announced | set(delta.added_names)) - set(delta.removed_names)
        self.ever_removed |= set(delta.removed_names)
        assert compute_deferred_tools_delta(pool, self.entries) is None

    @rule()
    def compact(self) -> None:
        self.entries = [CompactBoundary(summary="earlier work")]
        self.model_announced = set()

    @invariant()
    def announced_is_the_fold(self) -> None:
        """DELTA-1."""
        assert announced_deferred_tools(self.entries) == self.model_announced

    @invariant()
    def readded_tools_are_announced_again(self) -> None:
        """DELTA-4: a removed tool that is back and deferred is in the next notice."""
        delta = compute_deferred_tools_delta(self.pool, self.entries)
        back = {t.name for t in self.pool if t.name in self.ever_removed and is_deferred_tool(t)}
        pending = back - self.model_announced
        if pending:
            assert delta is not None
            assert pending <= set(delta.added_names)


TestDeltaMachine = DeltaMachine.TestCase
