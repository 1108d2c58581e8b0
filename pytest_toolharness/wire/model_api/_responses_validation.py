"""What ``POST /v1/responses`` rejects, with the body api.openai.com sends.

Each rule of PROTOCOLS.md's Responses table answers its documented text with ``type:
invalid_request_error``: the tools first (R-NAME, R-STRICT, R-TOOLCHOICE, R-PTC), then
``previous_response_id`` (R-PREV), each item's fields (R-IDLEN, R-FCID, R-NAME in history), then the
conversation the request stands for, the previous response's included: item ids (R-DUPITEM), items sent
by id alone (R-STORE, a 404), reasoning (R-REASONING, R-RSFOLLOW), calls and outputs (R-DUPCALL,
R-DUPOUT, R-PAIR, R-ORPHAN). Calls are answered by ``call_id`` anywhere later in the conversation.
R-TOOLNAMES (a name offered twice) is no API error: :func:`responses_checker_violations` reports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolharness.wire.model_api._chat_validation import (
    _check_name,
    _is_list,
    _missing,
    _too_long,
    _wrong_type,
)
from pytest_toolharness.wire.model_api._provider_errors import OpenAIError
from pytest_toolharness.wire.model_api._responses_store import ResponseStore, input_items

__all__ = [
    "CALL_KINDS",
    "MAX_CALL_ID_LENGTH",
    "TOOL_TYPES",
    "responses_checker_violations",
    "validate_responses_request",
]

MAX_CALL_ID_LENGTH = 64
#: The tool types the API takes: functions, custom tools, hosted tools, client-side tool search, and
#: namespaces grouping function tools (Codex sends its multi-agent tools so).
TOOL_TYPES = (
    "function",
    "custom",
    "web_search",
    "web_search_preview",
    "file_search",
    "tool_search",
    "computer_use_preview",
    "code_interpreter",
    "image_generation",
    "mcp",
    "local_shell",
    "shell",
    "apply_patch",
    "namespace",
)
#: Call item types and the output item type answering each.
CALL_KINDS = {"function_call": "function_call_output", "custom_tool_call": "custom_tool_call_output"}
_OUTPUT_KINDS = {output: call for call, output in CALL_KINDS.items()}
_KIND_WORDS = {"function_call": "function call", "custom_tool_call": "custom tool call"}
_FORCED_CHOICES = ("required",)


def _strict_error(name: str, where: str, schema: Any) -> OpenAIError | None:
    """R-STRICT: every object of a strict schema closes its properties and requires each of them."""
    if isinstance(schema, Mapping):
        if schema.get("type") == "object" or "properties" in schema:
            if schema.get("additionalProperties") is not False:
                return OpenAIError(
                    f"Invalid schema for function '{name}': 'additionalProperties' is required to be "
                    "supplied and to be false.",
                    param=where,
                    code="invalid_function_parameters",
                )
            required = schema.get("required") or []
            for key in schema.get("properties") or {}:
                if key not in required:
                    return OpenAIError(
                        f"Invalid schema for function '{name}': 'required' is required to be supplied and "
                        f"to be an array including every key in properties. Missing '{key}'.",
                        param=where,
                        code="invalid_function_parameters",
                    )
        children: list[Any] = list(schema.values())
    elif _is_list(schema):
        children = list(schema)
    else:
        return None
    for child in children:
        if isinstance(child, Mapping) or _is_list(child):
            error = _strict_error(name, where, child)
            if error is not None:
                return error
    return None


def _check_tools(body: Mapping[str, Any]) -> OpenAIError | None:
    tools = body.get("tools")
    names: list[str] = []
    if tools is not None:
        if not _is_list(tools):
            return _wrong_type("tools", "an array of objects", tools)
        for k, tool in enumerate(tools):
            if not isinstance(tool, Mapping):
                return _wrong_type(f"tools[{k}]", "an object", tool)
            kind = tool.get("type")
            if kind not in TOOL_TYPES:
                return OpenAIError(
                    f"Invalid value: {kind!r}. Supported values are: "
                    + ", ".join(f"'{t}'" for t in TOOL_TYPES[:-1])
                    + f", and '{TOOL_TYPES[-1]}'.",
                    param=f"tools[{k}].type",
                    code="invalid_value",
                )
            if kind not in ("function", "custom"):
                continue
            error = _check_name(f"tools[{k}].name", tool.get("name"))  # R-NAME
            if error is not None:
                return error
            names.append(tool["name"])
            if kind == "function" and tool.get("strict") is True:  # R-STRICT
                error = _strict_error(tool["name"], f"tools[{k}].parameters", tool.get("parameters"))
                if error is not None:
                    return error
    choice = body.get("tool_choice")  # R-TOOLCHOICE
    if choice in _FORCED_CHOICES and not tools:
        return OpenAIError(
            f"Tool choice '{choice}' must be specified with 'tools' parameter.", param="tool_choice"
        )
    if (
        isinstance(choice, Mapping)
        and choice.get("type") in ("function", "custom")
        and choice.get("name") not in names
    ):
        return OpenAIError(
            f"Tool choice '{choice['type']}' not found in 'tools' parameter.", param="tool_choice"
        )
    if not tools and body.get("parallel_tool_calls") is not None:  # R-PTC
        return OpenAIError(
            "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' "
            "are specified.",
            param="parallel_tool_calls",
        )
    return None


def _check_item(i: int, item: Any) -> OpenAIError | None:
    where = f"input[{i}]"
    if not isinstance(item, Mapping):
        return _wrong_type(where, "an object", item)
    kind = item.get("type", "message")
    if kind in CALL_KINDS or kind in _OUTPUT_KINDS:
        call_id = item.get("call_id")
        if not isinstance(call_id, str):
            return (
                _missing(f"{where}.call_id")
                if call_id is None
                else _wrong_type(f"{where}.call_id", "a string", call_id)
            )
        if len(call_id) > MAX_CALL_ID_LENGTH:  # R-IDLEN
            return _too_long(f"{where}.call_id", MAX_CALL_ID_LENGTH, len(call_id))
    if kind in CALL_KINDS:
        item_id = item.get("id")
        prefix = "fc" if kind == "function_call" else "ctc"
        if item_id is not None and not (isinstance(item_id, str) and item_id.startswith(prefix)):  # R-FCID
            return OpenAIError(
                f"Invalid '{where}.id': '{item_id}'. Expected an ID that begins with '{prefix}'.",
                param=f"{where}.id",
                code="invalid_value",
            )
        return _check_name(f"{where}.name", item.get("name"))
    return None


def _not_found(item_id: str, store: bool) -> OpenAIError:
    """R-STORE: an item sent by its id alone that the server does not keep (a 404)."""
    if store:
        return OpenAIError(f"Item with id '{item_id}' not found.", param="input", status=404)
    return OpenAIError(
        f"Item with id '{item_id}' not found. Items are not persisted when `store` is set to false. Try "
        "again with `store` set to true, or remove this item from your input.",
        param="input",
        status=404,
    )


def _check_references(body: Mapping[str, Any], store: ResponseStore) -> OpenAIError | None:
    for item in input_items(body):
        if not isinstance(item, Mapping):
            continue
        by_id = item.get("type") == "item_reference" or (
            item.get("type") == "reasoning" and not item.get("encrypted_content")
        )
        item_id = item.get("id")
        if by_id and isinstance(item_id, str) and store.item(item_id) is None:
            return _not_found(item_id, body.get("store") is not False and not store.unstored(item_id))
    return None


def _check_ids(conversation: list[Any]) -> OpenAIError | None:
    """R-DUPITEM: no item id twice, the previous response's items included."""
    seen: set[str] = set()
    for item in conversation:
        item_id = item.get("id") if isinstance(item, Mapping) else None
        if not isinstance(item_id, str):
            continue
        if item_id in seen:
            return OpenAIError(
                f"Duplicate item found with id {item_id}. Remove duplicate items from your input and try "
                "again.",
                param="input",
            )
        seen.add(item_id)
    return None


