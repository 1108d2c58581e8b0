"""PERM-15 mutant: only the spellings a list names count as a change of directory before a relative write."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "builtin pushd .git && echo x > config, c=cd; $c .git; ..., eval cd .git; ... run unasked in "
    "bypassPermissions: only cd, pushd, popd, builtin cd and command cd are taken for a move"
)


def _listed(_original: object) -> object:
    def may_change_directory(part: object) -> bool:
        argv = part.argv  # type: ignore[attr-defined]
        return argv[:1] in (("cd",), ("pushd",), ("popd",)) or argv[:2] in (
            ("builtin", "cd"),
            ("command", "cd"),
        )

    return may_change_directory


adapter = make_factory(Patch("reference_impl.permissions._protected_paths", "_may_change_directory", _listed))
