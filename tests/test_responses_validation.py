"""Responses request validation: every PROTOCOLS.md Responses rule answered with the real body."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_toolharness.wire.model_api._provider_errors import OpenAIError
from pytest_toolharness.wire.model_api._responses_sse import output_items
from pytest_toolharness.wire.model_api._responses_store import ResponseStore
from pytest_toolharness.wire.model_api._responses_validation import (
    responses_checker_violations,
    validate_responses_request,
)
from pytest_toolharness.wire.model_api._turns import AssistantTurn, TextBlock, ThinkingBlock, ToolUseBlock

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}}


def tool(name: str = "read", **extra: Any) -> dict[str, Any]:
    return {"type": "function", "name": name, "parameters": SCHEMA, **extra}


def call(call_id: str, name: str = "read", **extra: Any) -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": "{}", **extra}


def output(call_id: str, text: str = "ok") -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": text}


USER = {"role": "user", "content": "read two files"}
#: A namespace of function tools, as Codex sends its multi-agent tools.
NAMESPACE = {"type": "namespace", "name": "agents", "description": "sub-agents", "tools": [tool("spawn")]}


def body(*items: Any, tools: list[Any] | None = None, **extra: Any) -> dict[str, Any]:
    request: dict[str, Any] = {"model": "gpt-test", "input": list(items), **extra}
    if tools is not None:
        request["tools"] = tools
    return request


def rejected(
    request: dict[str, Any], store: ResponseStore | None = None, status: int = 400
) -> dict[str, Any]:
    error = validate_responses_request(request, store or ResponseStore())
    assert isinstance(error, OpenAIError), "expected the request to be rejected"
    assert error.status == status
    wire = error.body("req_1")
    assert set(wire) == {"error"}
    assert set(wire["error"]) == {"message", "type", "param", "code"}
    assert wire["error"]["type"] == "invalid_request_error"
    return dict(wire["error"])


def answered(
    store: ResponseStore, turn: AssistantTurn, request: dict[str, Any], n: int = 1
) -> list[dict[str, Any]]:
    """Keep ``turn`` as the answer to ``request`` (as the dialect does) and return its output items."""
    items = output_items(turn, suffix=f"T{n:03d}", encrypted=True)
    store.hold(request, f"resp_T{n:03d}", items)
    return items


REASONED = AssistantTurn((ThinkingBlock("look first", "c2ln"), ToolUseBlock("call_a", "read", {})))


def test_a_valid_conversation_passes() -> None:
    """Calls answered later in input, in any order, custom, hosted and namespaced tools offered: accepted."""
    request = body(
        USER,
        call("call_a"),
        call("call_b"),
        output("call_b"),
        output("call_a"),
        tools=[
            tool(),
            {"type": "custom", "name": "patch"},
            {"type": "web_search"},
            {"type": "tool_search"},
            NAMESPACE,
        ],
    )
    assert validate_responses_request(request, ResponseStore()) is None


def test_r_pair_a_call_without_its_output() -> None:
    """R-PAIR: a function_call with no function_call_output of its call_id."""
    error = rejected(body(USER, call("call_a"), call("call_b"), output("call_a"), tools=[tool()]))
    assert error["message"] == "No tool output found for function call call_b."
    assert error["param"] == "input"


def test_r_orphan_an_output_without_its_call() -> None:
    """R-ORPHAN: a function_call_output whose call_id no earlier function_call has."""
    error = rejected(body(USER, output("call_z"), tools=[tool()]))
    assert error["message"] == "No tool call found for function call output with call_id call_z."


def test_r_dupitem_an_item_id_twice() -> None:
    """R-DUPITEM: the same item id twice, or a stored item re-sent beside previous_response_id."""
    error = rejected(
        body(USER, call("call_a", id="fc_1"), call("call_b", id="fc_1"), output("call_a"), output("call_b"))
    )
    assert (
        error["message"]
        == "Duplicate item found with id fc_1. Remove duplicate items from your input and try again."
    )
    store = ResponseStore()
    first = body(USER, tools=[tool()])
    items = answered(store, REASONED, first)
    again = body(*items, output("call_a"), tools=[tool()], previous_response_id="resp_T001")
    assert rejected(again, store)["message"].startswith(f"Duplicate item found with id {items[0]['id']}.")


def test_r_dupcall_and_r_dupout() -> None:
    """R-DUPCALL / R-DUPOUT: one function_call per call_id, one output per call."""
    dup_call = body(USER, call("call_a"), call("call_a"), output("call_a"))
    assert rejected(dup_call)["message"] == "Duplicate 'call_id': call_a"
    dup_out = body(USER, call("call_a"), output("call_a"), output("call_a"))
    assert rejected(dup_out)["message"] == (
        "Duplicate function_call_output for call_id 'call_a'. Each function_call must have exactly one "
        "matching function_call_output"
    )


def test_r_fcid_a_call_item_id_that_is_the_call_id() -> None:
    """R-FCID: a replayed function_call's item id must be the model's fc_ id."""
    error = rejected(body(USER, call("call_a", id="call_a"), output("call_a")))
    assert error["message"] == "Invalid 'input[1].id': 'call_a'. Expected an ID that begins with 'fc'."
    assert error["param"] == "input[1].id"


def test_r_idlen_a_call_id_over_64_characters() -> None:
    """R-IDLEN: call_id at most 64 characters."""
    long_id = "call_" + "x" * 111
    error = rejected(body(USER, call(long_id), output(long_id)))
    assert error["message"] == (
        "Invalid 'input[1].call_id': string too long. Expected a string with maximum length 64, "
        "but got a string with length 116 instead."
    )
    assert error["code"] == "string_above_max_length"


def test_r_reasoning_a_call_without_its_reasoning_item() -> None:
    """R-REASONING: the model's function_call replayed without the reasoning item before it."""
    store = ResponseStore()
    first = body(USER, tools=[tool()])
    reasoning, function_call = answered(store, REASONED, first)
    replay = body(USER, function_call, output("call_a"), tools=[tool()], store=False)
    error = rejected(replay, store)
    assert error["message"] == (
        f"Item '{function_call['id']}' of type 'function_call' was provided without its required "
        f"'reasoning' item: '{reasoning['id']}'."
    )
    assert (
        validate_responses_request(
            body(USER, reasoning, function_call, output("call_a"), tools=[tool()]), store
        )
        is None
    )


