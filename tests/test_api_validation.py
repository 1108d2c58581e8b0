"""Tests for the Messages API request validation (a pure function)."""

from __future__ import annotations

import copy
from typing import Any, cast

import pytest
from anthropic.types import MessageParam, SystemMessageParam, ToolParam
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_toolharness.wire.model_api._api_error import ApiError
from pytest_toolharness.wire.model_api._messages_validation import (
    validate_count_tokens_request,
    validate_messages_request,
)


def tool(name: str, **extra: Any) -> ToolParam:
    spec: dict[str, Any] = {"name": name, "description": name, "input_schema": {"type": "object"}}
    spec.update(extra)
    return spec  # type: ignore[return-value]


def use(tool_id: str, name: str = "Read") -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": {}}


def result(tool_id: str, content: Any = "ok") -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def request(messages: list[Any], tools: list[Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "claude-test", "max_tokens": 64, "messages": messages}
    if tools is not None:
        body["tools"] = tools
    return body


def message(role: str, *blocks: dict[str, Any]) -> MessageParam:
    return cast(MessageParam, {"role": role, "content": list(blocks)})


def error_of(body: Any) -> str:
    error = validate_messages_request(body)
    assert error is not None, "expected the request to be rejected"
    assert (error.type, error.status) == ("invalid_request_error", 400)
    return error.message


VALID = request(
    [
        {"role": "user", "content": "read two files"},
        message("assistant", text("Reading."), use("toolu_a"), use("toolu_b")),
        message("user", result("toolu_b"), result("toolu_a"), text("go on")),
        message("assistant", use("toolu_c", "ToolSearch")),
        message(
            "user",
            result("toolu_c", [{"type": "tool_reference", "tool_name": "WebFetch"}]),
            text("Tool loaded."),
        ),
        message("assistant", text("done")),
    ],
    tools=[tool("Read"), tool("ToolSearch"), tool("WebFetch", defer_loading=True)],
)


def test_a_valid_conversation_passes() -> None:
    assert validate_messages_request(VALID) is None


def test_api_error_body_has_the_api_shape() -> None:
    error = ApiError("boom")
    assert error.body("req_1") == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "boom"},
        "request_id": "req_1",
    }
    with pytest.raises(ValueError, match=r"400\.\.599"):
        ApiError("x", status=200)


def test_missing_tool_result_names_the_assistant_message_and_ids() -> None:
    body = copy.deepcopy(VALID)
    body["messages"][2] = message("user", result("toolu_b"), text("go on"))
    assert error_of(body) == (
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a. "
        "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
    )


def test_tool_use_as_last_message_lacks_its_results() -> None:
    body = request([{"role": "user", "content": "x"}, message("assistant", use("toolu_a"), use("toolu_b"))])
    assert error_of(body).startswith(
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a, toolu_b."
    )


def test_consecutive_messages_of_one_role_are_one_turn() -> None:
    """The API combines consecutive turns of one role: results split over two user messages answer."""
    body = request(
        [
            {"role": "user", "content": "x"},
            message("assistant", use("toolu_a")),
            message("assistant", text("and"), use("toolu_b")),
            message("user", result("toolu_a")),
            message("user", result("toolu_b"), text("go on")),
        ]
    )
    assert validate_messages_request(body) is None
    # A result after the combined user turn's text is no longer first thing in the turn.
    body["messages"][3:5] = [
        message("user", result("toolu_a"), text("go on")),
        message("user", result("toolu_b")),
    ]
    assert error_of(body) == (
        "messages.3: Did not find 2 `tool_result` block(s) at the beginning of this message. Messages "
        "following `tool_use` blocks must begin with a matching number of `tool_result` blocks."
    )


def test_results_must_be_in_the_very_next_turn() -> None:
    body = request(
        [
            {"role": "user", "content": "x"},
            message("assistant", use("toolu_a")),
            message("user", text("oops")),
            message("assistant", text("hm")),
            message("user", result("toolu_a")),
        ]
    )
    assert "messages.1: `tool_use` ids were found without `tool_result`" in error_of(body)


