"""PERM-15 mutant: the write check reads only the line, never the project files its tools run."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "make runs unasked in bypassPermissions when its recipe is touch .git/hooks/pre-commit (and bash run.sh "
    "when run.sh sources a helper that writes one): what a project tool runs from project files is not read"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._protected_paths",
        "_project_reason",
        rewrite(
            "    pending: list[tuple[str, list[str], int]] = [(command.source, places, 0)]\n",
            "    pending: list[tuple[str, list[str], int]] = []\n",
        ),
    )
)
