"""Error answers in the OpenAI and Google shapes: the body a Chat Completions or Gemini 400 carries.

:class:`~pytest_toolharness.wire.model_api._api_error.ApiError` answers in the Messages API's shape;
these subclasses keep its status and message and render the other providers' bodies, so a dialect's
``validate`` still returns an ``ApiError``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_toolharness.wire.model_api._api_error import ApiError

__all__ = ["GoogleError", "OpenAIError", "openai_error_body"]

#: Google's canonical status names for the HTTP statuses a scripted server answers with.
_GOOGLE_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


@dataclass(frozen=True, slots=True)
class OpenAIError(ApiError):
    """``{"error": {"message", "type", "param", "code"}}``, as api.openai.com answers a bad request."""

    param: str | None = None
    code: str | None = None

    def body(self, request_id: str) -> dict[str, Any]:
        """The JSON body: OpenAI sends no request id in it (it is the ``x-request-id`` header)."""
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}


def openai_error_body(error: ApiError, request_id: str) -> dict[str, Any]:
    """Any :class:`ApiError` (a scripted 529 too) in OpenAI's shape."""
    if isinstance(error, OpenAIError):
        return error.body(request_id)
    return OpenAIError(error.message, type=error.type, status=error.status).body(request_id)


@dataclass(frozen=True, slots=True)
class GoogleError(ApiError):
    """``{"error": {"code": 400, "message", "status": "INVALID_ARGUMENT"}}``, as the Gemini API answers."""

    def body(self, request_id: str) -> dict[str, Any]:
        """The JSON body, its ``status`` the canonical name of the HTTP status."""
        status = _GOOGLE_STATUS.get(self.status, "UNKNOWN")
        return {"error": {"code": self.status, "message": self.message, "status": status}}
