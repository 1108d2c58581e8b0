r"""An assistant turn as Chat Completions sends it: a ``chat.completion``, or ``chat.completion.chunk`` events.

A streamed completion is a chunk whose delta holds ``role: "assistant"``, the text in several
``content`` deltas, then per tool call a delta opening it (``index``, ``id``, ``type``, the
function's ``name``, empty ``arguments``) and deltas carrying its arguments' JSON text in pieces,
then a chunk with an empty delta and the ``finish_reason``; with ``stream_options.include_usage``
every chunk has ``usage: null`` and one more chunk with no choices carries the usage. Each chunk is
framed ``data: JSON\n\n`` and the stream ends with ``data: [DONE]``.

Chat Completions has no reasoning in its assistant message: a turn's thinking blocks are not sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolharness.wire.model_api._encoding import wire_json
from pytest_toolharness.wire.model_api._messages_sse import DEFAULT_CHUNKS, split_chunks
from pytest_toolharness.wire.model_api._turns import AssistantTurn, TextBlock

__all__ = [
    "CHAT_CREATED",
    "DONE_EVENT",
    "chat_completion_json",
    "chat_stream_chunks",
    "encode_data",
    "finish_reason",
]

#: The ``created`` timestamp of every answer: fixed, so the bytes are the same in every run.
CHAT_CREATED = 1_700_000_000
#: The last event of a stream.
DONE_EVENT = b"data: [DONE]\n\n"

_FINISH = {"tool_use": "tool_calls", "max_tokens": "length", "refusal": "content_filter"}


def encode_data(chunk: Mapping[str, Any]) -> bytes:
    """One server-sent event without a name: ``data: JSON`` and a blank line."""
    return f"data: {wire_json(chunk)}\n\n".encode()


def finish_reason(turn: AssistantTurn) -> str:
    """The Chat ``finish_reason`` of the turn's stop reason (``tool_calls``, ``length``, ``stop``, ...)."""
    return _FINISH.get(turn.effective_stop_reason, "stop")


def _text(turn: AssistantTurn) -> str | None:
    """The message's ``content``: the text, or null when the turn only calls tools (as the API sends it)."""
    texts = [block.text for block in turn.blocks if isinstance(block, TextBlock)]
    return "".join(texts) if texts or not turn.tool_uses else None


def _usage(prompt_tokens: int, completion_tokens: int) -> dict[str, int]:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


def _tool_calls(turn: AssistantTurn) -> list[dict[str, Any]]:
    return [
        {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.input_json()}}
        for call in turn.tool_uses
    ]


def chat_completion_json(
    turn: AssistantTurn,
    *,
    completion_id: str,
    model: str,
    prompt_tokens: int,
    completion_tokens: int,
) -> dict[str, Any]:
    """The non-streaming answer: a ``chat.completion`` with one choice."""
    message: dict[str, Any] = {"role": "assistant", "content": _text(turn), "refusal": None}
    if turn.tool_uses:
        message["tool_calls"] = _tool_calls(turn)
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": CHAT_CREATED,
        "model": turn.model or model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason(turn)}],
        "usage": _usage(prompt_tokens, completion_tokens),
        "system_fingerprint": None,
    }


def chat_stream_chunks(
    turn: AssistantTurn,
    *,
    completion_id: str,
    model: str,
    prompt_tokens: int,
    completion_tokens: int,
    include_usage: bool,
    chunks: int = DEFAULT_CHUNKS,
) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` objects of a streamed turn, in sending order (without ``[DONE]``)."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": CHAT_CREATED,
            "model": turn.model or model,
            "system_fingerprint": None,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
        if include_usage:
            body["usage"] = None
        return body

    text = _text(turn)
    out = [chunk({"role": "assistant", "content": "" if text is not None else None, "refusal": None})]
    if text:
        out.extend(chunk({"content": piece}) for piece in split_chunks(text, chunks))
    for index, call in enumerate(turn.tool_uses):
        opening = {
            "index": index,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        out.append(chunk({"tool_calls": [opening]}))
        out.extend(
            chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            for piece in split_chunks(call.input_json(), chunks)
        )
    out.append(chunk({}, finish_reason(turn)))
    if include_usage:
        last = chunk({})
        last["choices"] = []
        last["usage"] = _usage(prompt_tokens, completion_tokens)
        out.append(last)
    return out
