"""Tools: what a tool declares (:class:`Tool`), MCP names, the pool the model sees, and which tools are deferred.

The bottom layer: nothing here imports another subpackage.
"""

from __future__ import annotations

from reference_impl.tools._defer import (
    CRITICAL_CHANNEL_TOOLS,
    TOOL_SEARCH_TOOL_NAME,
    TokenCounter,
    ToolSearchMode,
    ToolSearchSetting,
    is_deferred_tool,
    is_tool_search_enabled,
    model_supports_tool_reference,
    parse_enable_tool_search,
    tool_state,
)
from reference_impl.tools._names import (
    MCP_PREFIX,
    McpName,
    mcp_tool_name,
    normalize_name_for_mcp,
    parse_mcp_name,
)
from reference_impl.tools._pool import (
    ToolDenyFilter,
    assemble_tool_pool,
    find_tool_by_name,
)
from reference_impl.tools._tool import (
    DEFAULT_MAX_RESULT_SIZE_CHARS,
    UNLIMITED,
    ContextModifier,
    DescriptionContext,
    McpInfo,
    PermissionTarget,
    Tool,
    ToolCall,
    ToolContext,
    ToolError,
    ToolInput,
    ToolOutput,
    ToolPermissionCheck,
    ToolProgress,
    ToolState,
    ValidationResult,
    build_tool,
    mcp_tool,
)

__all__ = [
    "CRITICAL_CHANNEL_TOOLS",
    "DEFAULT_MAX_RESULT_SIZE_CHARS",
    "MCP_PREFIX",
    "TOOL_SEARCH_TOOL_NAME",
    "UNLIMITED",
    "ContextModifier",
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
    "ToolInput",
    "ToolOutput",
    "ToolPermissionCheck",
    "ToolProgress",
    "ToolSearchMode",
    "ToolSearchSetting",
    "ToolState",
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
    "tool_state",
]
