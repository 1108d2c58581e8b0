"""How a framework's answer on Chat Completions or Responses is read as ``tool_result`` blocks (issue 32).

The request bodies are the ones openai-agents 0.24 sent (Chat Completions and Responses) and smolagents
1.26 sent (Chat Completions) after a scripted tool-call turn, cut to the messages and items that matter;
each is posted to a scripted endpoint, which records it as the framework's request would be.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_toolharness.adapters._openai_answers import (
    endpoint_answer,
    messages_view,
    says_failed,
    sent_tools,
)
from pytest_toolharness.wire import AssistantTurn, ScriptedEndpoint

CHAT, RESPONSES = "/chat/completions", "/responses"


def _answer(path: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The answer read from ``body`` sent after a first request, as a framework sends it."""
    import httpx

    endpoint = ScriptedEndpoint([AssistantTurn.text("Hello."), AssistantTurn.text("Done.")])
    with httpx.Client(transport=endpoint.transport("httpx"), base_url=endpoint.base_url) as client:
        first = {
            "model": "gpt-5.1",
            **({"messages": body["messages"][:1]} if path == CHAT else {"input": "Hi"}),
        }
        client.post(f"/v1{path}", json=first)
        client.post(f"/v1{path}", json={"model": "gpt-5.1", **body})
    content, rejection = endpoint_answer(endpoint, path)
    assert rejection is None  # the API took every request of these tests
    return content


FAILURE_TEXTS = [
    "An error occurred while running the tool. Please try again.",
    "Tool 'Alpha' timed out after 0.5 seconds.",
    "Alpha does not accept 'x'",
    "scripted failure",
    "Unknown tool Missing, should be one of: Alpha.",
]


def test_chat_tool_messages_become_results_in_their_order() -> None:
    """PAIR-1's view of Chat: one ``tool`` message per call after the assistant message, in order."""
    body: dict[str, Any] = {
        "messages": [
            {"role": "user", "content": "Run the tools."},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "toolu_1", "type": "function", "function": {"name": "Alpha", "arguments": "{}"}},
                    {"id": "toolu_2", "type": "function", "function": {"name": "Boom", "arguments": "{}"}},
                ],
            },
            {"role": "tool", "tool_call_id": "toolu_1", "content": "a done"},
            {"role": "tool", "tool_call_id": "toolu_2", "content": FAILURE_TEXTS[0]},
        ]
    }
    assert _answer(CHAT, body) == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a done", "is_error": False},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": FAILURE_TEXTS[0], "is_error": True},
    ]


def test_smolagents_observation_is_text_and_no_result() -> None:
    """A batch written back as text (smolagents) has no result: one ``text`` block, no ``tool_result``."""
    body = {
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "New task:\nRun the tools."}]},
            {"role": "assistant", "content": [{"type": "text", "text": "Calling tools:\n[...]"}]},
            {"role": "user", "content": [{"type": "text", "text": "Observation:\na done"}]},
        ]
    }
    assert _answer(CHAT, body) == [{"type": "text", "text": "Observation:\na done"}]


def test_responses_outputs_after_the_calls_become_results() -> None:
    """PAIR-1's view of Responses: the ``function_call_output`` items that follow the turn's calls."""
    body = {
        "input": [
            {"content": "Run the tools.", "role": "user"},
            {"arguments": "{}", "call_id": "toolu_1", "name": "Alpha", "type": "function_call", "id": "fc_0"},
            {"arguments": "{}", "call_id": "toolu_2", "name": "Empty", "type": "function_call", "id": "fc_1"},
            {"call_id": "toolu_1", "output": "a done", "type": "function_call_output"},
            {"call_id": "toolu_2", "output": "", "type": "function_call_output"},
        ]
    }
    assert _answer(RESPONSES, body) == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a done", "is_error": False},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "", "is_error": False},
    ]


