"""Mutant: a Bash prefix rule is matched against the whole command line, not each part."""

from __future__ import annotations

from typing import Any

from reference_impl.permissions._shell import match_shell_pattern
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-11"
DESCRIPTION = "Bash(npm test:*) allows `npm test && rm -rf x`: the prefix is matched on the whole string"


def _mutate(original: Any) -> Any:
    del original

    def matches_part(rule: Any, command: Any, index: int) -> bool:
        return match_shell_pattern(rule.content, command.source)

    return matches_part


adapter = make_factory(Patch("reference_impl.permissions._engine", "rule_matches_shell_part", _mutate))
