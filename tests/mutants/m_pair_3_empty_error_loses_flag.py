"""PAIR-3 mutant: a failure whose output is empty gets the failure text but loses its is_error flag."""

from __future__ import annotations

from typing import Any

from reference_impl.execution import is_result_content_empty
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PAIR-3"
DESCRIPTION = (
    "an error output that is empty (blank text, no blocks, blank blocks) becomes "
    "'(<Tool> failed with no output)' but is sent without is_error: the flag was set only when "
    "there was output to flag"
)


def _mutate(original: Any) -> Any:
    def map_tool_output(tool_name: str, output: Any, tool_use_id: str) -> Any:
        result = dict(original(tool_name, output, tool_use_id))
        if getattr(output, "is_error", False) and is_result_content_empty(output.content):
            result.pop("is_error", None)
        return result

    return map_tool_output


adapter = make_factory(Patch("reference_impl.execution._pipeline", "map_tool_output", _mutate))
