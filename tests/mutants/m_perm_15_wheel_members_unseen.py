"""PERM-15 mutant: a wheel pip installs under --target is taken to write nothing the line does not name."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "pip install --no-deps --target . x-1.0-py3-none-any.whl: a wheel runs no build code, and the "
    "members it installs (.claude/settings.json) are not listed as an archive's are"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._derived_names",
        "_pip_installed",
        rewrite("return [ArchiveMembers(wheel, places[-1][1]) for wheel in wheels]", "return []"),
    )
)
