"""The reference tool harness: deferred tool loading and a permission state machine, on the anthropic SDK.

Everything public is re-exported here; the modules that start with ``_`` are implementation.
"""

from __future__ import annotations

from reference_impl._defer import (
    CRITICAL_CHANNEL_TOOLS,
    DEFAULT_AUTO_PERCENT,
    TOOL_SEARCH_TOOL_NAME,
    TokenCounter,
    ToolSearchMode,
    ToolSearchSetting,
    is_deferred_tool,
    is_tool_search_enabled,
    model_supports_tool_reference,
    parse_enable_tool_search,
)
from reference_impl._names import McpName, mcp_tool_name, normalize_name_for_mcp, parse_mcp_name
from reference_impl._pool import ToolDenyFilter, assemble_tool_pool, find_tool_by_name
from reference_impl._tool import (
    DEFAULT_MAX_RESULT_SIZE_CHARS,
    UNLIMITED,
    DescriptionContext,
    McpInfo,
    PermissionTarget,
    Tool,
    ToolCall,
    ToolContext,
    ToolError,
    ToolOutput,
    ToolPermissionCheck,
    ToolProgress,
    ValidationResult,
    build_tool,
    mcp_tool,
)
from reference_impl._transcript import (
    CompactBoundary,
    DeferredToolsDelta,
    TranscriptEntry,
    system_reminder,
    to_api_messages,
)

__all__ = [
    "CRITICAL_CHANNEL_TOOLS",
    "DEFAULT_AUTO_PERCENT",
    "DEFAULT_MAX_RESULT_SIZE_CHARS",
    "TOOL_SEARCH_TOOL_NAME",
    "UNLIMITED",
    "CompactBoundary",
    "DeferredToolsDelta",
    "DescriptionContext",
    "McpInfo",
    "McpName",
    "PermissionTarget",
    "TokenCounter",
    "Tool",
    "ToolCall",
    "ToolContext",
    "ToolDenyFilter",
    "ToolError",
    "ToolOutput",
    "ToolPermissionCheck",
    "ToolProgress",
    "ToolSearchMode",
    "ToolSearchSetting",
    "TranscriptEntry",
    "ValidationResult",
    "assemble_tool_pool",
    "build_tool",
    "find_tool_by_name",
    "is_deferred_tool",
    "is_tool_search_enabled",
    "mcp_tool",
    "mcp_tool_name",
    "model_supports_tool_reference",
    "normalize_name_for_mcp",
    "parse_enable_tool_search",
    "parse_mcp_name",
    "system_reminder",
    "to_api_messages",
]
