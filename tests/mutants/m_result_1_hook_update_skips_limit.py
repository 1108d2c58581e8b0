"""RESULT-1 mutant: a PostToolUse hook's replacement output is sent whole, past the size limit."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "RESULT-1"
DESCRIPTION = (
    "The size limit is applied to the tool's own output only: a PostToolUse hook's updatedMCPToolOutput "
    "goes to the model inline whatever its size, never persisted"
)

adapter = make_factory(
    Patch(
        "reference_impl.execution._pipeline",
        "run_tool_use",
        rewrite(
            "result = maybe_persist_large_result(result, tool, ctx.session_dir, ctx.replacement_state)",
            "result = (\n            result\n            if 'post' in locals() and post.updated_mcp_tool_output is not None\n"
            "            else maybe_persist_large_result(result, tool, ctx.session_dir, ctx.replacement_state)\n"
            "        )",
        ),
    )
)
