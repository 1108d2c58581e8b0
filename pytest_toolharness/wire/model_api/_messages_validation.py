"""Checks the Messages API makes before it answers, as a pure function.

:func:`validate_messages_request` looks at a request body the way the API does and returns the
first problem as an :class:`ApiError` carrying a message close to the API's own text, or None. The
scripted server answers such a request with a 400 and consumes no scripted turn; wire checks can
call the same function on bodies they captured.

The checks are the ones a tool harness can get wrong (PAIR-1, PAIR-6, DEFER-2, DEFER-6) plus the
basic shape. They are deliberately a little stricter than the API where the API is lenient in ways
a harness should not rely on: consecutive user messages are not merged before the pairing check.

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

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_toolharness.wire.model_api._api_error import ApiError

__all__ = ["validate_count_tokens_request", "validate_messages_request"]

_ROLES = ("user", "assistant", "system")
# Block types a system-role message may hold: text, and the per-turn tool changes of the
# mid-conversation-tool-changes beta (BetaSystemMessageParam).
_SYSTEM_BLOCKS = ("text", "request_tool_addition", "request_tool_removal")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _blocks(content: Any) -> list[Any]:
    # A string content is one text block; a non-list is reported by the shape check first.
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content)


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
        if not isinstance(message, Mapping):
            return ApiError(f"messages.{i}: Input should be a valid dictionary")
        role = message.get("role")
        if role not in _ROLES:
            return ApiError(f"messages.{i}.role: Input should be 'user', 'assistant' or 'system'")
        if "content" not in message:
            return ApiError(f"messages.{i}.content: Field required")
        content = message["content"]
        if not isinstance(content, str):
            if isinstance(content, bytes) or not isinstance(content, Sequence):
                return ApiError(f"messages.{i}.content: Input should be a valid string or list")
            for j, block in enumerate(content):
                if not isinstance(block, Mapping) or not isinstance(block.get("type"), str):
                    return ApiError(f"messages.{i}.content.{j}: Input should be a block with a string `type`")
                if role == "system" and block["type"] not in _SYSTEM_BLOCKS:
                    return ApiError(
                        f"messages.{i}.content.{j}: a `system` message may hold only text blocks, "
                        f"not `{block['type']}`"
                    )
    if messages[0]["role"] != "user":
        return ApiError('messages: first message must use the "user" role')
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


def _check_pairing(messages: Sequence[Mapping[str, Any]], tool_names: set[str]) -> ApiError | None:
    # System-role messages hold only text (checked with the shape), so pairing looks through them:
    # positions are those of the user/assistant conversation, reported with their real index.
    turns = [(i, m) for i, m in enumerate(messages) if m["role"] != "system"]
    seen_tool_use_ids: set[str] = set()
    for position, (i, message) in enumerate(turns):
        blocks = _blocks(message["content"])
        role = message["role"]
        following = turns[position + 1][1] if position + 1 < len(turns) else None
        previous = turns[position - 1][1] if position > 0 else None
        if role == "assistant":
            ids: list[str] = []
            for j, block in enumerate(blocks):
                kind = block["type"]
                if kind == "tool_result":
                    return ApiError(
                        f"messages.{i}.content.{j}: `tool_result` blocks can only be in user messages"
                    )
                if kind != "tool_use":
                    continue
                tool_id = block.get("id")
                if not isinstance(tool_id, str) or not tool_id:
                    return ApiError(f"messages.{i}.content.{j}.id: Field required")
                if tool_id in seen_tool_use_ids:
                    return ApiError(f"messages.{i}.content.{j}: `tool_use` ids must be unique: {tool_id}")
                seen_tool_use_ids.add(tool_id)
                ids.append(tool_id)
            if ids:
                answered: set[str] = set()
                if following is not None and following["role"] == "user":
                    answered = {
                        b["tool_use_id"]
                        for b in _blocks(following["content"])
                        if b["type"] == "tool_result" and isinstance(b.get("tool_use_id"), str)
                    }
                missing = [tool_id for tool_id in ids if tool_id not in answered]
                if missing:
                    return ApiError(
                        f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately "
                        f"after: {', '.join(missing)}. Each `tool_use` block must have a corresponding "
                        "`tool_result` block in the next message."
                    )
            continue
        asked: set[str] = set()
        if previous is not None and previous["role"] == "assistant":
            asked = {b.get("id") for b in _blocks(previous["content"]) if b["type"] == "tool_use"}
        answered_here: set[str] = set()
        seen_other_block = False
        for j, block in enumerate(blocks):
            kind = block["type"]
            if kind == "tool_use":
                return ApiError(
                    f"messages.{i}.content.{j}: `tool_use` blocks can only be in assistant messages"
                )
            if kind != "tool_result":
                seen_other_block = True
                continue
            tool_use_id = block.get("tool_use_id")
            if not isinstance(tool_use_id, str) or not tool_use_id:
                return ApiError(f"messages.{i}.content.{j}.tool_use_id: Field required")
            if tool_use_id not in asked:
                return ApiError(
                    f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: "
                    f"{tool_use_id}. Each `tool_result` block must have a corresponding `tool_use` block in "
                    "the previous message."
                )
            if tool_use_id in answered_here:
                return ApiError(
                    f"messages.{i}.content.{j}: each `tool_use` must have a single result. Found multiple "
                    f"`tool_result` blocks with id: {tool_use_id}"
                )
            answered_here.add(tool_use_id)
            if seen_other_block:
                return ApiError(
                    f"messages.{i}.content.{j}: `tool_result` blocks must come first in the user message, "
                    "before any other content."
                )
            reference_error = _check_tool_references(block, tool_names)
            if reference_error is not None:
                return reference_error
    return None


def _validate(body: Mapping[str, Any], *, require_max_tokens: bool) -> ApiError | None:
    if not isinstance(body, Mapping):
        return ApiError("The request body is not a JSON object.")
    error = _check_shape(body, require_max_tokens=require_max_tokens)
    if error is not None:
        return error
    names, error = _tool_names(body)
    if error is not None:
        return error
    return _check_pairing(body["messages"], set(names))


def validate_messages_request(body: Mapping[str, Any]) -> ApiError | None:
    """The first reason the API would reject ``body`` (a ``POST /v1/messages`` body), or None.

    Checks, in order: shape (``model``, ``max_tokens``, a non-empty ``messages`` list of
    ``user``/``assistant``/``system`` messages starting with ``user``, blocks with a ``type``, only
    text in ``system`` messages); tools (unique names, not all ``defer_loading``, no
    ``cache_control`` on a deferred tool); then every user and assistant message in order, looking
    through ``system`` messages: unique tool_use ids across the conversation, a tool_result for each
    tool_use in the next message, no tool_result for an id the previous message did not ask, one
    result per id, results first in their message, and every ``tool_reference`` naming a tool in
    ``tools``.
    """
    return _validate(body, require_max_tokens=True)


def validate_count_tokens_request(body: Mapping[str, Any]) -> ApiError | None:
    """Like :func:`validate_messages_request` for ``/v1/messages/count_tokens`` (no ``max_tokens``)."""
    return _validate(body, require_max_tokens=False)