def test_r_rsfollow_a_reasoning_item_without_what_it_produced() -> None:
    """R-RSFOLLOW: a reasoning item followed by something else than the item it produced."""
    store = ResponseStore()
    reasoning, _ = answered(store, REASONED, body(USER, tools=[tool()]))
    error = rejected(body(USER, reasoning, tools=[tool()]), store)
    assert (
        error["message"]
        == f"Item '{reasoning['id']}' of type 'reasoning' was provided without its required following item."
    )


def test_r_store_a_reasoning_item_by_id_with_store_false() -> None:
    """R-STORE: with store false, a reasoning item sent as a bare id is not found (404)."""
    store = ResponseStore()
    request = body(USER, tools=[tool()], store=False)
    reasoning, function_call = answered(store, REASONED, request)
    bare = {"type": "reasoning", "id": reasoning["id"], "summary": []}
    error = rejected(
        body(USER, bare, function_call, output("call_a"), tools=[tool()], store=False), store, 404
    )
    assert error["message"] == (
        f"Item with id '{reasoning['id']}' not found. Items are not persisted when `store` is set to false. "
        "Try again with `store` set to true, or remove this item from your input."
    )
    sent_whole = body(USER, reasoning, function_call, output("call_a"), tools=[tool()], store=False)
    assert validate_responses_request(sent_whole, store) is None


def test_r_prev_an_unknown_or_unstored_previous_response() -> None:
    """R-PREV: previous_response_id names a stored response (never one created with store false)."""
    store = ResponseStore()
    answered(store, AssistantTurn((TextBlock("hi"),)), body(USER, store=False))
    error = rejected(body(USER, previous_response_id="resp_T001"), store)
    assert error["message"] == "Previous response with id 'resp_T001' not found."
    assert (error["param"], error["code"]) == ("previous_response_id", "previous_response_not_found")


def test_r_toolchoice_a_forced_choice_without_its_tool() -> None:
    """R-TOOLCHOICE: 'required' needs tools; a named function must be among them."""
    assert rejected(body(USER, tool_choice="required"))["message"] == (
        "Tool choice 'required' must be specified with 'tools' parameter."
    )
    named = body(USER, tools=[tool()], tool_choice={"type": "function", "name": "write"})
    assert rejected(named)["message"] == "Tool choice 'function' not found in 'tools' parameter."


def test_r_strict_a_strict_schema_left_open() -> None:
    """R-STRICT: strict schemas close every object and require every property."""
    error = rejected(body(USER, tools=[tool(strict=True)]))
    assert (
        error["message"]
        == "Invalid schema for function 'read': 'additionalProperties' is required to be supplied and to be false."
    )
    closed = {**SCHEMA, "additionalProperties": False}
    missing = rejected(body(USER, tools=[{**tool(strict=True), "parameters": closed}]))
    assert missing["message"].endswith("Missing 'path'.")
    whole = {**closed, "required": ["path"]}
    assert (
        validate_responses_request(
            body(USER, tools=[{**tool(strict=True), "parameters": whole}]), ResponseStore()
        )
        is None
    )


@pytest.mark.parametrize("where", ["tools", "history"])
def test_r_name_a_name_off_the_pattern(where: str) -> None:
    """R-NAME: function names match ^[a-zA-Z0-9_-]+$, in tools and in replayed calls."""
    if where == "tools":
        error = rejected(body(USER, tools=[tool("read file")]))
        assert error["param"] == "tools[0].name"
    else:
        error = rejected(body(USER, call("call_a", name="read.file"), output("call_a")))
        assert error["param"] == "input[1].name"
    assert error["message"].endswith("Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.")


def test_r_toolnames_is_a_checker_violation() -> None:
    """R-TOOLNAMES: a name offered twice is accepted by the API and reported by the checker."""
    request = body(USER, tools=[tool(), tool()])
    assert validate_responses_request(request, ResponseStore()) is None
    assert responses_checker_violations(request) == ["R-TOOLNAMES: tools[1] offers read a second time"]


def test_r_ptc_parallel_tool_calls_without_tools() -> None:
    """R-PTC: parallel_tool_calls only with tools."""
    error = rejected(body(USER, parallel_tool_calls=False))
    assert error["param"] == "parallel_tool_calls"
    assert error["message"] == (
        "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified."
    )


def test_an_unknown_tool_type_is_named() -> None:
    """A tool type the API does not know is rejected naming the field; the known ones pass."""
    assert rejected(body(USER, tools=[{"type": "retrieval"}]))["param"] == "tools[0].type"
