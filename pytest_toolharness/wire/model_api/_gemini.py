"""Gemini's ``generateContent`` as the scripted server answers it.

``POST /v1beta/models/{model}:generateContent`` gets a ``GenerateContentResponse``;
``:streamGenerateContent?alt=sse`` gets a stream of them
(:mod:`~pytest_toolharness.wire.model_api._gemini_sse`); ``:countTokens`` gets ``{"totalTokens"}``.
A request the API would reject gets Google's 400
(:mod:`~pytest_toolharness.wire.model_api._gemini_validation`). Point google-genai or the Gemini
CLI at the server's base URL: ``GOOGLE_GEMINI_BASE_URL``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_toolharness.wire.model_api._encoding import wire_bytes
from pytest_toolharness.wire.model_api._gemini_sse import (
    encode_gemini_sse,
    gemini_response_json,
    gemini_stream_responses,
)
from pytest_toolharness.wire.model_api._messages import output_tokens
from pytest_toolharness.wire.model_api._messages_sse import DEFAULT_CHUNKS
from pytest_toolharness.wire.model_api._turns import AssistantTurn

__all__ = ["GEMINI_METHODS", "GeminiRoute", "gemini_answer", "gemini_route"]

#: The model methods the scripted server answers.
GEMINI_METHODS = ("generateContent", "streamGenerateContent", "countTokens")
_PATH = re.compile(r"/(?:v1beta|v1|v1alpha)/models/(?P<model>[^/:]+):(?P<method>[A-Za-z]+)")


@dataclass(frozen=True, slots=True)
class GeminiRoute:
    """What a Gemini request path names: the model and the method (``generateContent``, ...)."""

    model: str
    method: str

    @property
    def stream(self) -> bool:
        """True for ``streamGenerateContent``."""
        return self.method == "streamGenerateContent"


def gemini_route(path: str) -> GeminiRoute | None:
    """The model and method of ``/v1beta/models/{model}:{method}``, or None for another path or method."""
    match = _PATH.fullmatch(path)
    if match is None or match["method"] not in GEMINI_METHODS:
        return None
    return GeminiRoute(match["model"], match["method"])


def gemini_answer(
    turn: AssistantTurn,
    route: GeminiRoute,
    *,
    response_id: str,
    prompt_tokens: int,
    chunks: int = DEFAULT_CHUNKS,
) -> bytes | tuple[bytes, ...]:
    """The answer: the response's bytes, or the streamed responses' SSE events."""
    out = output_tokens(turn)
    if route.stream:
        responses = gemini_stream_responses(
            turn,
            model=route.model,
            response_id=response_id,
            prompt_tokens=prompt_tokens,
            output_tokens=out,
            chunks=chunks,
        )
        return tuple(encode_gemini_sse(response) for response in responses)
    return wire_bytes(
        gemini_response_json(
            turn,
            model=route.model,
            response_id=response_id,
            prompt_tokens=prompt_tokens,
            output_tokens=out,
        )
    )
