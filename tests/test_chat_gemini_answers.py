"""Chat Completions and Gemini answers, read back by the real SDKs' own types and stream accumulators."""

from __future__ import annotations

import json
from typing import Any

from google.genai import types as genai_types
from hypothesis import given, settings
from hypothesis import strategies as st
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from pytest_toolharness.wire.model_api._chat import chat_answer, chat_neutral_request
from pytest_toolharness.wire.model_api._chat_sse import DONE_EVENT
from pytest_toolharness.wire.model_api._gemini import gemini_answer, gemini_neutral_request, gemini_route
from pytest_toolharness.wire.model_api._turns import AssistantTurn, TextBlock, ThinkingBlock, ToolUseBlock

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


@st.composite
def turns(draw: st.DrawFn) -> AssistantTurn:
    """A scripted turn: optional thinking, optional text, zero to four tool calls with JSON inputs."""
    blocks: list[Any] = []
    if draw(st.booleans()):
        blocks.append(ThinkingBlock(draw(st.text(min_size=1, max_size=30)), "c2ln"))
    if draw(st.booleans()):
        blocks.append(TextBlock(draw(st.text(min_size=1, max_size=40))))
    for n in range(draw(st.integers(0, 4))):
        name = draw(st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True))
        blocks.append(
            ToolUseBlock(
                f"call_{n}", name, draw(st.dictionaries(st.text(max_size=8), _json_values, max_size=3))
            )
        )
    return AssistantTurn(blocks)


def _sse_data(events: tuple[bytes, ...]) -> list[str]:
    return [event.decode().removeprefix("data: ").rstrip("\r\n") for event in events]


