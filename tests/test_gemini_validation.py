"""Gemini generateContent validation: every PROTOCOLS.md Gemini rule answered with Google's 400 body."""

from __future__ import annotations

from typing import Any

import pytest
from google.genai import types
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_toolharness.wire.model_api._gemini_validation import validate_gemini_request
from pytest_toolharness.wire.model_api._provider_errors import GoogleError

MODEL = "gemini-3-pro-preview"


def user(text: str = "read two files") -> dict[str, Any]:
    return {"role": "user", "parts": [{"text": text}]}


def calls(*names: str, signature: str | None = "c2ln") -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"functionCall": {"name": name, "args": {}}} for name in names]
    if parts and signature is not None:
        parts[0]["thoughtSignature"] = signature
    return {"role": "model", "parts": parts}


def responses(*names: str) -> dict[str, Any]:
    return {
        "role": "user",
        "parts": [{"functionResponse": {"name": n, "response": {"output": "ok"}}} for n in names],
    }


def request(*contents: dict[str, Any], names: tuple[str, ...] = ("read",)) -> dict[str, Any]:
    declarations = [{"name": n, "description": n, "parameters": {"type": "OBJECT"}} for n in names]
    body = {"contents": list(contents), "tools": [{"functionDeclarations": declarations}]}
    # What we build is what google-genai would send: it parses as the SDK's own request types.
    types.GenerateContentConfig.model_validate({"tools": body["tools"]})
    for content in body["contents"]:
        types.Content.model_validate(content)
    return body


def rejected(body: dict[str, Any], model: str = MODEL) -> str:
    error = validate_gemini_request(body, model)
    assert isinstance(error, GoogleError), "expected the request to be rejected"
    wire = error.body("req_1")
    assert wire == {"error": {"code": 400, "message": error.message, "status": "INVALID_ARGUMENT"}}
    return error.message


def test_a_valid_conversation_is_accepted() -> None:
    body = request(
        user(), calls("read", "read"), responses("read", "read"), {"role": "model", "parts": [{"text": "ok"}]}
    )
    assert validate_gemini_request(body, MODEL) is None


def test_g_count() -> None:
    """G-COUNT: two calls, one response."""
    assert rejected(request(user(), calls("read", "read"), responses("read"))) == (
        "Please ensure that the number of function response parts is equal to the number of function call "
        "parts of the function call turn."
    )


def test_g_next() -> None:
    """G-NEXT: a response turn that follows no call turn."""
    assert rejected(request(user(), {"role": "model", "parts": [{"text": "hm"}]}, responses("read"))) == (
        "Please ensure that function response turn comes immediately after a function call turn."
    )


def test_g_order() -> None:
    """G-ORDER: a call turn right after a model turn."""
    body = request(
        user(), {"role": "model", "parts": [{"text": "let me look"}]}, calls("read"), responses("read")
    )
    assert rejected(body) == (
        "Please ensure that function call turn comes immediately after a user turn or after a function "
        "response turn."
    )


def test_g_sig() -> None:
    """G-SIG: a Gemini 3 call of the current turn replayed without its thoughtSignature."""
    body = request(user(), calls("read"), responses("read"), calls("read", signature=None), responses("read"))
    message = rejected(body)
    assert message.startswith(
        "Function call is missing a thought_signature in functionCall parts. This is required for tools to work "
        "correctly, and missing thought_signature may lead to degraded model performance. Additional data, "
        "function call `default_api:read` , position 4."
    )


def test_g_sig_applies_to_the_current_turn_and_gemini_3_only() -> None:
    """G-SIG: earlier turns (before the last user text) and Gemini 2.5 models are not checked."""
    old_turn = request(user(), calls("read", signature=None), responses("read"), user("next"))
    assert validate_gemini_request(old_turn, MODEL) is None
    current = request(user(), calls("read", signature=None), responses("read"))
    assert validate_gemini_request(current, "gemini-2.5-pro") is None


@pytest.mark.parametrize("name", ["1read", "read files", "r" * 65, "mcp:read", ""])
def test_g_name(name: str) -> None:
    """G-NAME: a declaration name not starting with a letter or _, with other characters, or too long."""
    body = {"contents": [user()], "tools": [{"functionDeclarations": [{"name": "ok"}, {"name": name}]}]}
    assert rejected(body) == (
        "* GenerateContentRequest.tools[0].function_declarations[1].name: Invalid function name. Must start with "
        "a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.) or dashes (-), "
        "with a maximum length of 64.\n"
    )


@pytest.mark.parametrize("name", ["_read", "mcp.files-read_2", "r" * 64])
def test_g_name_accepts_what_google_accepts(name: str) -> None:
    assert (
        validate_gemini_request(
            {"contents": [user()], "tools": [{"functionDeclarations": [{"name": name}]}]}, MODEL
        )
        is None
    )


@st.composite
def conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A valid Gemini conversation: user, then rounds of a signed call turn and as many responses."""
    contents = [user()]
    for _ in range(draw(st.integers(0, 4))):
        count = draw(st.integers(1, 4))
        contents += [calls(*["read"] * count), responses(*["read"] * count)]
        if draw(st.booleans()):
            contents += [{"role": "model", "parts": [{"text": "done"}]}, user("again")]
    return contents


@settings(max_examples=60, deadline=None)
@given(conversations())
def test_valid_conversations_are_accepted(contents: list[dict[str, Any]]) -> None:
    """Property (PAIR-1, PAIR-8): each call turn answered by as many responses, signatures kept: accepted."""
    assert validate_gemini_request(request(*contents), MODEL) is None


@settings(max_examples=60, deadline=None)
@given(conversations(), st.data())
def test_a_dropped_response_part_is_g_count(contents: list[dict[str, Any]], data: st.DataObject) -> None:
    """Property (PAIR-1, G-COUNT): removing one functionResponse part of any response turn is rejected."""
    answered = [c for c in contents if "functionResponse" in c["parts"][0]]
    if not answered:
        return
    turn = data.draw(st.sampled_from(answered))
    turn["parts"].pop()
    if not turn["parts"]:
        turn["parts"].append({"text": "no results"})  # a turn with no parts is a different error
    assert rejected(request(*contents)).startswith("Please ensure that the number of function response parts")
