"""PERM-15 mutant: ``git -C DIR config --file F`` is taken to write F where the line is, not under DIR."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "git -C .git config --file config core.fsmonitor nuke runs unasked in bypassPermissions: "
    "the file git opens after its own change of directory is judged where the shell is"
)


def _unmoved(_original: object) -> object:
    def in_directory(_directory: str, path: str) -> str:
        return path

    return in_directory


adapter = make_factory(Patch("reference_impl.permissions._line_writes", "_in_directory", _unmoved))
