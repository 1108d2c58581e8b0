"""PERM-17 mutant: a package named on the line from a path, archive or repository is taken for a registry one."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "under Bash(nuke:*) denied, `npm install ./dep` (or ./x.tgz, x@file:../d, git+ssh://...) runs that"
    " package's preinstall unasked: only package.json's own scripts and dependencies are considered"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._project_files",
        "npm_spec_from_source",
        lambda _original: lambda *_args: False,
    ),
)
