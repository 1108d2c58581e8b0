"""Requests on the wire: DEFER-2, DEFER-3, DEFER-6, DEFER-8, PAIR-6.

Sessions are driven step by step (ToolSearch turns answered with ``tool_reference`` blocks, tool
calls, MCP servers connecting and disconnecting, compaction) and every request is checked on its
wire body. Which tools are deferred is the harness's own answer (``is_deferred``).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_conversation import (
    STEP_KINDS,
    Conversation,
    Session,
    builtin,
    builtin_specs,
    mcp,
    mcp_specs,
    mentions,
    message_texts,
    tool_references,
    tool_use_ids,
    wire_tool_names,
)
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import ToolSpec, WireRequest

sessions_length = st.integers(min_value=1, max_value=6)


def _tools(request: WireRequest) -> dict[str, Any]:
    return {str(t.get("name")): t for t in request.body.get("tools", ())}


def _result_texts(request: WireRequest) -> dict[str, str]:
    """The text of each tool_result in the request's messages (string or text blocks), by tool_use id."""
    found: dict[str, str] = {}
    for message in request.body.get("messages", ()):
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            if not (isinstance(block, Mapping) and block.get("type") == "tool_result"):
                continue
            inner = block.get("content")
            texts = (
                [inner]
                if isinstance(inner, str)
                else [
                    str(b.get("text"))
                    for b in inner or ()
                    if isinstance(b, Mapping) and b.get("type") == "text"
                ]
            )
            found[str(block.get("tool_use_id"))] = "\n".join(texts)
    return found


def _in_order(pieces: list[str], text: str) -> bool:
    """Whether every piece occurs in ``text``, each after the one before."""
    at = 0
    for piece in pieces:
        found = text.find(piece, at)
        if found < 0:
            return False
        at = found + len(piece)
    return True


@requires("transcript", "classification")
@pytest.mark.requirement("DEFER-2", "MUST")
@settings(max_examples=30, deadline=None)
@given(builtins=builtin_specs(), mcps=mcp_specs(), steps=sessions_length, data=st.data())
def test_deferred_tools_carry_defer_loading(
    new_harness: Callable[[], Any],
    toolharness_capabilities: frozenset[str],
    builtins: list[ToolSpec],
    mcps: list[ToolSpec],
    steps: int,
    data: st.DataObject,
) -> None:
    """DEFER-2 property.

    DEFER-2: until discovered, a deferred tool is sent with ``defer_loading: true`` or not at all; a
    non-deferred tool never carries it; at least one tool is not deferred; no deferred tool has cache_control.
    Compaction is among the steps when the harness has it (``conversation``).
    """
    harness = new_harness()
    session = Session(harness, builtins, mcps)
    kinds = [k for k in STEP_KINDS if k != "compact" or "conversation" in toolharness_capabilities]
    for _ in range(steps):
        session.step(data, kinds=kinds)
        request = session.render()
        tools = _tools(request)
        for spec in session.specs():
            sent = tools.get(spec.name)
            if sent is None:
                continue
            if not harness.is_deferred(spec):
                assert not sent.get("defer_loading"), (
                    f"DEFER-2: {spec.name} is not deferred but is sent with defer_loading" + session.where()
                )
            elif spec.name not in session.discovered:
                assert sent.get("defer_loading") is True, (
                    f"DEFER-2: {spec.name} is deferred and not discovered, but is sent loaded: {sent}"
                    + session.where()
                )
        if tools:
            loaded = [n for n, t in tools.items() if not t.get("defer_loading")]
            assert loaded, f"DEFER-2: every tool is deferred: {sorted(tools)}" + session.where()
        marked = [n for n, t in tools.items() if t.get("defer_loading") and "cache_control" in t]
        assert not marked, f"DEFER-2: deferred tools carry cache_control: {marked}" + session.where()


