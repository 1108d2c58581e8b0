"""EXEC-5 mutant: a PostToolUse hook's updatedMCPToolOutput replaces a built-in tool's output too."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "EXEC-5"
DESCRIPTION = (
    "updatedMCPToolOutput is applied whatever the tool: a hook rewrites what the model sees of a "
    "built-in tool's output (a Bash or Read result) through the MCP-only field"
)

adapter = make_factory(
    Patch(
        "reference_impl.hooks._tool_events",
        "_run_post",
        rewrite("is_mcp = parse_mcp_name(tool_name) is not None", "is_mcp = True"),
    )
)
