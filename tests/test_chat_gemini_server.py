"""The scripted server in Chat Completions and Gemini, over real sockets, driven by the real SDKs."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import openai
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types

from pytest_toolharness.wire.model_api import (
    ApiError,
    AssistantTurn,
    ScriptedApiServer,
    TextBlock,
    ToolUseBlock,
)

CALLS = AssistantTurn(
    (
        TextBlock("Reading."),
        ToolUseBlock("call_a", "read", {"path": "a"}),
        ToolUseBlock("call_b", "grep", {"q": "x"}),
    )
)
TOOLS: list[Any] = [
    {"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}},
    {"type": "function", "function": {"name": "grep", "parameters": {"type": "object"}}},
]


def _chat_client(server: ScriptedApiServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{server.base_url}/v1", api_key="x", max_retries=0)


def test_the_openai_sdk_streams_the_calls_and_replays_them() -> None:
    with ScriptedApiServer([CALLS, AssistantTurn.text("Done.")]) as server:
        client = _chat_client(server)
        messages: list[Any] = [{"role": "user", "content": "go"}]
        with client.chat.completions.stream(
            model="gpt-test", messages=messages, tools=TOOLS, stream_options={"include_usage": True}
        ) as stream:
            completion = stream.get_final_completion()
        message = completion.choices[0].message
        assert completion.choices[0].finish_reason == "tool_calls"
        assert [
            (c.id, c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []
        ] == [  # type: ignore[union-attr]
            ("call_a", "read", {"path": "a"}),
            ("call_b", "grep", {"q": "x"}),
        ]
        assert completion.usage is not None
        messages.append(message.model_dump(exclude_none=True, exclude={"parsed"}))
        messages += [{"role": "tool", "tool_call_id": i, "content": "ok"} for i in ("call_b", "call_a")]
        answer = client.chat.completions.create(model="gpt-test", messages=messages, tools=TOOLS)
        assert answer.choices[0].message.content == "Done."
        assert [r.status for r in server.requests] == [200, 200]


def test_the_openai_sdk_gets_the_api_400() -> None:
    """C-PAIR over the wire: the SDK raises BadRequestError carrying the API's body; no turn is consumed."""
    with ScriptedApiServer([AssistantTurn.text("never")]) as server:
        client = _chat_client(server)
        bad = [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "call_a", "type": "function", "function": {"name": "read", "arguments": "{}"}}
                ],
            },
            {"role": "user", "content": "again"},
        ]
        with pytest.raises(openai.BadRequestError) as raised:
            client.chat.completions.create(model="gpt-test", messages=bad, tools=TOOLS)  # type: ignore[arg-type]
        assert raised.value.code is None
        assert raised.value.param == "messages.[2].role"
        assert "did not have response messages: call_a" in raised.value.message
        assert not server.script_exhausted


def test_a_scripted_error_answers_in_openai_shape() -> None:
    with ScriptedApiServer([ApiError("Slow down", type="rate_limit_error", status=429)]) as server:
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x"}]}).encode()
        request = urllib.request.Request(f"{server.base_url}/v1/chat/completions", data=body, method="POST")
        with pytest.raises(urllib.error.HTTPError) as raised:
            urllib.request.urlopen(request, timeout=10)
        assert raised.value.code == 429
        assert json.loads(raised.value.read()) == {
            "error": {"message": "Slow down", "type": "rate_limit_error", "param": None, "code": None}
        }


def _genai(server: ScriptedApiServer) -> genai.Client:
    return genai.Client(
        api_key="x", http_options=genai_types.HttpOptions(base_url=server.base_url, api_version="v1beta")
    )


_DECLARATIONS = genai_types.Tool(
    function_declarations=[
        genai_types.FunctionDeclaration(name=n, parameters_json_schema={"type": "object"})
        for n in ("read", "grep")
    ]
)


