"""The agent: runs a session's turns on ``anthropic.AsyncAnthropic`` (model, tools, hooks, compaction).

``_loop`` is the loop and the session (what a run returns or raises in ``_results``, when it compacts in
``_compaction``), ``_mcp_client`` connects the MCP servers of ``--mcp-config``,
``_cli`` is ``python -m reference_impl`` with its built-in tools, and ``_prewarm`` a fork server's preload.
"""

from __future__ import annotations

from reference_impl.agent._cli import builtin_tools, main
from reference_impl.agent._compaction import CompactionPolicy
from reference_impl.agent._loop import AgentSession
from reference_impl.agent._mcp_client import (
    McpConfigError,
    McpServerConfig,
    connect_mcp_servers,
    load_mcp_config,
)
from reference_impl.agent._prewarm import prewarm
from reference_impl.agent._results import ApiRequestError, LoopResult

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
    "main",
    "prewarm",
]
