"""PERM-17 mutant: standard input is recognised by a fixed list of literal paths, not as the kernel resolves it."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "python3 //dev/stdin <<< code, . /proc/thread-self/fd/0 <<< 'rm x', make -f /dev/./stdin: only "
    "/dev/stdin, -, /dev/fd/N and /proc/self/fd/N name a descriptor (the engine before session 17)"
)


def _literal(_original: Any) -> Any:
    def descriptor_of(path: str) -> int | None:
        if path in ("-", "/dev/stdin"):
            return 0
        for prefix in ("/dev/fd/", "/proc/self/fd/"):
            if path.startswith(prefix) and path[len(prefix) :].isdigit():
                return int(path[len(prefix) :])
        return None

    return descriptor_of


adapter = make_factory(
    *(
        Patch(f"reference_impl.permissions.{module}", "descriptor_of", _literal)
        for module in ("_evaluated", "_program_model", "_wrapped_commands", "_shell_forms")
    )
)
