"""PERM-17 mutant: a runner of the project's own code (ctest, ninja, prove, rspec, gradle) runs nothing unread (before session 33)."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "a test runner or build tool runs the project's files (CTestTestfile.cmake, build.ninja, t/*.t) unread: "
    "a deny rule's program they run runs unasked under Bash(ctest:*)"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._project_files",
        "_runners",
        rewrite(
            "found = [(why, NOT_READ)] if why is not None else []",
            "found = []",
        ),
    )
)
