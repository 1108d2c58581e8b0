"""Mutant: a hook with no matcher at all selects only built-in tools, never an MCP tool."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-1"
DESCRIPTION = (
    "a hook whose matcher key is missing runs for every built-in tool but for no mcp__server__tool "
    "('' and '*' still match all): a missing matcher was read as 'every tool of the harness'"
)


def _mutate(original: Any) -> Any:
    def compile_matcher(matcher: str | None) -> Callable[[str], bool]:
        predicate: Callable[[str], bool] = original(matcher)
        if matcher is None:
            return lambda name: not name.startswith("mcp__")
        return predicate

    return compile_matcher


adapter = make_factory(Patch("reference_impl.hooks._model", "compile_matcher", _mutate))
