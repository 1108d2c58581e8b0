"""Building one Messages API request (DEFER-2, DEFER-3, DEFER-6, DEFER-8, CACHE-1, CACHE-2, CACHE-5, CACHE-6)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import anthropic
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference_impl import RequestBuilder, RequestRuleError, Tool, TranscriptEntry, assemble_tool_pool
from reference_impl._wire import wire_bytes
from reference_impl.request import DeferredToolsDelta, check_request_rules, compact
from reference_impl.tools import ToolSearchMode, ToolSearchSetting, is_deferred_tool
from tests.test_discovery import search_turn
from tests.test_notices import built_in, mcp

BUILT_INS = (
    built_in("Read"),
    built_in("ToolSearch"),
    built_in("WebFetch", defer=True),
    built_in("Cron", defer=True),
)
MCP = (mcp("slack", "send"), mcp("github", "search"), mcp("jira", "get", always_load=True))
POOL = assemble_tool_pool(BUILT_INS, MCP)
HELLO: list[TranscriptEntry] = [{"role": "user", "content": "hello"}]


def _builder(**options: Any) -> RequestBuilder:
    return RequestBuilder(model="claude-sonnet-4-6", max_tokens=1024, **options)


def _tools(params: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in params.get("tools", [])}


def _references(params: dict[str, Any]) -> list[str]:
    names = []
    for message in params["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                names += [i["tool_name"] for i in block["content"] if i.get("type") == "tool_reference"]
    return names


def test_tool_search_on_defers_and_announces() -> None:
    built = _builder().build(POOL, HELLO)
    tools = _tools(built.params)
    assert list(tools) == [t.name for t in POOL]
    assert {n for n, t in tools.items() if t.get("defer_loading")} == {
        "Cron",
        "WebFetch",
        "mcp__github__search",
        "mcp__slack__send",
    }
    assert built.deferred_tool_names == {"Cron", "WebFetch", "mcp__github__search", "mcp__slack__send"}
    assert all("cache_control" not in t for t in tools.values())
    assert built.tool_search_enabled
    assert built.betas == ("advanced-tool-use-2025-11-20",)
    assert built.params["extra_headers"] == {"anthropic-beta": "advanced-tool-use-2025-11-20"}
    # Mechanism B: one delta notice, rendered into the last user message and returned to append.
    (delta,) = built.appended_entries
    assert isinstance(delta, DeferredToolsDelta)
    last_blocks = built.params["messages"][-1]["content"]
    assert last_blocks[0] == {"type": "text", "text": "hello"}
    assert last_blocks[1]["text"] == delta.render()
    assert last_blocks[1]["cache_control"] == {"type": "ephemeral"}
    assert HELLO == [{"role": "user", "content": "hello"}]
    # Appending the notice: the next request announces nothing new.
    assert _builder().build(POOL, [*HELLO, delta]).appended_entries == ()


def test_tool_search_off_sends_everything_without_tool_search() -> None:
    entries: list[TranscriptEntry] = [*HELLO, *search_turn("t1", ["WebFetch"])]
    built = _builder(tool_search=ToolSearchSetting(ToolSearchMode.STANDARD)).build(POOL, entries)
    tools = _tools(built.params)
    assert "ToolSearch" not in tools
    assert not any("defer_loading" in t for t in tools.values())
    assert built.betas == ()
    assert "extra_headers" not in built.params
    assert built.deferred_tool_names == frozenset()
    assert built.appended_entries == ()
    assert _references(built.params) == []  # the API only accepts tool_reference with tool search
    result = built.params["messages"][-1]["content"][0]
    assert result["content"] == [{"type": "text", "text": "Tool WebFetch is loaded."}]
    assert built.discovered_tool_names == {"WebFetch"}


def test_haiku_turns_tool_search_off() -> None:
    built = RequestBuilder(model="claude-haiku-4-5", max_tokens=10).build(POOL, HELLO)
    assert not built.tool_search_enabled
    assert not any(t.get("defer_loading") for t in built.params["tools"])


def test_search_tool_denied_turns_tool_search_off() -> None:
    pool = [t for t in POOL if t.name != "ToolSearch"]
    assert not _builder().build(pool, HELLO).tool_search_enabled


def test_discovered_tools_sent_deferred_and_references_kept() -> None:
    """DEFER-2, DEFER-6: a discovered tool stays in the request (deferred; the API expands it)."""
    entries: list[TranscriptEntry] = [*HELLO, *search_turn("t1", ["mcp__slack__send", "Read"])]
    built = _builder().build(POOL, entries)
    assert built.discovered_tool_names == {"mcp__slack__send", "Read"}
    assert _tools(built.params)["mcp__slack__send"]["defer_loading"] is True
    assert _references(built.params) == ["mcp__slack__send", "Read"]


def test_reference_to_a_tool_gone_from_the_pool_becomes_text() -> None:
    """DEFER-6: the MCP server disconnected; its reference would make the API answer 400."""
    entries: list[TranscriptEntry] = [*HELLO, *search_turn("t1", ["mcp__slack__send", "WebFetch"])]
    pool = assemble_tool_pool(BUILT_INS, [])
    built = _builder().build(pool, entries)
    assert _references(built.params) == ["WebFetch"]
    result = built.params["messages"][-1]["content"][0]
    assert {"type": "text", "text": "Tool mcp__slack__send is no longer available."} in result["content"]
    assert entries[-1]["content"][0]["content"][0] == {  # type: ignore[index]
        "type": "tool_reference",
        "tool_name": "mcp__slack__send",
    }


def test_listing_mechanism_prepends_the_listing() -> None:
    built = _builder(notices="listing").build(POOL, HELLO)
    first = built.params["messages"][0]
    assert first["role"] == "user"
    assert first["content"][0]["text"].startswith("<available-deferred-tools>\nCron\nWebFetch\n")
    assert first["content"][1] == {"type": "text", "text": "hello", "cache_control": {"type": "ephemeral"}}
    assert built.appended_entries == ()
    styled = _builder(notices="listing", listing_style="claude_code").build(POOL, HELLO)
    assert styled.params["messages"][0]["content"][0]["text"].startswith("The following deferred tools")


def test_adding_mcp_tools_keeps_prefix_and_cache_hash() -> None:
    """CACHE-2 and CACHE-1 through the request: MCP tools come after the built-in bytes, deferred."""
    builder = _builder()
    small = builder.build(assemble_tool_pool(BUILT_INS, MCP[:1]), HELLO).params
    large = builder.build(
        assemble_tool_pool(BUILT_INS, [*MCP[:1], mcp("aaa", "first"), mcp("zzz", "z")]), HELLO
    )
    prefix = [t for t in small["tools"] if not t["name"].startswith("mcp__")]
    assert large.params["tools"][: len(prefix)] == prefix
    assert wire_bytes(large.params["tools"][: len(prefix)]) == wire_bytes(prefix)
    assert large.cache_hash == builder.build(assemble_tool_pool(BUILT_INS, MCP[:1]), HELLO).cache_hash
    with_loaded = builder.build(assemble_tool_pool(BUILT_INS, [*MCP[:1], MCP[2]]), HELLO)
    assert with_loaded.cache_hash != large.cache_hash  # an always-loaded MCP tool is in the prompt


def test_beta_latched_while_auto_mode_switches_off() -> None:
    """CACHE-6 and DEFER-8: the decision is re-made per request; the header stays once sent."""
    counts = iter([50_000, 10, 10])
    builder = _builder(
        tool_search=ToolSearchSetting(ToolSearchMode.TST_AUTO, auto_percent=10),
        token_counter=lambda _params: next(counts),
    )
    first, second = builder.build(POOL, HELLO), builder.build(POOL, HELLO)
    assert first.tool_search_enabled
    assert not second.tool_search_enabled
    assert second.betas == first.betas == ("advanced-tool-use-2025-11-20",)
    builder.reset()
    assert builder.build(POOL, HELLO).betas == ()


def test_compaction_then_build_reannounces_and_keeps_discovered() -> None:
    entries: list[TranscriptEntry] = [*HELLO]
    builder = _builder()
    entries += builder.build(POOL, entries).appended_entries
    entries += [*search_turn("t1", ["WebFetch"]), {"role": "assistant", "content": "ok"}]
    entries.append({"role": "user", "content": "again"})
    compacted = compact(entries, "we loaded WebFetch", keep_last=1)
    built = builder.build(POOL, compacted)
    assert built.discovered_tool_names == {"WebFetch"}
    (delta,) = built.appended_entries
    assert isinstance(delta, DeferredToolsDelta)
    assert set(delta.added_names) == {t.name for t in POOL if is_deferred_tool(t)}


def test_system_blocks_and_thinking_pass_through() -> None:
    system = [
        {"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "b"},
    ]
    built = _builder(system=system, thinking={"type": "enabled", "budget_tokens": 1024}).build(POOL, HELLO)
    assert built.params["system"] == system
    assert built.params["system"] is not system
    assert built.params["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert list(built.params)[:4] == ["model", "max_tokens", "system", "messages"]


def test_bad_options_and_pools_are_named() -> None:
    with pytest.raises(ValueError, match="max_tokens must be positive"):
        RequestBuilder(model="m", max_tokens=0)
    with pytest.raises(ValueError, match="notices must be 'listing' or 'delta'"):
        RequestBuilder(model="m", max_tokens=1, notices="both")  # type: ignore[arg-type]
    with pytest.raises(RequestRuleError, match="repeats tool names: Read"):
        _builder().build([*POOL, built_in("Read")], HELLO)


def test_check_request_rules_catches_each_api_rule() -> None:
    def tool(name: str, **extra: Any) -> dict[str, Any]:
        return {"name": name, "input_schema": {"type": "object"}, **extra}

    with pytest.raises(RequestRuleError, match="unique; repeated: A"):
        check_request_rules({"tools": [tool("A"), tool("A")], "messages": []})
    with pytest.raises(RequestRuleError, match="every tool is deferred"):
        check_request_rules({"tools": [tool("A", defer_loading=True)], "messages": []})
    with pytest.raises(RequestRuleError, match="can't carry cache_control: B"):
        check_request_rules(
            {"tools": [tool("A"), tool("B", defer_loading=True, cache_control={"type": "ephemeral"})]}
        )
    params = _builder().build(POOL, [*HELLO, *search_turn("t", ["WebFetch"])]).params
    params["tools"] = [t for t in params["tools"] if t["name"] != "WebFetch"]
    with pytest.raises(RequestRuleError, match="tool_reference 'WebFetch' names no tool"):
        check_request_rules(params)


def test_repeated_tool_use_id_is_refused() -> None:
    """PAIR-6: a transcript that reuses a tool_use id is never sent."""

    def turn(text: str) -> list[TranscriptEntry]:
        return [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "dup", "name": "Read", "input": {}}],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "dup", "content": text}]},
        ]

    _builder().build(POOL, [*HELLO, *turn("once")])
    with pytest.raises(
        RequestRuleError, match="tool_use ids must be unique in the conversation; repeated: dup"
    ):
        _builder().build(POOL, [*HELLO, *turn("once"), *turn("twice")])


_BUILT_IN_NAMES = ("Bash", "Read", "Edit", "WebFetch", "Cron", "Brief")


@st.composite
def pools(draw: st.DrawFn) -> tuple[Tool, ...]:
    names = draw(st.lists(st.sampled_from(_BUILT_IN_NAMES), unique=True))
    built_ins = [built_in(n, defer=draw(st.booleans())) for n in names]
    if draw(st.booleans()):
        built_ins.append(built_in("ToolSearch"))
    servers = draw(
        st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("xyz"), st.booleans()), max_size=5)
    )
    mcp_tools = [mcp(s, n, always_load=a) for s, n, a in servers]
    return assemble_tool_pool(built_ins, mcp_tools)


_ANY_NAME = st.sampled_from([*_BUILT_IN_NAMES, "ToolSearch", "mcp__a__x", "mcp__b__y", "mcp__c__z", "Gone"])


@st.composite
def histories(draw: st.DrawFn) -> list[TranscriptEntry]:
    entries: list[TranscriptEntry] = [{"role": "user", "content": "start"}]
    for turn in range(draw(st.integers(0, 4))):
        entries.extend(search_turn(f"id{turn}", draw(st.lists(_ANY_NAME, max_size=3, unique=True))))
    return entries


@given(
    pools(),
    histories(),
    st.sampled_from(["true", "false", "auto:1"]),
    st.sampled_from(["claude-sonnet-4-6", "claude-haiku-4-5"]),
    st.sampled_from(["delta", "listing"]),
)
def test_requests_obey_the_api_rules(
    pool: tuple[Tool, ...], entries: list[TranscriptEntry], mode: str, model: str, notices: Any
) -> None:
    """DEFER-2, DEFER-3, DEFER-6, PAIR-6, CACHE-5 over random pools and transcripts.

    A deferred tool has defer_loading exactly when tool search is on, others never; some tool is
    not deferred; no tool has cache_control; every tool_reference names a sent tool; the model
    can learn every deferred name; exactly one message-level marker.
    """
    from reference_impl.tools import parse_enable_tool_search

    builder = RequestBuilder(
        model=model, max_tokens=64, tool_search=parse_enable_tool_search(mode), notices=notices
    )
    built = builder.build(pool, entries)
    check_request_rules(built.params)
    tools = _tools(built.params)
    assert len(tools) == len(built.params.get("tools", []))
    for tool in pool:
        if tool.name not in tools:
            assert tool.name == "ToolSearch"
            assert not built.tool_search_enabled
            continue
        sent = tools[tool.name]
        assert sent.get("defer_loading", False) == (built.tool_search_enabled and is_deferred_tool(tool))
        assert "cache_control" not in sent
    if built.tool_search_enabled:
        assert any(not t.get("defer_loading") for t in tools.values())
        text = wire_bytes(built.params["messages"]).decode()
        assert all(name in text for name in built.deferred_tool_names)
    assert set(_references(built.params)) <= set(tools)
    marked = [b for m in built.params["messages"] for b in m["content"] if "cache_control" in b]
    assert len(marked) == 1
    assert marked[0] is built.params["messages"][-1]["content"][-1]


class _Recorder(BaseHTTPRequestHandler):
    bodies: ClassVar[list[tuple[dict[str, str], bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.bodies.append((dict(self.headers), body))
        reply = json.dumps(
            {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-6",
                "content": [{"type": "text", "text": "hi"}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture
def recorder() -> Iterator[tuple[str, list[tuple[dict[str, str], bytes]]]]:
    bodies: list[tuple[dict[str, str], bytes]] = []
    handler = type("Handler", (_Recorder,), {"bodies": bodies})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", bodies
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_real_sdk_sends_the_built_bytes(recorder: tuple[str, list[tuple[dict[str, str], bytes]]]) -> None:
    """The params go through the real SDK unchanged: the body is our wire bytes, with the beta header."""
    url, bodies = recorder
    entries: list[TranscriptEntry] = [*HELLO, *search_turn("t1", ["WebFetch"])]
    built = _builder(system=[{"type": "text", "text": "sys"}]).build(POOL, entries)
    client = anthropic.Anthropic(base_url=url, api_key="x", max_retries=0)
    message = client.messages.create(**built.params)
    assert message.content[0].type == "text"
    ((headers, body),) = bodies
    expected = {k: v for k, v in built.params.items() if k != "extra_headers"}
    assert json.loads(body) == expected
    # The SDK orders the top-level keys itself; each value's bytes are ours, verbatim.
    for key in ("tools", "messages", "system"):
        assert b'"%s":%s' % (key.encode(), wire_bytes(expected[key])) in body
    assert {k.lower(): v for k, v in headers.items()}["anthropic-beta"] == "advanced-tool-use-2025-11-20"