def test_google_genai_streams_the_calls_and_replays_their_signature() -> None:
    """PAIR-8 in Gemini's shape: the SDK's own history keeps the thoughtSignature, and the server accepts it."""
    with ScriptedApiServer([CALLS, AssistantTurn.text("Done.")]) as server:
        client = _genai(server)
        config = genai_types.GenerateContentConfig(tools=[_DECLARATIONS])
        chunks = list(
            client.models.generate_content_stream(model="gemini-3-pro-preview", contents="go", config=config)
        )
        parts = [p for c in chunks for p in c.candidates[0].content.parts]  # type: ignore[index, union-attr]
        calls = [p for p in parts if p.function_call]
        assert [(p.function_call.id, p.function_call.name) for p in calls] == [
            ("call_a", "read"),
            ("call_b", "grep"),
        ]  # type: ignore[union-attr]
        assert calls[0].thought_signature
        contents = [
            genai_types.Content(role="user", parts=[genai_types.Part(text="go")]),
            genai_types.Content(role="model", parts=calls),
            genai_types.Content(
                role="user",
                parts=[
                    genai_types.Part(
                        function_response=genai_types.FunctionResponse(
                            id=p.function_call.id, name=p.function_call.name, response={"output": "ok"}
                        )
                    )  # type: ignore[union-attr]
                    for p in calls
                ],
            ),
        ]
        final = client.models.generate_content(model="gemini-3-pro-preview", contents=contents, config=config)
        assert final.text == "Done."
        assert server.requests[0].path == "/v1beta/models/gemini-3-pro-preview:streamGenerateContent"
        assert server.requests[0].query == {"alt": "sse"}


def test_google_genai_gets_googles_400() -> None:
    """G-SIG over the wire: a replayed Gemini 3 call without its signature is rejected with Google's body."""
    with ScriptedApiServer([AssistantTurn.text("never")]) as server:
        contents = [
            genai_types.Content(role="user", parts=[genai_types.Part(text="go")]),
            genai_types.Content(
                role="model",
                parts=[genai_types.Part(function_call=genai_types.FunctionCall(name="read", args={}))],
            ),
            genai_types.Content(
                role="user",
                parts=[
                    genai_types.Part(
                        function_response=genai_types.FunctionResponse(name="read", response={"output": "ok"})
                    )
                ],
            ),
        ]
        client = _genai(server)  # kept: a collected client closes its connection pool
        with pytest.raises(genai_errors.ClientError) as raised:
            client.models.generate_content(
                model="gemini-3-pro-preview",
                contents=contents,
                config=genai_types.GenerateContentConfig(tools=[_DECLARATIONS]),
            )
        assert raised.value.code == 400
        assert raised.value.status == "INVALID_ARGUMENT"
        assert str(raised.value.message).startswith("Function call is missing a thought_signature")
        assert not server.script_exhausted


def test_count_tokens_consumes_no_turn() -> None:
    with ScriptedApiServer([AssistantTurn.text("Done.")]) as server:
        client = _genai(server)
        counted = client.models.count_tokens(model="gemini-2.5-flash", contents="hello")
        assert counted.total_tokens is not None
        assert counted.total_tokens > 0
        assert server.script.exhausted is False


def test_a_gemini_request_is_recorded_with_its_messages_view() -> None:
    """The suite's checks read a Gemini turn as Messages blocks: ids kept, ``{"error": ...}`` an is_error result."""
    with ScriptedApiServer([CALLS, AssistantTurn.text("Done.")]) as server:
        client = _genai(server)
        config = genai_types.GenerateContentConfig(tools=[_DECLARATIONS], system_instruction="be brief")
        first = client.models.generate_content(model="gemini-3-pro-preview", contents="go", config=config)
        calls = [p for p in first.candidates[0].content.parts if p.function_call]  # type: ignore[index, union-attr]
        answers = [
            genai_types.Part(
                function_response=genai_types.FunctionResponse(
                    id="call_a", name="read", response={"error": "no such file"}
                )
            ),
            genai_types.Part(
                function_response=genai_types.FunctionResponse(
                    id="call_b", name="grep", response={"output": "x"}
                )
            ),
        ]
        contents = [
            genai_types.Content(role="user", parts=[genai_types.Part(text="go")]),
            genai_types.Content(role="model", parts=calls),
            genai_types.Content(role="user", parts=answers),
        ]
        client.models.generate_content(model="gemini-3-pro-preview", contents=contents, config=config)
        second = server.requests[1]
        assert second.is_messages
        assert [t["name"] for t in second.tools] == ["read", "grep"]
        assert second.messages_body["system"] == "be brief"
        assert second.messages[-1]["content"] == [
            {"type": "tool_result", "tool_use_id": "call_a", "content": "no such file", "is_error": True},
            {"type": "tool_result", "tool_use_id": "call_b", "content": "x"},
        ]
        assert [b["id"] for b in second.messages[1]["content"] if b["type"] == "tool_use"] == [
            "call_a",
            "call_b",
        ]
