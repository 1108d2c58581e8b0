"""Tests for the scripted Messages API server, over real loopback sockets with the real SDK."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import struct
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, cast

import anthropic
import pytest
from anthropic.types import MessageParam, ToolParam
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_toolharness.wire.model_api._api_error import ApiError
from pytest_toolharness.wire.model_api._messages import estimate_tokens
from pytest_toolharness.wire.model_api._messages_sse import split_chunks
from pytest_toolharness.wire.model_api._recording import RecordedRequest
from pytest_toolharness.wire.model_api._script import Script
from pytest_toolharness.wire.model_api._server import LOOPBACK_HOST, ScriptedApiServer
from pytest_toolharness.wire.model_api._turns import (
    AssistantTurn,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    ToolUseIds,
    tool_use_id,
)
from reference_impl._wire import wire_json

MODEL = "claude-test-1"
TOOLS: list[ToolParam] = [
    {"name": "Read", "description": "Read a file", "input_schema": {"type": "object"}},
    {"name": "Bash", "description": "Run a command", "input_schema": {"type": "object"}},
]
READ_INPUT = {"file_path": "/tmp/ünïcode file.txt", "limit": 20, "nested": {"a": [1, 2, {"b": None}]}}
HELLO: list[MessageParam] = [{"role": "user", "content": "hello"}]


def tool_turn() -> AssistantTurn:
    ids = ToolUseIds()
    return AssistantTurn(
        [
            ThinkingBlock("Let me think about it.", "sig-abc"),
            TextBlock("Reading the file and listing.\nTwo lines."),
            ids.block("Read", READ_INPUT),
            ids.block("Bash", {"command": "ls -la"}),
        ]
    )


MakeClient = Callable[..., anthropic.Anthropic]


@pytest.fixture
def client() -> Iterator[MakeClient]:
    """Makes SDK clients for a server and closes them after the test (no leaked sockets)."""
    made: list[anthropic.Anthropic] = []

    def make(server: ScriptedApiServer, **kwargs: Any) -> anthropic.Anthropic:
        sdk = anthropic.Anthropic(base_url=server.base_url, api_key="x", **kwargs)
        made.append(sdk)
        return sdk

    yield make
    for sdk in made:
        sdk.close()


def follow_up(message: anthropic.types.Message) -> list[MessageParam]:
    """The conversation after answering every tool_use of ``message``."""
    results = [
        {"type": "tool_result", "tool_use_id": block.id, "content": "ok"}
        for block in message.content
        if block.type == "tool_use"
    ]
    return [
        *HELLO,
        cast(MessageParam, {"role": "assistant", "content": [b.to_dict() for b in message.content]}),
        cast(MessageParam, {"role": "user", "content": results}),
    ]


def text_of(message: Any, index: int = 0) -> str:
    """The text of content block ``index``, which must be a text block."""
    block = message.content[index]
    assert block.type == "text"
    return str(block.text)


def assert_tool_turn(message: Any) -> None:
    kinds = [block.type for block in message.content]
    assert kinds == ["thinking", "text", "tool_use", "tool_use"]
    assert message.content[0].thinking == "Let me think about it."
    assert message.content[0].signature == "sig-abc"
    assert message.content[1].text == "Reading the file and listing.\nTwo lines."
    assert message.content[2].name == "Read"
    assert message.content[2].input == READ_INPUT
    assert message.content[2].id == "toolu_01Scripted00000000000001"
    assert message.content[3].input == {"command": "ls -la"}
    assert message.stop_reason == "tool_use"
    assert message.model == MODEL
    assert message.role == "assistant"


# -- the SDK, sync and async ---------------------------------------------------------------


def test_sync_non_streaming_and_recording(client: MakeClient) -> None:
    with ScriptedApiServer([tool_turn(), AssistantTurn.text("All done.")]) as server:
        sdk = client(server)
        first = sdk.messages.create(model=MODEL, max_tokens=100, messages=HELLO, tools=TOOLS)
        assert_tool_turn(first)
        assert first.id == "msg_01Scripted000000000000"
        assert first.usage.input_tokens > 0
        assert first.usage.output_tokens > 0
        second = sdk.messages.create(model=MODEL, max_tokens=100, messages=follow_up(first), tools=TOOLS)
        assert second.content[0].type == "text"
        assert text_of(second) == "All done."
        assert second.stop_reason == "end_turn"

        recorded = server.requests
        assert [r.index for r in recorded] == [0, 1]
        assert [r.status for r in recorded] == [200, 200]
        head = recorded[0]
        assert (head.method, head.path, head.query) == ("POST", "/v1/messages", {})
        # The SDK sends the key as x-api-key or as a bearer token, depending on its version.
        assert head.headers.get("x-api-key") == "x" or head.headers.get("authorization") == "Bearer x"
        assert "anthropic-version" in head.headers
        assert all(name == name.lower() for name in head.headers)
        assert json.loads(head.body) == head.json
        assert head.json["messages"] == HELLO
        assert head.tool_names == ["Read", "Bash"]
        assert head.turn is not None
        assert head.turn.tool_uses[0].input == READ_INPUT
        assert not head.stream
        assert server.message_requests == recorded
        assert not server.script_exhausted


def test_sync_streaming_reconstructs_the_turn(client: MakeClient) -> None:
    with ScriptedApiServer([tool_turn()]) as server:
        with client(server).messages.stream(
            model=MODEL, max_tokens=100, messages=HELLO, tools=TOOLS
        ) as stream:
            text = "".join(stream.text_stream)
            final = stream.get_final_message()
        assert text == "Reading the file and listing.\nTwo lines."
        assert_tool_turn(final)
        assert final.usage.output_tokens > 1
        assert server.requests[0].stream


def test_sync_raw_stream_events_split_tool_input(client: MakeClient) -> None:
    with ScriptedApiServer([tool_turn()], chunks=4) as server:
        events = list(
            client(server).messages.create(
                model=MODEL, max_tokens=100, messages=HELLO, tools=TOOLS, stream=True
            )
        )
    types = [e.type for e in events]
    assert types[0] == "message_start"
    assert types[-2:] == ["message_delta", "message_stop"]
    start = events[0]
    assert start.type == "message_start"
    assert start.message.content == []
    assert start.message.stop_reason is None
    read_json = [
        e.delta.partial_json
        for e in events
        if e.type == "content_block_delta" and e.delta.type == "input_json_delta" and e.index == 2
    ]
    assert len(read_json) == 4
    assert json.loads("".join(read_json)) == READ_INPUT
    signatures = [e for e in events if e.type == "content_block_delta" and e.delta.type == "signature_delta"]
    assert len(signatures) == 1
    delta = events[-2]
    assert delta.type == "message_delta"
    assert delta.delta.stop_reason == "tool_use"


def test_async_client_streaming_and_not() -> None:
    async def scenario(base_url: str) -> tuple[Any, Any]:
        sdk = anthropic.AsyncAnthropic(base_url=base_url, api_key="x")
        async with sdk.messages.stream(model=MODEL, max_tokens=100, messages=HELLO, tools=TOOLS) as stream:
            streamed = await stream.get_final_message()
        plain = await sdk.messages.create(
            model=MODEL, max_tokens=100, messages=follow_up(streamed), tools=TOOLS
        )
        await sdk.close()
        return streamed, plain

    with ScriptedApiServer([tool_turn(), AssistantTurn.text("fin")]) as server:
        streamed, plain = asyncio.run(scenario(server.base_url))
        assert_tool_turn(streamed)
        assert text_of(plain) == "fin"
        assert [r.stream for r in server.requests] == [True, False]


def test_explicit_stop_reason_and_model_override(client: MakeClient) -> None:
    turn = AssistantTurn([TextBlock("cut")], stop_reason="max_tokens", model="other-model")
    with ScriptedApiServer([turn]) as server:
        message = client(server).messages.create(model=MODEL, max_tokens=100, messages=HELLO)
    assert (message.stop_reason, message.model) == ("max_tokens", "other-model")


# -- raw HTTP --------------------------------------------------------------------------------


@dataclass
class Raw:
    status: int
    headers: dict[str, str]
    body: bytes


def raw_post(server: ScriptedApiServer, path: str, body: Any) -> Raw:
    """POST with http.client; the whole answer, read before the connection is closed."""
    connection = http.client.HTTPConnection(LOOPBACK_HOST, server.port, timeout=10)
    try:
        payload = body if isinstance(body, bytes) else json.dumps(body).encode()
        connection.request("POST", path, body=payload, headers={"content-type": "application/json"})
        response = connection.getresponse()
        return Raw(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    finally:
        connection.close()


def test_raw_sse_framing() -> None:
    turn = AssistantTurn([TextBlock("hi there"), ToolUseBlock("toolu_x1", "Read", {"file_path": "/a"})])
    body = {"model": MODEL, "max_tokens": 10, "messages": HELLO, "stream": True}
    with ScriptedApiServer([turn]) as server:
        response = raw_post(server, "/v1/messages?beta=true", body)
        assert response.status == 200
        assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
        assert response.headers["request-id"] == "req_01Scripted000000000000"
        raw = response.body.decode()
        assert server.requests[0].query == {"beta": "true"}
        assert server.message_requests == server.requests
    assert raw.endswith("\n\n")
    frames = raw[:-2].split("\n\n")
    names = []
    for frame in frames:
        event_line, data_line = frame.split("\n")
        assert event_line.startswith("event: ")
        assert data_line.startswith("data: ")
        name = event_line.removeprefix("event: ")
        data = json.loads(data_line.removeprefix("data: "))
        assert data["type"] == name
        names.append((name, data))
    expected = ["message_start", "content_block_start", "ping"]
    expected += ["content_block_delta"] * 3 + ["content_block_stop", "content_block_start"]
    expected += ["content_block_delta"] * 3 + ["content_block_stop", "message_delta", "message_stop"]
    assert [name for name, _ in names] == expected
    message = names[0][1]["message"]
    assert message["id"] == "msg_01Scripted000000000000"
    assert (message["type"], message["role"], message["model"]) == ("message", "assistant", MODEL)
    assert message["content"] == []
    assert message["stop_reason"] is None
    assert set(message["usage"]) >= {"input_tokens", "output_tokens"}
    assert names[1][1]["content_block"] == {"type": "text", "text": ""}
    assert "".join(d["delta"]["text"] for n, d in names[3:6]) == "hi there"
    assert names[7][1]["content_block"] == {"type": "tool_use", "id": "toolu_x1", "name": "Read", "input": {}}
    assert "".join(d["delta"]["partial_json"] for n, d in names[8:11]) == '{"file_path":"/a"}'
    assert names[-2][1]["delta"] == {"stop_reason": "tool_use", "stop_sequence": None}


def test_raw_400_shape_and_no_turn_consumed(client: MakeClient) -> None:
    dangling = [
        *HELLO,
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_q", "name": "R", "input": {}}]},
    ]
    with ScriptedApiServer([AssistantTurn.text("first")]) as server:
        response = raw_post(server, "/v1/messages", {"model": MODEL, "max_tokens": 5, "messages": dangling})
        assert response.status == 400
        assert response.headers["content-type"] == "application/json"
        assert response.headers["x-should-retry"] == "false"
        body = json.loads(response.body)
        assert body == {
            "type": "error",
            "error": {
                "type": "invalid_request_error",
                "message": "messages.1: `tool_use` ids were found without `tool_result` blocks immediately "
                "after: toolu_q. Each `tool_use` block must have a corresponding `tool_result` block in the "
                "next message.",
            },
            "request_id": response.headers["request-id"],
        }
        assert server.script.served == 0
        message = client(server).messages.create(model=MODEL, max_tokens=5, messages=HELLO)
        assert text_of(message) == "first"
        assert [r.status for r in server.requests] == [400, 200]
        assert server.requests[0].error is not None
        assert server.requests[0].turn is None
        assert not server.script_exhausted


def test_sdk_sees_bad_request_error(client: MakeClient) -> None:
    unexpected = [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_nope", "content": "x"}]}
    ]
    with ScriptedApiServer() as server, pytest.raises(anthropic.BadRequestError) as info:
        client(server).messages.create(model=MODEL, max_tokens=5, messages=unexpected)  # type: ignore[arg-type]
    assert "unexpected `tool_use_id` found in `tool_result` blocks: toolu_nope" in str(info.value)
    assert info.value.request_id == "req_01Scripted000000000000"


@pytest.mark.parametrize(
    ("path", "body", "status", "kind"),
    [
        ("/v1/complete", {"x": 1}, 404, "not_found_error"),
        ("/v1/messages", b"{not json", 400, "invalid_request_error"),
        ("/v1/messages", b"", 400, "invalid_request_error"),
    ],
)
def test_other_errors(path: str, body: Any, status: int, kind: str) -> None:
    with ScriptedApiServer() as server:
        response = raw_post(server, path, body)
        assert response.status == status
        assert json.loads(response.body)["error"]["type"] == kind
        assert server.requests[0].status == status
        assert server.script.served == 0


def test_chunked_request_body_is_read() -> None:
    with ScriptedApiServer([AssistantTurn.text("chunked ok")]) as server:
        connection = http.client.HTTPConnection(LOOPBACK_HOST, server.port, timeout=10)
        parts = [b'{"model":"m","max_tokens":3,', b'"messages":[{"role":"user","content":"hi"}]}']
        try:
            connection.request("POST", "/v1/messages", body=iter(parts), encode_chunked=True)
            response = connection.getresponse()
            assert response.status == 200
            assert json.loads(response.read())["content"] == [{"type": "text", "text": "chunked ok"}]
        finally:
            connection.close()
        assert server.requests[0].body == b"".join(parts)


# -- count_tokens ----------------------------------------------------------------------------


def test_count_tokens_default_estimate_and_override(client: MakeClient) -> None:
    with ScriptedApiServer() as server:
        counted = client(server).messages.count_tokens(model=MODEL, messages=HELLO, tools=TOOLS)
        recorded = server.requests[0]
        assert recorded.path == "/v1/messages/count_tokens"
        assert counted.input_tokens == estimate_tokens(recorded.json)
        assert server.message_requests == []
    with ScriptedApiServer(token_counter=lambda body: 1000 + len(body["messages"])) as server:
        assert client(server).messages.count_tokens(model=MODEL, messages=HELLO).input_tokens == 1001


def test_estimate_tokens_is_ceil_of_quarter_characters() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "abcdefg"}]}
    assert estimate_tokens(body) == -(-len(wire_json(body)) // 4)


# -- scripts ---------------------------------------------------------------------------------


def test_exhausted_script_answers_done(client: MakeClient) -> None:
    with ScriptedApiServer([AssistantTurn.text("only")]) as server:
        sdk = client(server)
        assert text_of(sdk.messages.create(model=MODEL, max_tokens=5, messages=HELLO)) == "only"
        assert not server.script_exhausted
        extra = sdk.messages.create(model=MODEL, max_tokens=5, messages=HELLO)
        assert (text_of(extra), extra.stop_reason) == ("Done.", "end_turn")
        assert server.script_exhausted
        assert [r.script_exhausted for r in server.requests] == [False, True]


def test_callable_script_sees_the_request(client: MakeClient) -> None:
    seen: list[RecordedRequest] = []
    ids = ToolUseIds(prefix="dyn")

    def script(request: RecordedRequest) -> AssistantTurn:
        seen.append(request)
        last = request.messages[-1]["content"]
        if isinstance(last, list) and last[0]["type"] == "tool_result":
            return AssistantTurn.text(f"got {last[0]['content']}")
        return AssistantTurn([ids.block("Bash", {"command": "echo hi"})])

    with ScriptedApiServer(script) as server:
        sdk = client(server)
        first = sdk.messages.create(model=MODEL, max_tokens=5, messages=HELLO, tools=TOOLS)
        assert first.content[0].type == "tool_use"
        assert first.content[0].id == "toolu_dyn000000000000000000001"
        second = sdk.messages.create(model=MODEL, max_tokens=5, messages=follow_up(first), tools=TOOLS)
        assert text_of(second) == "got ok"
        assert [r.status for r in seen] == [None, None]
        assert [r.index for r in seen] == [0, 1]
        assert server.script.remaining is None
        assert not server.script_exhausted


def test_raising_script_answers_500_and_keeps_serving(client: MakeClient) -> None:
    calls = []

    def script(request: RecordedRequest) -> AssistantTurn:
        calls.append(request.index)
        if len(calls) == 1:
            raise RuntimeError("scenario bug")
        return AssistantTurn.text("recovered")

    with ScriptedApiServer(script) as server:
        sdk = client(server)
        with pytest.raises(anthropic.InternalServerError) as info:
            sdk.messages.create(model=MODEL, max_tokens=5, messages=HELLO)
        assert info.value.body == {
            "type": "error",
            "error": {"type": "api_error", "message": "The script raised RuntimeError: scenario bug"},
            "request_id": "req_01Scripted000000000000",
        }
        # x-should-retry: false stops the SDK from retrying a deterministic failure.
        assert calls == [0]
        assert text_of(sdk.messages.create(model=MODEL, max_tokens=5, messages=HELLO)) == "recovered"
        assert [r.status for r in server.requests] == [500, 200]
        assert len(server.script_errors) == 1
        assert "RuntimeError: scenario bug" in server.script_errors[0]


def test_script_returning_garbage_is_a_500() -> None:
    with ScriptedApiServer(lambda request: "not a turn") as server:  # type: ignore[arg-type]
        response = raw_post(server, "/v1/messages", {"model": MODEL, "max_tokens": 5, "messages": HELLO})
        assert response.status == 500
        assert "not an AssistantTurn" in json.loads(response.body)["error"]["message"]


def test_scripted_api_error_is_sent_as_is(client: MakeClient) -> None:
    overloaded = ApiError("Overloaded", type="overloaded_error", status=529)
    with ScriptedApiServer([overloaded, AssistantTurn.text("after")]) as server:
        sdk = client(server, max_retries=0)
        with pytest.raises(anthropic.APIStatusError) as info:
            sdk.messages.create(model=MODEL, max_tokens=5, messages=HELLO)
        assert info.value.status_code == 529
        assert text_of(sdk.messages.create(model=MODEL, max_tokens=5, messages=HELLO)) == "after"
        assert server.script.served == 2


def test_scripted_error_lets_the_client_retry(client: MakeClient) -> None:
    overloaded = ApiError("Overloaded", type="overloaded_error", status=529)
    with ScriptedApiServer([overloaded, AssistantTurn.text("after retry")]) as server:
        sdk = client(server, max_retries=1)
        # The SDK's own backoff is short for a first retry (under a second).
        assert text_of(sdk.messages.create(model=MODEL, max_tokens=5, messages=HELLO)) == "after retry"
        assert [r.status for r in server.requests] == [529, 200]


# -- concurrency, waiting, lifecycle ---------------------------------------------------------


def test_concurrent_requests_each_get_one_turn(client: MakeClient) -> None:
    turns = [AssistantTurn.text(f"turn {n}") for n in range(8)]
    with ScriptedApiServer(turns) as server:
        sdk = client(server)
        answers: list[str] = []
        lock = threading.Lock()

        def ask() -> None:
            text = text_of(sdk.messages.create(model=MODEL, max_tokens=5, messages=HELLO))
            with lock:
                answers.append(text)

        threads = [threading.Thread(target=ask) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(answers) == sorted(f"turn {n}" for n in range(8))
        assert [r.index for r in server.requests] == list(range(8))
        assert not server.script_exhausted


def test_wait_for_requests(client: MakeClient) -> None:
    with ScriptedApiServer([AssistantTurn.text("a"), AssistantTurn.text("b")]) as server:
        sdk = client(server)

        def background() -> None:
            sdk.messages.count_tokens(model=MODEL, messages=HELLO)
            sdk.messages.create(model=MODEL, max_tokens=5, messages=HELLO)
            sdk.messages.create(model=MODEL, max_tokens=5, messages=HELLO)

        thread = threading.Thread(target=background)
        thread.start()
        got = server.wait_for_requests(2, messages_only=True)
        thread.join()
        assert [r.turn.blocks[0] for r in got if r.turn] == [TextBlock("a"), TextBlock("b")]
        assert len(server.wait_for_requests(3)) == 3
        with pytest.raises(TimeoutError, match="for 4 requests, got 3"):
            server.wait_for_requests(4, timeout=0.01)


def test_lifecycle_binds_loopback_only_and_stops(client: MakeClient) -> None:
    server = ScriptedApiServer()
    with pytest.raises(RuntimeError, match="not started"):
        _ = server.base_url
    server.start()
    try:
        assert server.base_url == f"http://127.0.0.1:{server.port}"
        assert server._httpd is not None
        assert server._httpd.server_address[0] == "127.0.0.1"
        # A kept-alive connection must not keep stop() waiting.
        assert (
            client(server).messages.create(model=MODEL, max_tokens=5, messages=HELLO).stop_reason
            == "end_turn"
        )
    finally:
        server.stop()
    server.stop()  # idempotent
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection((LOOPBACK_HOST, server.port), timeout=5)
    with pytest.raises(RuntimeError, match="runs once"):
        server.start()


# -- the script model and SSE helpers --------------------------------------------------------


def test_turn_defaults_and_checks() -> None:
    assert AssistantTurn([TextBlock("x")]).effective_stop_reason == "end_turn"
    assert AssistantTurn([ToolUseBlock("toolu_1", "Read")]).effective_stop_reason == "tool_use"
    assert AssistantTurn([]).effective_stop_reason == "end_turn"
    with pytest.raises(ValueError, match="duplicate tool_use ids: toolu_1"):
        AssistantTurn([ToolUseBlock("toolu_1", "A"), ToolUseBlock("toolu_1", "B")])
    with pytest.raises(ValueError, match="unknown stop_reason"):
        AssistantTurn([], stop_reason="bogus")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"blocks\[0\]"):
        AssistantTurn(["text"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="not JSON-encodable"):
        ToolUseBlock("toolu_1", "A", {"s": {1, 2}})
    with pytest.raises(ValueError, match="tool_use id"):
        ToolUseBlock("bad id!", "A")
    with pytest.raises(TypeError, match="script\\[1\\]"):
        Script([AssistantTurn.text("ok"), "nope"])  # type: ignore[list-item]


def test_tool_use_ids_are_unique_and_deterministic() -> None:
    ids = ToolUseIds()
    assert [ids.next() for _ in range(3)] == [tool_use_id(1), tool_use_id(2), tool_use_id(3)]
    assert tool_use_id(7) == "toolu_01Scripted00000000000007"
    assert len(tool_use_id(7).removeprefix("toolu_")) == 24
    assert ToolUseIds().next() == tool_use_id(1)


@given(st.text(max_size=50), st.integers(1, 8))
@settings(max_examples=80, deadline=None)
def test_property_split_chunks_round_trips(text: str, chunks: int) -> None:
    """Streamed text and tool input JSON rejoin to the original; pieces are non-empty and at most ``chunks``."""
    pieces = split_chunks(text, chunks)
    assert "".join(pieces) == text
    assert 1 <= len(pieces) <= chunks
    assert all(pieces) or pieces == [""]
    assert len(pieces) == min(chunks, max(len(text), 1))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
blocks = st.one_of(
    st.builds(TextBlock, st.text(max_size=20)),
    st.builds(ThinkingBlock, st.text(max_size=20), st.text(min_size=1, max_size=8)),
    st.builds(
        lambda n, name, data: ToolUseBlock(tool_use_id(n), name, data),
        st.integers(0, 10**6),
        st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,10}", fullmatch=True),
        st.dictionaries(st.text(max_size=6), json_values, max_size=4),
    ),
)


@given(st.lists(blocks, max_size=4, unique_by=lambda b: getattr(b, "id", id(b))), st.integers(1, 5))
@settings(max_examples=60, deadline=None)
def test_property_sdk_accumulates_the_stream_into_the_message(turn_blocks: list[Any], chunks: int) -> None:
    """The SDK's own stream accumulator rebuilds exactly the non-streaming Message from our events."""
    from anthropic.lib.streaming._messages import accumulate_event
    from anthropic.types import RawMessageStreamEvent

    from pytest_toolharness.wire.model_api._messages_sse import message_json, stream_events

    turn = AssistantTurn(turn_blocks)
    ids = {"message_id": "msg_1", "model": MODEL, "input_tokens": 7, "output_tokens": 9}
    snapshot = None
    json_bufs: dict[int, bytes] = {}
    for name, data in stream_events(turn, chunks=chunks, **ids):  # type: ignore[arg-type]
        if name == "ping":
            continue
        # Through JSON, as on the wire.
        event = cast(RawMessageStreamEvent, json.loads(wire_json(data)))
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=json_bufs)
    assert snapshot is not None
    expected = message_json(turn, **ids)  # type: ignore[arg-type]
    fields = {"text": ("text",), "thinking": ("thinking", "signature"), "tool_use": ("id", "name", "input")}
    got = [
        {"type": block.type, **{key: getattr(block, key) for key in fields[block.type]}}
        for block in snapshot.content
    ]
    assert got == expected["content"]
    assert snapshot.stop_reason == ("tool_use" if turn.tool_uses else "end_turn")
    assert snapshot.usage.output_tokens == 9


