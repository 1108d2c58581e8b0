"""Mutant: the auto:N estimate counts the deferred tools' descriptions and schemas, not their names."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "DEFER-8"
DESCRIPTION = (
    "the character estimate of auto:N leaves out each tool's name, so a pool that reaches N% of the "
    "window exactly (or by a few names' worth) keeps tool search off"
)


def _mutate(original: Any) -> Any:
    def schema_chars(param: Any) -> int:
        return int(original(param)) - len(param["name"])  # BUG: the name is sent too

    return schema_chars


adapter = make_factory(Patch("reference_impl.tools._defer", "_schema_chars", _mutate))
