"""The scripted model API: a server (and an in-process endpoint) that answers with scripted turns.

Scripts, turns, error answers and the wire encoding are API-neutral; the Messages API has one module
per job: ``_messages`` (endpoints, token counts), ``_messages_validation`` and ``_messages_sse``.
OpenAI Chat Completions (``_chat``, ``_chat_validation``, ``_chat_sse``), OpenAI Responses
(``_responses``, ``_responses_validation``, ``_responses_sse``, with ``_responses_store`` keeping the
responses answered) and Gemini (``_gemini``, ``_gemini_validation``, ``_gemini_sse``) follow the same
pattern; ``_provider_errors`` renders their error bodies.
"""

from __future__ import annotations

from pytest_toolharness.wire.model_api._api_error import ApiError
from pytest_toolharness.wire.model_api._chat import CHAT_COMPLETIONS_PATH, chat_answer, chat_neutral_request
from pytest_toolharness.wire.model_api._chat_validation import chat_checker_violations, validate_chat_request
from pytest_toolharness.wire.model_api._encoding import wire_bytes, wire_json
from pytest_toolharness.wire.model_api._endpoint import ENDPOINT_BASE_URL, ScriptedEndpoint, tool_use_turn
from pytest_toolharness.wire.model_api._gemini import (
    GeminiRoute,
    gemini_answer,
    gemini_neutral_request,
    gemini_route,
)
from pytest_toolharness.wire.model_api._gemini_validation import validate_gemini_request
from pytest_toolharness.wire.model_api._messages import (
    COUNT_TOKENS_PATH,
    MESSAGES_PATH,
    TokenCounter,
    estimate_tokens,
)
from pytest_toolharness.wire.model_api._messages_validation import (
    validate_count_tokens_request,
    validate_messages_request,
)
from pytest_toolharness.wire.model_api._provider_errors import GoogleError, OpenAIError
from pytest_toolharness.wire.model_api._recording import RecordedRequest
from pytest_toolharness.wire.model_api._responses import (
    RESPONSES_PATH,
    ResponsesDialect,
    responses_neutral_request,
)
from pytest_toolharness.wire.model_api._responses_store import ResponseStore
from pytest_toolharness.wire.model_api._responses_validation import (
    responses_checker_violations,
    validate_responses_request,
)
from pytest_toolharness.wire.model_api._script import EXHAUSTED_TEXT, Script, ScriptItem, ScriptSource
from pytest_toolharness.wire.model_api._server import LOOPBACK_HOST, ScriptedApiServer
from pytest_toolharness.wire.model_api._turns import (
    STOP_REASONS,
    AssistantTurn,
    ContentBlock,
    StopReason,
    StreamFault,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    ToolUseIds,
    tool_use_id,
)

__all__ = [
    "CHAT_COMPLETIONS_PATH",
    "COUNT_TOKENS_PATH",
    "ENDPOINT_BASE_URL",
    "EXHAUSTED_TEXT",
    "LOOPBACK_HOST",
    "MESSAGES_PATH",
    "RESPONSES_PATH",
    "STOP_REASONS",
    "ApiError",
    "AssistantTurn",
    "ContentBlock",
    "GeminiRoute",
    "GoogleError",
    "OpenAIError",
    "RecordedRequest",
    "ResponseStore",
    "ResponsesDialect",
    "Script",
    "ScriptItem",
    "ScriptSource",
    "ScriptedApiServer",
    "ScriptedEndpoint",
    "StopReason",
    "StreamFault",
    "TextBlock",
    "ThinkingBlock",
    "TokenCounter",
    "ToolUseBlock",
    "ToolUseIds",
    "chat_answer",
    "chat_checker_violations",
    "chat_neutral_request",
    "estimate_tokens",
    "gemini_answer",
    "gemini_neutral_request",
    "gemini_route",
    "responses_checker_violations",
    "responses_neutral_request",
    "tool_use_id",
    "tool_use_turn",
    "validate_chat_request",
    "validate_count_tokens_request",
    "validate_gemini_request",
    "validate_messages_request",
    "validate_responses_request",
    "wire_bytes",
    "wire_json",
]