def test_client_abort_mid_stream_is_silent_and_the_server_keeps_serving(
    capfd: pytest.CaptureFixture[str],
) -> None:
    # More SSE bytes than the server's send buffer (at most 4 MiB on Linux) and the client's
    # shrunken receive buffer hold: the server is still writing when the client resets the connection.
    big = AssistantTurn([TextBlock("x" * 12_000_000)])
    body = wire_json({"model": MODEL, "max_tokens": 10, "messages": HELLO, "stream": True}).encode()
    request = b"POST /v1/messages HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
    request += b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    threads_before = set(threading.enumerate())
    with ScriptedApiServer([big, AssistantTurn.text("after")], chunks=2000) as server:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect((LOOPBACK_HOST, server.port))
        sock.sendall(request)
        received = b""
        while b"event: content_block_delta" not in received:
            chunk = sock.recv(4096)
            assert chunk, "the server closed the stream early"
            received += chunk
        assert received.startswith(b"HTTP/1.1 200")
        # Linger 0: close with a reset, as a client killed mid-stream does.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
        after = raw_post(server, "/v1/messages", {"model": MODEL, "max_tokens": 10, "messages": HELLO})
        assert after.status == 200
        assert json.loads(after.body)["content"] == [{"type": "text", "text": "after"}]
    # The aborted handler reports its error when its thread ends; wait for every handler thread.
    for thread in set(threading.enumerate()) - threads_before:
        thread.join(timeout=30)
        assert not thread.is_alive()
    captured = capfd.readouterr()
    assert captured.err == ""
