"""PERM-15 mutant: ``git config KEY VALUE`` is not taken to write git's configuration."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "in bypassPermissions, `git config core.hooksPath /tmp/h` is auto-allowed: git writes .git/config "
    "without naming it, and the walk counts only the files a line names"
)


def _writes_nothing(original: Any) -> Any:
    return lambda _args: []


adapter = make_factory(
    Patch("reference_impl.permissions._line_writes", "_git_config_targets", _writes_nothing)
)