@requires("conversation", "classification")
@pytest.mark.requirement("DEFER-3", "MUST")
@settings(max_examples=30, deadline=None)
@given(builtins=builtin_specs(), mcps=mcp_specs(), steps=sessions_length, data=st.data())
def test_every_deferred_tool_is_named_in_the_messages(
    new_harness: Callable[[], Any],
    builtins: list[ToolSpec],
    mcps: list[ToolSpec],
    steps: int,
    data: st.DataObject,
) -> None:
    """DEFER-3 property.

    DEFER-3: in every request, each deferred tool of the pool is named in some text block of the messages (a
    listing or delta notices), also after servers connect, disconnect and after compaction.
    """
    harness = new_harness()
    session = Session(harness, builtins, mcps)
    for _ in range(steps):
        session.step(data)
        request = session.render()
        texts = message_texts(request)
        deferred = [s.name for s in session.specs() if harness.is_deferred(s)]
        unnamed = [name for name in deferred if not mentions(texts, name)]
        assert not unnamed, (
            f"DEFER-3: deferred tools {unnamed} are not named in any text block of the request's messages"
            + session.where()
        )


@requires("conversation")
@pytest.mark.requirement("DEFER-6", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    builtins=builtin_specs(),
    mcps=mcp_specs(min_size=1),
    steps=sessions_length,
    modes=st.lists(st.sampled_from([None, "true", "false"]), min_size=6, max_size=6),
    json_messages=st.booleans(),
    data=st.data(),
)
def test_tool_references_name_tools_in_the_request(
    new_harness: Callable[[], Any],
    builtins: list[ToolSpec],
    mcps: list[ToolSpec],
    steps: int,
    modes: list[str | None],
    json_messages: bool,
    data: st.DataObject,
) -> None:
    """DEFER-6 property.

    DEFER-6: every tool_reference in a request's messages names a tool in that request's tools array, after
    the referenced server disconnects and when tool search is switched off; the transcript may come
    decoded from JSON (equal strings, not the objects the suite wrote). Dealing with references
    changes nothing else: every other tool result is sent with its text, in order, whether its
    content was a string or a list of blocks.
    """
    harness = new_harness()
    session = Session(harness, builtins, mcps, json_messages=json_messages)
    session.conversation.search([s.name for s in mcps])
    for mode in modes[:steps]:
        session.step(data, kinds=("search", "drop", "drop", "chat", "compact", "connect", "call"))
        request = session.render(enable_tool_search=mode)
        names = set(wire_tool_names(request))
        missing = sorted({r for r in tool_references(request) if r not in names})
        assert not missing, (
            f"DEFER-6: tool_reference blocks name {missing}, which are not in the tools array {sorted(names)}"
            + session.where()
        )
        for tool_use_id, sent in _result_texts(request).items():
            written = session.conversation.outputs.get(tool_use_id)
            if written is None:
                continue
            pieces = [written] if isinstance(written, str) else [str(b["text"]) for b in written]
            assert _in_order(pieces, sent), (
                f"DEFER-6: the result of {tool_use_id} was written as {written!r} but is sent as {sent!r}"
                + session.where()
            )


# -- DEFER-8 ---------------------------------------------------------------------------------------

_ON = [None, "true", "auto:0"]
_OFF = ["false", "auto:100"]


