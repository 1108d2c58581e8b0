"""RESULT-1 mutant: an MCP tool's size limit is read from ``_meta`` under the wrong key, so never."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "RESULT-1"
DESCRIPTION = (
    "the MCP client reads `_meta.maxResultSizeChars`, not `anthropic/maxResultSizeChars`: the limit an MCP "
    "server declares for its tool is ignored and the default 50,000 applies"
)

_UNPREFIXED = rewrite(
    "_listed_limit(meta.get(MCP_MAX_RESULT_SIZE_META))", '_listed_limit(meta.get("maxResultSizeChars"))'
)

# The reference adapter and the MCP client each wrap listed tools with the mcp_tool they imported.
adapter = make_factory(
    Patch("pytest_toolharness.adapters.reference._tools", "mcp_tool", _UNPREFIXED),
    Patch("reference_impl.agent._mcp_client", "mcp_tool", _UNPREFIXED),
)
