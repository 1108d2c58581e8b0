"""The scripted Messages API's block rules: properties against the rule, and each rule's real text.

The properties draw a valid conversation, break it in one drawn way and compare the answer with the
rule; the examples hold each rule to the text the real API answered, as quoted in public reports.
"""

from __future__ import annotations

import copy
import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_toolharness.wire.model_api import validate_messages_request
from pytest_toolharness.wire.model_api._messages_blocks import (
    BLOCK_FIELDS,
    CACHE_CONTROL_LIMIT,
    ID_PATTERN,
    RESULT_CONTENT_TYPES,
    TOOL_NAME_PATTERN,
)
from tests.test_api_validation import conversations, message, request, result, text, tool, use

_TAGS = ", ".join(f"'{t}'" for t in RESULT_CONTENT_TYPES)


def _error(body: dict[str, Any]) -> str | None:
    error = validate_messages_request(body)
    return None if error is None else error.message


def _answered(content: Any) -> dict[str, Any]:
    """One tool_use answered by a tool_result with ``content``: the result is ``messages.2.content.0``."""
    return request(
        [
            {"role": "user", "content": "go"},
            message("assistant", use("toolu_a")),
            message("user", result("toolu_a", content)),
        ]
    )


def _draw_block(body: dict[str, Any], data: st.DataObject, *kinds: str) -> tuple[int, int] | None:
    """The place ``(message, block)`` of one drawn block of these kinds, or None when there is none."""
    positions = [
        (i, j)
        for i, m in enumerate(body["messages"])
        if isinstance(m["content"], list)
        for j, b in enumerate(m["content"])
        if b["type"] in kinds
    ]
    return data.draw(st.sampled_from(positions)) if positions else None


not_a_block = st.one_of(
    st.text(max_size=5), st.integers(), st.booleans(), st.none(), st.lists(st.integers(), max_size=2)
)
not_content = st.one_of(
    st.none(), st.integers(), st.booleans(), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)
)


@given(conversations(), st.data())
@settings(max_examples=80, deadline=None)
def test_property_a_result_content_is_a_string_or_a_list_of_blocks(
    body: dict[str, Any], data: st.DataObject
) -> None:
    """PAIR-3: a tool_result content that is null, a number or an object is refused as not a string, and a
    list holding anything but a block (a string, a number) is refused at its first such item."""
    place = _draw_block(body, data, "tool_result")
    if place is None:
        return
    i, j = place
    items = st.lists(st.one_of(st.just(text("ok")), not_a_block), min_size=1, max_size=4)
    content = data.draw(st.one_of(items, not_content))
    body["messages"][i]["content"][j]["content"] = content
    where = f"messages.{i}.content.{j}.tool_result.content"
    if not isinstance(content, list):
        assert _error(body) == f"{where}: Input should be a valid string"
        return
    first_bad = next((k for k, item in enumerate(content) if not isinstance(item, dict)), None)
    expected = (
        None
        if first_bad is None
        else f"{where}.{first_bad}: Input should be a valid dictionary or object to extract fields from"
    )
    assert _error(body) == expected


@given(st.dictionaries(st.sampled_from(["kind", "text", "data", "type"]), st.text(max_size=8), max_size=3))
@settings(max_examples=60, deadline=None)
def test_property_a_result_content_block_needs_a_known_type(item: dict[str, Any]) -> None:
    """PAIR-3: an object in a tool_result's content is a block of a known type with its fields, or refused."""
    error = _error(_answered([item]))
    where = "messages.2.content.0.tool_result.content.0"
    kind = item.get("type")
    if kind is None:
        assert error == f"{where}.type: Field required"
    elif kind not in RESULT_CONTENT_TYPES:
        assert (
            error
            == f"{where}: Input tag '{kind}' found using 'type' does not match any of the expected tags: {_TAGS}"
        )
    else:
        fields = BLOCK_FIELDS[kind]
        missing = [f for f in fields.required if f not in item]
        extra = sorted(set(item) - fields.allowed)
        if missing:
            assert error == f"{where}.{kind}.{missing[0]}: Field required"
        elif extra:
            assert error == f"{where}.{kind}.{extra[0]}: Extra inputs are not permitted"


