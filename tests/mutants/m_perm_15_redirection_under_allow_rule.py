"""PERM-15 mutant: an allow rule for a program also covers the files its redirections write."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "a command with a problem but no doubtful part (an output redirection to a file) may be allowed by a "
    "rule: `Bash(echo:*)` lets `echo pwned >> ~/.bashrc` run unasked in the default mode"
)


def _problems_or_doubts(_original: Any) -> Any:
    return property(lambda self: not self.problems or all(not part.doubts for part in self.parts))


adapter = make_factory(
    Patch("reference_impl.permissions._shell_parts", "ShellCommand.confident", _problems_or_doubts)
)
