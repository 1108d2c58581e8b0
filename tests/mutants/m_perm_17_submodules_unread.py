"""Mutant: a repository's submodules are taken to have no configuration of their own."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "git status under an allow rule for git runs the denied program a submodule's own config names "
    "(core.fsmonitor in .git/modules/sm/config), unasked: only the superproject's configuration is read"
)


def _mutate(_original: Any) -> Any:
    def _submodule_commands(_git_dir: str, _directory: str, _watched: list[str]) -> list[Any]:
        return []

    return _submodule_commands


adapter = make_factory(Patch("reference_impl.permissions._repository_config", "_submodule_commands", _mutate))