@given(conversations(), st.data())
@settings(max_examples=60, deadline=None)
def test_property_tool_use_ids_match_the_apis_pattern(body: dict[str, Any], data: st.DataObject) -> None:
    """PAIR-6: a tool_use id with a character outside [a-zA-Z0-9_-] is refused at its block, first."""
    place = _draw_block(body, data, "tool_use")
    if place is None:
        return
    i, j = place
    bad = data.draw(
        st.text(min_size=1, max_size=6).filter(
            lambda t: any(c not in string.ascii_letters + string.digits + "_-" for c in t)
        )
    )
    body["messages"][i]["content"][j]["id"] = f"toolu_{bad}"
    assert _error(body) == f"messages.{i}.content.{j}.tool_use.id: String should match pattern '{ID_PATTERN}'"


@given(conversations(), st.data())
@settings(max_examples=60, deadline=None)
def test_property_a_field_the_sdk_does_not_declare_is_refused(
    body: dict[str, Any], data: st.DataObject
) -> None:
    """PAIR-1: a block carrying a field its request type does not declare is refused, naming it."""
    place = _draw_block(body, data, "tool_use", "tool_result")
    if place is None:
        return
    i, j = place
    block = body["messages"][i]["content"][j]
    extra = data.draw(st.sampled_from(["uuid", "annotations", "id_", "meta"]))
    block[extra] = "x"
    assert _error(body) == f"messages.{i}.content.{j}.{block['type']}.{extra}: Extra inputs are not permitted"


@given(conversations(), st.integers(0, 8))
@settings(max_examples=60, deadline=None)
def test_property_at_most_four_cache_breakpoints(body: dict[str, Any], marks: int) -> None:
    """CACHE-5: up to four blocks may carry cache_control; more are refused with the count."""
    blocks = [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]]
    marked = min(marks, len(blocks))
    for block in blocks[:marked]:
        block["cache_control"] = {"type": "ephemeral"}
    expected = (
        None
        if marked <= CACHE_CONTROL_LIMIT
        else f"A maximum of {CACHE_CONTROL_LIMIT} blocks with cache_control may be provided. Found {marked}."
    )
    assert _error(body) == expected


@given(st.text(min_size=1, max_size=140))
@settings(max_examples=80, deadline=None)
def test_property_tool_names_match_the_apis_pattern(name: str) -> None:
    """A custom tool's name is 1 to 128 of [a-zA-Z0-9_-], or refused at its place in ``tools``."""
    body = request([{"role": "user", "content": "go"}], tools=[tool("Read"), tool(name)])
    valid = len(name) <= 128 and all(c in string.ascii_letters + string.digits + "_-" for c in name)
    if name == "Read":
        return
    expected = None if valid else f"tools.1.custom.name: String should match pattern '{TOOL_NAME_PATTERN}'"
    assert _error(body) == expected


# -- each rule with the text the real API answered (quoted in public reports) ----------------------


_THINKING = {"type": "thinking", "thinking": "Let me see.", "signature": "c2ln"}


def _thinking_turn(first: dict[str, Any]) -> dict[str, Any]:
    """A thinking session: the model thought in its first turn; its final turn starts with ``first``."""
    body = request(
        [
            {"role": "user", "content": "go"},
            message("assistant", dict(_THINKING), use("toolu_a")),
            message("user", result("toolu_a")),
            message("assistant", first, use("toolu_b")),
            message("user", result("toolu_b")),
        ]
    )
    body["thinking"] = {"type": "enabled", "budget_tokens": 1024}
    return body


def _with(body: dict[str, Any], i: int, j: int, **fields: Any) -> dict[str, Any]:
    body = copy.deepcopy(body)
    body["messages"][i]["content"][j].update(fields)
    return body


