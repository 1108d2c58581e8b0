"""PAIR-4 mutant: empty tool output is sent as empty content (no placeholder)."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PAIR-4"
DESCRIPTION = (
    "The emptiness check only catches None, so an empty string or [] is sent as empty tool_result content"
)


def _only_none(_original: Any) -> Any:
    def is_result_content_empty(content: object) -> bool:
        return content is None

    return is_result_content_empty


adapter = make_factory(Patch("reference_impl.execution._results", "is_result_content_empty", _only_none))
