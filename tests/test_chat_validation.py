"""Chat Completions request validation: every PROTOCOLS.md Chat rule answered with the real 400 body."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam

from pytest_toolharness.wire.model_api._chat_validation import (
    chat_checker_violations,
    validate_chat_request,
)
from pytest_toolharness.wire.model_api._provider_errors import OpenAIError


def tool(name: str, description: str = "a tool") -> ChatCompletionToolParam:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {}}}


def call(call_id: str, name: str = "read") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


def asks(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


def answer(call_id: str, content: Any = "ok") -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


USER: ChatCompletionMessageParam = {"role": "user", "content": "read two files"}


def body(*messages: Any, tools: list[Any] | None = None, **extra: Any) -> dict[str, Any]:
    request: dict[str, Any] = {"model": "gpt-test", "messages": list(messages), **extra}
    if tools is not None:
        request["tools"] = tools
    return request


def rejected(request: dict[str, Any]) -> dict[str, Any]:
    error = validate_chat_request(request)
    assert isinstance(error, OpenAIError), "expected the request to be rejected"
    assert error.status == 400
    wire = error.body("req_1")
    assert set(wire) == {"error"}
    assert set(wire["error"]) == {"message", "type", "param", "code"}
    assert wire["error"]["type"] == "invalid_request_error"
    return dict(wire["error"])


VALID = body(
    USER, asks(call("call_a"), call("call_b")), answer("call_b"), answer("call_a"), tools=[tool("read")]
)


def test_a_valid_conversation_is_accepted() -> None:
    assert validate_chat_request(VALID) is None


def test_c_pair_unanswered_call() -> None:
    """C-PAIR: a call without its tool message right after the assistant message."""
    error = rejected(
        body(USER, asks(call("call_a"), call("call_b")), answer("call_a"), {"role": "user", "content": "x"})
    )
    assert error["message"] == (
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
        "'tool_call_id'. The following tool_call_ids did not have response messages: call_b"
    )
    assert error["param"] == "messages.[2].role"


def test_c_pair_answer_after_another_message_does_not_count() -> None:
    """C-PAIR: the tool message must come *immediately* after, not after a user message."""
    error = rejected(body(USER, asks(call("call_a")), {"role": "user", "content": "wait"}, answer("call_a")))
    assert error["message"].endswith("did not have response messages: call_a")


def test_c_orphan_tool_message_without_call() -> None:
    """C-ORPHAN: a tool message answers no preceding assistant message with tool_calls."""
    error = rejected(body(USER, {"role": "assistant", "content": "hi"}, answer("call_x")))
    assert error["message"] == (
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
    )
    assert error["param"] == "messages.[2].role"


def test_c_emptytc_empty_tool_calls() -> None:
    """C-EMPTYTC: ``tool_calls: []``."""
    error = rejected(body(USER, {"role": "assistant", "content": "x", "tool_calls": []}))
    assert error["message"] == (
        "Invalid 'messages[1].tool_calls': empty array. Expected an array with minimum length 1, "
        "but got an empty array instead."
    )
    assert (error["param"], error["code"]) == ("messages[1].tool_calls", "empty_array")


def test_c_idlen_tool_call_id_over_40() -> None:
    """C-IDLEN: a replayed id minted by another provider, 43 characters long."""
    long_id = "toolu_" + "x" * 37
    error = rejected(body(USER, asks(call(long_id)), answer(long_id)))
    assert error["message"] == (
        "Invalid 'messages[1].tool_calls[0].id': string too long. Expected a string with maximum length 40, "
        "but got a string with length 43 instead."
    )
    assert error["code"] == "string_above_max_length"


def test_c_null_content() -> None:
    """C-NULL: a tool that returned None sent as ``content: null``."""
    error = rejected(body(USER, asks(call("call_a")), answer("call_a", None)))
    assert error["message"] == "Invalid value for 'content': expected a string, got null."
    assert error["param"] == "messages.[2].content"


@pytest.mark.parametrize(
    ("name", "message", "code"),
    [
        (
            "mcp__files.read",
            "Invalid 'tools[0].function.name': string does not match pattern. "
            "Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
            "invalid_value",
        ),
        (
            "",
            "Invalid 'tools[0].function.name': empty string. Expected a string with minimum length 1, "
            "but got an empty string instead.",
            "empty_string",
        ),
        (
            "n" * 65,
            "Invalid 'tools[0].function.name': string too long. Expected a string with maximum length 64, "
            "but got a string with length 65 instead.",
            "string_above_max_length",
        ),
    ],
)
def test_c_name_tool_name(name: str, message: str, code: str) -> None:
    """C-NAME: function names match ``^[a-zA-Z0-9_-]+$``, 1 to 64 characters."""
    error = rejected(body(USER, tools=[tool(name)]))
    assert (error["message"], error["code"], error["param"]) == (message, code, "tools[0].function.name")


def test_c_name_in_replayed_history() -> None:
    """C-NAME: a replayed call's name is checked too (``messages[N].tool_calls[K].function.name``)."""
    error = rejected(body(USER, asks(call("call_a", "")), answer("call_a")))
    assert error["message"].startswith("Invalid 'messages[1].tool_calls[0].function.name': empty string.")


