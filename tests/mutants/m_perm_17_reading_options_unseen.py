"""Mutant: ``set`` and ``shopt`` options that change how bash reads the next lines are not seen."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "'set -o history -H' then a line with '!!' brings back an earlier line's quoted '$(rm x)' unquoted; "
    "the engine reads every set/shopt option as harmless (the reference before session 30)"
)


def _mutate(_original: Any) -> Any:
    def _reading_option(name: str, args: Any) -> str | None:
        return None  # the defect: no option changes how the line is read

    return _reading_option


adapter = make_factory(Patch("reference_impl.permissions._evaluated", "_reading_option", _mutate))
