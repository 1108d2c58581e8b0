"""``api_server_*``: the scripted server's own time to answer one turn, in every API, against a bare CLI start.

One turn is what a server does between reading a request body and writing the answer: parse the
JSON, validate it as the API would (the whole conversation, every rule), and build the answer's
bytes, streamed (SSE events) as the CLIs ask. The request is a realistic later turn of an agent:
15 tools, a system prompt, 20 rounds of two calls with their outputs; in Chat Completions, Gemini,
Responses, and Responses as Codex sends it (``responses_codex``: ``store: false`` with each round's
reasoning item and its ``encrypted_content``, a client ``tool_search`` call and its output loading a
namespace, calls of the namespaced tools, ``custom`` and ``web_search`` tools offered), whose answer
is a reasoning item and two calls. Baseline: a bare start of
an agent CLI (``gemini --version`` if the Gemini CLI is installed, else ``node --version``, else
``python -c pass``), wall time, the least a check of one scenario costs. Goal: a turn under 5 ms
of CPU, and a small fraction of a CLI start, so a CLI's check is bound by the CLI, not by us.
"""

from __future__ import annotations

import functools
import json
import shutil
import statistics
import subprocess
import sys
import time
from typing import Any

from benchmarks._timing import per_call_seconds
from pytest_toolharness.wire.model_api import (
    AssistantTurn,
    ResponsesDialect,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    chat_answer,
    estimate_tokens,
    gemini_answer,
    gemini_route,
    validate_chat_request,
    validate_gemini_request,
)

__all__ = ["run"]

_ROUNDS = 20
_TOOLS = [f"tool_{n}" for n in range(15)]
_SCHEMA = {"type": "object", "properties": {"path": {"type": "string", "description": "a path " * 10}}}
_SYSTEM = "You are an agent. " * 400
_TURN = AssistantTurn(
    (
        TextBlock("Reading both."),
        ToolUseBlock("call_x1", "tool_1", {"path": "a"}),
        ToolUseBlock("call_x2", "tool_2", {"path": "b"}),
    )
)


def _chat_body() -> dict[str, Any]:
    messages: list[Any] = [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": "go"}]
    for r in range(_ROUNDS):
        ids = (f"call_{r}a", f"call_{r}b")
        calls = [
            {"id": i, "type": "function", "function": {"name": "tool_1", "arguments": '{"path":"x"}'}}
            for i in ids
        ]
        messages.append({"role": "assistant", "content": None, "tool_calls": calls})
        messages.extend({"role": "tool", "tool_call_id": i, "content": "out " * 50} for i in ids)
    tools = [
        {"type": "function", "function": {"name": n, "description": n, "parameters": _SCHEMA}} for n in _TOOLS
    ]
    return {
        "model": "gpt-test",
        "stream": True,
        "stream_options": {"include_usage": True},
        "tools": tools,
        "messages": messages,
    }


def _gemini_body() -> dict[str, Any]:
    contents: list[Any] = [{"role": "user", "parts": [{"text": "go"}]}]
    for _ in range(_ROUNDS):
        parts: list[Any] = [{"functionCall": {"name": "tool_1", "args": {"path": "x"}}} for _ in range(2)]
        parts[0]["thoughtSignature"] = "c2ln"
        contents.append({"role": "model", "parts": parts})
        contents.append(
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": "tool_1", "response": {"output": "out " * 50}}}] * 2,
            }
        )
    tools = [
        {
            "functionDeclarations": [
                {"name": n, "description": n, "parametersJsonSchema": _SCHEMA} for n in _TOOLS
            ]
        }
    ]
    return {"contents": contents, "systemInstruction": {"parts": [{"text": _SYSTEM}]}, "tools": tools}


