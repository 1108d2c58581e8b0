"""PERM-15 mutant: /proc/thread-self is taken for one level, like /proc/self."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "cd .git/hooks && echo x > /proc/thread-self/../../cwd/pre-commit runs unasked in bypassPermissions: "
    "/proc/thread-self (``<pid>/task/<tid>``, two levels) is walked as one, so climbing out of it twice "
    "is read as /cwd where the kernel reaches the shell's own directory"
)


def _one_level(original: Callable[..., Any]) -> Callable[..., Any]:
    def walked_as_self(path: str, *args: Any) -> Any:
        return original(path.replace("/thread-self", "/self"), *args)

    return walked_as_self


adapter = make_factory(
    Patch("reference_impl.permissions._paths", "_walk", _one_level),
    Patch("reference_impl.permissions._paths", "shell_state", _one_level),
    Patch("reference_impl.permissions._protected_paths", "shell_state", _one_level),
)
