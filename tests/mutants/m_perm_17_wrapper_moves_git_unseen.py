"""PERM-17 mutant: a wrapper's own change of directory (``env -C DIR git``) is not where git reads its configuration."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "env -C evil git status, sudo -D evil git status: the wrapper runs git in evil/, whose repository's "
    "core.fsmonitor runs a denied program, but only cd and git's own -C are taken to move git"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._rules",
        "git_directories",
        rewrite("if is_wrapper(base) else ()", "if False else ()"),
    )
)
