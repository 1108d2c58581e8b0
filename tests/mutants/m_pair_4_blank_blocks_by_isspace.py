"""Mutant: a text block counts as blank only when ``str.isspace()`` says so, which is False for ``""``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PAIR-4"
DESCRIPTION = (
    "the blank-block test uses text.isspace() instead of text.strip() == '': a list of text blocks "
    "whose text is '' is not empty, so the tool_result goes out with empty text blocks and no placeholder"
)


def _mutate(original: Any) -> Any:
    def is_result_content_empty(content: object) -> bool:
        if isinstance(content, Sequence) and not isinstance(content, str):
            return all(
                isinstance(block, Mapping)
                and block.get("type") == "text"
                and (not isinstance(block.get("text"), str) or block["text"].isspace())
                for block in content
            )
        return bool(original(content))

    return is_result_content_empty


adapter = make_factory(Patch("reference_impl.execution._results", "is_result_content_empty", _mutate))
