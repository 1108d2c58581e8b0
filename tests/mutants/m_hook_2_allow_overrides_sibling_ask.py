"""Mutant: among several PreToolUse hooks, an allow and an ask rank equal, so the first one wins."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-2"
DESCRIPTION = "one hook's allow overrides another hook's ask on the same call (ask not more restrictive)"


def _mutate(original: Any) -> Any:
    return {**original, "ask": original["allow"]}


adapter = make_factory(Patch("reference_impl.hooks._tool_events", "_RANK", _mutate))
