"""Mutant: a PreToolUse hook's allow lifts the JSON deny of a hook declared before it."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-2"
DESCRIPTION = "a later hook's allow overrides an earlier hook's deny on the same call (first deny not kept)"


def _mutate(original: Any) -> Any:
    def sift(self: Any, event: str, runs: Sequence[Any], parse: Callable[..., Any]) -> Iterator[Any]:
        items = list(original(self, event, runs, parse))
        if event != "PreToolUse":
            yield from items
            return

        def behavior(parsed: Any) -> Any:
            return parsed[0] if isinstance(parsed, tuple) else None

        last_allow = max((i for i, (_, p) in enumerate(items) if behavior(p) == "allow"), default=-1)
        for i, (label, parsed) in enumerate(items):
            if behavior(parsed) == "deny" and i < last_allow:
                continue  # "the later hook allowed it"
            yield label, parsed

    return sift


adapter = make_factory(Patch("reference_impl.hooks._runner", "OutputCollector.sift", _mutate))
