"""OpenAI's Responses API as the scripted server answers it: ``POST /v1/responses``.

A turn goes back as a ``response`` object or, for ``"stream": true``, as its server-sent events
(:mod:`~pytest_toolharness.wire.model_api._responses_sse`); a request the API would reject gets its 400
(:mod:`~pytest_toolharness.wire.model_api._responses_validation`). Each dialect instance keeps the
responses it answered (:class:`~pytest_toolharness.wire.model_api._responses_store.ResponseStore`) for
``previous_response_id`` and items sent by id. Point the ``openai`` SDK (or Codex, through a
``model_providers`` entry) at ``<base_url>/v1``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_toolharness.wire.model_api._api_error import ApiError
from pytest_toolharness.wire.model_api._encoding import wire_bytes, wire_json
from pytest_toolharness.wire.model_api._messages import output_tokens
from pytest_toolharness.wire.model_api._messages_sse import DEFAULT_CHUNKS
from pytest_toolharness.wire.model_api._provider_errors import openai_error_body
from pytest_toolharness.wire.model_api._responses_sse import (
    encode_event,
    namespaced_name,
    output_items,
    response_json,
    response_stream_events,
    wants_encrypted_reasoning,
)
from pytest_toolharness.wire.model_api._responses_store import ResponseStore
from pytest_toolharness.wire.model_api._responses_validation import (
    CALL_KINDS,
    validate_responses_request,
)
from pytest_toolharness.wire.model_api._turns import AssistantTurn

__all__ = ["RESPONSES_PATH", "ResponsesDialect", "responses_neutral_request"]

RESPONSES_PATH = "/v1/responses"


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return ""


_DATA_URL = re.compile(r"data:([^;,]+);base64,(.*)", re.DOTALL)


def _output_blocks(output: Any) -> list[dict[str, Any]] | None:
    """A list output holding an image, as Messages blocks in its order (None: its text says it all).

    An image-only output is not empty (PAIR-4): seen through its text alone it would read ``""``.
    """
    if isinstance(output, str) or not isinstance(output, Sequence):
        return None
    parts = [p for p in output if isinstance(p, Mapping)]
    if not any(p.get("type") == "input_image" for p in parts):
        return None
    blocks: list[dict[str, Any]] = []
    for part in parts:
        if part.get("type") == "input_text":
            blocks.append({"type": "text", "text": str(part.get("text", ""))})
        elif part.get("type") == "input_image":
            url = str(part.get("image_url") or "")
            data = _DATA_URL.fullmatch(url)
            source = (
                {"type": "base64", "media_type": data[1], "data": data[2]}
                if data
                else {"type": "url", "url": url}
            )
            blocks.append({"type": "image", "source": source})
    return blocks


def _arguments(item: Mapping[str, Any]) -> Any:
    if item.get("type") == "custom_tool_call":
        return {"input": item.get("input")}
    if item.get("type") == "tool_search_call":
        return item.get("arguments")
    text = item.get("arguments")
    try:
        return json.loads(text) if isinstance(text, str) else text
    except ValueError:
        return text  # the harness sent arguments that are not JSON: the checks see the raw text


def _call_name(item: Mapping[str, Any]) -> Any:
    """A call's tool name: ``tool_search`` for a search call; a namespaced call's full name."""
    if item.get("type") == "tool_search_call":
        return "tool_search"
    return namespaced_name(item.get("namespace"), item.get("name"))


def _turn(turns: list[dict[str, Any]], role: str) -> dict[str, Any]:
    if not turns or turns[-1]["role"] != role:
        turns.append({"role": role, "calls": [], "outputs": [], "text": "", "reasoning": []})
    return turns[-1]


def _neutral_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    """A function or custom tool by name, description and schema; a hosted tool by its type, as its name."""
    if tool.get("type") not in ("function", "custom"):
        return {"type": tool.get("type"), "name": tool.get("type")}
    neutral = {
        "name": tool.get("name"),
        "description": tool.get("description"),
        "input_schema": tool.get("parameters"),
    }
    if tool.get("defer_loading") is True:
        neutral["defer_loading"] = True  # loaded by the tool search, as a Messages tool with the same flag
    return neutral


def _loaded_tools(found: Any) -> list[dict[str, Any]]:
    """The tools a ``tool_search_output`` loaded, namespaced ones by their full names, deferred."""
    loaded = []
    for tool in found if isinstance(found, list) else ():
        if not isinstance(tool, Mapping):
            continue
        inner = tool.get("tools") if tool.get("type") == "namespace" else [tool]
        for function in inner if isinstance(inner, list) else ():
            if isinstance(function, Mapping) and function.get("type") in ("function", "custom"):
                name = namespaced_name(tool.get("name"), function.get("name"))
                loaded.append({**_neutral_tool(function), "name": name, "defer_loading": True})
    return loaded


def responses_neutral_request(body: Mapping[str, Any], store: ResponseStore | None = None) -> dict[str, Any]:
    """The API-neutral view of a Responses request: the whole conversation it stands for, as turns.

        The conversation is the previous response's (``previous_response_id``) followed by ``input``, items
        sent by id read as the kept items. Items of the model (``reasoning``, assistant ``message``,
        ``function_call``, ``custom_tool_call``, ``tool_search_call`` as a call of ``tool_search``; a
        namespaced call by its full name) make assistant turns: ``reasoning`` holds each reasoning
        item's summary text (``thought``), its ``encrypted_content`` (``signature``) and ``id``. Outputs make
        user turns (an output holding an image also as ``blocks``, text and image in order; a
        ``tool_search_output`` its tools' JSON; the tools it loaded join the request's
        tools, deferred), ``is_error`` None (the API has no failure mark). System and developer messages and
        ``instructions`` are the system text. The tools are the function and custom tools (a deferred one
    with ``defer_loading``) and the hosted ones (``tool_search``, ``web_search``), named by their type.
    """
    store = store or ResponseStore()
    tools = [_neutral_tool(t) for t in body.get("tools") or () if isinstance(t, Mapping)]
    system = [body["instructions"]] if isinstance(body.get("instructions"), str) else []
    turns: list[dict[str, Any]] = []
    for item in store.conversation(body):
        if not isinstance(item, Mapping):
            continue
        kind = item.get("type", "message")
        if kind == "message" and item.get("role") in ("system", "developer"):
            system.append(_text_of(item.get("content")))
        elif kind == "message":
            turn = _turn(turns, "assistant" if item.get("role") == "assistant" else "user")
            turn["text"] += _text_of(item.get("content"))
        elif kind == "reasoning":
            summary = "".join(
                str(s.get("text", "")) for s in item.get("summary") or () if isinstance(s, Mapping)
            )
            _turn(turns, "assistant")["reasoning"].append(
                {"thought": summary, "signature": item.get("encrypted_content"), "id": item.get("id")}
            )
        elif kind in CALL_KINDS or kind == "tool_search_call":
            _turn(turns, "assistant")["calls"].append(
                {"id": item.get("call_id"), "name": _call_name(item), "input": _arguments(item)}
            )
        elif kind in CALL_KINDS.values():
            output = {"call_id": item.get("call_id"), "text": _text_of(item.get("output")), "is_error": None}
            blocks = _output_blocks(item.get("output"))
            if blocks is not None:
                output["blocks"] = blocks
            _turn(turns, "user")["outputs"].append(output)
        elif kind == "tool_search_output":
            _turn(turns, "user")["outputs"].append(
                {"call_id": item.get("call_id"), "text": wire_json(item.get("tools")), "is_error": None}
            )
            tools += _loaded_tools(item.get("tools"))
    return {"api": "responses", "tools": tools, "system": "\n\n".join(system), "turns": turns}


class ResponsesDialect:
    """The Responses API as a dialect of the scripted server, with the responses it keeps."""

    name = "responses"
    routes: tuple[tuple[str, str], ...] = (("POST", RESPONSES_PATH),)

    def __init__(self) -> None:
        self.store = ResponseStore()

    def answers(self, method: str, path: str) -> bool:
        """True for ``POST /v1/responses``."""
        return (method, path) in self.routes

    def validate(self, body: Any, path: str = RESPONSES_PATH) -> ApiError | None:
        """The API's 400 (or 404 for an item it does not keep) for ``body``, or None."""
        return validate_responses_request(body, self.store)

    def error_body(self, error: ApiError, request_id: str) -> dict[str, Any]:
        """An error in OpenAI's shape, whatever kind of :class:`ApiError` it is (a scripted 529 too)."""
        return openai_error_body(error, request_id)

    def answer(
        self,
        turn: AssistantTurn,
        body: Mapping[str, Any],
        *,
        index: int,
        id_prefix: str,
        prompt_tokens: int,
        chunks: int = DEFAULT_CHUNKS,
        path: str = RESPONSES_PATH,
    ) -> bytes | tuple[bytes, ...]:
        """The response, or its events when the body asked for a stream; kept unless ``store`` is false."""
        suffix = f"{id_prefix}{index:012d}"
        response_id = f"resp_{suffix}"
        # The store keeps each reasoning item whole; the answer shows its encrypted content on request.
        self.store.hold(body, response_id, output_items(turn, suffix=suffix, encrypted=True, body=body))
        items = output_items(turn, suffix=suffix, encrypted=wants_encrypted_reasoning(body), body=body)
        final = response_json(
            turn,
            body,
            response_id=response_id,
            items=items,
            input_tokens=prompt_tokens,
            output_tokens=output_tokens(turn),
        )
        if body.get("stream") is True:
            return tuple(encode_event(event) for event in response_stream_events(final, chunks=chunks))
        return wire_bytes(final)

    def neutral_request(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """The API-neutral view (:func:`responses_neutral_request`), the kept responses resolved."""
        return responses_neutral_request(body, self.store)