def test_unexpected_tool_result_id() -> None:
    body = copy.deepcopy(VALID)
    body["messages"][2]["content"].insert(1, result("toolu_zzz"))
    assert error_of(body) == (
        "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_zzz. "
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
    )


def test_tool_result_in_the_first_message_is_unexpected() -> None:
    body = request([message("user", result("toolu_a"))])
    assert error_of(body).startswith("messages.0.content.0: unexpected `tool_use_id`")


def test_duplicate_tool_result() -> None:
    body = copy.deepcopy(VALID)
    body["messages"][2]["content"].insert(2, result("toolu_a"))
    assert error_of(body) == (
        "messages.2.content.2: each `tool_use` must have a single result. "
        "Found multiple `tool_result` blocks with id: toolu_a"
    )


def test_tool_results_come_first() -> None:
    body = copy.deepcopy(VALID)
    body["messages"][2] = message("user", result("toolu_b"), text("between"), result("toolu_a"))
    assert error_of(body).startswith("messages.2: Did not find 2 `tool_result` block(s) at the beginning")


def test_duplicate_tool_use_ids_across_the_conversation() -> None:
    body = copy.deepcopy(VALID)
    body["messages"][3] = message("assistant", use("toolu_a"))
    body["messages"][4] = message("user", result("toolu_a"))
    assert error_of(body) == "messages.3.content.0: `tool_use` ids must be unique: toolu_a"


def test_blocks_in_the_wrong_role() -> None:
    wrong_user = request([message("user", use("toolu_a"))])
    assert "can only be in assistant messages" in error_of(wrong_user)
    wrong_assistant = request([{"role": "user", "content": "x"}, message("assistant", result("toolu_a"))])
    assert "can only be in user messages" in error_of(wrong_assistant)


def test_tool_reference_must_name_a_tool_in_the_request() -> None:
    body = copy.deepcopy(VALID)
    body["tools"] = body["tools"][:2]
    assert error_of(body) == "Tool reference 'WebFetch' not found in available tools"


def test_tool_names_must_be_unique() -> None:
    body = copy.deepcopy(VALID)
    body["tools"].append(tool("Read"))
    assert error_of(body) == "tools: Tool names must be unique."


def test_at_least_one_tool_must_not_be_deferred() -> None:
    body = copy.deepcopy(VALID)
    body["tools"] = [tool(t["name"], defer_loading=True) for t in body["tools"]]
    assert "At least one tool must not be deferred" in error_of(body)
    body["tools"][0]["defer_loading"] = False
    assert validate_messages_request(body) is None


def test_no_cache_control_on_a_deferred_tool() -> None:
    body = copy.deepcopy(VALID)
    body["tools"][2]["cache_control"] = {"type": "ephemeral"}
    assert "`cache_control` cannot be set on a tool with defer_loading" in error_of(body)
    body["tools"][2].pop("defer_loading")
    assert validate_messages_request(body) is None


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda b: b.pop("model"), "model: Field required"),
        (lambda b: b.pop("max_tokens"), "max_tokens: Field required"),
        (lambda b: b.update(max_tokens=0), "max_tokens: Input should be greater than or equal to 1"),
        (lambda b: b.update(max_tokens=True), "max_tokens: Input should be a valid integer"),
        (lambda b: b.pop("messages"), "messages: Field required"),
        (lambda b: b.update(messages=[]), "messages: at least one message is required"),
        (lambda b: b.update(messages="hi"), "messages: Input should be a valid list"),
        (
            lambda b: b.update(messages=[{"role": "assistant", "content": "x"}]),
            'messages: first message must use the "user" role',
        ),
        (
            lambda b: b["messages"].append({"role": "tool", "content": "x"}),
            "messages.6.role: Input should be 'user', 'assistant' or 'system'",
        ),
        (lambda b: b["messages"][0].pop("content"), "messages.0.content: Field required"),
        (
            lambda b: b["messages"][1]["content"].append("raw"),
            "messages.1.content.3: Input should be a valid dictionary or object to extract fields from",
        ),
        (lambda b: b.update(tools=[{"description": "no name"}]), "tools.0.name: Field required"),
    ],
)
def test_basic_shape(change: Any, expected: str) -> None:
    body = copy.deepcopy(VALID)
    change(body)
    assert error_of(body).startswith(expected)


