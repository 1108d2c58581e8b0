"""OpenAI Chat Completions as the scripted server answers it: ``POST /v1/chat/completions``.

A turn goes back as a ``chat.completion`` or, for ``"stream": true``, as ``chat.completion.chunk``
events (:mod:`~pytest_toolharness.wire.model_api._chat_sse`); a request the API would reject gets
its 400 (:mod:`~pytest_toolharness.wire.model_api._chat_validation`). Point the ``openai`` SDK (or
anything speaking Chat Completions) at ``<base_url>/v1``: ``OPENAI_BASE_URL``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolharness.wire.model_api._chat_sse import (
    DONE_EVENT,
    chat_completion_json,
    chat_stream_chunks,
    encode_data,
)
from pytest_toolharness.wire.model_api._encoding import wire_bytes
from pytest_toolharness.wire.model_api._messages import output_tokens
from pytest_toolharness.wire.model_api._messages_sse import DEFAULT_CHUNKS
from pytest_toolharness.wire.model_api._turns import AssistantTurn

__all__ = ["CHAT_COMPLETIONS_PATH", "chat_answer", "include_usage"]

CHAT_COMPLETIONS_PATH = "/v1/chat/completions"


def include_usage(body: Mapping[str, Any]) -> bool:
    """True when a streamed request asked for the usage chunk (``stream_options.include_usage``)."""
    options = body.get("stream_options")
    return isinstance(options, Mapping) and options.get("include_usage") is True


def chat_answer(
    turn: AssistantTurn,
    body: Mapping[str, Any],
    *,
    completion_id: str,
    prompt_tokens: int,
    chunks: int = DEFAULT_CHUNKS,
) -> bytes | tuple[bytes, ...]:
    """The answer to a Chat Completions request: the completion's bytes, or its SSE events ending ``[DONE]``."""
    model = str(body.get("model", ""))
    completion_tokens = output_tokens(turn)
    if body.get("stream") is True:
        events = chat_stream_chunks(
            turn,
            completion_id=completion_id,
            model=model,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            include_usage=include_usage(body),
            chunks=chunks,
        )
        return (*(encode_data(event) for event in events), DONE_EVENT)
    return wire_bytes(
        chat_completion_json(
            turn,
            completion_id=completion_id,
            model=model,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
        )
    )
