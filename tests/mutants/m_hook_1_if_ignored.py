"""Mutant: a hook handler's ``if`` is read but never consulted: the scoped hook runs on every call."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-1"
DESCRIPTION = (
    "'if' is parsed and kept but never matched: a deny hook scoped by \"Bash(git push *)\" denies "
    "every Bash call, an allow hook so scoped allows every one"
)


def _mutate(_original: Any) -> Any:
    def _condition_applies(*_args: Any, **_kwargs: Any) -> bool | None:
        return True  # the defect: every call of the matcher meets the rule

    return _condition_applies


adapter = make_factory(Patch("reference_impl.hooks._tool_events", "_condition_applies", _mutate))
