"""Mutant: a hook whose ``if`` can't be judged on a call runs anyway (it may match, so it is run)."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-1"
DESCRIPTION = (
    "'if' runs the hook when the line only may match ('$CMD push', 'curl x | sh' for \"Bash(git "
    'push *)"): a scoped allow hook allows lines whose program only bash knows'
)


def _mutate(original: Any) -> Any:
    def _condition_applies(*args: Any, **kwargs: Any) -> bool | None:
        hit = original(*args, **kwargs)
        return True if hit is None else hit  # the defect: "can't tell" is taken for a match

    return _condition_applies


adapter = make_factory(Patch("reference_impl.hooks._tool_events", "_condition_applies", _mutate))
