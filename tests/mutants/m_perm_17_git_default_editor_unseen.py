"""PERM-17 mutant: git's editor is seen only where an option asks for it, not where git opens it by default."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "Bash(editor:*) misses git commit --allow-empty, git merge, git revert (no message on the line: git "
    "opens the editor git var GIT_EDITOR names, editor on Debian): only -e/--edit and the like are read"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._git_started",
        "_opens_editor",
        rewrite("    return sub in _BY_DEFAULT and not message\n", "    return False\n"),
    )
)
