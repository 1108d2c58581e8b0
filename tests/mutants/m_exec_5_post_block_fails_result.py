"""EXEC-5 mutant: a PostToolUse block turns the tool's successful result into an error."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "EXEC-5"
DESCRIPTION = (
    "A PostToolUse block marks the call's own successful tool_result is_error (the block reason still sent)"
)

adapter = make_factory(
    Patch(
        "reference_impl.execution._pipeline",
        "run_tool_use",
        rewrite(
            "        if post.block_messages or post.additional_contexts:\n",
            "        if post.block_messages:\n"
            "            output = ToolOutput(content=output.content, is_error=True)\n"
            "        if post.block_messages or post.additional_contexts:\n",
        ),
    )
)