def test_non_object_body() -> None:
    assert error_of(["not", "an", "object"]) == "The request body is not a JSON object."


def test_count_tokens_does_not_need_max_tokens() -> None:
    body = copy.deepcopy(VALID)
    body.pop("max_tokens")
    assert validate_count_tokens_request(body) is None
    assert validate_messages_request(body) is not None
    body["messages"][2]["content"].pop(1)
    error = validate_count_tokens_request(body)
    assert error is not None
    assert "toolu_a" in error.message


# -- system-role messages (SystemMessageParam; Claude Code's per-turn-control beta) ------------


def system(*blocks: dict[str, Any]) -> SystemMessageParam:
    return cast(SystemMessageParam, {"role": "system", "content": list(blocks)})


def test_system_messages_are_accepted_after_the_first_message() -> None:
    body = copy.deepcopy(VALID)
    as_string: SystemMessageParam = {"role": "system", "content": "# Environment\nlinux"}
    body["messages"][1:1] = [as_string]  # right after the first user message, as Claude Code sends it
    body["messages"].append(system(text("Stay brief.")))
    assert validate_messages_request(body) is None
    assert validate_count_tokens_request({k: v for k, v in body.items() if k != "max_tokens"}) is None


def test_system_message_first_is_rejected() -> None:
    body = request([system(text("rules")), {"role": "user", "content": "x"}])
    assert error_of(body) == 'messages: first message must use the "user" role'


@pytest.mark.parametrize(
    "block", [result("toolu_a"), use("toolu_z"), {"type": "image", "source": {}}], ids=lambda b: b["type"]
)
def test_system_message_with_other_than_text_is_rejected(block: dict[str, Any]) -> None:
    body = copy.deepcopy(VALID)
    body["messages"].insert(2, system(text("note"), block))
    assert error_of(body) == (
        f"messages.2.content.1: a `system` message may hold only text blocks, not `{block['type']}`"
    )


def test_pairing_looks_through_system_messages() -> None:
    body = copy.deepcopy(VALID)
    # Between a tool_use turn and its results, and between results and the next assistant turn.
    body["messages"].insert(2, system(text("per-turn note")))
    body["messages"].insert(4, system(text("another")))
    assert validate_messages_request(body) is None


def test_a_system_message_does_not_answer_tool_uses() -> None:
    body = request(
        [{"role": "user", "content": "x"}, message("assistant", use("toolu_a")), system(text("hm"))]
    )
    assert error_of(body).startswith(
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a."
    )
    # Nor does it move the results' place: a user message before them makes them late in the turn.
    body["messages"] += [{"role": "user", "content": "no results"}, message("user", result("toolu_a"))]
    assert error_of(body).startswith("messages.3: Did not find 1 `tool_result` block(s) at the beginning")


def test_results_after_a_system_message_are_matched_to_the_assistant_before_it() -> None:
    body = request(
        [
            {"role": "user", "content": "x"},
            message("assistant", use("toolu_a")),
            system(text("note")),
            message("user", result("toolu_a"), result("toolu_b")),
        ]
    )
    assert error_of(body).startswith(
        "messages.3.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_b."
    )


# -- properties ------------------------------------------------------------------------------


