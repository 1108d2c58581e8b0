"""What Gemini's ``generateContent`` rejects, with the 400 body Google sends.

PROTOCOLS.md's Gemini rules, each answered with its documented text in ``{"error": {"code": 400,
"message", "status": "INVALID_ARGUMENT"}}``: G-NAME (function declaration names), G-ORDER (a call
turn follows a user turn or a response turn), G-NEXT (a response turn follows a call turn), G-COUNT
(as many ``functionResponse`` parts as the call turn had ``functionCall`` parts) and G-SIG (on a
Gemini 3 model, the ``thoughtSignature`` of the first ``functionCall`` part of each step of the
current turn comes back).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_toolharness.wire.model_api._provider_errors import GoogleError

__all__ = ["SIGNATURE_MODELS", "validate_gemini_request"]

#: The models whose function calls carry a thought signature that must come back (G-SIG).
SIGNATURE_MODELS = re.compile(r"gemini-3")
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{0,63}")


def _is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray)


def _field(message: str, where: str) -> GoogleError:
    # Google prefixes a field error with the path in the request message and ends it with a newline.
    return GoogleError(f"* GenerateContentRequest.{where}: {message}\n")


def _declarations(body: Mapping[str, Any]) -> GoogleError | None:
    tools = body.get("tools")
    if tools is None:
        return None
    if not _is_list(tools):
        return GoogleError(
            'Invalid JSON payload received. Unknown name "tools": Proto field is not repeating.'
        )
    for t, tool in enumerate(tools):
        if not isinstance(tool, Mapping):
            return _field("must be an object", f"tools[{t}]")
        declarations = tool.get("functionDeclarations", tool.get("function_declarations")) or ()
        for d, declaration in enumerate(declarations if _is_list(declarations) else ()):
            name = declaration.get("name") if isinstance(declaration, Mapping) else None
            if not isinstance(name, str) or _NAME_RE.fullmatch(name) is None:  # G-NAME
                return _field(
                    "Invalid function name. Must start with a letter or an underscore. Must be alphameric "
                    "(a-z, A-Z, 0-9), underscores (_), dots (.) or dashes (-), with a maximum length of 64.",
                    f"tools[{t}].function_declarations[{d}].name",
                )
    return None


def _parts(content: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    return [p for p in content["parts"] if isinstance(p, Mapping) and isinstance(p.get(key), Mapping)]


def _shape(contents: Any) -> GoogleError | None:
    if not _is_list(contents) or not contents:
        return _field("contents is not specified", "contents")
    for c, content in enumerate(contents):
        if not isinstance(content, Mapping):
            return _field("must be an object", f"contents[{c}]")
        if content.get("role", "user") not in ("user", "model", "function"):
            return GoogleError(
                f"Please use a valid role: user, model. Got {content.get('role')!r} at contents[{c}]."
            )
        if not _is_list(content.get("parts")) or not content["parts"]:
            return _field("contents.parts must not be empty.", f"contents[{c}].parts")
    return None


def _pairing(contents: Sequence[Mapping[str, Any]], signed: bool) -> GoogleError | None:
    # The current turn starts after the last user content that is not only function responses.
    current = 0
    for c, content in enumerate(contents):
        if content.get("role", "user") != "model" and not _parts(content, "functionResponse"):
            current = c
    for c, content in enumerate(contents):
        calls = _parts(content, "functionCall")
        responses = _parts(content, "functionResponse")
        previous = contents[c - 1] if c else None
        previous_calls = _parts(previous, "functionCall") if previous is not None else []
        if calls:
            if previous is not None and previous.get("role", "user") == "model":  # G-ORDER
                return GoogleError(
                    "Please ensure that function call turn comes immediately after a user turn or after a "
                    "function response turn."
                )
            if signed and c > current and not calls[0].get("thoughtSignature"):  # G-SIG
                name = calls[0]["functionCall"].get("name")
                return GoogleError(
                    "Function call is missing a thought_signature in functionCall parts. This is required "
                    "for tools to work correctly, and missing thought_signature may lead to degraded model "
                    f"performance. Additional data, function call `default_api:{name}` , position {c + 1}. "
                    "Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
                )
            if c + 1 < len(contents):
                answered = _parts(contents[c + 1], "functionResponse")
                if len(answered) != len(calls):  # G-COUNT
                    return GoogleError(
                        "Please ensure that the number of function response parts is equal to the number of "
                        "function call parts of the function call turn."
                    )
        if responses and not previous_calls:  # G-NEXT
            return GoogleError(
                "Please ensure that function response turn comes immediately after a function call turn."
            )
    return None


def validate_gemini_request(body: Any, model: str) -> GoogleError | None:
    """The first reason the Gemini API would reject ``body`` (a ``generateContent`` request for ``model``)."""
    if not isinstance(body, Mapping):
        return GoogleError("Invalid JSON payload received. Expected an object.")
    error = _shape(body.get("contents"))
    if error is not None:
        return error
    error = _declarations(body)
    if error is not None:
        return error
    return _pairing(body["contents"], SIGNATURE_MODELS.search(model) is not None)
