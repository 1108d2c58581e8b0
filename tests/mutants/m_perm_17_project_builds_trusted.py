"""PERM-17 mutant: a build of the project on disk (pip install ., cargo build) is read as running nothing."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "pip install ., pip wheel -e ., python3 -m pip install -r requirements.txt (-e .) and cargo build are "
    "allowed beside Bash(nuke:*) deny although setup.py, an in-tree backend or build.rs runs nuke"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._project_files",
        "pip_builds_local_project",
        lambda _original: lambda command, words, cwd, depth=0: None,
    ),
    Patch(
        "reference_impl.permissions._project_files",
        "cargo_runs_project_code",
        lambda _original: lambda command, cwd: None,
    ),
)
