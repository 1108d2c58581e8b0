"""Checks the Messages API makes before it answers, as a pure function.

:func:`validate_messages_request` looks at a request body the way the API does and returns the
first problem as an :class:`ApiError` carrying the API's own text, or None. The scripted server
answers such a request with a 400 and consumes no scripted turn; wire checks can call the same
function on bodies they captured.

Everything a harness controls is checked: the shape, each content block
(:mod:`~pytest_toolharness.wire.model_api._messages_blocks`: types, required and forbidden fields,
tool_result content shapes, ids, signed thinking blocks, ``cache_control``), tool names, at most
:data:`~pytest_toolharness.wire.model_api._messages_blocks.CACHE_CONTROL_LIMIT` cache breakpoints,
then the conversation: consecutive messages of one role are one turn, as the API combines them, and
every tool_use is answered first thing in the next turn; with manual ``thinking`` on (and thinking in
the conversation), the final assistant turn starts with a thinking block.

``system``-role messages (``SystemMessageParam`` in the SDK's ``MessageParam``; Claude Code sends
them with the ``per-turn-control-2026-07-01`` beta) are accepted anywhere after the first message,
with text content only (plus the beta's ``request_tool_addition`` / ``request_tool_removal``
blocks). They carry no tool_use or tool_result, so the pairing checks look through them: "the next
message" after an assistant turn and "the previous message" before a user turn are the nearest
``user`` / ``assistant`` ones. Whether the API itself allows a system message between a tool_use
turn and its results is not known here; the validator leans lenient on that one point rather than
refuse a harness for something the API may accept.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_toolharness.wire.model_api._api_error import ApiError
from pytest_toolharness.wire.model_api._messages_blocks import (
    CACHE_CONTROL_LIMIT,
    THINKING_TYPES,
    TOOL_NAME_PATTERN,
    cache_control_count,
    check_block,
)

__all__ = ["validate_count_tokens_request", "validate_messages_request"]

_ROLES = ("user", "assistant", "system")
# Block types a system-role message may hold: text, and the per-turn tool changes of the
# mid-conversation-tool-changes beta (BetaSystemMessageParam).
_SYSTEM_BLOCKS = ("text", "request_tool_addition", "request_tool_removal")
# fullmatch, not the pattern's own ^...$: in Python "$" also matches before a final newline.
_TOOL_NAME_RE = re.compile(TOOL_NAME_PATTERN.removeprefix("^").removesuffix("$"))
_THINKING_DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _blocks(content: Any) -> list[Any]:
    # A string content is one text block; a non-list is reported by the shape check first.
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content)


def _check_message(i: int, message: Any) -> ApiError | None:
    if not isinstance(message, Mapping):
        return ApiError(f"messages.{i}: Input should be a valid dictionary")
    role = message.get("role")
    if role not in _ROLES:
        return ApiError(f"messages.{i}.role: Input should be 'user', 'assistant' or 'system'")
    if "content" not in message:
        return ApiError(f"messages.{i}.content: Field required")
    content = message["content"]
    if isinstance(content, str):
        return None
    if isinstance(content, bytes) or not isinstance(content, Sequence):
        return ApiError(f"messages.{i}.content: Input should be a valid string or list")
    for j, block in enumerate(content):
        if role == "system":
            kind = block.get("type") if isinstance(block, Mapping) else None
            if kind not in _SYSTEM_BLOCKS:
                return ApiError(
                    f"messages.{i}.content.{j}: a `system` message may hold only text blocks, not `{kind}`"
                )
            if kind != "text":
                continue
        error = check_block(block, f"messages.{i}.content.{j}")
        if error is not None:
            return error
    return None


def _check_shape(body: Mapping[str, Any], *, require_max_tokens: bool) -> ApiError | None:
    model = body.get("model")
    if model is None:
        return ApiError("model: Field required")
    if not isinstance(model, str) or not model:
        return ApiError("model: Input should be a valid non-empty string")
    if require_max_tokens:
        max_tokens = body.get("max_tokens")
        if max_tokens is None:
            return ApiError("max_tokens: Field required")
        if not _is_int(max_tokens):
            return ApiError("max_tokens: Input should be a valid integer")
        if max_tokens < 1:
            return ApiError("max_tokens: Input should be greater than or equal to 1")
    messages = body.get("messages")
    if messages is None:
        return ApiError("messages: Field required")
    if isinstance(messages, str | bytes) or not isinstance(messages, Sequence):
        return ApiError("messages: Input should be a valid list")
    if not messages:
        return ApiError("messages: at least one message is required")
    for i, message in enumerate(messages):
        error = _check_message(i, message)
        if error is not None:
            return error
    if messages[0]["role"] != "user":
        return ApiError('messages: first message must use the "user" role')
    last = len(messages) - 1
    for i, message in enumerate(messages):
        if not message["content"] and not (i == last and message["role"] == "assistant"):
            return ApiError(
                f"messages.{i}: all messages must have non-empty content except for the optional final "
                "assistant message"
            )
    return None


def _tool_names(body: Mapping[str, Any]) -> tuple[list[str], ApiError | None]:
    tools = body.get("tools")
    if tools is None:
        return [], None
    if isinstance(tools, str | bytes) or not isinstance(tools, Sequence):
        return [], ApiError("tools: Input should be a valid list")
    names: list[str] = []
    deferred = 0
    for k, tool in enumerate(tools):
        if not isinstance(tool, Mapping):
            return [], ApiError(f"tools.{k}: Input should be a valid dictionary")
        name = tool.get("name")
        if not isinstance(name, str) or not name:
            return [], ApiError(f"tools.{k}.name: Field required")
        if tool.get("type") in (None, "custom") and not _TOOL_NAME_RE.fullmatch(name):
            return [], ApiError(f"tools.{k}.custom.name: String should match pattern '{TOOL_NAME_PATTERN}'")
        if tool.get("defer_loading") is True:
            deferred += 1
            if tool.get("cache_control") is not None:
                return [], ApiError(
                    f"tools.{k}: Tool '{name}' has defer_loading set; "
                    "`cache_control` cannot be set on a tool with defer_loading."
                )
        names.append(name)
    if len(set(names)) != len(names):
        return [], ApiError("tools: Tool names must be unique.")
    if names and deferred == len(names):
        return [], ApiError(
            "tools: All tools have defer_loading set. At least one tool must not be deferred."
        )
    return names, None


def _check_tool_references(result: Mapping[str, Any], names: set[str]) -> ApiError | None:
    content = result.get("content")
    if isinstance(content, str) or not isinstance(content, Sequence):
        return None
    for item in content:
        if isinstance(item, Mapping) and item.get("type") == "tool_reference":
            tool_name = item.get("tool_name")
            if not isinstance(tool_name, str) or tool_name not in names:
                return ApiError(f"Tool reference '{tool_name}' not found in available tools")
    return None


@dataclass
class _Turn:
    """Consecutive messages of one role, combined as the API combines them: each block with its place."""

    role: str
    index: int  # the first message's index
    blocks: list[tuple[int, int, Mapping[str, Any]]] = field(default_factory=list)


def _turns(messages: Sequence[Mapping[str, Any]]) -> list[_Turn]:
    # System-role messages hold only text (checked with the shape): the turns look through them.
    turns: list[_Turn] = []
    for i, message in enumerate(messages):
        role = message["role"]
        if role == "system":
            continue
        if not turns or turns[-1].role != role:
            turns.append(_Turn(role, i))
        turns[-1].blocks.extend((i, j, b) for j, b in enumerate(_blocks(message["content"])))
    return turns


def _check_assistant(turn: _Turn, following: _Turn | None, seen: set[str]) -> ApiError | None:
    ids: list[str] = []
    for i, j, block in turn.blocks:
        kind = block["type"]
        if kind == "tool_result":
            return ApiError(f"messages.{i}.content.{j}: `tool_result` blocks can only be in user messages")
        if kind != "tool_use":
            continue
        tool_id = block["id"]
        if tool_id in seen:
            return ApiError(f"messages.{i}.content.{j}: `tool_use` ids must be unique: {tool_id}")
        seen.add(tool_id)
        ids.append(tool_id)
    if not ids:
        return None
    answered: set[str] = set()
    if following is not None:
        answered = {b["tool_use_id"] for _, _, b in following.blocks if b["type"] == "tool_result"}
    missing = [tool_id for tool_id in ids if tool_id not in answered]
    if missing:
        return ApiError(
            f"messages.{turn.index}: `tool_use` ids were found without `tool_result` blocks immediately "
            f"after: {', '.join(missing)}. Each `tool_use` block must have a corresponding `tool_result` "
            "block in the next message."
        )
    assert following is not None
    leading = 0
    for _, _, block in following.blocks:
        if block["type"] != "tool_result":
            break
        leading += 1
    if leading < len(ids):
        return ApiError(
            f"messages.{following.index}: Did not find {len(ids)} `tool_result` block(s) at the beginning of "
            "this message. Messages following `tool_use` blocks must begin with a matching number of "
            "`tool_result` blocks."
        )
    return None


def _check_user(turn: _Turn, previous: _Turn | None, tool_names: set[str]) -> ApiError | None:
    asked: set[str] = set()
    if previous is not None:
        asked = {b["id"] for _, _, b in previous.blocks if b["type"] == "tool_use"}
    answered: set[str] = set()
    for i, j, block in turn.blocks:
        kind = block["type"]
        if kind in ("tool_use", *THINKING_TYPES):
            return ApiError(f"messages.{i}.content.{j}: `{kind}` blocks can only be in assistant messages")
        if kind != "tool_result":
            continue
        tool_use_id = block["tool_use_id"]
        if tool_use_id not in asked:
            return ApiError(
                f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: "
                f"{tool_use_id}. Each `tool_result` block must have a corresponding `tool_use` block in "
                "the previous message."
            )
        if tool_use_id in answered:
            return ApiError(
                f"messages.{i}.content.{j}: each `tool_use` must have a single result. Found multiple "
                f"`tool_result` blocks with id: {tool_use_id}"
            )
        answered.add(tool_use_id)
        error = _check_tool_references(block, tool_names)
        if error is not None:
            return error
    return None


def _check_pairing(messages: Sequence[Mapping[str, Any]], tool_names: set[str]) -> ApiError | None:
    turns = _turns(messages)
    seen: set[str] = set()
    for position, turn in enumerate(turns):
        if turn.role == "assistant":
            following = turns[position + 1] if position + 1 < len(turns) else None
            error = _check_assistant(turn, following, seen)
        else:
            # A user turn answers the assistant turn right before it; results of any other are unexpected.
            error = _check_user(turn, turns[position - 1] if position > 0 else None, tool_names)
        if error is not None:
            return error
    return None


def _check_thinking(body: Mapping[str, Any]) -> ApiError | None:
    """With thinking on, the final assistant turn (a prefill, or the one the last results answer) starts thinking.

    Only with manual thinking (``enabled``: every turn of the model starts with one; with ``adaptive``
    the model may not think at all) and only in a conversation where the model thought (a thinking
    block in some assistant turn): a scripted model that never thinks makes turns without them, which
    a harness must send back as they came.
    """
    thinking = body.get("thinking")
    if not isinstance(thinking, Mapping) or thinking.get("type") != "enabled":
        return None
    turns = _turns(body["messages"])
    if not any(
        t.role == "assistant" and any(b["type"] in THINKING_TYPES for _, _, b in t.blocks) for t in turns
    ):
        return None
    final = turns[-1]
    if final.role == "user":
        if len(turns) < 2 or not any(b["type"] == "tool_result" for _, _, b in final.blocks):
            return None
        final = turns[-2]
    if not final.blocks:
        return None
    i, j, first = final.blocks[0]
    if first["type"] in THINKING_TYPES:
        return None
    return ApiError(
        f"messages.{i}.content.{j}.type: Expected `thinking` or `redacted_thinking`, but found "
        f"`{first['type']}`. When `thinking` is enabled, a final `assistant` message must start with a "
        "thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend "
        "you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. "
        f"Please consult our documentation at {_THINKING_DOCS}"
    )


def _validate(body: Mapping[str, Any], *, require_max_tokens: bool) -> ApiError | None:
    if not isinstance(body, Mapping):
        return ApiError("The request body is not a JSON object.")
    error = _check_shape(body, require_max_tokens=require_max_tokens)
    if error is not None:
        return error
    names, error = _tool_names(body)
    if error is not None:
        return error
    found = cache_control_count(body)
    if found > CACHE_CONTROL_LIMIT:
        return ApiError(
            f"A maximum of {CACHE_CONTROL_LIMIT} blocks with cache_control may be provided. Found {found}."
        )
    return _check_pairing(body["messages"], set(names)) or _check_thinking(body)


def validate_messages_request(body: Mapping[str, Any]) -> ApiError | None:
    """The first reason the API would reject ``body`` (a ``POST /v1/messages`` body), or None.

    Checks, in order: shape (``model``, ``max_tokens``, a non-empty ``messages`` list of
    ``user``/``assistant``/``system`` messages starting with ``user``, every content block as the
    API models it, only text in ``system`` messages, no empty message but a final assistant one);
    tools (names, unique, not all ``defer_loading``, no ``cache_control`` on a deferred tool); at
    most four ``cache_control`` breakpoints; then the conversation, consecutive messages of one role
    combined and ``system`` messages looked through: unique tool_use ids, a tool_result for each
    tool_use first thing in the next turn, no tool_result for an id the previous turn did not ask,
    one result per id, every ``tool_reference`` naming a tool in ``tools``; and, with manual
    ``thinking`` on in a conversation where the model thought, a final assistant turn that starts
    with a thinking block.
    """
    return _validate(body, require_max_tokens=True)


def validate_count_tokens_request(body: Mapping[str, Any]) -> ApiError | None:
    """Like :func:`validate_messages_request` for ``/v1/messages/count_tokens`` (no ``max_tokens``)."""
    return _validate(body, require_max_tokens=False)