@settings(max_examples=50, deadline=None)
@given(turns(), st.integers(1, 5), st.booleans())
def test_a_streamed_chat_turn_accumulates_to_the_json_answer(
    turn: AssistantTurn, chunks: int, usage: bool
) -> None:
    """Property: the openai SDK's own accumulator turns the chunks into the completion the JSON answer is."""
    body: dict[str, Any] = {"model": "gpt-test", "messages": [], "stream": True}
    if usage:
        body["stream_options"] = {"include_usage": True}
    events = chat_answer(turn, body, completion_id="chatcmpl-1", prompt_tokens=7, chunks=chunks)
    assert isinstance(events, tuple)
    assert events[-1] == DONE_EVENT
    state = ChatCompletionStreamState()
    for data in _sse_data(events[:-1]):
        state.handle_chunk(ChatCompletionChunk.model_validate_json(data))
    streamed = state.get_final_completion()
    plain = chat_answer(
        turn, {"model": "gpt-test", "messages": []}, completion_id="chatcmpl-1", prompt_tokens=7
    )
    assert isinstance(plain, bytes)
    completion = ChatCompletion.model_validate_json(plain)
    message, streamed_message = completion.choices[0].message, streamed.choices[0].message
    assert streamed_message.content == message.content
    expected = [(c.id, c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]  # type: ignore[union-attr]
    got = [
        (c.id, c.function.name, json.loads(c.function.arguments)) for c in streamed_message.tool_calls or []
    ]  # type: ignore[union-attr]
    assert got == expected == [(c.id, c.name, dict(c.input)) for c in turn.tool_uses]
    assert completion.choices[0].finish_reason == ("tool_calls" if turn.tool_uses else "stop")
    assert (streamed.usage is not None) == usage


@settings(max_examples=50, deadline=None)
@given(turns(), st.integers(1, 5))
def test_a_gemini_turn_reads_back_in_google_genai(turn: AssistantTurn, chunks: int) -> None:
    """Property (PAIR-8): google-genai reads the same calls, text and signature from the JSON and the stream."""
    route = gemini_route("/v1beta/models/gemini-3-pro-preview:generateContent")
    stream_route = gemini_route("/v1beta/models/gemini-3-pro-preview:streamGenerateContent")
    assert route is not None
    assert stream_route is not None
    assert stream_route.stream
    plain = gemini_answer(turn, route, response_id="r1", prompt_tokens=3)
    assert isinstance(plain, bytes)
    response = genai_types.GenerateContentResponse.model_validate_json(plain)
    events = gemini_answer(turn, stream_route, response_id="r1", prompt_tokens=3, chunks=chunks)
    assert isinstance(events, tuple)
    streamed = [genai_types.GenerateContentResponse.model_validate_json(d) for d in _sse_data(events)]
    streamed_parts = [p for r in streamed for p in r.candidates[0].content.parts]  # type: ignore[index, union-attr]
    calls = [(c.id, c.name, c.args) for c in response.function_calls or []]
    assert calls == [(c.id, c.name, dict(c.input)) for c in turn.tool_uses]
    assert [(p.function_call.id, p.function_call.name) for p in streamed_parts if p.function_call] == [
        c[:2] for c in calls
    ]
    signatures = [p.thought_signature for p in response.candidates[0].content.parts if p.function_call]  # type: ignore[index, union-attr]
    if signatures:
        assert signatures[0]
        assert all(s is None for s in signatures[1:])
    text = "".join(p.text for p in response.candidates[0].content.parts if p.text and not p.thought)  # type: ignore[index, union-attr]
    assert text == "".join(b.text for b in turn.blocks if isinstance(b, TextBlock))
    assert streamed[-1].candidates[0].finish_reason == genai_types.FinishReason.STOP  # type: ignore[index]


def test_routes() -> None:
    assert gemini_route("/v1beta/models/gemini-2.5-flash:countTokens") is not None
    assert gemini_route("/v1beta/models/gemini-2.5-flash:embedContent") is None
    assert gemini_route("/v1/chat/completions") is None


def test_chat_neutral_view() -> None:
    """The neutral view of a Chat request: consecutive tool messages are one turn answering the calls."""
    body = {
        "model": "m",
        "tools": [{"type": "function", "function": {"name": "read"}}],
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "read", "arguments": '{"p":1}'},
                    },
                    {
                        "id": "call_b",
                        "type": "function",
                        "function": {"name": "read", "arguments": "not json"},
                    },
                ],
            },
            {"role": "tool", "tool_call_id": "call_b", "content": [{"type": "text", "text": "B"}]},
            {"role": "tool", "tool_call_id": "call_a", "content": "A"},
        ],
    }
    view = chat_neutral_request(body)
    assert view["tools"] == [{"name": "read", "description": None, "input_schema": None}]
    assert [t["role"] for t in view["turns"]] == ["user", "assistant", "user"]
    assert view["turns"][1]["calls"] == [
        {"id": "call_a", "name": "read", "input": {"p": 1}},
        {"id": "call_b", "name": "read", "input": "not json"},
    ]
    assert view["turns"][2]["outputs"] == [
        {"call_id": "call_b", "text": "B", "is_error": None},
        {"call_id": "call_a", "text": "A", "is_error": None},
    ]


def test_gemini_neutral_view() -> None:
    """The neutral view of a Gemini request: signatures are reasoning, an ``error`` response is a failure."""
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "go"}]},
            {
                "role": "model",
                "parts": [
                    {"text": "hm", "thought": True},
                    {"functionCall": {"id": "c1", "name": "read", "args": {}}, "thoughtSignature": "c2ln"},
                    {"functionCall": {"id": "c2", "name": "read", "args": {"p": 1}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"id": "c1", "name": "read", "response": {"error": "nope"}}},
                    {"functionResponse": {"id": "c2", "name": "read", "response": {"output": "ok"}}},
                ],
            },
        ],
        "tools": [{"functionDeclarations": [{"name": "read"}]}],
    }
    view = gemini_neutral_request(body)
    assert [t["name"] for t in view["tools"]] == ["read"]
    model = view["turns"][1]
    assert [c["id"] for c in model["calls"]] == ["c1", "c2"]
    assert model["reasoning"] == [
        {"thought": "hm", "signature": None},
        {"signature": "c2ln", "call_id": "c1"},
    ]
    assert view["turns"][2]["outputs"] == [
        {"call_id": "c1", "text": '{"error":"nope"}', "is_error": True},
        {"call_id": "c2", "text": '{"output":"ok"}', "is_error": False},
    ]
