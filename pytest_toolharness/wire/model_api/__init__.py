"""The scripted model API: a server (and an in-process endpoint) that answers with scripted turns.

Scripts, turns, error answers and the wire encoding are API-neutral; the Messages API has one module
per job: ``_messages`` (endpoints, token counts), ``_messages_validation`` and ``_messages_sse``. The
HTTP server and the recorded requests still route and read Messages requests themselves: a second API
adds its modules and a branch there.
"""

from __future__ import annotations

from pytest_toolharness.wire.model_api._api_error import ApiError
from pytest_toolharness.wire.model_api._encoding import wire_bytes, wire_json
from pytest_toolharness.wire.model_api._endpoint import ENDPOINT_BASE_URL, ScriptedEndpoint, tool_use_turn
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
from pytest_toolharness.wire.model_api._recording import RecordedRequest
from pytest_toolharness.wire.model_api._script import EXHAUSTED_TEXT, Script, ScriptItem, ScriptSource
from pytest_toolharness.wire.model_api._server import LOOPBACK_HOST, ScriptedApiServer
from pytest_toolharness.wire.model_api._turns import (
    STOP_REASONS,
    AssistantTurn,
    ContentBlock,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    ToolUseIds,
    tool_use_id,
)

__all__ = [
    "COUNT_TOKENS_PATH",
    "ENDPOINT_BASE_URL",
    "EXHAUSTED_TEXT",
    "LOOPBACK_HOST",
    "MESSAGES_PATH",
    "STOP_REASONS",
    "ApiError",
    "AssistantTurn",
    "ContentBlock",
    "RecordedRequest",
    "Script",
    "ScriptItem",
    "ScriptSource",
    "ScriptedApiServer",
    "ScriptedEndpoint",
    "StopReason",
    "TextBlock",
    "ThinkingBlock",
    "TokenCounter",
    "ToolUseBlock",
    "ToolUseIds",
    "estimate_tokens",
    "tool_use_id",
    "tool_use_turn",
    "validate_count_tokens_request",
    "validate_messages_request",
    "wire_bytes",
    "wire_json",
]