def _without(body: dict[str, Any], i: int, j: int, field: str) -> dict[str, Any]:
    body = copy.deepcopy(body)
    body["messages"][i]["content"][j].pop(field)
    return body


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            _answered([{"status": "OK", "elementId": 7}]),
            "messages.2.content.0.tool_result.content.0.type: Field required",
        ),
        (
            _answered([{"type": "text"}]),
            "messages.2.content.0.tool_result.content.0.text.text: Field required",
        ),
        (
            _answered([{"type": "text", "text": "x", "annotations": None}]),
            "messages.2.content.0.tool_result.content.0.text.annotations: Extra inputs are not permitted",
        ),
        (
            _answered([{"type": "tool_search", "name": "x"}]),
            "messages.2.content.0.tool_result.content.0: Input tag 'tool_search' found using 'type' does not "
            f"match any of the expected tags: {_TAGS}",
        ),
        (
            _answered(["a", "b"]),
            "messages.2.content.0.tool_result.content.0: Input should be a valid dictionary or object to extract "
            "fields from",
        ),
        (
            _answered({"contents": "..."}),
            "messages.2.content.0.tool_result.content: Input should be a valid string",
        ),
        (
            _with(_answered("ok"), 1, 0, id="toolu.a"),
            f"messages.1.content.0.tool_use.id: String should match pattern '{ID_PATTERN}'",
        ),
        (
            _with(_answered("ok"), 1, 0, text="hi"),
            "messages.1.content.0.tool_use.text: Extra inputs are not permitted",
        ),
        (
            _without(_thinking_turn(_THINKING), 3, 0, "signature"),
            "messages.3.content.0.thinking.signature: Field required",
        ),
        (
            _with(_thinking_turn(_THINKING), 3, 0, cache_control={"type": "ephemeral"}),
            "messages.3.content.0.thinking.cache_control: Extra inputs are not permitted",
        ),
        (
            _thinking_turn({"type": "redacted_thinking", "signature": "c2ln"}),
            "messages.3.content.0.redacted_thinking.data: Field required",
        ),
        (
            _thinking_turn(text("Calling.")),
            "messages.3.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. When "
            "`thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the "
            "lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from "
            "previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at "
            "https://docs.claude.com/en/docs/build-with-claude/extended-thinking",
        ),
        (
            request(
                [
                    {
                        "role": "user",
                        "content": [
                            text("a"),
                            {"type": "text", "text": "", "cache_control": {"type": "ephemeral"}},
                        ],
                    }
                ]
            ),
            "messages.0.content.1.text: cache_control cannot be set for empty text blocks",
        ),
        (request([message("user", text(""))]), "messages: text content blocks must be non-empty"),
        (
            request([message("user", text("  \n"))]),
            "messages: text content blocks must contain non-whitespace text",
        ),
        (
            request(
                [
                    {"role": "user", "content": "a"},
                    {"role": "assistant", "content": []},
                    {"role": "user", "content": "b"},
                ]
            ),
            "messages.1: all messages must have non-empty content except for the optional final assistant message",
        ),
        (
            request([{"role": "user", "content": "go"}], tools=[tool("browser.search")]),
            f"tools.0.custom.name: String should match pattern '{TOOL_NAME_PATTERN}'",
        ),
        (
            request(
                [
                    message(
                        "user", *(dict(text(f"t{k}"), cache_control={"type": "ephemeral"}) for k in range(5))
                    )
                ]
            ),
            "A maximum of 4 blocks with cache_control may be provided. Found 5.",
        ),
        (
            request(
                [
                    {"role": "user", "content": "go"},
                    message("assistant", use("toolu_a")),
                    message("user", text("later"), result("toolu_a")),
                ]
            ),
            "messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message. Messages following "
            "`tool_use` blocks must begin with a matching number of `tool_result` blocks.",
        ),
    ],
)
def test_each_rule_answers_the_apis_own_text(body: dict[str, Any], expected: str) -> None:
    """Each rule's 400 text is the one the real API answered (public reports of it, see docs/wire.md)."""
    assert _error(body) == expected


def test_thinking_first_only_where_the_model_thought_with_manual_thinking() -> None:
    """The final turn must start thinking with ``enabled`` thinking once the model thought; a scripted
    model that never thinks (or adaptive thinking, where the model may not) asks for nothing."""
    never_thought = _thinking_turn(text("Calling."))
    never_thought["messages"][1]["content"].pop(0)
    assert _error(never_thought) is None
    adaptive = _thinking_turn(text("Calling."))
    adaptive["thinking"] = {"type": "adaptive"}
    assert _error(adaptive) is None
    prefill = _thinking_turn(text("Calling."))
    prefill["messages"][3:] = [message("assistant", text("Sure"))]
    assert (_error(prefill) or "").startswith("messages.3.content.0.type: Expected `thinking`")
    prefill["messages"][3]["content"].insert(0, dict(_THINKING))
    assert _error(prefill) is None
