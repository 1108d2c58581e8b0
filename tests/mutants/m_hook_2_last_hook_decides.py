"""Mutant: of several PreToolUse hooks that decide, the last one in declaration order wins."""

from __future__ import annotations

import itertools
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-2"
DESCRIPTION = "each PreToolUse hook's decision overwrites the one before: the last deciding hook wins"


class _LaterRanksHigher(dict[str, int]):
    """Ranks each decision above every one looked at before it, so ``max`` picks the last one."""

    def __init__(self, original: dict[str, int]) -> None:
        super().__init__(original)
        self._order = itertools.count()

    def __getitem__(self, key: str) -> int:
        return next(self._order)


def _mutate(original: Any) -> Any:
    return _LaterRanksHigher(original)


adapter = make_factory(Patch("reference_impl.hooks._tool_events", "_RANK", _mutate))
