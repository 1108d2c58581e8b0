r"""An assistant turn as the Messages API sends it: a JSON Message, or server-sent events.

A streamed message is ``message_start`` (the message with empty content and a null stop reason),
a ``ping``, then for each content block ``content_block_start``, one or more
``content_block_delta`` and ``content_block_stop``, then ``message_delta`` (stop reason, output
usage) and ``message_stop``. Text and thinking arrive in several deltas, a thinking block ends with
a ``signature_delta``, and a tool_use's input arrives as its JSON text cut into several
``input_json_delta`` chunks, so a client must concatenate before parsing, as with the real API.

Each event is framed ``event: NAME\ndata: JSON\n\n`` with the JSON on one line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolharness.wire.model_api._encoding import wire_json
from pytest_toolharness.wire.model_api._turns import AssistantTurn, TextBlock, ThinkingBlock, ToolUseBlock

__all__ = ["DEFAULT_CHUNKS", "OVERLOADED", "encode_sse", "message_json", "split_chunks", "stream_events"]

#: Into how many deltas text, thinking and tool input JSON are cut (fewer when they are shorter).
DEFAULT_CHUNKS = 3


#: The ``error`` of an ``error`` event a broken stream ends with (:class:`StreamFault` ``error``).
OVERLOADED: Mapping[str, str] = {"type": "overloaded_error", "message": "Overloaded"}


def encode_sse(event: str, data: Mapping[str, Any]) -> bytes:
    """One server-sent event: ``event: NAME``, ``data: JSON`` and a blank line."""
    if not event or any(c in event for c in "\r\n:"):
        raise ValueError(f"invalid SSE event name {event!r}")
    # JSON escapes newlines inside strings, so the data always fits on one line.
    return f"event: {event}\ndata: {wire_json(data)}\n\n".encode()


def split_chunks(text: str, chunks: int = DEFAULT_CHUNKS) -> list[str]:
    """``text`` cut into at most ``chunks`` non-empty pieces of near-equal length (``[""]`` if empty).

    The pieces always concatenate back to ``text``.
    """
    if chunks < 1:
        raise ValueError(f"chunks must be >= 1, got {chunks}")
    if not text:
        return [""]
    count = min(chunks, len(text))
    size, extra = divmod(len(text), count)
    pieces: list[str] = []
    start = 0
    for index in range(count):
        end = start + size + (1 if index < extra else 0)
        pieces.append(text[start:end])
        start = end
    return pieces


def _usage(input_tokens: int, output_tokens: int) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": output_tokens,
    }


def message_json(
    turn: AssistantTurn, *, message_id: str, model: str, input_tokens: int, output_tokens: int
) -> dict[str, Any]:
    """The non-streaming response body: a complete ``Message``."""
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": turn.model or model,
        "content": turn.content(),
        "stop_reason": turn.effective_stop_reason,
        "stop_sequence": None,
        "usage": _usage(input_tokens, output_tokens),
    }


def _block_events(
    index: int, block: TextBlock | ThinkingBlock | ToolUseBlock, chunks: int
) -> list[tuple[str, Any]]:
    events: list[tuple[str, Any]] = []

    def delta(payload: dict[str, Any]) -> None:
        events.append(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": payload})
        )

    if isinstance(block, TextBlock):
        start: dict[str, Any] = {"type": "text", "text": ""}
        events.append(
            ("content_block_start", {"type": "content_block_start", "index": index, "content_block": start})
        )
        for piece in split_chunks(block.text, chunks):
            delta({"type": "text_delta", "text": piece})
    elif isinstance(block, ThinkingBlock):
        start = {"type": "thinking", "thinking": "", "signature": ""}
        events.append(
            ("content_block_start", {"type": "content_block_start", "index": index, "content_block": start})
        )
        for piece in split_chunks(block.thinking, chunks):
            delta({"type": "thinking_delta", "thinking": piece})
        delta({"type": "signature_delta", "signature": block.signature})
    else:
        # The API starts a tool_use with an empty input and streams the JSON text separately.
        start = {"type": "tool_use", "id": block.id, "name": block.name, "input": {}}
        events.append(
            ("content_block_start", {"type": "content_block_start", "index": index, "content_block": start})
        )
        for piece in split_chunks(block.input_json(), chunks):
            delta({"type": "input_json_delta", "partial_json": piece})
    events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    return events


def stream_events(
    turn: AssistantTurn,
    *,
    message_id: str,
    model: str,
    input_tokens: int,
    output_tokens: int,
    ping: bool = True,
    chunks: int = DEFAULT_CHUNKS,
) -> list[tuple[str, dict[str, Any]]]:
    """The events of a streamed turn, as ``(event name, data)`` pairs in sending order."""
    message = message_json(
        turn, message_id=message_id, model=model, input_tokens=input_tokens, output_tokens=output_tokens
    )
    message.update(content=[], stop_reason=None, stop_sequence=None)
    # message_start reports the output tokens so far (1, as the API does); the total comes last.
    message["usage"] = _usage(input_tokens, 1)
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": message})
    ]
    pinged = not ping
    fault = turn.fault
    for index, block in enumerate(turn.blocks):
        if fault is not None and index >= fault.after_blocks:
            break
        block_events = _block_events(index, block, chunks)
        events.append(block_events[0])
        if not pinged:
            # The API pings right after the first block starts.
            events.append(("ping", {"type": "ping"}))
            pinged = True
        events.extend(block_events[1:])
    if not pinged:
        events.append(("ping", {"type": "ping"}))
    if fault is not None:  # the stream breaks here: no message_delta, no message_stop
        if fault.kind == "error":
            events.append(("error", {"type": "error", "error": OVERLOADED}))
        return events
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": turn.effective_stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": output_tokens},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events