def _check_reasoning(conversation: list[Any], store: ResponseStore) -> OpenAIError | None:
    """R-REASONING and R-RSFOLLOW: reasoning goes back ahead of the call it produced, followed by it."""
    ids = [item.get("id") if isinstance(item, Mapping) else None for item in conversation]
    for n, item in enumerate(conversation):
        if not isinstance(item, Mapping):
            continue
        if item.get("type") == "function_call":
            required = store.reasoning_of(item.get("id"))
            if required is not None and required not in ids[:n]:
                return OpenAIError(
                    f"Item '{item['id']}' of type 'function_call' was provided without its required "
                    f"'reasoning' item: '{required}'.",
                    param="input",
                )
        if item.get("type") == "reasoning":
            # Reasoning items of one output come in a row; the item they produced follows the last.
            after = (
                i
                for i in conversation[n + 1 :]
                if not (isinstance(i, Mapping) and i.get("type") == "reasoning")
            )
            following = next(after, None)
            produced = store.produced_by(item.get("id"))
            kind = following.get("type", "message") if isinstance(following, Mapping) else None
            role = following.get("role", "assistant") if isinstance(following, Mapping) else None
            output_item = kind not in (None, "reasoning", "item_reference", *_OUTPUT_KINDS) and (
                kind != "message" or role == "assistant"
            )
            if not output_item or (produced is not None and produced not in ids[n + 1 :]):
                return OpenAIError(
                    f"Item '{item.get('id')}' of type 'reasoning' was provided without its required "
                    "following item.",
                    param="input",
                )
    return None


