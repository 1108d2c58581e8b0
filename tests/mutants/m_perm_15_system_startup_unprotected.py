"""PERM-15 mutant: the protected list as before session 32, without system-wide copies and program start-up files."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "writes to /etc/gitconfig, /etc/profile.d/*, /etc/ld.so.preload, /etc/npmrc, ~/.gdbinit, fish conf.d, "
    "vim plugins, systemd user units, .pre-commit-config.yaml run unasked in bypassPermissions"
)

_ADDED = frozenset(
    {".gdbinit", ".config/gdb/gdbinit", ".lessfilter", ".dpkg.cfg", ".xsession", ".xsessionrc", ".xinitrc"}
    | {".xprofile", ".zlogout", ".bash_aliases", ".pam_environment", ".vim/vimrc", ".vim/gvimrc"}
    | {".pre-commit-config.yaml", "lefthook.yml", ".lefthook.yml", "lefthook-local.yml"}
    | {".config/git/attributes", "bash.bashrc", "bash.bash_logout", "csh.cshrc", "csh.login", "csh.logout"}
    | {"ssh/ssh_config", "postgresql-common/psqlrc", "ld.so.preload", "apt/apt.conf", "dpkg/dpkg.cfg"}
    | {"security/namespace.init"}
)


def _session_31(original: Any) -> Any:
    return frozenset(n for n in original if n not in _ADDED and not n.startswith("etc/"))


def _no_trees(_original: Any) -> tuple[tuple[str, ...], ...]:
    return ()


adapter = make_factory(
    Patch("reference_impl.permissions._protected_paths", "PROTECTED_FILES", _session_31),
    Patch("reference_impl.permissions._protected_paths", "TREE_SEGMENTS", _no_trees),
)
