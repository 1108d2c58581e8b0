"""PERM-15 mutant: the protected names as before session 33, without the harness's and programs' start-up files."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "writes to ~/.claude.json (mcpServers), /etc/claude-code/managed-settings.json, ~/.mavenrc and "
    "~/.ipython/profile_default/startup/*.py run unasked in bypassPermissions"
)


def _without_files(original: Any) -> Any:
    return frozenset(original) - {".claude.json", ".mavenrc", "etc/mavenrc"}


def _without_directories(original: Any) -> Any:
    return frozenset(original) - {".ipython", ".jupyter"}


def _without_trees(original: Any) -> Any:
    return tuple(t for t in original if t[:1] not in (("etc", "claude-code"), ("Library",)))


adapter = make_factory(
    Patch("reference_impl.permissions._protected_paths", "PROTECTED_FILES", _without_files),
    Patch("reference_impl.permissions._protected_paths", "PROTECTED_DIRECTORIES", _without_directories),
    Patch("reference_impl.permissions._protected_paths", "TREE_SEGMENTS", _without_trees),
)
