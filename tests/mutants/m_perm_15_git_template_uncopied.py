"""PERM-15 mutant: what git init / git clone copy into the new git directory from the line's data is unseen."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "git init --template=tpl (or -c init.templateDir=tpl, GIT_TEMPLATE_DIR) copies tpl/hooks/pre-commit "
    "into .git/hooks, git clone -c core.fsmonitor=... writes the clone's configuration, unasked in "
    "bypassPermissions"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._line_writes",
        "derived_names",
        rewrite(
            "for template, git_directory in new_repository_writes(args, assignments, line_source)",
            "for template, git_directory in []",
        ),
    )
)
