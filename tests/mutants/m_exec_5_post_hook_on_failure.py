"""EXEC-5 mutant: PostToolUse hooks fire after failures too (PostToolUseFailure never fires)."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "EXEC-5"
DESCRIPTION = (
    "A failed call runs the PostToolUse hooks (with the error as the response) instead of PostToolUseFailure"
)


def _post_for_failure(_original: Any) -> Any:
    async def run_post_tool_use_failure(
        hooks: Any, *, tool_name: str, tool_input: Any, tool_use_id: str, error: str, base: Any
    ) -> Any:
        from reference_impl.execution import _pipeline as _execution

        # The PostToolUse runner the pipeline itself uses.
        run_post_tool_use = getattr(_execution, "run_post_tool_use")  # noqa: B009
        return await run_post_tool_use(
            hooks,
            tool_name=tool_name,
            tool_input=tool_input,
            tool_use_id=tool_use_id,
            tool_response=error,
            base=base,
        )

    return run_post_tool_use_failure


adapter = make_factory(
    Patch("reference_impl.execution._pipeline", "run_post_tool_use_failure", _post_for_failure)
)
