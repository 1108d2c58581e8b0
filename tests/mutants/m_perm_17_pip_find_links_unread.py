"""PERM-17 mutant: pip's --find-links and a local index are skipped as values: their sdists' builds unread."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "pip install --no-index -f ./d x (a requirements file's --find-links): the option's value is skipped, "
    "so the sdist pip finds there and builds, its build backend running, is not read"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._project_files",
        "pip_builds_local_project",
        rewrite("in pip_local_finders(words) if command", "in () if command"),
    )
)