def _check_pairing(conversation: list[Any]) -> OpenAIError | None:
    """R-DUPCALL, R-DUPOUT, R-ORPHAN, R-PAIR: one output per call, later in the conversation."""
    calls: dict[Any, str] = {}
    answered: set[Any] = set()
    for item in conversation:
        if not isinstance(item, Mapping):
            continue
        kind = item.get("type")
        call_id = item.get("call_id")
        if kind in CALL_KINDS:
            if call_id in calls:
                return OpenAIError(f"Duplicate 'call_id': {call_id}", param="input")
            calls[call_id] = kind
        elif kind in _OUTPUT_KINDS:
            if call_id in answered:
                return OpenAIError(
                    f"Duplicate function_call_output for call_id '{call_id}'. Each function_call must "
                    "have exactly one matching function_call_output",
                    param="input",
                )
            if call_id not in calls:
                return OpenAIError(
                    f"No tool call found for {'function call' if kind == 'function_call_output' else 'custom tool call'}"
                    f" output with call_id {call_id}.",
                    param="input",
                )
            answered.add(call_id)
    for call_id, kind in calls.items():
        if call_id not in answered:
            return OpenAIError(f"No tool output found for {_KIND_WORDS[kind]} {call_id}.", param="input")
    return None


def validate_responses_request(body: Any, store: ResponseStore) -> OpenAIError | None:
    """The first reason api.openai.com would reject ``body`` (a Responses request), or None."""
    if not isinstance(body, Mapping):
        return OpenAIError("We could not parse the JSON body of your request.")
    if not isinstance(body.get("model"), str) or not body["model"]:
        return OpenAIError(
            "Missing required parameter: 'model'.", param="model", code="missing_required_parameter"
        )
    raw = body.get("input")
    if raw is not None and not isinstance(raw, str) and not _is_list(raw):
        return _wrong_type("input", "one of a string or array of input items", raw)
    error = _check_tools(body)
    if error is not None:
        return error
    previous = body.get("previous_response_id")
    if previous is not None and store.response(previous) is None:  # R-PREV
        return OpenAIError(
            f"Previous response with id '{previous}' not found.",
            param="previous_response_id",
            code="previous_response_not_found",
        )
    for i, item in enumerate(input_items(body)):
        error = _check_item(i, item)
        if error is not None:
            return error
    error = _check_references(body, store)
    if error is not None:
        return error
    conversation = store.conversation(body)
    return _check_ids(conversation) or _check_reasoning(conversation, store) or _check_pairing(conversation)


def responses_checker_violations(body: Mapping[str, Any]) -> list[str]:
    """R-TOOLNAMES in a request the API accepts: a function or custom tool name offered twice."""
    found: list[str] = []
    seen: set[Any] = set()
    for k, tool in enumerate(body.get("tools") or ()):
        if isinstance(tool, Mapping) and tool.get("type") in ("function", "custom"):
            if tool.get("name") in seen:
                found.append(f"R-TOOLNAMES: tools[{k}] offers {tool.get('name')} a second time")
            seen.add(tool.get("name"))
    return found
