"""A request of another API seen in the Messages API's shape, so the suite's wire checks read it as they are.

The API-neutral view of a Chat Completions, Responses or Gemini request (``chat_neutral_request``,
``responses_neutral_request``, ``gemini_neutral_request``) becomes a Messages body: the tools with
their description and schema, the system text, and each turn as a message: an assistant turn's
reasoning that carries a signature (a Responses reasoning item's ``encrypted_content``, a Gemini
``thoughtSignature``) as ``thinking`` blocks first, its calls as ``tool_use`` blocks (id,
name, input), a user turn's outputs as ``tool_result`` blocks first (their text, or their ``blocks``
when an output holds an image), with ``is_error: true`` where
the API marks a failure (Gemini's ``{"error": ...}`` response). Chat Completions and Responses have no
mark: there an output whose text says the call failed (:data:`SAYS_FAILED`: error, failed, denied,
blocked, rejected, refused, forbidden, unsupported, invalid, not found, not allowed) is the failure
result PAIR-3 asks for on such APIs, and gets ``is_error: true``. A Gemini call sent
without an id gets ``gemini_<turn>_<part>``, and its response (which then names no id either) the
id of the call at its position, as Gemini pairs them by count.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["SAYS_FAILED", "view_as_messages_body"]

#: Words by which an output of an API without a failure mark says the call failed (PAIR-3).
SAYS_FAILED = re.compile(
    r"\b(errors?|fail(s|ed|ure)?|denied|blocked|rejected|refused|forbid(s|den)?|unsupported|invalid|"
    r"not found|not allowed)\b",
    re.IGNORECASE,
)
#: The APIs whose tool outputs carry no failure mark.
_UNMARKED_APIS = ("chat", "responses")


def _output_text(text: str, api: str) -> str:
    if api != "gemini":
        return text
    # Gemini's response is an object: {"output": ...} or {"error": ...} as the CLIs send it.
    try:
        value = json.loads(text) if text else ""
    except ValueError:
        return text
    if isinstance(value, Mapping) and len(value) == 1:
        (only,) = value.values()
        if isinstance(only, str):
            return only
    return text


def _messages(view: Mapping[str, Any]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    previous_ids: list[str] = []
    api = str(view["api"])
    for t, turn in enumerate(view["turns"]):
        blocks: list[dict[str, Any]] = []
        if turn["role"] == "assistant":
            blocks.extend(
                {"type": "thinking", "thinking": str(r.get("thought") or ""), "signature": r["signature"]}
                for r in turn["reasoning"]
                if isinstance(r.get("signature"), str) and r["signature"]
            )
            if turn["text"]:
                blocks.append({"type": "text", "text": turn["text"]})
            previous_ids = []
            for k, call in enumerate(turn["calls"]):
                call_id = call["id"] if isinstance(call["id"], str) and call["id"] else f"gemini_{t}_{k}"
                previous_ids.append(call_id)
                call_input = (
                    call["input"] if isinstance(call["input"], Mapping) else {"arguments": call["input"]}
                )
                blocks.append(
                    {"type": "tool_use", "id": call_id, "name": call["name"], "input": dict(call_input)}
                )
        else:
            for k, output in enumerate(turn["outputs"]):
                call_id = output["call_id"]
                if call_id not in previous_ids and api == "gemini" and k < len(previous_ids):
                    call_id = previous_ids[k]
                result: dict[str, Any] = {
                    "type": "tool_result",
                    "tool_use_id": call_id,
                    "content": output.get("blocks") or _output_text(output["text"], api),
                }
                says_failed = api in _UNMARKED_APIS and SAYS_FAILED.search(output["text"]) is not None
                if output["is_error"] or says_failed:
                    result["is_error"] = True
                blocks.append(result)
            if turn["text"]:
                blocks.append({"type": "text", "text": turn["text"]})
        if messages and messages[-1]["role"] == turn["role"]:
            messages[-1]["content"].extend(blocks)  # the Messages API alternates roles
        elif blocks:
            messages.append({"role": turn["role"], "content": blocks})
    return messages


def view_as_messages_body(view: Mapping[str, Any], body: Mapping[str, Any]) -> dict[str, Any]:
    """The API-neutral ``view`` of ``body`` (a request of ``view["api"]``) as a Messages body."""
    api = str(view["api"])
    result: dict[str, Any] = {"model": str(body.get("model", api)), "max_tokens": 1}
    if view["system"]:
        result["system"] = view["system"]
    result["tools"] = [dict(tool) for tool in view["tools"]]
    result["messages"] = _messages(view)
    return result
