"""PERM-15 mutant: a path naming the shell's own state is resolved in the engine's process."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "cd .git && echo x >> /proc/self/cwd/config, exec 3<.git; echo x >> /dev/fd/3/config run unasked in "
    "bypassPermissions: /proc/self and /dev/fd are read in the engine's process (its cwd, its descriptors), "
    "not the shell's"
)


def _unread(_original: object) -> object:
    def shell_state(_path: str) -> None:
        return None

    return shell_state


adapter = make_factory(
    Patch("reference_impl.permissions._paths", "shell_state", _unread),
    Patch("reference_impl.permissions._protected_paths", "shell_state", _unread),
)