def test_c_tools128() -> None:
    """C-TOOLS128: at most 128 tools."""
    error = rejected(body(USER, tools=[tool(f"t{i}") for i in range(133)]))
    assert error["message"] == (
        "Invalid 'tools': array too long. Expected an array with maximum length 128, "
        "but got an array with length 133 instead."
    )
    assert (error["param"], error["code"]) == ("tools", "array_above_max_length")


def test_c_ptc_without_tools() -> None:
    """C-PTC: ``parallel_tool_calls`` only with tools."""
    error = rejected(body(USER, parallel_tool_calls=False))
    assert error["message"] == (
        "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified."
    )


def test_c_toolchoice_without_tools() -> None:
    """C-TOOLCHOICE: ``tool_choice`` only with tools."""
    error = rejected(body(USER, tool_choice="auto"))
    assert error["message"] == (
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."
    )


def test_c_desc_over_1024() -> None:
    """C-DESC: a function description of 2,780 characters."""
    error = rejected(body(USER, tools=[tool("read")] * 6 + [tool("grep", "d" * 2780)]))
    assert error["message"] == (
        "Invalid 'tools[6].function.description': string too long. Expected a string with maximum length 1024, "
        "but got a string with length 2780 instead."
    )


def test_c_dupid_and_c_dupout_are_checker_rules() -> None:
    """C-DUPID, C-DUPOUT: the API takes them; the checker names both."""
    request = body(
        USER, asks(call("call_a")), answer("call_a"), answer("call_a"), asks(call("call_a")), answer("call_a")
    )
    assert validate_chat_request(request) is None
    found = chat_checker_violations(request)
    assert [f.split(":")[0] for f in found] == ["C-DUPOUT", "C-DUPID", "C-DUPOUT"]


# -- properties ---------------------------------------------------------------------------------

_ids = st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=12).map(lambda s: f"call_{s}")


@st.composite
def conversations(draw: st.DrawFn) -> dict[str, Any]:
    """A valid conversation: user, then rounds of an assistant message with calls and their answers in any order."""
    messages: list[Any] = [USER]
    used: set[str] = set()
    for _ in range(draw(st.integers(0, 4))):
        ids = draw(st.lists(_ids.filter(lambda i: i not in used), min_size=1, max_size=4, unique=True))
        used.update(ids)
        messages.append(asks(*(call(i) for i in ids)))
        messages.extend(answer(i) for i in draw(st.permutations(ids)))
        if draw(st.booleans()):
            messages.append({"role": "user", "content": "more"})
    return body(*messages, tools=[tool("read")])


@settings(max_examples=60, deadline=None)
@given(conversations())
def test_valid_conversations_are_accepted(request: dict[str, Any]) -> None:
    """Property (PAIR-1, C-PAIR/C-ORPHAN): every call answered right after its assistant message is accepted."""
    assert validate_chat_request(request) is None
    assert chat_checker_violations(request) == []


@settings(max_examples=60, deadline=None)
@given(conversations(), st.data())
def test_a_dropped_tool_message_is_c_pair(request: dict[str, Any], data: st.DataObject) -> None:
    """Property (PAIR-1, C-PAIR): dropping any tool message is rejected naming exactly the unanswered id."""
    tool_positions = [i for i, m in enumerate(request["messages"]) if m["role"] == "tool"]
    if not tool_positions:
        return
    position = data.draw(st.sampled_from(tool_positions))
    dropped = request["messages"].pop(position)
    error = rejected(request)
    assert error["message"].endswith(f"did not have response messages: {dropped['tool_call_id']}")


@settings(max_examples=60, deadline=None)
@given(conversations(), st.data(), _ids)
def test_an_unasked_tool_message_is_c_orphan(
    request: dict[str, Any], data: st.DataObject, stray: str
) -> None:
    """Property (PAIR-1, C-ORPHAN): a tool message for an id its assistant message did not ask is rejected."""
    asked = {c["id"] for m in request["messages"] if m["role"] == "assistant" for c in m["tool_calls"]}
    if stray in asked:
        return
    position = data.draw(st.integers(1, len(request["messages"])))
    request["messages"].insert(position, answer(stray))
    error = rejected(request)
    assert "must be a response to a preceeding message with 'tool_calls'" in error["message"]
    assert error["param"] == f"messages.[{position}].role"
