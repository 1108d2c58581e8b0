"""Message threads (the ``message-threads-2026-08-12`` beta): conversations the server holds.

The anthropic SDK's tool runner (2.x) sends ``thread: {"type": "create"}`` with the whole history on its
first request, then ``thread: {"type": "continue", "previous_message_id": <the last reply's id>}`` with
only the new messages, and without ``system`` and ``tools``, which the server keeps from the create.
:class:`ThreadStore` keeps each answered threaded conversation under its reply's id and rebuilds the
whole request a ``continue`` stands for, so it is validated (and recorded) as the conversation the
model would see. Its rejections carry the ``error_code`` the SDK reacts to (``thread_not_found``:
replay the whole history under a new thread; ``thread_already_continued``), in the words of the SDK's
own error types (``ThreadNotFoundErrorDetails``, ``ThreadAlreadyContinuedErrorDetails``).

The statuses are the real API's: a thread that can't be continued is a 404 (the API's docs, "Message
threads": "If the API can no longer continue the thread, a continue request returns a 404 error"; the SDK
raises ``ThreadNotFoundError``, a ``NotFoundError``, only for ``(404, "thread_not_found")``), an
already-continued response a 400 (``(400, "thread_already_continued")``: ``ThreadAlreadyContinuedError``).
No real body of these errors is public: their messages are worded by us from the SDK's docstrings, as
are the other texts here (``docs/wire.md``, "Worded by us").
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_toolharness.wire.model_api._api_error import ApiError

__all__ = ["CREATE_ONLY_FIELDS", "MESSAGE_THREADS_BETA", "ThreadStore"]

MESSAGE_THREADS_BETA = "message-threads-2026-08-12"
"""The beta a request with a ``thread`` field names in ``anthropic-beta``."""
CREATE_ONLY_FIELDS = ("system", "tools")
"""Request fields the server takes from the thread on a ``continue`` (and refuses in the request)."""


@dataclass(frozen=True, slots=True)
class _Held:
    body: Mapping[str, Any]  # the whole request, its reply appended to its messages


class ThreadStore:
    """The conversations held under their replies' ids; thread-safe."""

    def __init__(self) -> None:
        self._held: dict[str, _Held] = {}
        self._continued: set[str] = set()
        self._lock = threading.Lock()

    def resolve(
        self, body: Mapping[str, Any], betas: Sequence[str]
    ) -> tuple[Mapping[str, Any] | None, ApiError | None]:
        """The whole request ``body`` stands for (None when it is not threaded), or why it is refused."""
        if "thread" not in body or body["thread"] is None:
            return None, None
        if MESSAGE_THREADS_BETA not in betas:
            return None, ApiError("thread: Extra inputs are not permitted")
        thread = body["thread"]
        if not isinstance(thread, Mapping) or thread.get("type") not in ("create", "continue"):
            return None, ApiError(
                "thread: Input tag found using 'type' does not match any of the expected tags: 'create', 'continue'"
            )
        whole = {k: v for k, v in body.items() if k != "thread"}
        if thread["type"] == "create":
            return whole, None
        previous = thread.get("previous_message_id")
        if not isinstance(previous, str):
            return None, ApiError("thread.continue.previous_message_id: Field required")
        repeated = [f"`{f}`" for f in CREATE_ONLY_FIELDS if f in body]
        if repeated:
            return None, ApiError(
                f"thread: {' and '.join(repeated)} cannot be sent with `continue`: the Thread keeps the ones it "
                "was created with."
            )
        with self._lock:
            held = self._held.get(previous)
            continued = previous in self._continued
        if held is None:
            return None, ApiError(
                f"No usable Thread state was found for `previous_message_id` {previous}. Replay the full "
                'conversation with `thread: {"type": "create"}` to start a new Thread.',
                type="not_found_error",
                status=404,
                details={"error_code": "thread_not_found"},
            )
        if continued:
            return None, ApiError(
                f"The response that `previous_message_id` names ({previous}) has already been continued, and "
                "each response can be continued only once. Continue from the Thread's most recent response `id`.",
                details={"error_code": "thread_already_continued"},
            )
        messages = body.get("messages")
        new = list(messages) if isinstance(messages, list) else []
        whole.update({f: held.body[f] for f in CREATE_ONLY_FIELDS if f in held.body})
        whole["messages"] = [*held.body["messages"], *new]
        return whole, None

    def hold(
        self, body: Mapping[str, Any], whole: Mapping[str, Any], message_id: str, reply: list[dict[str, Any]]
    ) -> None:
        """Keep the conversation answered with ``reply`` under ``message_id`` (``body`` is what was sent)."""
        thread = body["thread"]
        with self._lock:
            if thread["type"] == "continue":
                self._continued.add(thread["previous_message_id"])
            held = dict(whole)
            held["messages"] = [*whole["messages"], {"role": "assistant", "content": reply}]
            self._held[message_id] = _Held(held)
