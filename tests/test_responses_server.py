"""The scripted Responses API over a real socket, read back by the ``openai`` SDK (issue 32)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import openai
import pytest

from pytest_toolharness.wire import AssistantTurn, ScriptedApiServer, TextBlock, ThinkingBlock, ToolUseBlock

TOOLS: list[Any] = [
    {
        "type": "function",
        "name": "read",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        "strict": False,
    },
    {"type": "custom", "name": "apply_patch", "description": "a patch"},
    {"type": "web_search"},
    {"type": "tool_search"},
]
CALLS = AssistantTurn(
    (
        ThinkingBlock("read both", "ZW5jcnlwdGVk"),
        TextBlock("Reading."),
        ToolUseBlock("call_a", "read", {"path": "a"}),
        ToolUseBlock("call_b", "read", {"path": "b"}),
    )
)


@pytest.fixture
def server() -> Iterator[ScriptedApiServer]:
    with ScriptedApiServer([CALLS, AssistantTurn.text("Both read.")]) as running:
        yield running


@pytest.fixture
def sdk(server: ScriptedApiServer) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(api_key="scripted", base_url=f"{server.base_url}/v1", max_retries=0) as opened:
        yield opened


def outputs(response: Any) -> list[dict[str, Any]]:
    return [
        {"type": "function_call_output", "call_id": item.call_id, "output": f"read {item.call_id}"}
        for item in response.output
        if item.type == "function_call"
    ]


def test_the_sdk_reads_a_response_and_the_stored_conversation_goes_on(
    server: ScriptedApiServer, sdk: openai.OpenAI
) -> None:
    """A JSON response: reasoning, message and calls as the SDK's types; previous_response_id continues it."""
    first = sdk.responses.create(model="gpt-test", input="read a and b", tools=TOOLS)
    kinds = [item.type for item in first.output]
    assert kinds == ["reasoning", "message", "function_call", "function_call"]
    reasoning = first.output[0]
    assert reasoning.type == "reasoning"
    assert reasoning.encrypted_content is None
    assert first.output_text == "Reading."
    assert [(c.call_id, json.loads(c.arguments)) for c in first.output if c.type == "function_call"] == [
        ("call_a", {"path": "a"}),
        ("call_b", {"path": "b"}),
    ]
    assert first.usage is not None
    assert first.usage.total_tokens > 0
    second = sdk.responses.create(
        model="gpt-test", input=outputs(first), tools=TOOLS, previous_response_id=first.id
    )
    assert second.output_text == "Both read."
    view = server.requests[-1].messages_body
    assert [m["role"] for m in view["messages"]] == ["user", "assistant", "user"]
    assert view["messages"][1]["content"][0] == {
        "type": "thinking",
        "thinking": "read both",
        "signature": "ZW5jcnlwdGVk",
    }
    assert [b["tool_use_id"] for b in view["messages"][2]["content"]] == ["call_a", "call_b"]


def test_the_sdk_reads_a_stream(server: ScriptedApiServer, sdk: openai.OpenAI) -> None:
    """SSE: the events clients rely on, in order, and the SDK's accumulated final response."""
    with sdk.responses.stream(
        model="gpt-test", input="read", tools=TOOLS, include=["reasoning.encrypted_content"], store=False
    ) as stream:
        events = list(stream)
        final = stream.get_final_response()
    types = [event.type for event in events]
    assert types[:2] == ["response.created", "response.in_progress"]
    assert types[-1] == "response.completed"
    for needed in (
        "response.output_item.added",
        "response.output_item.done",
        "response.content_part.added",
        "response.content_part.done",
        "response.output_text.delta",
        "response.output_text.done",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
    ):
        assert needed in types
    assert [event.sequence_number for event in events] == list(range(len(events)))
    assert final.output[0].type == "reasoning"
    assert final.output[0].encrypted_content == "ZW5jcnlwdGVk"
    assert final.usage is not None
    assert final.usage.output_tokens > 0
    # store: false keeps nothing: the whole conversation goes back, reasoning with its encrypted content.
    with pytest.raises(openai.BadRequestError, match="Previous response with id"):
        sdk.responses.create(model="gpt-test", input=outputs(final), previous_response_id=final.id)
    replay = [
        {"role": "user", "content": "read"},
        *(item.model_dump(exclude_none=True) for item in final.output),
        *outputs(final),
    ]
    assert (
        sdk.responses.create(model="gpt-test", input=replay, tools=TOOLS, store=False).output_text
        == "Both read."
    )


def test_client_minted_item_ids_are_taken(server: ScriptedApiServer, sdk: openai.OpenAI) -> None:
    """A client may mint its own fc_ item ids for a call it replays (Codex does)."""
    history: Any = [
        {"role": "user", "content": "read"},
        {"type": "function_call", "id": "fc_client1", "call_id": "call_x", "name": "read", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_x", "output": "x"},
    ]
    assert sdk.responses.create(model="gpt-test", input=history, tools=TOOLS).output_text == "Reading."


def test_a_rejected_request_gets_the_api_body(server: ScriptedApiServer, sdk: openai.OpenAI) -> None:
    """A request the API would reject gets OpenAI's 400 body, recorded, and consumes no turn."""
    response = httpx.post(
        f"{server.base_url}/v1/responses",
        json={
            "model": "gpt-test",
            "input": [{"type": "function_call_output", "call_id": "c1", "output": ""}],
        },
    )
    assert response.status_code == 400
    assert response.json() == {
        "error": {
            "message": "No tool call found for function call output with call_id c1.",
            "type": "invalid_request_error",
            "param": "input",
            "code": None,
        }
    }
    assert server.requests[-1].rejected
    assert sdk.responses.create(model="gpt-test", input="go", tools=TOOLS).output[0].type == "reasoning"