@st.composite
def conversations(draw: st.DrawFn) -> dict[str, Any]:
    """A valid conversation: rounds of assistant tool_uses answered by user tool_results."""
    counter = iter(range(10_000))
    messages: list[Any] = [{"role": "user", "content": "start"}]
    for _ in range(draw(st.integers(0, 4))):
        ids = [f"toolu_{next(counter):04d}" for _ in range(draw(st.integers(0, 3)))]
        leading = [text("thinking aloud")] if draw(st.booleans()) or not ids else []
        messages.append(message("assistant", *leading, *(use(i) for i in ids)))
        order = draw(st.permutations(ids))
        trailing = [text("more")] if draw(st.booleans()) or not ids else []
        messages.append(message("user", *(result(i) for i in order), *trailing))
    return request(messages, tools=[tool("Read")])


def _result_positions(body: dict[str, Any]) -> list[tuple[int, int]]:
    return [
        (i, j)
        for i, m in enumerate(body["messages"])
        if isinstance(m["content"], list)
        for j, b in enumerate(m["content"])
        if b["type"] == "tool_result"
    ]


@given(conversations())
@settings(max_examples=60, deadline=None)
def test_property_generated_valid_conversations_pass(body: dict[str, Any]) -> None:
    """PAIR-1, PAIR-6: a conversation where every tool_use is answered once, first, in the next message passes."""
    assert validate_messages_request(body) is None


@given(conversations(), st.data())
@settings(max_examples=60, deadline=None)
def test_property_removing_one_result_names_its_id(body: dict[str, Any], data: st.DataObject) -> None:
    """PAIR-1: dropping any one tool_result fails with the API's missing-result message naming that id."""
    positions = _result_positions(body)
    if not positions:
        return
    i, j = data.draw(st.sampled_from(positions))
    removed = body["messages"][i]["content"].pop(j)
    error = validate_messages_request(body)
    assert error is not None
    if not body["messages"][i]["content"]:
        # The message is empty now: the API names that first.
        assert error.message.startswith(f"messages.{i}: all messages must have non-empty content")
        return
    assert error.message.startswith(
        f"messages.{i - 1}: `tool_use` ids were found without `tool_result` blocks"
    )
    assert error.message.split("immediately after: ")[1].split(". Each")[0] == removed["tool_use_id"]


@given(conversations(), st.data())
@settings(max_examples=60, deadline=None)
def test_property_a_result_for_an_unknown_id_is_unexpected(body: dict[str, Any], data: st.DataObject) -> None:
    """PAIR-1: a tool_result whose id the previous assistant message did not use is rejected by position."""
    positions = _result_positions(body)
    if not positions:
        return
    i, j = data.draw(st.sampled_from(positions))
    body["messages"][i]["content"].insert(j, result("toolu_never_used"))
    error = validate_messages_request(body)
    assert error is not None
    assert error.message.startswith(
        f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: toolu_never_used."
    )


@given(conversations(), st.data())
@settings(max_examples=60, deadline=None)
def test_property_duplicating_a_result_is_rejected(body: dict[str, Any], data: st.DataObject) -> None:
    """PAIR-1: one tool_use answered twice is rejected, whatever the position of the copy."""
    positions = _result_positions(body)
    if not positions:
        return
    i, j = data.draw(st.sampled_from(positions))
    blocks = body["messages"][i]["content"]
    blocks.insert(j, copy.deepcopy(blocks[j]))
    error = validate_messages_request(body)
    assert error is not None
    assert "Found multiple `tool_result` blocks" in error.message


@given(conversations())
@settings(max_examples=40, deadline=None)
def test_property_validation_is_pure(body: dict[str, Any]) -> None:
    """Validation never changes its input and answers the same twice."""
    before = copy.deepcopy(body)
    first = validate_messages_request(body)
    assert body == before
    assert validate_messages_request(body) == first


@given(conversations(), st.data())
@settings(max_examples=60, deadline=None)
def test_property_system_messages_anywhere_after_the_first_keep_a_valid_conversation_valid(
    body: dict[str, Any], data: st.DataObject
) -> None:
    """PAIR-1: inserting text-only system messages at any positions after the first message changes nothing."""
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(1, len(body["messages"])))
        body["messages"].insert(at, system(text("per-turn control")))
    assert validate_messages_request(body) is None
