"""Mutant: a Bash prefix rule is matched against the whole command line, not each command bash would run."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-11"
DESCRIPTION = "Bash(npm test:*) allows `npm test && rm -rf x`: the prefix is matched on the whole string"


def _mutate(original: Any) -> Any:
    del original

    def allow_units(command: Any, depth: int = 0) -> tuple[tuple[str, ...], ...]:
        del depth
        return ((command.source,),)

    return allow_units


adapter = make_factory(Patch("reference_impl.permissions._shell_rules", "allow_units", _mutate))
