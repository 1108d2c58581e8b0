"""What ``POST /v1/chat/completions`` rejects, with the 400 body api.openai.com sends.

Each rule of PROTOCOLS.md's Chat Completions table that the API enforces (C-PAIR, C-ORPHAN,
C-EMPTYTC, C-IDLEN, C-NULL, C-NAME, C-TOOLS128, C-PTC, C-TOOLCHOICE, C-DESC) answers its documented
text, ``type: invalid_request_error``, ``param`` and ``code``. Field errors come before the
conversation's pairing, as the API reports a schema error before it reads the conversation.
C-DUPID and C-DUPOUT are not API errors: :func:`chat_checker_violations` reports them for the
API-neutral checks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_toolharness.wire.model_api._provider_errors import OpenAIError

__all__ = [
    "CHAT_ROLES",
    "MAX_DESCRIPTION_LENGTH",
    "MAX_NAME_LENGTH",
    "MAX_TOOLS",
    "MAX_TOOL_CALL_ID_LENGTH",
    "chat_checker_violations",
    "validate_chat_request",
]

CHAT_ROLES = ("system", "assistant", "user", "function", "tool", "developer")
MAX_TOOLS = 128
MAX_TOOL_CALL_ID_LENGTH = 40
MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
_NAME_PATTERN = "^[a-zA-Z0-9_-]+$"
_NAME_RE = re.compile(r"[a-zA-Z0-9_-]+")


def _is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if _is_list(value) else "an object"


def _missing(param: str) -> OpenAIError:
    return OpenAIError(
        f"Missing required parameter: '{param}'.", param=param, code="missing_required_parameter"
    )


def _wrong_type(param: str, expected: str, value: Any) -> OpenAIError:
    return OpenAIError(
        f"Invalid type for '{param}': expected {expected}, but got {_type_name(value)} instead.",
        param=param,
        code="invalid_type",
    )


def _too_long(param: str, limit: int, length: int, what: str = "string") -> OpenAIError:
    code = "array_above_max_length" if what == "array" else "string_above_max_length"
    return OpenAIError(
        f"Invalid '{param}': {what} too long. Expected {'an array' if what == 'array' else 'a string'} "
        f"with maximum length {limit}, but got {'an array' if what == 'array' else 'a string'} "
        f"with length {length} instead.",
        param=param,
        code=code,
    )


def _empty_array(param: str) -> OpenAIError:
    return OpenAIError(
        f"Invalid '{param}': empty array. Expected an array with minimum length 1, "
        "but got an empty array instead.",
        param=param,
        code="empty_array",
    )


def _check_name(param: str, name: Any) -> OpenAIError | None:
    """C-NAME: a function name is a non-empty string of ``[a-zA-Z0-9_-]``, at most 64 characters."""
    if not isinstance(name, str):
        return _missing(param) if name is None else _wrong_type(param, "a string", name)
    if not name:
        return OpenAIError(
            f"Invalid '{param}': empty string. Expected a string with minimum length 1, "
            "but got an empty string instead.",
            param=param,
            code="empty_string",
        )
    if len(name) > MAX_NAME_LENGTH:
        return _too_long(param, MAX_NAME_LENGTH, len(name))
    if _NAME_RE.fullmatch(name) is None:
        return OpenAIError(
            f"Invalid '{param}': string does not match pattern. "
            f"Expected a string that matches the pattern '{_NAME_PATTERN}'.",
            param=param,
            code="invalid_value",
        )
    return None


def _check_tools(body: Mapping[str, Any]) -> OpenAIError | None:
    tools = body.get("tools")
    if tools is not None:
        if not _is_list(tools):
            return _wrong_type("tools", "an array of objects", tools)
        if not tools:
            return _empty_array("tools")
        if len(tools) > MAX_TOOLS:  # C-TOOLS128
            return _too_long("tools", MAX_TOOLS, len(tools), "array")
        for k, tool in enumerate(tools):
            if not isinstance(tool, Mapping):
                return _wrong_type(f"tools[{k}]", "an object", tool)
            if tool.get("type") not in ("function", "custom"):
                return OpenAIError(
                    f"Invalid value: {tool.get('type')!r}. Supported values are: 'function' and 'custom'.",
                    param=f"tools[{k}].type",
                    code="invalid_value",
                )
            spec = tool.get(tool["type"])
            if not isinstance(spec, Mapping):
                return _missing(f"tools[{k}].{tool['type']}")
            error = _check_name(f"tools[{k}].{tool['type']}.name", spec.get("name"))
            if error is not None:
                return error
            description = spec.get("description")
            if isinstance(description, str) and len(description) > MAX_DESCRIPTION_LENGTH:  # C-DESC
                return _too_long(
                    f"tools[{k}].{tool['type']}.description", MAX_DESCRIPTION_LENGTH, len(description)
                )
    if not tools:
        for field in ("tool_choice", "parallel_tool_calls"):  # C-TOOLCHOICE, C-PTC
            if body.get(field) is not None:
                return OpenAIError(
                    f"Invalid value for '{field}': '{field}' is only allowed when 'tools' are specified.",
                    param=field,
                )
    return None


def _check_message(i: int, message: Any) -> OpenAIError | None:
    if not isinstance(message, Mapping):
        return _wrong_type(f"messages[{i}]", "an object", message)
    role = message.get("role")
    if role is None:
        return _missing(f"messages[{i}].role")
    if role not in CHAT_ROLES:
        return OpenAIError(
            f"Invalid value: {role!r}. Supported values are: 'system', 'assistant', 'user', 'function', "
            "'tool', and 'developer'.",
            param=f"messages[{i}].role",
            code="invalid_value",
        )
    if "content" not in message and role != "assistant":
        return _missing(f"messages[{i}].content")
    content = message.get("content")
    if content is None and role != "assistant":  # C-NULL
        return OpenAIError(
            "Invalid value for 'content': expected a string, got null.", param=f"messages.[{i}].content"
        )
    if content is not None and not isinstance(content, str) and not _is_list(content):
        return _wrong_type(f"messages[{i}].content", "one of a string or array of objects", content)
    if role == "tool" and not isinstance(message.get("tool_call_id"), str):
        return _missing(f"messages[{i}].tool_call_id")
    if role != "assistant" or message.get("tool_calls") is None:
        return None
    calls = message["tool_calls"]
    if not _is_list(calls):
        return _wrong_type(f"messages[{i}].tool_calls", "an array of objects", calls)
    if not calls:  # C-EMPTYTC
        return _empty_array(f"messages[{i}].tool_calls")
    for k, call in enumerate(calls):
        where = f"messages[{i}].tool_calls[{k}]"
        if not isinstance(call, Mapping):
            return _wrong_type(where, "an object", call)
        call_id = call.get("id")
        if not isinstance(call_id, str):
            return (
                _missing(f"{where}.id")
                if call_id is None
                else _wrong_type(f"{where}.id", "a string", call_id)
            )
        if len(call_id) > MAX_TOOL_CALL_ID_LENGTH:  # C-IDLEN
            return _too_long(f"{where}.id", MAX_TOOL_CALL_ID_LENGTH, len(call_id))
        function = call.get("function")
        if not isinstance(function, Mapping):
            return _missing(f"{where}.function")
        error = _check_name(f"{where}.function.name", function.get("name"))
        if error is not None:
            return error
        if not isinstance(function.get("arguments"), str):
            return _wrong_type(f"{where}.function.arguments", "a string", function.get("arguments"))
    return None


def _call_ids(message: Mapping[str, Any]) -> list[str]:
    return [c["id"] for c in message.get("tool_calls") or ()]


def _check_pairing(messages: Sequence[Mapping[str, Any]]) -> OpenAIError | None:
    """C-PAIR and C-ORPHAN: tool messages answer, right after it, the assistant message that called."""
    asked: list[str] = []  # the ids of the assistant message the current run of tool messages answers
    for i, message in enumerate(messages):
        role = message["role"]
        if role == "tool":
            if message["tool_call_id"] not in asked:  # C-ORPHAN
                return OpenAIError(
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
                    "message with 'tool_calls'.",
                    param=f"messages.[{i}].role",
                )
            continue
        asked = []
        if role == "assistant" and message.get("tool_calls"):
            asked = _call_ids(message)
            answered: set[str] = set()
            j = i + 1
            while j < len(messages) and messages[j]["role"] == "tool":
                answered.add(messages[j]["tool_call_id"])
                j += 1
            missing = [call_id for call_id in asked if call_id not in answered]
            if missing:  # C-PAIR
                return OpenAIError(
                    "An assistant message with 'tool_calls' must be followed by tool messages responding "
                    "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                    + ", ".join(missing),
                    param=f"messages.[{min(i + 1, len(messages) - 1)}].role",
                )
    return None


def validate_chat_request(body: Any) -> OpenAIError | None:
    """The first reason api.openai.com would reject ``body`` (a Chat Completions request), or None."""
    if not isinstance(body, Mapping):
        return OpenAIError("We could not parse the JSON body of your request.")
    if not isinstance(body.get("model"), str) or not body["model"]:
        return OpenAIError("you must provide a model parameter")
    messages = body.get("messages")
    if messages is None:
        return _missing("messages")
    if not _is_list(messages):
        return _wrong_type("messages", "an array of objects", messages)
    if not messages:
        return _empty_array("messages")
    error = _check_tools(body)
    if error is not None:
        return error
    for i, message in enumerate(messages):
        error = _check_message(i, message)
        if error is not None:
            return error
    return _check_pairing(messages)


def chat_checker_violations(body: Mapping[str, Any]) -> list[str]:
    """C-DUPID and C-DUPOUT in a request the API accepts: a call id used twice, an id answered twice."""
    found: list[str] = []
    seen_calls: set[Any] = set()
    seen_outputs: set[Any] = set()
    for i, message in enumerate(body.get("messages") or ()):
        if not isinstance(message, Mapping):
            continue
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or ():
                call_id = call.get("id") if isinstance(call, Mapping) else None
                if call_id in seen_calls:
                    found.append(f"C-DUPID: messages[{i}] reuses tool_call id {call_id}")
                seen_calls.add(call_id)
        elif message.get("role") == "tool":
            call_id = message.get("tool_call_id")
            if call_id in seen_outputs:
                found.append(f"C-DUPOUT: messages[{i}] answers tool_call id {call_id} a second time")
            seen_outputs.add(call_id)
    return found
