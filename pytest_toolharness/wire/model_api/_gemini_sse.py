r"""An assistant turn as Gemini sends it: a ``GenerateContentResponse``, or a stream of them.

The turn's blocks become ``parts`` of one ``model`` content: a thinking block a ``{"text",
"thought": true}`` part, text a ``text`` part, a tool call a ``functionCall`` part (``id``, ``name``,
``args``). The first ``functionCall`` part carries a ``thoughtSignature``, as Gemini 3 sends it: the
signature of the thinking block before it, else one derived from the call's id, so a client that
drops it is caught (G-SIG). Streamed (``:streamGenerateContent?alt=sse``), text arrives in several
responses, each call whole in its own, and the last response carries the ``finishReason`` and the
usage; each is framed ``data: JSON\r\n\r\n``.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from pytest_toolharness.wire.model_api._encoding import wire_json
from pytest_toolharness.wire.model_api._messages_sse import DEFAULT_CHUNKS, split_chunks
from pytest_toolharness.wire.model_api._turns import AssistantTurn, TextBlock, ThinkingBlock

__all__ = ["encode_gemini_sse", "gemini_parts", "gemini_response_json", "gemini_stream_responses"]

_FINISH = {"max_tokens": "MAX_TOKENS", "refusal": "SAFETY"}


def encode_gemini_sse(response: Mapping[str, Any]) -> bytes:
    """One streamed response: ``data: JSON`` and a blank line, CRLF-terminated as Google sends it."""
    return f"data: {wire_json(response)}\r\n\r\n".encode()


def gemini_parts(turn: AssistantTurn) -> list[dict[str, Any]]:
    """The turn's blocks as the ``parts`` of a ``model`` content."""
    parts: list[dict[str, Any]] = []
    signature: str | None = None
    signed = False
    for block in turn.blocks:
        if isinstance(block, ThinkingBlock):
            parts.append({"text": block.thinking, "thought": True})
            signature = block.signature
        elif isinstance(block, TextBlock):
            parts.append({"text": block.text})
        else:
            part: dict[str, Any] = {
                "functionCall": {"id": block.id, "name": block.name, "args": dict(block.input)}
            }
            if not signed:
                part["thoughtSignature"] = signature or base64.b64encode(f"sig:{block.id}".encode()).decode()
                signed = True
            parts.append(part)
    return parts


def _usage(prompt_tokens: int, output_tokens: int) -> dict[str, int]:
    return {
        "promptTokenCount": prompt_tokens,
        "candidatesTokenCount": output_tokens,
        "totalTokenCount": prompt_tokens + output_tokens,
    }


def _response(
    parts: list[dict[str, Any]], *, model: str, response_id: str, usage: dict[str, int], finish: str | None
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = finish
    return {
        "candidates": [candidate],
        "usageMetadata": usage,
        "modelVersion": model,
        "responseId": response_id,
    }


def gemini_response_json(
    turn: AssistantTurn, *, model: str, response_id: str, prompt_tokens: int, output_tokens: int
) -> dict[str, Any]:
    """The non-streaming answer: one candidate holding the whole turn."""
    finish = _FINISH.get(turn.effective_stop_reason, "STOP")
    usage = _usage(prompt_tokens, output_tokens)
    return _response(
        gemini_parts(turn), model=turn.model or model, response_id=response_id, usage=usage, finish=finish
    )


def gemini_stream_responses(
    turn: AssistantTurn,
    *,
    model: str,
    response_id: str,
    prompt_tokens: int,
    output_tokens: int,
    chunks: int = DEFAULT_CHUNKS,
) -> list[dict[str, Any]]:
    """The responses of a streamed turn, in sending order; text is cut in pieces, calls are whole."""
    pieces: list[dict[str, Any]] = []
    for part in gemini_parts(turn):
        if "text" in part:
            pieces.extend({**part, "text": text} for text in split_chunks(part["text"], chunks))
        else:
            pieces.append(part)
    model = turn.model or model
    prompt_only = {"promptTokenCount": prompt_tokens, "totalTokenCount": prompt_tokens}
    out = [
        _response([piece], model=model, response_id=response_id, usage=prompt_only, finish=None)
        for piece in pieces
    ]
    finish = _FINISH.get(turn.effective_stop_reason, "STOP")
    usage = _usage(prompt_tokens, output_tokens)
    if out:
        out[-1] = _response(
            out[-1]["candidates"][0]["content"]["parts"],
            model=model,
            response_id=response_id,
            usage=usage,
            finish=finish,
        )
    else:
        out.append(
            _response([{"text": ""}], model=model, response_id=response_id, usage=usage, finish=finish)
        )
    return out
