"""The agent: the loop on ``anthropic.AsyncAnthropic``, the MCP client, and ``python -m reference_impl``."""

from __future__ import annotations

from reference_impl.agent._cli import builtin_tools
from reference_impl.agent._loop import (
    AgentSession,
    ApiRequestError,
    CompactionPolicy,
    LoopResult,
)
from reference_impl.agent._mcp_client import (
    McpConfigError,
    McpServerConfig,
    connect_mcp_servers,
    load_mcp_config,
)

__all__ = [
    "AgentSession",
    "ApiRequestError",
    "CompactionPolicy",
    "LoopResult",
    "McpConfigError",
    "McpServerConfig",
    "builtin_tools",
    "connect_mcp_servers",
    "load_mcp_config",
]