def _big_server(count: int, chars: int) -> list[ToolSpec]:
    words = "search the tracker for open items and report their state "
    description = (words * (chars // len(words) + 1))[:chars]
    return [mcp("big", f"t{i:03d}", description=description) for i in range(count)]


@requires("conversation", "classification")
@pytest.mark.requirement("DEFER-8", "SHOULD")
@settings(max_examples=20, deadline=None)
@given(
    builtins=builtin_specs(),
    mcps=mcp_specs(min_size=1),
    modes=st.lists(st.sampled_from([*_ON, *_OFF]), min_size=1, max_size=5),
)
def test_enable_tool_search_values(
    new_harness: Callable[[], Any], builtins: list[ToolSpec], mcps: list[ToolSpec], modes: list[str | None]
) -> None:
    """DEFER-8 property.

    DEFER-8: unset, "true", "auto:0" defer the deferred tools; "false", "auto:100" defer none and send every
    tool; decided afresh on each request of one session.
    """
    harness = new_harness()
    session = Session(harness, builtins, mcps)
    deferred = {s.name for s in session.specs() if harness.is_deferred(s)}
    for mode in modes:
        session.conversation.chat()
        request = session.render(enable_tool_search=mode)
        tools = _tools(request)
        flagged = sorted(n for n, t in tools.items() if t.get("defer_loading"))
        if mode in _OFF:
            assert not flagged, f"DEFER-8: ENABLE_TOOL_SEARCH={mode!r} but {flagged} have defer_loading" + (
                session.where()
            )
            absent = sorted({s.name for s in session.specs()} - set(tools))
            assert not absent, f"DEFER-8: ENABLE_TOOL_SEARCH={mode!r} (off) but {absent} are not sent"
        else:
            unflagged = sorted(n for n in deferred if n in tools and n not in flagged)
            assert not unflagged, (
                f"DEFER-8: ENABLE_TOOL_SEARCH={mode!r} (on) but deferred tools {unflagged} lack defer_loading"
                + session.where()
            )
            assert flagged or not deferred, (
                f"DEFER-8: ENABLE_TOOL_SEARCH={mode!r} (on) but no tool is deferred" + session.where()
            )


@requires("conversation")
@pytest.mark.requirement("DEFER-8", "SHOULD")
@settings(max_examples=10, deadline=None)
@given(mcps=mcp_specs(min_size=1), mode=st.sampled_from(_ON))
def test_model_without_tool_reference_defers_nothing(
    new_harness: Callable[[], Any], mcps: list[ToolSpec], mode: str | None
) -> None:
    """DEFER-8: for a model without tool_reference support (Haiku) tool search is off: no defer_loading."""
    harness = new_harness()
    mcps = [dataclasses.replace(s, always_load=False) for s in mcps]
    session = Session(harness, [builtin("ReadFile")], mcps)
    before = session.render(enable_tool_search=mode)
    assert any(t.get("defer_loading") for t in before.body.get("tools", ())), (
        "DEFER-8: Sonnet should defer MCP tools"
    )
    session.conversation.chat()
    request = session.render(enable_tool_search=mode, model="claude-haiku-4-5")
    flagged = sorted(n for n, t in _tools(request).items() if t.get("defer_loading"))
    assert not flagged, (
        f"DEFER-8: model claude-haiku-4-5 has no tool_reference support, but {flagged} are deferred"
    )


@requires("conversation")
@pytest.mark.requirement("DEFER-8", "SHOULD")
@settings(max_examples=5, deadline=None)
@given(percent=st.sampled_from([1, 2]), order=st.sampled_from(["few-many-few", "many-few-many"]))
def test_auto_threshold_decided_per_request(new_harness: Callable[[], Any], percent: int, order: str) -> None:
    """DEFER-8 property.

    DEFER-8: "auto:N" turns tool search on only when the deferred tools reach N% of the context window
    (characters / 2.5 without a token count), and re-decides on every request as servers come and go.
    """
    harness = new_harness()
    few = [mcp("gh", "issues", description="Issues.")]
    # 40 tools of 1,000 characters: ~16k estimated tokens, far above 2% of 200k (4k) however counted.
    many = [*few, *_big_server(40, 1_000)]
    session = Session(harness, [builtin("ReadFile")], few)
    for size in order.split("-"):
        session.mcp = few if size == "few" else many
        harness.set_tools(session.builtin, session.mcp)
        session.conversation.chat()
        request = session.render(enable_tool_search=f"auto:{percent}")
        flagged = [n for n, t in _tools(request).items() if t.get("defer_loading")]
        if size == "few":
            assert not flagged, (
                f"DEFER-8: auto:{percent} with one small MCP tool must be off; deferred {flagged}"
            )
        else:
            assert len(flagged) == len(many), (
                f"DEFER-8: auto:{percent} with {len(many)} large MCP tools must be on; deferred only {len(flagged)}"
            )


def _deferred_chars(request: WireRequest) -> int:
    """The characters of the deferred tools as sent: name, description and compact schema JSON."""
    return sum(
        len(t["name"])
        + len(t.get("description", ""))
        + len(json.dumps(t["input_schema"], separators=(",", ":"), ensure_ascii=False))
        for t in _tools(request).values()
        if t.get("defer_loading")
    )


def _padded(description: str, extra: int) -> str:
    return description + ("x" * extra)


@requires("conversation", "classification")
@pytest.mark.requirement("DEFER-8", "SHOULD")
@settings(max_examples=8, deadline=None)
@given(setting=st.sampled_from(["auto:1", "auto:2", "auto:3", "auto"]), offset=st.sampled_from([-1, 0, 1]))
@example(setting="auto:1", offset=0)
@example(setting="auto", offset=0)
@example(setting="auto", offset=-1)  # auto's default is 10%, not 9%
@example(setting="auto:2", offset=-1)
def test_auto_threshold_at_exactly_n_percent(
    new_harness: Callable[[], Any], setting: str, offset: int
) -> None:
    """DEFER-8 property: "auto:N" is on when the deferred tools *reach* N% of the window: at it, not one below.

    Without a token count the estimate is characters / 2.5 of a 200k window, so N% is 5,000 x N
    characters (``auto`` means N = 10); the characters are those of the deferred tools as the
    request sends them (name, description, schema JSON). The pool is padded to exactly the
    threshold, one below or one above it: on at and above, off below.
    """
    percent = int(setting.partition(":")[2] or 10)
    target = 5_000 * percent + offset
    count = target // 1_000 + 2
    tools = [mcp("big", f"t{i:03d}", description="d" * 400) for i in range(count)]
    probe = Session(new_harness(), [builtin("ReadFile")], tools)
    missing = target - _deferred_chars(probe.render(enable_tool_search="true"))
    assert 0 <= missing <= count * 600, f"suite: can't pad {count} tools to {target} characters"
    padded = []
    for tool in tools:
        extra = min(missing, 600)
        missing -= extra
        padded.append(dataclasses.replace(tool, description=_padded(tool.description or "", extra)))
    session = Session(new_harness(), [builtin("ReadFile")], padded)
    measured = _deferred_chars(session.render(enable_tool_search="true"))
    assert measured == target, f"suite: padded the deferred tools to {measured} characters, not {target}"
    request = session.render(enable_tool_search=setting)
    flagged = [n for n, t in _tools(request).items() if t.get("defer_loading")]
    if offset >= 0:
        assert len(flagged) == count, (
            f"DEFER-8: {setting} with deferred tools of {target} characters (threshold {5_000 * percent}) "
            f"must be on; deferred {len(flagged)} of {count}"
        )
    else:
        assert not flagged, (
            f"DEFER-8: {setting} with deferred tools of {target} characters, one below the threshold "
            f"{5_000 * percent}, must be off; deferred {len(flagged)}"
        )


# -- PAIR-6 ----------------------------------------------------------------------------------------


_NAME_CLASHES = (
    "builtin-named-like-mcp",
    "same-builtin-twice",
    "same-mcp-twice",
    "deferred-and-loaded",
    "equal-after-normalisation",
)
"""How two tools of a pool come to share a wire name: the last two are drawn in every run as explicit
examples too, because a harness that keeps one tool per name *and* loading state (a deferred and a
loaded ``ReadFile``), or normalises MCP names after de-duplicating them, passes the other three."""


def _clashing_pool(
    clash: str, builtins: list[ToolSpec], mcps: list[ToolSpec], victim: ToolSpec
) -> tuple[list[ToolSpec], list[ToolSpec]]:
    """The pool with the clash added: two tools whose wire names are equal."""
    if clash == "builtin-named-like-mcp":
        return [*builtins, builtin(victim.name)], mcps
    if clash == "same-builtin-twice":
        return [*builtins, builtin("ReadFile"), builtin("ReadFile")], mcps
    if clash == "deferred-and-loaded":
        # One name, two loading states: deferred (sent with defer_loading) and loaded up front.
        others = [b for b in builtins if b.name != "ReadFile"]
        return [*others, builtin("ReadFile", should_defer=True), builtin("ReadFile")], mcps
    if clash == "equal-after-normalisation":
        # Different MCP names, one wire name: ``.`` is outside [A-Za-z0-9_-] and becomes ``_``.
        server, tool = victim.mcp_server or "gh", victim.mcp_tool or "issues"
        pairs = [(f"{server}.x", tool), (f"{server}_x", tool), (server, f"{tool}.x"), (server, f"{tool}_x")]
        return builtins, [*mcps, *(mcp(s, t) for s, t in pairs)]
    return builtins, [*mcps, victim]


@requires("transcript")
@pytest.mark.requirement("PAIR-6", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    builtins=builtin_specs(),
    mcps=mcp_specs(min_size=1),
    clash=st.sampled_from(_NAME_CLASHES),
    mode=st.sampled_from([None, "false"]),
    victim_index=st.integers(min_value=0, max_value=5),
)
@example(builtins=[], mcps=[mcp("gh", "issues")], clash="deferred-and-loaded", mode=None, victim_index=0)
@example(
    builtins=[], mcps=[mcp("gh", "issues")], clash="equal-after-normalisation", mode=None, victim_index=0
)
def test_tool_names_unique_in_a_request(
    new_harness: Callable[[], Any],
    builtins: list[ToolSpec],
    mcps: list[ToolSpec],
    clash: str,
    mode: str | None,
    victim_index: int,
) -> None:
    """PAIR-6 property.

    PAIR-6: the tools array of a request never repeats a name, even when a built-in tool and an MCP tool share
    a name, the same spec is given twice, a deferred and a loaded tool share a name, or MCP names differ
    only in characters that normalise alike (the harness may instead refuse the pool with a ValueError).
    """
    harness = new_harness()
    builtins, mcps = _clashing_pool(clash, builtins, mcps, mcps[victim_index % len(mcps)])
    try:
        session = Session(harness, builtins, mcps)
        request = session.render(enable_tool_search=mode)
    except ValueError:
        return  # refusing the clashing pool with a clear error is fine
    names = wire_tool_names(request)
    repeated = sorted({n for n in names if names.count(n) > 1})
    assert not repeated, f"PAIR-6: the tools array repeats {repeated} ({clash}): {names}"


@requires("transcript")
@pytest.mark.requirement("PAIR-6", "MUST")
@settings(max_examples=20, deadline=None)
@given(
    before=st.integers(min_value=0, max_value=3),
    between=st.integers(min_value=0, max_value=3),
    json_messages=st.booleans(),
)
def test_tool_use_ids_unique_in_a_request(
    new_harness: Callable[[], Any], before: int, between: int, json_messages: bool
) -> None:
    """PAIR-6 property.

    PAIR-6: a request never carries two tool_use blocks with the same id: a transcript that reuses an id is
    refused (ValueError) or repaired so that the ids sent are unique, also when the transcript comes
    decoded from JSON (equal strings, not the objects the suite wrote).
    """
    harness = new_harness()
    harness.set_tools([builtin("ReadFile")], [])
    conversation = Conversation(harness, json_messages=json_messages)
    conversation.user("Hello")
    for _ in range(before):
        conversation.call("ReadFile")
    reused = conversation.call("ReadFile")
    for _ in range(between):
        conversation.chat()
    conversation.call("ReadFile", output="again", tool_use_id=reused)
    try:
        request = harness.render_request()
    except ValueError:
        return
    ids = tool_use_ids(request)
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    assert not repeated, f"PAIR-6: tool_use id(s) {repeated} appear more than once in one request: {ids}"
