"""EXEC-5 mutant: a tool that returns an error result (instead of raising) gets the PostToolUse hooks."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "EXEC-5"
DESCRIPTION = (
    "Only a raised exception counts as a failure for the post hooks: an is_error result runs PostToolUse "
    "and never PostToolUseFailure"
)

# The executor calls run_tool_use through its module's global name, so the patch is seen everywhere.
adapter = make_factory(
    Patch(
        "reference_impl.execution._pipeline",
        "run_tool_use",
        rewrite("    if output.is_error:\n        post_fail", "    if False:\n        post_fail"),
    )
)
