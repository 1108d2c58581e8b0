r"""An assistant turn as the Responses API sends it: a ``response`` object, or its server-sent events.

A turn's blocks become the response's ``output`` items, in order: a thinking block a ``reasoning`` item
(``rs_…``; its text the summary, its signature the ``encrypted_content`` when the request's ``include``
asked for ``reasoning.encrypted_content``, else null), a text block a ``message`` item (``msg_…``) with
one ``output_text`` part, a tool_use block a ``function_call`` item (``fc_…``) whose ``call_id`` is the
block's id. Two calls take the shape their tools need: a tool_use named ``tool_search``, when the
request declares a client-side ``tool_search`` tool, becomes a ``tool_search_call`` item (``tsc_…``)
with the input as its ``arguments``; a tool_use named by a namespace and one of its tools, joined by
``__`` (``mcp__suite__echo``: the namespace ``mcp__suite`` Codex loads an MCP server's tools into,
offered in ``tools`` or loaded by a ``tool_search_output`` of the input), a ``function_call`` with
that ``namespace`` and the tool's own ``name``. A streamed response is ``response.created``,
``response.in_progress``, then per item
``response.output_item.added``, its deltas (``response.content_part.added``,
``response.output_text.delta`` … ``.done``, ``response.content_part.done`` for a message;
``response.function_call_arguments.delta`` … ``.done`` for a call) and ``response.output_item.done``,
and last ``response.completed`` (``response.incomplete`` for a turn cut at ``max_tokens``) with the
usage. Each event is framed ``event: TYPE\ndata: JSON\n\n`` with a growing ``sequence_number``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolharness.wire.model_api._encoding import wire_json
from pytest_toolharness.wire.model_api._messages_sse import DEFAULT_CHUNKS, split_chunks
from pytest_toolharness.wire.model_api._turns import AssistantTurn, TextBlock, ThinkingBlock

__all__ = [
    "RESPONSES_CREATED",
    "encode_event",
    "namespaced_name",
    "output_items",
    "response_json",
    "response_stream_events",
    "wants_encrypted_reasoning",
]

#: The ``created_at`` timestamp of every answer: fixed, so the bytes are the same in every run.
RESPONSES_CREATED = 1_700_000_000

ENCRYPTED_REASONING = "reasoning.encrypted_content"


def wants_encrypted_reasoning(body: Mapping[str, Any]) -> bool:
    """True when the request's ``include`` asks for ``reasoning.encrypted_content``."""
    include = body.get("include")
    return isinstance(include, list) and ENCRYPTED_REASONING in include


def encode_event(event: Mapping[str, Any]) -> bytes:
    """One server-sent event named by its ``type``."""
    return f"event: {event['type']}\ndata: {wire_json(event)}\n\n".encode()


def _client_tool_search(body: Mapping[str, Any]) -> bool:
    tools = body.get("tools")
    return isinstance(tools, list) and any(
        isinstance(t, Mapping) and t.get("type") == "tool_search" and t.get("execution") == "client"
        for t in tools
    )