def _responses_body(*, codex: bool) -> dict[str, Any]:
    tools: list[Any] = [
        {"type": "function", "name": n, "description": n, "parameters": _SCHEMA} for n in _TOOLS
    ]
    items: list[Any] = [{"role": "user", "content": "go"}]
    namespace = None
    if codex:
        tools += [
            {"type": "custom", "name": "apply_patch", "description": "Patch files."},
            {"type": "web_search"},
            {"type": "tool_search", "execution": "client", "parameters": {"type": "object"}},
        ]
        loaded = {
            "type": "namespace",
            "name": "mcp__suite",
            "description": "Tools in the mcp__suite namespace.",
            "tools": [{"type": "function", "name": "echo", "description": "Echo.", "parameters": _SCHEMA}],
        }
        search = {
            "type": "tool_search_call",
            "call_id": "s1",
            "execution": "client",
            "arguments": {"query": "echo"},
        }
        items += [
            search,
            {"type": "tool_search_output", "call_id": "s1", "execution": "client", "tools": [loaded]},
        ]
        namespace = "mcp__suite"
    for r in range(_ROUNDS):
        ids = (f"call_{r}a", f"call_{r}b")
        if codex:
            items.append(
                {"type": "reasoning", "id": f"rs_{r}", "summary": [], "encrypted_content": "c2ln" * 40}
            )
        for i in ids:
            call = {"type": "function_call", "call_id": i, "name": "tool_1", "arguments": '{"path":"x"}'}
            if namespace is not None and i.endswith("b"):
                call.update(name="echo", namespace=namespace)
            items.append(call)
        items.extend({"type": "function_call_output", "call_id": i, "output": "out " * 50} for i in ids)
    body: dict[str, Any] = {
        "model": "gpt-5.5",
        "instructions": _SYSTEM,
        "stream": True,
        "tools": tools,
        "input": items,
    }
    if codex:
        body.update(store=False, include=["reasoning.encrypted_content"], parallel_tool_calls=True)
    return body


_REASONED_TURN = AssistantTurn((ThinkingBlock("Two lookups.", "c2ln"), *_TURN.blocks[1:]))


def _accepted(error: object) -> None:
    if error is not None:
        raise AssertionError(f"benchmark setup: the request was rejected: {error}")


def _chat_turn(raw: bytes) -> object:
    body = json.loads(raw)
    _accepted(validate_chat_request(body))
    return chat_answer(_TURN, body, completion_id="chatcmpl-1", prompt_tokens=estimate_tokens(body))


def _gemini_turn(raw: bytes) -> object:
    route = gemini_route("/v1beta/models/gemini-3-pro-preview:streamGenerateContent")
    if route is None:
        raise AssertionError("benchmark setup: the Gemini path is not routed")
    body = json.loads(raw)
    _accepted(validate_gemini_request(body, route.model))
    return gemini_answer(_TURN, route, response_id="r1", prompt_tokens=estimate_tokens(body))


def _responses_turn(raw: bytes, turn: AssistantTurn = _TURN) -> object:
    # A fresh dialect each turn: a real run's store holds its own few responses, not the benchmark's.
    dialect = ResponsesDialect()
    body = json.loads(raw)
    _accepted(dialect.validate(body))
    return dialect.answer(turn, body, index=1, id_prefix="bench", prompt_tokens=estimate_tokens(body))


def _cli_start_seconds(rounds: int) -> tuple[str, float]:
    for command in (["gemini", "--version"], ["node", "--version"]):
        if shutil.which(command[0]):
            break
    else:
        command = [sys.executable, "-c", "pass"]
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True)
        samples.append(time.perf_counter() - started)
    return " ".join(command), statistics.median(samples)


def run(quick: bool = False) -> dict[str, Any]:
    """Per-turn CPU of each API's answer, and its ratio to a bare CLI start."""
    batch, rounds = (5, 3) if quick else (20, 7)
    command, start_s = _cli_start_seconds(1 if quick else 3)
    figures: dict[str, Any] = {
        "api_server_cli_start_ms": round(start_s * 1000, 1),
        "api_server_cli_start_command": command,
    }
    worst = 0.0
    for api, build, answer in (
        ("chat", _chat_body, _chat_turn),
        ("gemini", _gemini_body, _gemini_turn),
        ("responses", functools.partial(_responses_body, codex=False), _responses_turn),
        (
            "responses_codex",
            functools.partial(_responses_body, codex=True),
            functools.partial(_responses_turn, turn=_REASONED_TURN),
        ),
    ):
        raw = json.dumps(build()).encode()
        seconds = per_call_seconds(functools.partial(answer, raw), batch=batch, rounds=rounds)
        figures[f"api_server_turn_ms_{api}"] = round(seconds * 1000, 3)
        worst = max(worst, seconds)
    figures["api_server_turn_ms_max"] = round(worst * 1000, 3)
    figures["api_server_turn_ratio_vs_cli_start"] = round(worst / start_s, 4)
    return figures
