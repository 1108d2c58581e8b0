"""PERM-17 mutant: ``python -m doctest x.txt`` reads no examples from the text file (before session 33)."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "python3 -m doctest x.txt runs the examples of x.txt unread: a deny rule's program they run "
    "runs unasked under Bash(python3:*)"
)

adapter = make_factory(
    Patch("reference_impl.permissions._project_files", "_doctest_files", lambda _original: lambda *_args: [])
)
