"""EXEC-2 mutant: the host approves with an updated input, but the call runs with the original one."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "EXEC-2"
DESCRIPTION = (
    "The host's updated_input is ignored on approval: the call runs (and is judged) with the original input"
)


def _ignore_update(original: Any) -> Any:
    def _approve(
        tool: Any, tool_input: Mapping[str, Any], updated: Any, ctx: Any, tool_context: Any, reason: Any
    ) -> Any:
        return original(tool, tool_input, None, ctx, tool_context, reason)

    return _approve


adapter = make_factory(Patch("reference_impl.execution._asks", "_approve", _ignore_update))
