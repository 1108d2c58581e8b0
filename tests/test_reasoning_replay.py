"""PAIR-8 over the wire: ``check_reasoning_replayed`` reads the reasoning a client sent back on each API.

A scripted turn with thinking and tool calls is answered on the Messages API (thinking blocks), the
Responses API (reasoning items) and Gemini (a ``thoughtSignature``); the next request, sent by the real
SDK or as a CLI sends it, either carries the reasoning back ahead of the calls or drops it, and the
API-neutral check tells the two apart.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import openai
import pytest

from pytest_toolharness.wire import AssistantTurn, ScriptedApiServer, TextBlock, ThinkingBlock, ToolUseBlock
from pytest_toolharness.wire.checks import check_reasoning_replayed, reasoning_replay_problem

TURN = AssistantTurn(
    (
        ThinkingBlock("first think", "c2lnLW9uZQ=="),
        ThinkingBlock("then call", "c2lnLXR3bw=="),
        ToolUseBlock("call_1", "read", {"path": "a"}),
    )
)
SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}}


@pytest.fixture
def server() -> Iterator[ScriptedApiServer]:
    with ScriptedApiServer([TURN, AssistantTurn.text("done"), AssistantTurn.text("done")]) as running:
        yield running


def _messages_replay(server: ScriptedApiServer, keep_thinking: bool) -> None:
    tools = [{"name": "read", "input_schema": SCHEMA}]
    first = {
        "model": "claude-test",
        "max_tokens": 64,
        "tools": tools,
        "messages": [{"role": "user", "content": "go"}],
    }
    content = httpx.post(f"{server.base_url}/v1/messages", json=first).json()["content"]
    replayed = [b for b in content if keep_thinking or b["type"] != "thinking"]
    result = {"type": "tool_result", "tool_use_id": "call_1", "content": "a"}
    second = {
        **first,
        "messages": [
            *first["messages"],
            {"role": "assistant", "content": replayed},
            {"role": "user", "content": [result]},
        ],
    }
    assert httpx.post(f"{server.base_url}/v1/messages", json=second).status_code == 200


def _responses_replay(server: ScriptedApiServer, keep_thinking: bool) -> None:
    tools: Any = [{"type": "function", "name": "read", "parameters": SCHEMA, "strict": False}]
    with openai.OpenAI(api_key="scripted", base_url=f"{server.base_url}/v1", max_retries=0) as sdk:
        first = sdk.responses.create(
            model="gpt-test", input="go", tools=tools, store=False, include=["reasoning.encrypted_content"]
        )
        kept = [
            item.model_dump(exclude_none=True)
            for item in first.output
            if keep_thinking or item.type != "reasoning"
        ]
        if not keep_thinking:  # a client that drops reasoning drops the item ids with it (else R-REASONING)
            kept = [{k: v for k, v in item.items() if k not in ("id", "status")} for item in kept]
        output = {"type": "function_call_output", "call_id": "call_1", "output": "a"}
        sdk.responses.create(
            model="gpt-test",
            input=[{"role": "user", "content": "go"}, *kept, output],
            tools=tools,
            store=False,
        )


def _gemini_replay(server: ScriptedApiServer, keep_thinking: bool) -> None:
    url = f"{server.base_url}/v1beta/models/gemini-2.5-pro:generateContent"
    tools = [{"functionDeclarations": [{"name": "read", "parameters": SCHEMA}]}]
    first = {"contents": [{"role": "user", "parts": [{"text": "go"}]}], "tools": tools}
    parts = httpx.post(url, json=first).json()["candidates"][0]["content"]["parts"]
    kept = [
        {k: v for k, v in part.items() if keep_thinking or k != "thoughtSignature"}
        for part in parts
        if not part.get("thought")
    ]
    answer = {"functionResponse": {"id": "call_1", "name": "read", "response": {"output": "a"}}}
    second = {
        **first,
        "contents": [
            *first["contents"],
            {"role": "model", "parts": kept},
            {"role": "user", "parts": [answer]},
        ],
    }
    assert httpx.post(url, json=second).status_code == 200


REPLAYS = {"messages": _messages_replay, "responses": _responses_replay, "gemini": _gemini_replay}


@pytest.mark.parametrize("api", sorted(REPLAYS))
def test_reasoning_sent_back_passes(server: ScriptedApiServer, api: str) -> None:
    """PAIR-8: a client that sends the turn back with its reasoning ahead of the call passes the check."""
    REPLAYS[api](server, keep_thinking=True)
    assert check_reasoning_replayed(server.requests) == []


@pytest.mark.parametrize("api", sorted(REPLAYS))
def test_reasoning_dropped_is_named(server: ScriptedApiServer, api: str) -> None:
    """PAIR-8: a client that drops the reasoning is named, with the request and the call."""
    REPLAYS[api](server, keep_thinking=False)
    problems = check_reasoning_replayed(server.requests)
    assert len(problems) == 1
    assert problems[0].startswith("request #1: the turn with tool call call_1 comes back with reasoning []")


def test_reordered_or_rewritten_thinking_fails() -> None:
    """PAIR-8: thinking after the call, or its text rewritten on the Messages API, is a problem."""
    delivered = [b.to_api() for b in TURN.blocks if isinstance(b, ThinkingBlock)]
    call = {"type": "tool_use", "id": "call_1", "name": "read", "input": {}}
    behind = [{"role": "assistant", "content": [call, *delivered]}]
    assert reasoning_replay_problem(delivered, "call_1", behind) is not None
    rewritten = [{**delivered[0], "thinking": "edited"}, delivered[1]]
    edited = [{"role": "assistant", "content": [*rewritten, TextBlock("x").to_api(), call]}]
    assert reasoning_replay_problem(delivered, "call_1", edited, exact=True) is not None
    assert (
        reasoning_replay_problem(delivered, "call_1", [{"role": "assistant", "content": [*delivered, call]}])
        is None
    )
