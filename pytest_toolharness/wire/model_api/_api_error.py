"""An error answer of a scripted model API: what a script or a failed validation answers with."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["ApiError"]


@dataclass(frozen=True, slots=True)
class ApiError:
    """An error answer in the API's shape: HTTP ``status`` and ``{"type": "error", "error": {...}}``.

    Used for validation failures (400 ``invalid_request_error``) and, in a script, to make the server
    answer with an error such as ``ApiError("Overloaded", type="overloaded_error", status=529)``.
    ``details`` is the error's ``details`` object when it has one (``{"error_code": "thread_not_found"}``).
    """

    message: str
    type: str = "invalid_request_error"
    status: int = 400
    details: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.message, str) or not isinstance(self.type, str) or not self.type:
            raise TypeError("ApiError.message and .type must be str (type non-empty)")
        if not isinstance(self.status, int) or not 400 <= self.status <= 599:
            raise ValueError(f"ApiError.status must be an HTTP error status 400..599, got {self.status!r}")

    def body(self, request_id: str) -> dict[str, Any]:
        """The JSON body the API sends for this error."""
        error: dict[str, Any] = {"type": self.type, "message": self.message}
        if self.details is not None:
            error["details"] = dict(self.details)
        return {"type": "error", "error": error, "request_id": request_id}