def _namespaces(body: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """Each namespaced tool's full name -> (namespace, name): offered in ``tools`` or loaded by a search."""
    found: dict[str, tuple[str, str]] = {}
    offered = [body.get("tools")]
    items = body.get("input")
    if isinstance(items, list):
        offered += [
            i.get("tools") for i in items if isinstance(i, Mapping) and i.get("type") == "tool_search_output"
        ]
    for tools in offered:
        for tool in tools if isinstance(tools, list) else ():
            if not (isinstance(tool, Mapping) and tool.get("type") == "namespace"):
                continue
            space = str(tool.get("name", ""))
            for inner in tool.get("tools") or ():
                if isinstance(inner, Mapping) and isinstance(inner.get("name"), str):
                    found[namespaced_name(space, inner["name"])] = (space, inner["name"])
    return found


def namespaced_name(namespace: Any, name: Any) -> Any:
    """The full name of tool ``name`` of ``namespace`` (Codex's ``mcp__suite`` + ``echo``: ``mcp__suite__echo``)."""
    if not (isinstance(namespace, str) and namespace and isinstance(name, str)):
        return name
    return namespace + name if namespace.endswith("_") else f"{namespace}__{name}"


def output_items(
    turn: AssistantTurn, *, suffix: str, encrypted: bool, body: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The ``output`` items of a turn answering ``body``, completed.

    Ids are ``rs_``/``msg_``/``fc_``/``tsc_`` + ``suffix`` + position.
    """
    body = body or {}
    searches = _client_tool_search(body)
    namespaces = _namespaces(body)
    items: list[dict[str, Any]] = []
    for k, block in enumerate(turn.blocks):
        if isinstance(block, ThinkingBlock):
            items.append(
                {
                    "id": f"rs_{suffix}{k:03d}",
                    "type": "reasoning",
                    "summary": [{"type": "summary_text", "text": block.thinking}] if block.thinking else [],
                    "encrypted_content": block.signature if encrypted else None,
                }
            )
        elif isinstance(block, TextBlock):
            items.append(
                {
                    "id": f"msg_{suffix}{k:03d}",
                    "type": "message",
                    "status": "completed",
                    "role": "assistant",
                    "content": [
                        {"type": "output_text", "text": block.text, "annotations": [], "logprobs": []}
                    ],
                }
            )
        elif block.name == "tool_search" and searches:
            items.append(
                {
                    "id": f"tsc_{suffix}{k:03d}",
                    "type": "tool_search_call",
                    "status": "completed",
                    "call_id": block.id,
                    "execution": "client",
                    "arguments": dict(block.input),
                }
            )
        else:
            call = {
                "id": f"fc_{suffix}{k:03d}",
                "type": "function_call",
                "status": "completed",
                "arguments": block.input_json(),
                "call_id": block.id,
                "name": block.name,
            }
            if block.name in namespaces:
                call["namespace"], call["name"] = namespaces[block.name]
            items.append(call)
    return items


def _usage(input_tokens: int, output_tokens: int) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    }


def response_json(
    turn: AssistantTurn,
    body: Mapping[str, Any],
    *,
    response_id: str,
    items: list[dict[str, Any]],
    input_tokens: int,
    output_tokens: int,
) -> dict[str, Any]:
    """The ``response`` object: completed, or incomplete for a turn cut at ``max_tokens``."""
    incomplete = turn.effective_stop_reason == "max_tokens"
    status = "incomplete" if incomplete else "completed"
    return {
        "id": response_id,
        "object": "response",
        "created_at": RESPONSES_CREATED,
        "status": status,
        "background": False,
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
        "instructions": body.get("instructions"),
        "max_output_tokens": body.get("max_output_tokens"),
        "model": turn.model or str(body.get("model", "")),
        "output": items,
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "previous_response_id": body.get("previous_response_id"),
        "reasoning": {"effort": None, "summary": None},
        "store": body.get("store", True) is not False,
        "temperature": body.get("temperature", 1.0),
        "text": {"format": {"type": "text"}},
        "tool_choice": body.get("tool_choice", "auto"),
        "tools": list(body.get("tools") or ()),
        "top_p": body.get("top_p", 1.0),
        "truncation": "disabled",
        "usage": _usage(input_tokens, output_tokens),
        "user": None,
        "metadata": {},
    }


def _item_events(index: int, item: dict[str, Any], chunks: int) -> list[dict[str, Any]]:
    """The events of one output item, from ``output_item.added`` to ``output_item.done``."""
    item_id = item["id"]
    if item["type"] == "message":
        text = item["content"][0]["text"]
        part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
        where = {"item_id": item_id, "output_index": index, "content_index": 0}
        return [
            {
                "type": "response.output_item.added",
                "output_index": index,
                "item": {**item, "status": "in_progress", "content": []},
            },
            {"type": "response.content_part.added", **where, "part": part},
            *(
                {"type": "response.output_text.delta", **where, "delta": piece, "logprobs": []}
                for piece in split_chunks(text, chunks)
            ),
            {"type": "response.output_text.done", **where, "text": text, "logprobs": []},
            {"type": "response.content_part.done", **where, "part": {**part, "text": text}},
            {"type": "response.output_item.done", "output_index": index, "item": item},
        ]
    if item["type"] == "function_call":
        where = {"item_id": item_id, "output_index": index}
        return [
            {
                "type": "response.output_item.added",
                "output_index": index,
                "item": {**item, "status": "in_progress", "arguments": ""},
            },
            *(
                {"type": "response.function_call_arguments.delta", **where, "delta": piece}
                for piece in split_chunks(item["arguments"], chunks)
            ),
            {
                "type": "response.function_call_arguments.done",
                **where,
                "name": item["name"],
                "arguments": item["arguments"],
            },
            {"type": "response.output_item.done", "output_index": index, "item": item},
        ]
    # A reasoning item opens without its summary; a tool search call opens whole.
    opening = {**item, "summary": []} if item["type"] == "reasoning" else item
    return [
        {"type": "response.output_item.added", "output_index": index, "item": opening},
        {"type": "response.output_item.done", "output_index": index, "item": item},
    ]


def response_stream_events(final: Mapping[str, Any], *, chunks: int = DEFAULT_CHUNKS) -> list[dict[str, Any]]:
    """The events streaming the response ``final`` (:func:`response_json`), each with its ``sequence_number``."""
    opening = {**final, "status": "in_progress", "incomplete_details": None, "output": [], "usage": None}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": opening},
        {"type": "response.in_progress", "response": opening},
    ]
    for index, item in enumerate(final["output"]):
        events.extend(_item_events(index, item, chunks))
    last = "response.incomplete" if final["status"] == "incomplete" else "response.completed"
    events.append({"type": last, "response": dict(final)})
    return [{**event, "sequence_number": n} for n, event in enumerate(events)]
