"""EXEC-1 mutant: the permission stage is handed the tool_use block where the call's input belongs."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "EXEC-1"
DESCRIPTION = (
    "the pipeline passes the whole tool_use block (`id`, `name`, `input`) to the permission stage: a "
    "content rule finds no command in it, so `Bash(echo:*)` never allows `echo hi` and `Bash(rm:*)` never "
    "denies `rm -rf hi`"
)

adapter = make_factory(
    Patch(
        "reference_impl.execution._pipeline",
        "run_tool_use",
        rewrite(
            "tool, tool_input, ctx.permission_context, hook_verdict=pre.verdict",
            "tool, cast(Mapping[str, Any], block), ctx.permission_context, hook_verdict=pre.verdict",
        ),
    )
)
