"""PERM-15 mutant: the working-directory check reads a path as written, not where its symlinks lead."""

from __future__ import annotations

from typing import Any

from reference_impl.permissions._paths import is_within, lexical_path
from reference_impl.permissions._protected_paths import protected_reason
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = "_in_working_dirs tests the lexical path, so a write through a symlink inside the project that points outside it passes blockWritesOutsideWorkingDirectories (and acceptEdits auto-allows it)"


def _lexical(original: Any) -> Any:
    def _in_working_dirs(target: Any, context: Any, *, for_edit: bool = False) -> bool:
        try:
            path = lexical_path(target.value, context.cwd) if target.value.strip() else ""
        except (OSError, ValueError):
            return False
        if not path or (for_edit and protected_reason(target.value, context.cwd) is not None):
            return False
        return is_within(path, context.working_dirs)

    return _in_working_dirs


adapter = make_factory(Patch("reference_impl.permissions._engine", "_in_working_dirs", _lexical))
