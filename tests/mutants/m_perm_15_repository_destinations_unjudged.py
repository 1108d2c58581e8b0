"""PERM-15 mutant: a repository under another name given as a destination is judged as a plain directory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "cp config mirror (a bare repository) and ln -s mirror L; cp f L/ run unasked in bypassPermissions: "
    "only the directories above a written path are asked whether git takes them for a repository, not "
    "the path itself, so a file put into the repository's directory lands in its config or hooks"
)


def _parents_only(original: Callable[[str, Path], str | None]) -> Callable[[str, Path], str | None]:
    def linked_reason(resolved: str, cwd: Path) -> str | None:
        reason = original(resolved, cwd)
        return None if reason is not None and reason.startswith(f"{resolved} is a git directory") else reason

    return linked_reason


adapter = make_factory(Patch("reference_impl.permissions._protected_paths", "linked_reason", _parents_only))
