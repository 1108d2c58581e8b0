"""CONC-3 mutant: an MCP tool its server marks ``destructiveHint: false`` is taken as read-only."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CONC-3"
DESCRIPTION = (
    "an MCP tool is read-only, so concurrency safe, when its server marks it `readOnlyHint: true` or "
    "`destructiveHint: false`: a tool that writes without destroying (`readOnlyHint: false` spelled out) "
    "runs beside the batch's other calls"
)

_NOT_DESTRUCTIVE = rewrite(
    'read_only = annotations.get("readOnlyHint") is True',
    'read_only = annotations.get("readOnlyHint") is True or annotations.get("destructiveHint") is False',
)

# The reference adapter and the MCP client each wrap listed tools with the mcp_tool they imported.
adapter = make_factory(
    Patch("pytest_toolharness.adapters.reference._tools", "mcp_tool", _NOT_DESTRUCTIVE),
    Patch("reference_impl.agent._mcp_client", "mcp_tool", _NOT_DESTRUCTIVE),
)