def test_responses_without_the_batch_has_no_result() -> None:
    """A resumed session that dropped the batch (openai-agents after a cancel) answers nothing."""
    assert _answer(RESPONSES, {"input": [{"content": "Run the tools.", "role": "user"}]}) == [
        {"type": "text", "text": "Run the tools."}
    ]


def test_output_parts_are_read_as_their_text() -> None:
    """An output given as content parts (``input_text``) is read as its text."""
    body = {
        "input": [
            {"arguments": "{}", "call_id": "c", "name": "A", "type": "function_call"},
            {
                "call_id": "c",
                "output": [{"type": "input_text", "text": "one"}],
                "type": "function_call_output",
            },
        ]
    }
    assert _answer(RESPONSES, body)[0]["content"] == "one"


@pytest.mark.parametrize("text", FAILURE_TEXTS)
def test_failure_texts_say_failed(text: str) -> None:
    """PAIR-3 on APIs without ``is_error``: the failure texts the frameworks and the suite write say so."""
    assert says_failed(text)


@given(st.text(alphabet="abcdfghkmpqsvwxyz ", max_size=40))
def test_plain_output_does_not_say_failed(text: str) -> None:
    """An output made of words without a failure word is no failure (no vowel run spells one)."""
    assert not says_failed(text)


def test_chat_tools_are_flattened_to_their_function() -> None:
    """A Chat tool is its ``function`` object (name at the top); a Responses tool is as sent; ``parameters``
    are read as ``input_schema``, in their place."""
    schema = {"type": "object", "properties": {}}
    chat = {"tools": [{"type": "function", "function": {"name": "A", "parameters": schema, "strict": False}}]}
    responses = {"tools": [{"name": "A", "parameters": schema, "strict": False, "type": "function"}]}
    assert list(sent_tools(chat)[0].items()) == [
        ("type", "function"),
        ("name", "A"),
        ("input_schema", schema),
        ("strict", False),
    ]
    assert list(sent_tools(responses)[0].items()) == [
        ("name", "A"),
        ("input_schema", schema),
        ("strict", False),
        ("type", "function"),
    ]


def test_a_responses_request_is_read_as_messages() -> None:
    """The transcript view: ``function_call`` items are ``tool_use`` blocks with their call id, name, input."""
    endpoint = ScriptedEndpoint([AssistantTurn.text("Hello.")])
    import httpx

    body = {
        "model": "gpt-5.1",
        "input": [
            {"role": "user", "content": "Hello"},
            {"role": "assistant", "content": "Calling ReadFile."},
            {"type": "function_call", "call_id": "toolu_1", "name": "ReadFile", "arguments": '{"path": "a"}'},
            {"type": "function_call_output", "call_id": "toolu_1", "output": "done"},
        ],
        "tools": [
            {"name": "ReadFile", "parameters": {"type": "object"}, "strict": False, "type": "function"}
        ],
    }
    with httpx.Client(transport=endpoint.transport("httpx"), base_url=endpoint.base_url) as client:
        client.post("/v1/responses", json=body)
    view = messages_view(endpoint.requests[0])
    assert view["tools"][0]["name"] == "ReadFile"
    assert view["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Hello"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Calling ReadFile."},
                {"type": "tool_use", "id": "toolu_1", "name": "ReadFile", "input": {"path": "a"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "done", "is_error": False}
            ],
        },
    ]


def test_the_openai_agents_factory_refuses_an_api_the_server_does_not_answer() -> None:
    """Fail closed: an adapter on an API the scripted server can't answer errors, never blames the SDK."""
    from pytest_toolharness.adapters._openai_answers import served

    module = pytest.importorskip("pytest_toolharness.adapters.openai_agents")
    assert served("/v1/chat/completions")
    assert module.make_chat_adapter().capabilities >= {"execution", "transcript", "agent_loop"}
    if served("/v1/responses"):
        assert "classification" in module.make_adapter().capabilities
    else:
        with pytest.raises(RuntimeError, match=r"does not answer /v1/responses yet"):
            module.make_adapter()
