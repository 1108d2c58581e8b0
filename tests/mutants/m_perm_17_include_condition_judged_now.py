"""PERM-17 mutant: git's conditional includes are judged as their conditions hold now, not whatever they are."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    'git checkout -q o && git status runs the denied program an [includeIf "onbranch:o"] file\'s core.fsmonitor'
    " names, unasked under Bash(nuke:*) deny: only the includes git follows in the repository as it is now are"
    " read (the red team's onbranch:/hasconfig: bypass), and a missing included file the line writes is not watched"
)


def _mutate(_original: Any) -> Any:
    def _included_commands(
        _includes: list[Any], _directory: str, _watched: list[str]
    ) -> tuple[list[Any], ...]:
        return [], [], []

    return _included_commands


adapter = make_factory(Patch("reference_impl.permissions._repository_config", "_included_commands", _mutate))
