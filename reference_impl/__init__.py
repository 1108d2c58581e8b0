"""The reference tool harness: deferred tool loading and a permission state machine, on the anthropic SDK.

The top level carries what building a harness starts from: declaring tools and assembling the pool,
the permission context and decision, settings, hooks, the request builder, running tool uses, the
ToolSearch tool, the sandboxed shell and its settings, the agent session, the wire encoding, and the
errors a caller catches. Every other public name is in the
``__all__`` of its subpackage, one per layer of the design documents:

- ``reference_impl.tools``: what a tool declares, MCP names, the pool, deferral;
- ``reference_impl.permissions``: rules, settings, shell and path matching, the decision engine, the host decision;
- ``reference_impl.hooks``: the hook model, settings parsing, running and aggregating hooks, command hooks;
- ``reference_impl.search``: the ToolSearch tool and its rankers;
- ``reference_impl.request``: building a Messages API request: transcript, schema cache, cache keys, notices;
- ``reference_impl.execution``: one tool_use through the pipeline, the streaming scheduler, result budgets;
- ``reference_impl.sandbox``: the shell sandbox: settings, policy, the domain proxy, Bash inside bubblewrap;
- ``reference_impl.agent``: the agent loop, the MCP client, ``python -m reference_impl``.

Modules whose names start with ``_`` are implementation; CONTRIBUTING.md has the map.
"""

from __future__ import annotations

from reference_impl._wire import wire_bytes, wire_json
from reference_impl.agent import (
    AgentSession,
    ApiRequestError,
    LoopResult,
    McpConfigError,
    builtin_tools,
    connect_mcp_servers,
    load_mcp_config,
)
from reference_impl.execution import (
    DuplicateToolUseIdError,
    ExecutionContext,
    StreamingToolExecutor,
    run_tool_use,
    run_tool_uses,
)
from reference_impl.hooks import (
    CommandHook,
    HookCallback,
    HookConfigError,
    HookContext,
    HookMatcher,
    Hooks,
    hooks_from_settings,
)
from reference_impl.permissions import (
    PermissionContext,
    PermissionDecision,
    PermissionMode,
    PermissionRule,
    RuleSyntaxError,
    SettingsError,
    SettingSource,
    context_from_settings,
    decide_permission,
    load_settings,
    parse_rule,
)
from reference_impl.request import BuiltRequest, RequestBuilder, RequestRuleError, TranscriptEntry
from reference_impl.sandbox import SandboxedShell, sandbox_settings
from reference_impl.search import tool_search_tool
from reference_impl.tools import (
    Tool,
    ToolContext,
    ToolError,
    ToolInput,
    ToolOutput,
    ToolState,
    assemble_tool_pool,
    build_tool,
    mcp_tool,
)

__all__ = [
    "AgentSession",
    "ApiRequestError",
    "BuiltRequest",
    "CommandHook",
    "DuplicateToolUseIdError",
    "ExecutionContext",
    "HookCallback",
    "HookConfigError",
    "HookContext",
    "HookMatcher",
    "Hooks",
    "LoopResult",
    "McpConfigError",
    "PermissionContext",
    "PermissionDecision",
    "PermissionMode",
    "PermissionRule",
    "RequestBuilder",
    "RequestRuleError",
    "RuleSyntaxError",
    "SandboxedShell",
    "SettingSource",
    "SettingsError",
    "StreamingToolExecutor",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolInput",
    "ToolOutput",
    "ToolState",
    "TranscriptEntry",
    "assemble_tool_pool",
    "build_tool",
    "builtin_tools",
    "connect_mcp_servers",
    "context_from_settings",
    "decide_permission",
    "hooks_from_settings",
    "load_mcp_config",
    "load_settings",
    "mcp_tool",
    "parse_rule",
    "run_tool_use",
    "run_tool_uses",
    "sandbox_settings",
    "tool_search_tool",
    "wire_bytes",
    "wire_json",
]
