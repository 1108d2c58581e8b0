"""What a session's run returns or raises, and the assistant's blocks as they go back to the API."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import anthropic

from reference_impl.hooks import HookError
from reference_impl.request import TranscriptEntry

__all__ = ["ApiRequestError", "LoopResult", "block_param", "text_of"]


class ApiRequestError(RuntimeError):
    """The Messages API refused a request; carries the HTTP status and the API's own message."""

    def __init__(self, status_code: int, message: str, *, request_id: str | None = None) -> None:
        self.status_code = status_code
        self.api_message = message
        self.request_id = request_id
        where = f" (request {request_id})" if request_id else ""
        super().__init__(f"the Messages API answered {status_code}{where}: {message}")

    @classmethod
    def from_sdk(cls, error: anthropic.APIStatusError) -> ApiRequestError:
        """Wrap an SDK error, pulling ``error.message`` out of the API's error body."""
        body = error.body
        message = error.message
        if isinstance(body, Mapping):
            inner = body.get("error")
            if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
                message = str(inner["message"])
        return cls(error.status_code, message, request_id=error.request_id)


@dataclass(frozen=True, slots=True)
class LoopResult:
    """How one :meth:`AgentSession.run` ended.

    ``text`` is the text of the last assistant message; ``stop_reason`` the API's last stop reason,
    or ``"max_turns"`` / ``"aborted"``, ``"hook_stopped"`` (a hook's ``continue: false``) or
    ``"prompt_blocked"`` (a UserPromptSubmit hook blocked the prompt); ``turns`` the number of requests
    made; ``transcript`` the whole transcript afterwards.

    What hooks said to the user, never to the model (HOOK-5): ``system_messages`` (their
    ``systemMessage`` values and the stderr of an exit 2 where it can't block), ``hook_stop_reason``
    (the ``stopReason`` of the ``continue: false`` that stopped the loop), ``prompt_block_reason``,
    and ``hook_errors`` (non-blocking failures).
    """

    text: str
    stop_reason: str
    turns: int
    transcript: tuple[TranscriptEntry, ...]
    system_messages: tuple[str, ...] = ()
    hook_stop_reason: str = ""
    prompt_block_reason: str = ""
    hook_errors: tuple[HookError, ...] = ()


def block_param(block: Any) -> dict[str, Any]:
    """An assistant content block of the SDK as the ``*BlockParam`` dict sent back next time."""
    kind = block.type
    if kind == "text":
        return {"type": "text", "text": block.text}
    if kind == "thinking":
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
    if kind == "redacted_thinking":
        return {"type": "redacted_thinking", "data": block.data}
    if kind == "tool_use":
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": dict(block.input)}
    # Server tool blocks and the like go back as the API sent them.
    return cast(dict[str, Any], block.to_dict())


def text_of(blocks: Sequence[Mapping[str, Any]]) -> str:
    return "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
