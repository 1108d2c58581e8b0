"""EXEC-3 mutant: a deprecated tool-name alias is not resolved (an unknown-tool error instead)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "EXEC-3"
DESCRIPTION = "Tool lookup matches exact names only, so a tool_use naming a renamed tool's old alias fails"


def _exact_only(original: Any) -> Any:
    def find_tool_by_name(tools: Sequence[Any], name: str, *, use_aliases: bool = True) -> Any:
        return original(tools, name, use_aliases=False)

    return find_tool_by_name


adapter = make_factory(Patch("reference_impl.execution._context", "find_tool_by_name", _exact_only))
