"""PAIR-3 mutant: an error output that is empty is sent as the success placeholder, without is_error."""

from __future__ import annotations

from typing import Any

from reference_impl import ToolOutput
from reference_impl.execution._results import empty_output_placeholder, is_result_content_empty
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PAIR-3"
DESCRIPTION = (
    "The placeholder decides the flag: an error output with nothing in it (an empty or whitespace "
    "error result) becomes '(<Tool> completed with no output)' and loses is_error"
)


def _placeholder_wins(original: Any) -> Any:
    def map_tool_output(tool_name: str, output: ToolOutput | str, tool_use_id: str) -> Any:
        result = original(tool_name, output, tool_use_id)
        if isinstance(output, ToolOutput) and output.is_error and is_result_content_empty(output.content):
            return {
                "type": "tool_result",
                "tool_use_id": tool_use_id,
                "content": empty_output_placeholder(tool_name),
            }
        return result

    return map_tool_output


adapter = make_factory(Patch("reference_impl.execution._pipeline", "map_tool_output", _placeholder_wins))
