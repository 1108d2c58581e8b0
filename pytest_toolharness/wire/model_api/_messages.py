"""The Messages API's endpoints as the scripted server answers them: paths, token counts, a turn's answer.

``POST /v1/messages`` gets the turn as a JSON ``Message`` or, for ``"stream": true``, as server-sent
events (:mod:`~pytest_toolharness.wire.model_api._messages_sse`); ``POST /v1/messages/count_tokens``
gets a deterministic estimate, :func:`estimate_tokens`, unless the server is given its own counter.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from pytest_toolharness.wire.model_api._encoding import wire_bytes, wire_json
from pytest_toolharness.wire.model_api._messages_sse import encode_sse, message_json, stream_events
from pytest_toolharness.wire.model_api._turns import AssistantTurn

__all__ = [
    "COUNT_TOKENS_PATH",
    "MESSAGES_PATH",
    "TokenCounter",
    "estimate_tokens",
    "output_tokens",
    "turn_answer",
]

MESSAGES_PATH = "/v1/messages"
COUNT_TOKENS_PATH = "/v1/messages/count_tokens"

TokenCounter = Callable[[Mapping[str, Any]], int]


def estimate_tokens(body: Mapping[str, Any]) -> int:
    """A deterministic token estimate: ``ceil(len(wire_json(body)) / 4)``, at least 1.

    Counting characters of the canonical wire encoding (not the raw bytes received) makes the
    estimate independent of the client's whitespace.
    """
    return max(1, math.ceil(len(wire_json(body)) / 4))


def output_tokens(turn: AssistantTurn) -> int:
    """The usage's ``output_tokens`` of an answer: the same estimate over the turn's content."""
    return max(1, math.ceil(len(wire_json(turn.content())) / 4))


def turn_answer(
    turn: AssistantTurn,
    *,
    stream: bool,
    message_id: str,
    model: str,
    input_tokens: int,
    ping: bool,
    chunks: int,
) -> bytes | tuple[bytes, ...]:
    """The answer to a ``/v1/messages`` request: the JSON Message's bytes, or the SSE events when streamed."""
    out = output_tokens(turn)
    if stream:
        events = stream_events(
            turn,
            message_id=message_id,
            model=model,
            input_tokens=input_tokens,
            output_tokens=out,
            ping=ping,
            chunks=chunks,
        )
        return tuple(encode_sse(name, data) for name, data in events)
    message = message_json(
        turn, message_id=message_id, model=model, input_tokens=input_tokens, output_tokens=out
    )
    return wire_bytes(message)
