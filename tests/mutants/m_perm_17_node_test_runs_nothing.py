"""PERM-17 mutant: ``node --test`` is read as running nothing of the line, as ``--help`` is (before session 33)."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "node --test runs the test files node finds (test/x.js, x.test.js) unread: a deny rule's program "
    "they run runs unasked under Bash(node:*)"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._interpreter_options",
        "_node",
        rewrite(
            'if option in ("--help", "--version", "-h", "-v"):',
            'if option in ("--help", "--version", "-h", "-v", "--test"):',
        ),
    )
)
