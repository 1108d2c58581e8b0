"""PERM-17 mutant: programs that run their arguments as a command (flock, su -c, ssh, busybox, ...) are not wrappers."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory
from tests.mutants._permission_rules import TRUST_UNREAD

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "Bash(rm:*) misses flock /tmp/l rm, su -c 'rm x', ssh host 'rm x', busybox rm: only the classic"
    " wrappers (env, sudo, timeout, nice, xargs, ...) are looked through"
)

_CLASSIC = frozenset(
    {
        "time",
        "nice",
        "timeout",
        "nohup",
        "stdbuf",
        "env",
        "sudo",
        "doas",
        "xargs",
        "exec",
        "command",
        "builtin",
    }
)


def _classic_only(original: dict[str, Any]) -> dict[str, Any]:
    return {name: spec for name, spec in original.items() if name in _CLASSIC}


adapter = make_factory(
    TRUST_UNREAD,
    Patch("reference_impl.permissions._wrapped_commands", "_WRAPPERS", _classic_only),
    Patch(
        "reference_impl.permissions._shell_forms",
        "wrapper_scripts",
        lambda _original: lambda *_args: iter(()),
    ),
)
